package selectsnap

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// taken marks a snap as taken by postcompact at SessionStart (SS-21).
func taken(r *snapshot.Record) { r.HookEvent = HookSessionStart }

// spec: SS-21 SS-8b SS-8c SS-25
// A snapshot taken at SessionStart is its own compaction's for PostCompact
// and SessionStart run again, and condemned for a later one, though its own
// compaction's boundary carries an earlier time than it (2.1.210).
func TestSelectTakenAtSessionStart(t *testing.T) {
	min := time.Minute
	for _, tc := range []struct {
		name     string
		snaps    []snap
		tr       *fakeTranscript
		want     int
		rejected []string
	}{
		{"PostCompact of the same compaction: delivered, no boundary yet",
			[]snap{{at: -min, size: 3000, delivered: 3000, edit: taken}}, &fakeTranscript{size: 3000, boundaries: []int64{1000}}, 0, nil},
		{"the next compaction without PreCompact: its own boundary, timestamped before it, follows the delivery",
			[]snap{{at: -min, size: 3000, delivered: 3000, edit: taken}},
			&fakeTranscript{size: 5000, boundaries: []int64{1000, 3000}, boundaryAt: map[int64]time.Duration{3000: -2 * min}}, -1,
			[]string{"handed to an earlier compaction"}},
		{"a PreCompact snapshot in the same place is not condemned by a boundary older than it (E2E-12)",
			[]snap{{at: -min, size: 3000, delivered: 3000}},
			&fakeTranscript{size: 5000, boundaries: []int64{1000, 3000}, boundaryAt: map[int64]time.Duration{3000: -2 * min}}, 0, nil},
		{"two boundaries after it, however timed",
			[]snap{{at: -min, size: 3000, edit: taken}},
			&fakeTranscript{size: 9000, boundaries: []int64{3000, 6000}, boundaryAt: map[int64]time.Duration{3000: -2 * min, 6000: -2 * min}}, -1,
			[]string{"before an earlier compaction"}},
		{"the arm-time snapshot of a precomputed compaction is turned down: the session went on",
			[]snap{{at: -5 * min, size: 2000}}, &fakeTranscript{size: 4000, boundaries: []int64{1000}, responses: []fakeResponse{{2500, -3 * min}}}, -1,
			[]string{ReasonWentOn}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := privateDir(t)
			var bases []string
			for _, s := range tc.snaps {
				bases = append(bases, writeSnap(t, dir, s))
			}
			got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now, TranscriptPath: tpath, Transcript: tc.tr})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want < 0 && got != nil:
				t.Fatalf("chose %s, want none (%v)", got.Record.Name, rej)
			case tc.want >= 0 && (got == nil || got.Record.Name != bases[tc.want]):
				t.Fatalf("chose %+v, want %s (%v)", got, bases[tc.want], rej)
			}
			if len(rej) != len(tc.rejected) {
				t.Fatalf("rejections %v, want %q", rej, tc.rejected)
			}
			for i, r := range rej {
				if !strings.Contains(r.Reason, tc.rejected[i]) {
					t.Errorf("rejection %+v, want %q", r, tc.rejected[i])
				}
			}
			if strings.HasPrefix(tc.name, "the arm-time") && PreparedEarlier(rej) != bases[0] {
				t.Errorf("PreparedEarlier(%v) = %q", rej, PreparedEarlier(rej))
			}
		})
	}
}

// spec: SS-21
func TestTakesAtSessionStart(t *testing.T) {
	for agent, want := range map[string]bool{"": true, AgentClaude: true, AgentCodex: false, AgentQwen: false} {
		if got := TakesAtSessionStart(agent); got != want {
			t.Errorf("TakesAtSessionStart(%q) = %v", agent, got)
		}
	}
}

// spec: SS-22
// A snapshot taken at SessionStart belongs to the compaction whose boundary
// is the first at or after its bytes, whatever that boundary's time: the
// previous compaction's own is not this one's, though its size is this
// compaction's start.
func TestTakenForAtSessionStart(t *testing.T) {
	rec := func(at time.Duration, size int64, hook string) *snapshot.Record {
		return &snapshot.Record{Name: snapshot.BaseName(now.Add(at), ownID, 0), SessionID: ownID, CreatedAt: now.Add(at),
			TranscriptPath: tpath, HookEvent: hook, Coverage: snapshot.Coverage{TranscriptSize: size}}
	}
	arm := rec(-9*time.Minute, 2000, "PreCompact")
	first := rec(-8*time.Minute, 3000, HookSessionStart) // the first compaction's, boundary at 3000
	second := rec(-4*time.Minute, 6000, HookSessionStart)
	recs := []*snapshot.Record{arm, first, second}
	// 2.1.210: the boundary's time precedes the hook's.
	b1, b2 := now.Add(-8*time.Minute-time.Second), now.Add(-4*time.Minute-time.Second)
	if got := TakenFor(recs, tpath, time.Time{}, b1, -1, 3000); got != first {
		t.Errorf("first compaction: %+v, want %s", got, first.Name)
	}
	if got := TakenFor(recs, tpath, b1, b2, 3000, 6000); got != second {
		t.Errorf("second compaction: %+v, want %s", got, second.Name)
	}
	if got := TakenFor([]*snapshot.Record{arm, first}, tpath, b1, b2, 3000, 6000); got != nil {
		t.Errorf("a compaction without its own got %s", got.Name)
	}
}

// spec: SS-24 SS-17 SS-25
func TestEarlierPointer(t *testing.T) {
	first := snapshot.BaseName(now.Add(-10*time.Minute), ownID, 0)
	current := snapshot.BaseName(now, ownID, 0)
	boundary := func(kept bool) string {
		meta := map[string]any{"trigger": "auto", "preTokens": 190000}
		if kept {
			meta["preservedSegment"] = map[string]any{"headUuid": "h", "anchorUuid": "a", "tailUuid": "t"}
		}
		b, _ := json.Marshal(map[string]any{"type": "system", "subtype": "compact_boundary", "isSidechain": false, "uuid": "b1",
			"timestamp": now.Add(-10 * time.Minute).Format(time.RFC3339Nano), "version": "2.1.328", "compactMetadata": meta})
		return string(b)
	}
	ctxLine := func(name string) string {
		b, _ := json.Marshal(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_additional_context",
			"hookEvent": "SessionStart", "content": []string{"The context was compacted; a mechanical snapshot taken just before is at /s/" + name + ".md"}}})
		return string(b)
	}
	for _, tc := range []struct {
		name  string
		lines []string
		want  time.Time
	}{
		{"kept tail, an earlier pointer after the boundary", []string{boundary(true), ctxLine(first)}, now.Add(-10 * time.Minute)},
		{"no kept tail", []string{boundary(false), ctxLine(first)}, time.Time{}},
		{"the pointer after it is the current one", []string{boundary(true), ctxLine(current)}, time.Time{}},
		{"no boundary", []string{ctxLine(first)}, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(p, []byte(strings.Join(tc.lines, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := transcript.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := EarlierPointer(context.Background(), f, current)
			if err != nil || !got.Equal(tc.want.Truncate(time.Second)) {
				t.Errorf("EarlierPointer = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// spec: SS-20 SS-25
// Idle compaction, on a synthetic transcript laid out in the order read from
// the bundle and measured by the issue (no recorded one: the timer waits 54
// minutes): a turn, 54 minutes of silence, PreCompact(auto) outside any
// prompt, SessionStart(compact). Selection picks the idle PreCompact's
// snapshot at every point from it to the boundary; without it none.
func TestIdleCompactionTranscript(t *testing.T) {
	line := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) }
	last := now.Add(-55 * time.Minute)
	lines := []string{
		line(map[string]any{"type": "user", "isSidechain": false, "timestamp": last.Add(-time.Minute).Format(time.RFC3339Nano), "promptSource": "typed",
			"message": map[string]any{"role": "user", "content": "a long task"}}),
		line(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": last.Format(time.RFC3339Nano),
			"message": map[string]any{"role": "assistant", "model": "claude-opus-5-5", "content": []any{map[string]any{"type": "text", "text": "done"}},
				"usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": 250000}}}),
	}
	idle := last.Add(54 * time.Minute)
	data := strings.Join(lines, "\n") + "\n"
	atPreCompact := int64(len(data))
	// What the client writes between PreCompact and SessionStart: bookkeeping.
	data += line(map[string]any{"type": "mode", "mode": "normal"}) + "\n"
	p := filepath.Join(t.TempDir(), "t.jsonl")
	for _, own := range []bool{true, false} {
		dir := privateDir(t)
		writeSnap(t, dir, snap{at: -2 * time.Hour, size: 100}) // an old compaction's
		if own {
			writeSnap(t, dir, snap{at: idle.Sub(now), size: atPreCompact})
		}
		for _, end := range []int64{atPreCompact, int64(len(data))} {
			if err := os.WriteFile(p, []byte(data[:end]), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := transcript.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: idle.Add(3 * time.Second), TranscriptPath: tpath, Transcript: f})
			f.Close()
			switch {
			case err != nil:
				t.Fatal(err)
			case own && (got == nil || got.Record.CreatedAt != idle):
				t.Errorf("cut at %d: chose %+v, want the idle PreCompact's snapshot (%v)", end, got, rej)
			case !own && got != nil:
				t.Errorf("cut at %d, without the idle snapshot: chose %s", end, got.Record.Name)
			}
		}
	}
}
