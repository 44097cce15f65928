package selectsnap

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// replayFixture is a session recorded with the real client by
// cmd/e2e_clientfacts_test.go (TestE2ERecordSelectionFixture): see its
// README.
const replayFixture = "testdata/cc2.1.328-three-compactions"

type replayRun struct {
	Event    string `json:"hook_event_name"`
	Source   string `json:"source"`
	PromptID string `json:"prompt_id"`
	Probe    struct {
		At   time.Time `json:"at"`
		Size int64     `json:"size"`
	} `json:"_probe"`
}

type replaySession struct {
	sid, path  string
	transcript []byte
	lineEnds   []int64 // offsets just past each '\n'
	boundaries []int64
	records    []*snapshot.Record // oldest first
	// origBoundaries are the boundaries of the transcript as recorded,
	// for a session relaid.
	origBoundaries []int64
	deliveries     map[string][]byte
	pre, start     []replayRun
}

func loadReplay(t *testing.T) *replaySession {
	t.Helper()
	var h struct {
		SessionID      string      `json:"session_id"`
		TranscriptPath string      `json:"transcript_path"`
		Runs           []replayRun `json:"runs"`
	}
	b, err := os.ReadFile(filepath.Join(replayFixture, "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	s := &replaySession{sid: h.SessionID, path: h.TranscriptPath, deliveries: map[string][]byte{}}
	for _, r := range h.Runs {
		switch {
		case r.Event == "PreCompact":
			s.pre = append(s.pre, r)
		case r.Event == "SessionStart" && r.Source == "compact":
			s.start = append(s.start, r)
		}
	}
	gz, err := os.ReadFile(filepath.Join(replayFixture, "transcript.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if s.transcript, err = io.ReadAll(zr); err != nil {
		t.Fatal(err)
	}
	var off int64
	for _, line := range bytes.SplitAfter(s.transcript, []byte("\n")) {
		if transcript.IsBoundaryLine(bytes.TrimSuffix(line, []byte("\n"))) {
			s.boundaries = append(s.boundaries, off)
		}
		off += int64(len(line))
		if bytes.HasSuffix(line, []byte("\n")) {
			s.lineEnds = append(s.lineEnds, off)
		}
	}
	ents, err := os.ReadDir(filepath.Join(replayFixture, "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(replayFixture, "snapshots", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if base, ok := strings.CutSuffix(e.Name(), snapshot.DeliverySuffix); ok {
			s.deliveries[base] = data
			continue
		}
		var r snapshot.Record
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		s.records = append(s.records, &r)
	}
	sort.Slice(s.records, func(i, j int) bool { return s.records[i].CreatedAt.Before(s.records[j].CreatedAt) })
	return s
}

// lay writes the snapshot folder as it stood when the k-th compaction's
// SessionStart ran (k from 1): the first k records, the k-th not yet
// confirmed by PostCompact, and the deliveries of the earlier ones. Without
// own, the k-th record is left out, as when its PreCompact never ran.
func (s *replaySession) lay(t *testing.T, dir string, k int, own bool) {
	t.Helper()
	for i, r := range s.records[:k] {
		if i == k-1 && !own {
			continue
		}
		c := *r
		if i == k-1 {
			c.Compaction = nil
		}
		data, _ := json.Marshal(&c)
		if err := os.WriteFile(filepath.Join(dir, c.Name+".json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.Name+".md"), []byte("# snapshot\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if d, ok := s.deliveries[c.Name]; ok && i < k-1 {
			if err := os.WriteFile(snapshot.DeliveryPath(dir, c.Name), d, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// spec: SS-13, TR-56
// The recorded session is cut at every line end at which the k-th
// compaction's SessionStart(compact) could have run: from where its
// PreCompact read the transcript to the end of what the client wrote for
// it (the boundary, summary, command echo and hook records included; up to
// the next PreCompact, or the next turn's first entry). At each, selection
// picks the k-th snapshot, checked by the transcript; without the k-th
// snapshot it picks none. The same again with the transcript in another
// JSON layout.
func TestReplayRecordedSession(t *testing.T) {
	for _, layout := range []string{"as recorded", "python"} {
		t.Run(layout, func(t *testing.T) { replay(t, layout != "as recorded") })
	}
}

// replay runs TestReplayRecordedSession, with every line of the transcript
// written again in another valid JSON layout when relaid (TR-56), every
// offset the records, deliveries and probes hold moved with its line.
func replay(t *testing.T, relaid bool) {
	s := loadReplay(t)
	move := func(off int64) int64 { return off }
	var orig []byte
	if relaid {
		s, orig, move = s.relaid(t)
	}
	n := len(s.pre)
	if n < 3 || len(s.start) != n || len(s.records) != n || len(s.boundaries) != n {
		t.Fatalf("fixture: %d PreCompact, %d SessionStart, %d records, %d boundaries; want the same, at least 3",
			n, len(s.start), len(s.records), len(s.boundaries))
	}
	tmp := t.TempDir()
	cut := filepath.Join(tmp, "cut.jsonl")
	cuts := 0
	for k := 1; k <= n; k++ {
		rec, start := s.records[k-1], s.start[k-1]
		// The client's writes for the compaction end where the next turn
		// begins (its queue-operation entry) or the next PreCompact read.
		lo, hi := rec.Coverage.TranscriptSize, int64(len(s.transcript))
		if k < n {
			hi = s.pre[k].Probe.Size
		}
		if relaid {
			// Where the next turn begins is read off the transcript as
			// recorded, and moved.
			if i := bytes.Index(orig[s.origBoundaries[k-1]:], []byte(`"type":"queue-operation"`)); i >= 0 {
				hi = min(hi, move(int64(bytes.LastIndexByte(orig[:s.origBoundaries[k-1]+int64(i)], '\n'))+1))
			}
		} else if i := bytes.Index(s.transcript[s.boundaries[k-1]:], []byte(`"type":"queue-operation"`)); i >= 0 {
			hi = min(hi, int64(bytes.LastIndexByte(s.transcript[:s.boundaries[k-1]+int64(i)], '\n'))+1)
		}
		if lo > start.Probe.Size || start.Probe.Size > hi || s.boundaries[k-1] >= hi {
			t.Fatalf("compaction %d: snapshot at %d, SessionStart at %d, boundary at %d, end %d: not in order", k, lo, start.Probe.Size, s.boundaries[k-1], hi)
		}
		for _, end := range s.lineEnds {
			if end < lo || end > hi {
				continue
			}
			cuts++
			if err := os.WriteFile(cut, s.transcript[:end], 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := transcript.Open(cut)
			if err != nil {
				t.Fatal(err)
			}
			for _, own := range []bool{true, false} {
				dir, err := os.MkdirTemp(tmp, "snaps")
				if err != nil {
					t.Fatal(err)
				}
				s.lay(t, dir, k, own)
				got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: s.sid, Now: start.Probe.At,
					TranscriptPath: s.path, PromptID: start.PromptID, Transcript: f})
				switch {
				case err != nil:
					t.Fatalf("compaction %d, cut at %d: %v", k, end, err)
				case own && (got == nil || got.Record.Name != rec.Name || got.Unverified != ""):
					t.Errorf("compaction %d, cut at %d (boundary at %d): chose %+v, want %s; rejected %v", k, end, s.boundaries[k-1], got, rec.Name, rej)
				case !own && got != nil:
					t.Errorf("compaction %d without its snapshot, cut at %d: chose %s; want none", k, end, got.Record.Name)
				}
			}
			f.Close()
		}
	}
	t.Logf("%d compactions, %d cut points, each with and without its own snapshot", n, cuts)
}

// relaid is the session with its transcript in another JSON layout
// (transcripttest.Relayout), and every offset moved with its line; it
// returns the transcript as recorded and the move.
func (s *replaySession) relaid(t *testing.T) (*replaySession, []byte, func(int64) int64) {
	t.Helper()
	out, starts := transcripttest.RelayoutLines(s.transcript, 56)
	move := func(off int64) int64 {
		n, ok := starts[off]
		if !ok {
			t.Fatalf("offset %d is not a line start", off)
		}
		return n
	}
	m := &replaySession{sid: s.sid, path: s.path, transcript: out, deliveries: map[string][]byte{}, origBoundaries: s.boundaries}
	for _, e := range s.lineEnds {
		m.lineEnds = append(m.lineEnds, move(e))
	}
	for _, b := range s.boundaries {
		m.boundaries = append(m.boundaries, move(b))
	}
	for _, r := range s.records {
		c := *r
		c.Coverage.TranscriptSize = move(c.Coverage.TranscriptSize)
		if c.Compaction != nil {
			cc := *c.Compaction
			if cc.TranscriptSize > 0 {
				cc.TranscriptSize = move(cc.TranscriptSize)
			}
			c.Compaction = &cc
		}
		m.records = append(m.records, &c)
	}
	for name, data := range s.deliveries {
		var d snapshot.Delivery
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		if d.TranscriptSize > 0 {
			d.TranscriptSize = move(d.TranscriptSize)
		}
		m.deliveries[name], _ = json.Marshal(d)
	}
	for _, runs := range []struct{ from, to *[]replayRun }{{&s.pre, &m.pre}, {&s.start, &m.start}} {
		for _, r := range *runs.from {
			r.Probe.Size = move(r.Probe.Size)
			*runs.to = append(*runs.to, r)
		}
	}
	return m, s.transcript, move
}
