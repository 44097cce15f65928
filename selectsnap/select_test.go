package selectsnap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
)

const (
	ownID   = "5f1c2a9e-0b7d-4c3e-9a51-2d8e6f4b7c10"
	twinID  = "5f1c2a9e-ffff-4c3e-9a51-000000000000" // same sid8, another session
	otherID = "0a0b0c0d-1111-2222-3333-444455556666"
	tpath   = "/home/u/.claude/projects/-home-u-proj/5f1c2a9e.jsonl"
)

var now = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// fakeTranscript holds the offsets of compact_boundary lines and the model
// responses of a transcript of size bytes (10,000 when zero).
type fakeTranscript struct {
	size       int64
	boundaries []int64
	// boundaryAt gives a boundary's time (relative to now); without one
	// it counts as after every snapshot.
	boundaryAt map[int64]time.Duration
	responses  []fakeResponse
	err        error
	calls      int
}

type fakeResponse struct {
	off int64
	at  time.Duration // relative to now
}

func (f *fakeTranscript) Size() int64 {
	if f.size == 0 {
		return 10000
	}
	return f.size
}

func (f *fakeTranscript) BoundariesAfter(ctx context.Context, from, to int64, after time.Time, n int) ([]int64, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	var out []int64
	for i := len(f.boundaries) - 1; i >= 0 && len(out) < n; i-- {
		b := f.boundaries[i]
		if at, ok := f.boundaryAt[b]; ok && !now.Add(at).After(after) {
			continue
		}
		if b >= from && b < to {
			out = append(out, b)
		}
	}
	return out, nil
}

func (f *fakeTranscript) NewestResponseIn(ctx context.Context, from, to int64, after time.Time) (time.Time, bool, error) {
	f.calls++
	if f.err != nil {
		return time.Time{}, false, f.err
	}
	var best time.Time
	for _, r := range f.responses {
		if t := now.Add(r.at); r.off >= from && r.off < to && t.After(after) && t.After(best) {
			best = t
		}
	}
	return best, !best.IsZero(), nil
}

// snap describes one snapshot to lay down in the test folder.
type snap struct {
	at      time.Duration // name time relative to now
	suffix  int
	session string
	size    int64  // Coverage.TranscriptSize
	json    string // raw .json content instead of a record
	noMD    bool
	edit    func(*snapshot.Record)
	// delivered, when set, is the transcript size recorded by a SessionStart
	// delivery (SF-53).
	delivered int64
	// jsonMode, mdMode, deliveredMode, when set, are given to the files
	// after they are written (SEC-13).
	jsonMode, mdMode, deliveredMode os.FileMode
}

func (s snap) base() string {
	id := s.session
	if id == "" {
		id = ownID
	}
	return snapshot.BaseName(now.Add(s.at), id, s.suffix)
}

func writeSnap(t testing.TB, dir string, s snap) string {
	t.Helper()
	id := s.session
	if id == "" {
		id = ownID
	}
	base := s.base()
	data := []byte(s.json)
	if s.json == "" {
		rec := snapshot.Record{
			Schema:         snapshot.SchemaVersion,
			Name:           base,
			SessionID:      id,
			CreatedAt:      now.Add(s.at),
			Trigger:        "auto",
			TranscriptPath: tpath,
			Coverage:       snapshot.Coverage{TranscriptSize: s.size, SegmentStart: -1},
		}
		if s.edit != nil {
			s.edit(&rec)
		}
		var err error
		if data, err = json.Marshal(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, base+".json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if !s.noMD {
		if err := os.WriteFile(filepath.Join(dir, base+".md"), []byte("# snapshot\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if s.delivered != 0 {
		d := snapshot.Delivery{SessionID: id, At: now.Add(s.at + 30*time.Second), Event: "SessionStart", TranscriptSize: s.delivered}
		if err := snapshot.WriteDelivery(dir, base, d); err != nil {
			t.Fatal(err)
		}
	}
	for ext, mode := range map[string]os.FileMode{".json": s.jsonMode, ".md": s.mdMode, snapshot.DeliverySuffix: s.deliveredMode} {
		if mode != 0 {
			if err := os.Chmod(filepath.Join(dir, base+ext), mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	return base
}

func writeUnrelated(t testing.TB, dir string, n int) {
	t.Helper()
	for i := range n {
		var name string
		switch i % 4 {
		case 0:
			name = fmt.Sprintf("notes-%d.txt", i)
		case 1:
			name = fmt.Sprintf("data_%d.json", i)
		case 2: // another session's snapshot names
			name = snapshot.BaseName(now.Add(-time.Duration(i)*time.Second), fmt.Sprintf("%08x-aaaa", i), 0) + ".json"
		case 3:
			name = fmt.Sprintf("snap_garbage_%d.json", i)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{not a record"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSelect(t *testing.T) {
	min := time.Minute
	tests := []struct {
		name       string
		promptID   string
		snaps      []snap
		transcript *fakeTranscript // nil: transcript unreadable
		unrelated  int
		want       int // index into snaps of the expected choice, -1 for none
		rejected   []string
		posix      bool // needs POSIX modes
	}{
		// spec: SS-1
		{name: "own session", snaps: []snap{{at: -2 * min}}, want: 0},
		// spec: SS-1
		{name: "another session's snapshot is not looked at", snaps: []snap{{at: -2 * min, session: otherID}}, want: -1},
		// spec: SS-5
		{name: "same sid8, other session", snaps: []snap{{at: -1 * min, session: twinID}}, want: -1, rejected: []string{"another session"}},
		// spec: SS-5
		{name: "same sid8 newer, own older wins", snaps: []snap{{at: -3 * min}, {at: -1 * min, session: twinID}}, want: 0, rejected: []string{"another session"}},
		// spec: SS-2
		{name: "29 minutes old", snaps: []snap{{at: -29 * min}}, want: 0},
		// spec: SS-2
		{name: "31 minutes old", snaps: []snap{{at: -31 * min}}, want: -1, rejected: []string{"older than 30m0s"}},
		// spec: SS-2
		{name: "exactly 30 minutes old", snaps: []snap{{at: -30 * min}}, want: 0},
		// spec: SS-2
		{name: "30 s in the future", snaps: []snap{{at: 30 * time.Second}}, want: 0},
		// spec: SS-2
		{name: "2 min in the future", snaps: []snap{{at: 2 * min}}, want: -1, rejected: []string{"in the future"}},
		// spec: SS-2
		{name: "future one rejected, fresh one chosen", snaps: []snap{{at: -1 * min}, {at: 2 * min}}, want: 0, rejected: []string{"in the future"}},
		// spec: SS-6, SF-69: a name dated ahead of the clock is not the
		// newest: it is listed after the snapshots examined, and an
		// older one condemned with the others is "older" only by the clock.
		{name: "future ones listed last", snaps: []snap{{at: -5 * min}, {at: -1 * min, json: " "}, {at: 2 * min}, {at: 24 * time.Hour}}, want: 0, rejected: []string{"broken json", "in the future", "in the future"}},
		{name: "future ones are not condemned as older", snaps: []snap{{at: -20 * min, size: 1000}, {at: -10 * min, size: 3000}, {at: 3 * min, size: 9000}}, transcript: &fakeTranscript{boundaries: []int64{3500, 9500}}, want: -1, rejected: []string{"earlier compaction", "older than snap_", "in the future"}},
		// spec: SS-6
		{name: "newest wins", snaps: []snap{{at: -5 * min}, {at: -1 * min}, {at: -3 * min}}, want: 1},
		// spec: SS-6
		{name: "same second, higher suffix wins", snaps: []snap{{at: -1 * min}, {at: -1 * min, suffix: 2}, {at: -1 * min, suffix: 1}}, want: 1},
		// spec: SS-4
		{name: "broken json falls back to older", snaps: []snap{{at: -5 * min}, {at: -1 * min, json: `{"schema":1,"name":`}}, want: 0, rejected: []string{"broken json"}},
		// spec: SS-4
		{name: "empty json", snaps: []snap{{at: -1 * min, json: " "}}, want: -1, rejected: []string{"broken json"}},
		// spec: SS-4
		{name: "unknown schema", snaps: []snap{{at: -1 * min, edit: func(r *snapshot.Record) { r.Schema = 99 }}}, want: -1, rejected: []string{"unknown schema 99"}},
		// spec: SS-4
		{name: "name field differs from file", snaps: []snap{{at: -1 * min, edit: func(r *snapshot.Record) { r.Name = "snap_20260314-115900_5f1c2a9e_3" }}}, want: -1, rejected: []string{"differs from the file name"}},
		// spec: SS-4, SEC-17
		{name: "created_at later than its name", snaps: []snap{{at: -5 * min}, {at: -1 * min, edit: func(r *snapshot.Record) { r.CreatedAt = time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC) }}}, want: 0, rejected: []string{"is not the time in its name"}},
		// spec: SS-4, SEC-13, SEC-16
		{name: "json writable by others", posix: true, snaps: []snap{{at: -5 * min}, {at: -1 * min, jsonMode: 0o666}}, want: 0, rejected: []string{"not trusted: group or others can write to it (mode 0666)"}},
		// spec: SS-4, SEC-13, SEC-16
		{name: "md writable by group", posix: true, snaps: []snap{{at: -5 * min}, {at: -1 * min, mdMode: 0o620}}, want: 0, rejected: []string{".md not trusted: group or others can write to it (mode 0620)"}},
		// spec: SS-8c, SEC-13, SEC-16
		{name: "a delivery record writable by others is ignored", posix: true, snaps: []snap{{at: -3 * min, size: 3000, delivered: 3100, deliveredMode: 0o606}}, transcript: &fakeTranscript{boundaries: []int64{1000, 3200}}, want: 0, rejected: []string{"ignored: not trusted"}},
		// spec: SS-4
		{name: "missing md", snaps: []snap{{at: -5 * min}, {at: -1 * min, noMD: true}}, want: 0, rejected: []string{"no .md file"}},
		// spec: SS-3
		{name: "folder full of unrelated files", snaps: []snap{{at: -4 * min}}, unrelated: 1000, want: 0},
		// spec: SS-7
		{name: "another transcript", snaps: []snap{{at: -1 * min, size: 10, edit: func(r *snapshot.Record) { r.TranscriptPath = "/elsewhere.jsonl" }}}, transcript: &fakeTranscript{boundaries: []int64{9500}}, want: -1, rejected: []string{"another transcript"}},
		// spec: SS-7
		{name: "another transcript is not condemning", snaps: []snap{{at: -5 * min, size: 9000}, {at: -1 * min, size: 9100, edit: func(r *snapshot.Record) { r.TranscriptPath = "/elsewhere.jsonl" }}}, transcript: &fakeTranscript{}, want: 0, rejected: []string{"another transcript"}},
		// spec: SS-7
		{name: "covers more than the transcript holds", snaps: []snap{{at: -5 * min, size: 9000}, {at: -1 * min, size: 12000}}, transcript: &fakeTranscript{}, want: 0, rejected: []string{"holds 10000 bytes"}},
		// spec: SS-8
		{name: "boundary written after SessionStart: this compaction's snapshot follows the last boundary", snaps: []snap{{at: -10 * min, size: 3000, delivered: 3100}, {at: -1 * min, size: 9000}}, transcript: &fakeTranscript{boundaries: []int64{1000, 3200}}, want: 1},
		// spec: SS-8
		{name: "boundary written before SessionStart: one boundary after the snapshot", snaps: []snap{{at: -10 * min, size: 3000, delivered: 3300}, {at: -1 * min, size: 9000}}, transcript: &fakeTranscript{boundaries: []int64{1000, 3200, 9500}}, want: 1},
		// spec: SS-8
		{name: "first compaction, no boundary at all", snaps: []snap{{at: -1 * min, size: 9000}}, transcript: &fakeTranscript{}, want: 0},
		// spec: SS-8
		{name: "snapshot at the very end of the transcript", snaps: []snap{{at: -1 * min, size: 10000}}, transcript: &fakeTranscript{boundaries: []int64{5000}}, want: 0},
		// spec: SS-8
		{name: "refused compaction's snapshot: the newer one of the same segment wins", snaps: []snap{{at: -5 * min, size: 5000}, {at: -1 * min, size: 9000}}, transcript: &fakeTranscript{boundaries: []int64{3500}, responses: []fakeResponse{{6000, -3 * min}}}, want: 1},
		// spec: SS-8a
		{name: "another prompt condemns it and older ones", promptID: "p3", snaps: []snap{{at: -9 * min, size: 1000, edit: withPrompt("p1")}, {at: -2 * min, size: 5000, edit: withPrompt("p2")}}, transcript: &fakeTranscript{boundaries: []int64{5500}}, want: -1, rejected: []string{"another prompt", "older than snap_"}},
		// spec: SS-8a
		{name: "same prompt passes", promptID: "p2", snaps: []snap{{at: -1 * min, size: 9000, edit: withPrompt("p2")}}, transcript: &fakeTranscript{boundaries: []int64{3000}}, want: 0},
		// spec: SS-8a
		{name: "a prompt id on one side only decides nothing", promptID: "p2", snaps: []snap{{at: -1 * min, size: 9000}}, transcript: &fakeTranscript{}, want: 0},
		// spec: SS-8a
		{name: "another prompt, with the transcript unreadable", promptID: "p3", snaps: []snap{{at: -2 * min, size: 5000, edit: withPrompt("p2")}}, want: -1, rejected: []string{"another prompt"}},
		// spec: SS-8b
		{name: "an earlier compaction's boundary written late, after the snapshot's bytes, does not count", snaps: []snap{{at: -1 * min, size: 3000}}, transcript: &fakeTranscript{boundaries: []int64{3100, 3500}, boundaryAt: map[int64]time.Duration{3100: -2 * min}}, want: 0},
		// spec: SS-8c
		{name: "delivered, then an earlier compaction's boundary written late: the same compaction's PostCompact", snaps: []snap{{at: -1 * min, size: 3000, delivered: 3050}}, transcript: &fakeTranscript{boundaries: []int64{3100}, boundaryAt: map[int64]time.Duration{3100: -2 * min}}, want: 0},
		// spec: SS-8b
		{name: "two boundaries after it: an earlier compaction's", snaps: []snap{{at: -10 * min, size: 3000}}, transcript: &fakeTranscript{boundaries: []int64{3000, 9500}}, want: -1, rejected: []string{"before an earlier compaction"}},
		// spec: SS-8b
		{name: "an earlier compaction's snapshot condemns older ones", snaps: []snap{{at: -20 * min, size: 1000}, {at: -10 * min, size: 3000}}, transcript: &fakeTranscript{boundaries: []int64{3500, 9500}}, want: -1, rejected: []string{"earlier compaction", "older than snap_"}},
		// spec: SS-8c
		{name: "PreCompact skipped, boundary after SessionStart: the delivered snapshot is the previous compaction's", snaps: []snap{{at: -3 * min, size: 3000, delivered: 3100}}, transcript: &fakeTranscript{boundaries: []int64{1000, 3200}}, want: -1, rejected: []string{"handed to an earlier compaction"}},
		// spec: SS-8c
		{name: "PreCompact skipped, confirmed by PostCompact", snaps: []snap{{at: -3 * min, size: 3000, edit: confirmedAt(3150)}}, transcript: &fakeTranscript{boundaries: []int64{1000, 3200}}, want: -1, rejected: []string{"PostCompact"}},
		// spec: SS-8c
		{name: "SessionStart run again for the same compaction", snaps: []snap{{at: -1 * min, size: 9000, delivered: 9100}}, transcript: &fakeTranscript{boundaries: []int64{3200}}, want: 0},
		// spec: SS-8c
		{name: "delivered and confirmed, no boundary since: PostCompact of the same compaction", snaps: []snap{{at: -1 * min, size: 9000, delivered: 9100, edit: confirmedAt(9150)}}, transcript: &fakeTranscript{boundaries: []int64{3200, 9000}}, want: 0},
		// spec: SS-8c
		{name: "a confirmation without transcript size is not used", snaps: []snap{{at: -3 * min, size: 3000, edit: confirmedAt(0)}}, transcript: &fakeTranscript{boundaries: []int64{3200}}, want: 0},
		// spec: SS-8d
		{name: "the session went on after it", snaps: []snap{{at: -5 * min, size: 5000}}, transcript: &fakeTranscript{boundaries: []int64{3500}, responses: []fakeResponse{{6000, -3 * min}}}, want: -1, rejected: []string{"the session went on"}},
		// spec: SS-8d
		{name: "a response written late with an earlier time does not count", snaps: []snap{{at: -1 * min, size: 5000}}, transcript: &fakeTranscript{responses: []fakeResponse{{5200, -2 * min}}}, want: 0},
		// spec: SS-8d
		{name: "back to back, no PreCompact the second time, session went on", snaps: []snap{{at: -1 * min, size: 3000}}, transcript: &fakeTranscript{boundaries: []int64{3200}, responses: []fakeResponse{{3400, -30 * time.Second}}}, want: -1, rejected: []string{"went on"}},
		// spec: SS-9
		{name: "transcript unreadable: check skipped", snaps: []snap{{at: -10 * min, size: 3000, delivered: 3100}}, want: 0},
		// spec: SS-9
		{name: "transcript error: check skipped", snaps: []snap{{at: -10 * min, size: 3000}}, transcript: &fakeTranscript{err: errors.New("boom")}, want: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.posix && runtime.GOOS == "windows" {
				t.Skip("POSIX modes; Windows checks the owner only (SEC-18)")
			}
			dir := privateDir(t)
			var bases []string
			for _, s := range tc.snaps {
				bases = append(bases, writeSnap(t, dir, s))
			}
			writeUnrelated(t, dir, tc.unrelated)
			o := Options{Dir: dir, SessionID: ownID, Now: now, TranscriptPath: tpath, PromptID: tc.promptID}
			if tc.transcript != nil {
				o.Transcript = tc.transcript
			}
			got, rej, err := Select(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want < 0 {
				if got != nil {
					t.Fatalf("chose %s, want none (rejections %v)", got.Record.Name, rej)
				}
			} else {
				if got == nil {
					t.Fatalf("chose none, want %s (rejections %v)", bases[tc.want], rej)
				}
				want := bases[tc.want]
				if got.Record.Name != want || got.JSONPath != filepath.Join(dir, want+".json") || got.MDPath != filepath.Join(dir, want+".md") {
					t.Fatalf("chose %+v, want %s", got, want)
				}
				if got.Record.SessionID != ownID {
					t.Fatalf("chose session %q", got.Record.SessionID)
				}
			}
			if len(rej) != len(tc.rejected) {
				t.Fatalf("rejections %v, want %d matching %q", rej, len(tc.rejected), tc.rejected)
			}
			for i, r := range rej {
				if !strings.Contains(r.Reason, tc.rejected[i]) {
					t.Errorf("rejection %d = %+v, want reason with %q", i, r, tc.rejected[i])
				}
				if _, ok := snapshot.ParseName(strings.TrimSuffix(r.Name, snapshot.DeliverySuffix)); !ok {
					t.Errorf("rejection %d names %q", i, r.Name)
				}
			}
		})
	}
}

func withPrompt(id string) func(*snapshot.Record) {
	return func(r *snapshot.Record) { r.PromptID = id }
}

func confirmedAt(size int64) func(*snapshot.Record) {
	return func(r *snapshot.Record) {
		r.Compaction = &snapshot.CompactionConfirmation{At: r.CreatedAt.Add(40 * time.Second), SummaryChars: 10, TranscriptSize: size}
	}
}

// spec: SS-9
func TestSelectUnverified(t *testing.T) {
	dir := privateDir(t)
	writeSnap(t, dir, snap{at: -time.Minute, size: 9000})
	for _, tc := range []struct {
		name string
		tr   Transcript
		want string
	}{
		{"checked", &fakeTranscript{boundaries: []int64{9500}}, ""},
		{"no boundary is checked too", &fakeTranscript{}, ""},
		{"unreadable", nil, "transcript not readable"},
		{"error", &fakeTranscript{err: errors.New("boom")}, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now, TranscriptPath: tpath, Transcript: tc.tr})
			if err != nil || got == nil {
				t.Fatalf("got %v, %v", got, err)
			}
			if tc.want == "" && got.Unverified != "" || !strings.Contains(got.Unverified, tc.want) {
				t.Fatalf("Unverified = %q, want %q", got.Unverified, tc.want)
			}
		})
	}
}

// spec: SS-3
func TestSelectOpensOnlyOwnSession(t *testing.T) {
	dir := privateDir(t)
	writeUnrelated(t, dir, 1000)
	for i := range 39 {
		writeSnap(t, dir, snap{at: -time.Duration(i) * time.Second, session: fmt.Sprintf("%08d-other", i)})
	}
	own := writeSnap(t, dir, snap{at: -10 * time.Minute})
	writeSnap(t, dir, snap{at: -time.Minute, session: twinID})

	var opened []string
	orig := openFile
	openFile = func(name string) (io.ReadCloser, error) {
		opened = append(opened, filepath.Base(name))
		return orig(name)
	}
	defer func() { openFile = orig }()

	got, _, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now})
	if err != nil || got == nil || got.Record.Name != own {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, n := range opened {
		if !strings.Contains(n, "_"+snapshot.SID8(ownID)) {
			t.Errorf("opened %s, which is not named for the session", n)
		}
	}
	if len(opened) != 2 {
		t.Errorf("opened %v, want the twin's and the own .json only", opened)
	}
}

// spec: SS-3
func TestSelectNoTranscriptReadWithoutCandidates(t *testing.T) {
	dir := privateDir(t)
	writeUnrelated(t, dir, 10)
	ft := &fakeTranscript{boundaries: []int64{10}}
	got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now, Transcript: ft, TranscriptPath: tpath})
	if err != nil || got != nil || rej != nil {
		t.Fatalf("got %v %v %v", got, rej, err)
	}
	if ft.calls != 0 {
		t.Fatalf("transcript asked %d times with no candidate", ft.calls)
	}
}

// spec: SS-10, SEC-14
func TestSelectFolderErrors(t *testing.T) {
	got, rej, err := Select(context.Background(), Options{Dir: filepath.Join(t.TempDir(), "missing"), SessionID: ownID, Now: now})
	if err != nil || got != nil || rej != nil {
		t.Fatalf("missing folder: %v %v %v", got, rej, err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Select(context.Background(), Options{Dir: file, SessionID: ownID, Now: now}); err == nil {
		t.Fatal("a regular file as the folder gave no error")
	}
	if runtime.GOOS != "windows" {
		// A folder precompact would refuse is not read (SEC-14), even
		// though it holds the session's snapshot; one others can only
		// read is.
		open := privateDir(t)
		writeSnap(t, open, snap{at: -time.Minute})
		if err := os.Chmod(open, 0o775); err != nil {
			t.Fatal(err)
		}
		if got, _, err := Select(context.Background(), Options{Dir: open, SessionID: ownID, Now: now}); got != nil || !errors.Is(err, trust.ErrUntrusted) {
			t.Fatalf("folder others can write to: chose %v, err %v; want none and an untrusted error", got, err)
		}
		if err := os.Chmod(open, 0o755); err != nil {
			t.Fatal(err)
		}
		if got, _, err := Select(context.Background(), Options{Dir: open, SessionID: ownID, Now: now}); got == nil || err != nil {
			t.Fatalf("folder others can read: chose %v, err %v; want the snapshot", got, err)
		}
	}
	for _, id := range []string{"", snapshot.Unknown} {
		if _, _, err := Select(context.Background(), Options{Dir: t.TempDir(), SessionID: id, Now: now}); !errors.Is(err, ErrNoSessionID) {
			t.Fatalf("session id %q: err = %v", id, err)
		}
	}
}

// spec: SS-4
func TestSelectNonRegular(t *testing.T) {
	dir := privateDir(t)
	older := writeSnap(t, dir, snap{at: -5 * time.Minute})
	// A directory under a snapshot name must not be read.
	if err := os.Mkdir(filepath.Join(dir, snapshot.BaseName(now.Add(-time.Minute), ownID, 0)+".json"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now})
	if err != nil || got == nil || got.Record.Name != older {
		t.Fatalf("got %+v %v", got, err)
	}
	if len(rej) != 1 || !strings.Contains(rej[0].Reason, "not a regular file") {
		t.Fatalf("rejections %v", rej)
	}
}

// spec: SS-4
func TestSelectOversized(t *testing.T) {
	dir := privateDir(t)
	writeSnap(t, dir, snap{at: -time.Minute, json: `{"schema":1,"x":"` + strings.Repeat("a", MaxRecordBytes) + `"}`})
	got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now})
	if err != nil || got != nil || len(rej) != 1 || !strings.Contains(rej[0].Reason, "larger than") {
		t.Fatalf("got %v %v %v", got, rej, err)
	}
}

// spec: SS-10
func TestSelectCanceled(t *testing.T) {
	dir := privateDir(t)
	writeSnap(t, dir, snap{at: -time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Select(ctx, Options{Dir: dir, SessionID: ownID, Now: now}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// spec: SS-11
func BenchmarkSelect(b *testing.B) {
	dir := privateDir(b)
	writeUnrelated(b, dir, 1000)
	for i := range 38 {
		writeSnap(b, dir, snap{at: -time.Duration(i) * 20 * time.Second, session: fmt.Sprintf("%08d-other", i)})
	}
	writeSnap(b, dir, snap{at: -12 * time.Minute, size: 1000})
	want := writeSnap(b, dir, snap{at: -time.Minute, size: 9000})
	ft := &fakeTranscript{boundaries: []int64{500, 9500}}
	o := Options{Dir: dir, SessionID: ownID, Now: now, Transcript: ft, TranscriptPath: tpath}
	b.ResetTimer()
	for b.Loop() {
		got, _, err := Select(context.Background(), o)
		if err != nil || got == nil || got.Record.Name != want {
			b.Fatalf("got %v %v", got, err)
		}
	}
}

// spec: SS-12
func TestCheckFailure(t *testing.T) {
	marker := func(at time.Duration, size int64, prompt string) *snapshot.Failure {
		return &snapshot.Failure{SessionID: ownID, Time: now.Add(at), TranscriptSize: size, PromptID: prompt}
	}
	for _, tc := range []struct {
		name       string
		f          *snapshot.Failure
		promptID   string
		tr         *fakeTranscript
		want       string // "" when the marker is this compaction's
		unverified bool
	}{
		{"this compaction's, boundary not written yet", marker(-time.Minute, 9000, "p1"), "p1", &fakeTranscript{boundaries: []int64{3000}}, "", false},
		{"this compaction's, boundary written before", marker(-time.Minute, 9000, ""), "", &fakeTranscript{boundaries: []int64{3000, 9500}}, "", false},
		{"another prompt", marker(-time.Minute, 9000, "p1"), "p2", &fakeTranscript{}, "another prompt", false},
		{"two compactions since", marker(-9*time.Minute, 2000, ""), "", &fakeTranscript{boundaries: []int64{3000, 9500}}, "earlier compaction", false},
		{"the session went on", marker(-9*time.Minute, 2000, ""), "", &fakeTranscript{boundaries: []int64{3000}, responses: []fakeResponse{{4000, -5 * time.Minute}}}, "went on", false},
		{"covers more than the transcript", marker(-time.Minute, 20000, ""), "", &fakeTranscript{}, "holds 10000 bytes", false},
		{"transcript unreadable: only the prompt decides", marker(-9*time.Minute, 2000, "p1"), "p1", nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{SessionID: ownID, PromptID: tc.promptID}
			if tc.tr != nil {
				o.Transcript = tc.tr
			}
			reason, unverified, err := CheckFailure(context.Background(), o, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && reason != "" || !strings.Contains(reason, tc.want) {
				t.Errorf("reason = %q, want %q", reason, tc.want)
			}
			if (unverified != "") != tc.unverified {
				t.Errorf("unverified = %q", unverified)
			}
		})
	}
}

// spec: SS-1
func TestSelectIgnoresDeliveryFilesAsCandidates(t *testing.T) {
	dir := privateDir(t)
	base := writeSnap(t, dir, snap{at: -time.Minute, size: 9000, delivered: 9100})
	// A delivery record without its snapshot is no candidate either.
	if err := os.WriteFile(filepath.Join(dir, snapshot.BaseName(now.Add(-30*time.Second), ownID, 0)+snapshot.DeliverySuffix), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now, Transcript: &fakeTranscript{}})
	if err != nil || got == nil || got.Record.Name != base || len(rej) != 0 {
		t.Fatalf("got %+v %v %v", got, rej, err)
	}
	if got.Delivery == nil || got.Delivery.TranscriptSize != 9100 {
		t.Errorf("Choice.Delivery = %+v", got.Delivery)
	}
}

// spec: SS-14
func TestTakenForAndNamedSnapshot(t *testing.T) {
	rec := func(at time.Duration, size int64, path string) *snapshot.Record {
		return &snapshot.Record{Name: snapshot.BaseName(now.Add(at), ownID, 0), SessionID: ownID, CreatedAt: now.Add(at),
			TranscriptPath: path, Coverage: snapshot.Coverage{TranscriptSize: size}}
	}
	refused := rec(-9*time.Minute, 2000, tpath)
	own := rec(-8*time.Minute, 2500, tpath)
	recs := []*snapshot.Record{
		rec(-20*time.Minute, 900, tpath), // the compaction before
		own, refused,                     // both in [1000, 3000]; the newer wins
		rec(-7*time.Minute, 2600, "/elsewhere.jsonl"), // another transcript
		rec(-time.Minute, 3500, tpath),                // the next compaction's
		rec(-5*time.Minute, 2800, tpath),              // created after the boundary: not this one's
	}
	before, boundaryTime := now.Add(-15*time.Minute), now.Add(-7*time.Minute)
	if got := TakenFor(recs, tpath, before, boundaryTime, 1000, 3000); got != own {
		t.Errorf("TakenFor = %+v, want %s", got, own.Name)
	}
	if got := TakenFor(recs, tpath, boundaryTime, now.Add(-6*time.Minute), 3000, 3400); got != nil {
		t.Errorf("a compaction with no snapshot got %s", got.Name)
	}
	// A client that wrote the boundary late: the next compaction's snapshot
	// covers exactly up to this boundary's offset, and times still tell.
	late := rec(-6*time.Minute, 3000, tpath)
	if got := TakenFor(append(recs, late), tpath, before, boundaryTime, 1000, 3000); got != own {
		t.Errorf("with a later snapshot at the boundary's offset: %+v, want %s", got, own.Name)
	}
	// Without a boundary time, offsets decide.
	if got := TakenFor(recs, tpath, time.Time{}, time.Time{}, 1000, 3000); got == nil || got.Coverage.TranscriptSize < 1000 || got.Coverage.TranscriptSize > 3000 {
		t.Errorf("by offsets: %+v", got)
	}
	name := own.Name
	for text, want := range map[string]string{
		"The context was compacted; a snapshot is at /home/a b/snapshots/" + name + ".md\nmore": name,
		"snapshot " + name + ".json only":                "",
		"compact-guard wrote no snapshot before this":    "",
		"snap_garbage.md then /x/" + name + ".md":        name,
		"ends with the path /s/" + name + ".md":          name,
		"snap_20261130-102636_0f3c2a1b_2.md in Cyrillic": "snap_20261130-102636_0f3c2a1b_2",
	} {
		if got := NamedSnapshot(text); got != want {
			t.Errorf("NamedSnapshot(%q) = %q, want %q", text, got, want)
		}
	}
}

// privateDir is a fresh snapshot folder as precompact creates it, 0700:
// selection reads nothing from a folder others can open (SEC-14).
func privateDir(t testing.TB) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "snaps")
	if err := os.Mkdir(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}
