package cmd

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// runInProcess runs the watch hook for event in this process, in the
// world's environment and at the time at (zero: now), calling afterRead
// once it has read the fill: a test runs another hook there, so that this
// run read the transcript before the other and takes the state's lock
// after it, deterministically.
func (w *wtWorld) runInProcess(t *testing.T, event, promptID string, at time.Time, afterRead func()) string {
	t.Helper()
	payload := rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
		"hook_event_name", event, "prompt_id", promptID)
	var out bytes.Buffer
	opts := &WatchOptions{IO: &IO{In: bytes.NewReader(payload), Out: &out, ErrOut: io.Discard}, Dir: w.Snaps,
		Lang: snapshot.English, Getenv: w.getenv, Now: time.Now, afterRead: afterRead}
	if !at.IsZero() {
		opts.Now = func() time.Time { return at }
	}
	opts.Thresholds, _ = watch.ParseThresholds(watch.DefaultThresholds)
	watchRun(opts)
	return out.String()
}

// getenv reads the world's environment, as the binary would see it.
func (w *wtWorld) getenv(key string) string {
	for _, kv := range w.env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// A run that read the transcript before the newest response but takes the
// lock after a run that read it after changes nothing by its old fill: the
// crossing the newer run told is not forgotten as if a compaction had
// happened, so it is told once in the turn, and its time stays the one a
// handoff is measured against.
// spec: WA-26, WA-5, WA-6
func TestWA26StaleReadTellsNothingTwice(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 400000) // under 90% of the first threshold (500k of 1M)
	var newer string
	older := w.runInProcess(t, watch.PostToolUse, "p1", time.Time{}, func() {
		w.fill(t, 512000)
		newer = w.runInProcess(t, watch.PostToolUse, "p1", time.Time{}, nil)
	})
	if !strings.Contains(wtContext(t, newer, watch.PostToolUse), "Thresholds crossed: 500,000 at") {
		t.Fatalf("the newer read told nothing: %q", newer)
	}
	if older != "" {
		t.Errorf("the older read printed %q", older)
	}
	st, err := watch.StoreFor(w.Snaps).Load(w.sid)
	if err != nil || len(st.Crossings) != 1 || st.NoticeTurn != "p1" {
		t.Fatalf("the older read changed the state: %+v %v", st, err)
	}
	crossed := st.Crossings[0].At
	// The next run of the turn reads the newer response again: nothing.
	if again := w.runInProcess(t, watch.PostToolUse, "p1", time.Time{}, nil); again != "" {
		t.Errorf("the crossing was told twice in one turn: %q", again)
	}
	if st, _ := watch.StoreFor(w.Snaps).Load(w.sid); len(st.Crossings) != 1 || !st.Crossings[0].At.Equal(crossed) || st.Read == nil {
		t.Errorf("state after the turn: %+v", st)
	}
}

// A handoff written after the crossing stays current when a stale run
// takes the lock in between: the compaction is planned, not an emergency.
// spec: WA-26, WA-12
func TestWA26StaleReadKeepsTheHandoff(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 400000)
	// The older read starts first, the newer crosses 10 s later, the
	// handoff comes 10 s after that and the next run 10 s later again.
	base := time.Now().Add(-time.Minute).Truncate(time.Second)
	w.runInProcess(t, watch.PostToolUse, "p1", base, func() {
		w.fill(t, 612000)
		w.runInProcess(t, watch.PostToolUse, "p1", base.Add(10*time.Second), nil)
		tpl := handoff.TemplateFor(snapshot.English, base.Add(20*time.Second), w.sid) // HO-9: the session's own block
		rbWriteFile(t, filepath.Join(w.project, "SESSION-STATE.md"), []byte(fillBlock(tpl)))
	})
	w.runInProcess(t, watch.PostToolUse, "p1", base.Add(30*time.Second), nil)
	w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
		"hook_event_name", "PreCompact", "trigger", "auto"))
	_, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), w.sid)
	if p := rec.Preparation; p == nil || p.Kind != snapshot.Planned {
		t.Errorf("preparation %+v, want planned: the handoff was written after the crossing", p)
	}
}

// A run that read the transcript before a compaction's boundary, taking
// the lock after a run that read the boundary, gives no notice of the
// fill before the compaction.
// spec: WA-26, WA-5
func TestWA26ReadBeforeTheBoundaryTellsNothing(t *testing.T) {
	for _, crossedBefore := range []bool{true, false} {
		t.Run(map[bool]string{true: "crossed before", false: "not crossed before"}[crossedBefore], func(t *testing.T) {
			w := newWatchWorld(t)
			w.fill(t, 420000)
			if crossedBefore {
				w.fill(t, 505000)
				w.runInProcess(t, watch.PostToolUse, "p1", time.Time{}, nil) // tells of 500k
			} else {
				// A state of the session, with nothing crossed yet.
				w.runInProcess(t, watch.PostToolUse, "p1", time.Time{}, nil)
				watch.StoreFor(w.Snaps).Update(w.sid, func(st *watch.State) bool { st.Turn = "t"; return true })
			}
			w.fill(t, 612000)
			var after string
			before := w.runInProcess(t, watch.PostToolUse, "p1", time.Time{}, func() {
				w.boundary(t, "2.1.328")
				after = w.runInProcess(t, watch.UserPromptSubmit, "p2", time.Time{}, nil)
			})
			if before != "" || after != "" {
				t.Errorf("around the compaction: the older read printed %q, the newer %q", before, after)
			}
			st, err := watch.StoreFor(w.Snaps).Load(w.sid)
			if err != nil || len(st.Crossings) != 0 {
				t.Fatalf("crossings after the compaction: %+v %v", st, err)
			}
			if again := w.runInProcess(t, watch.PostToolUse, "p2", time.Time{}, nil); again != "" {
				t.Errorf("after the compaction: %q", again)
			}
		})
	}
}

// When the state cannot be written (a full or read-only watch folder; here
// a folder in the state file's place), nothing is told that the state
// cannot record, and the log says so instead of claiming a notice.
// spec: WA-25, WA-13
func TestWA25UnwritableStateSaysNothingAndLogsIt(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 612000)
	store := watch.StoreFor(w.Snaps)
	rbWriteFile(t, filepath.Join(store.Path(w.sid), "in-the-way"), []byte("x"))
	if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
		t.Errorf("a notice the state could not record: %q", r.Stdout)
	}
	lines := rbLogLines(t, w.Log())
	last := lines[len(lines)-1]
	if !strings.Contains(last, "watch(PostToolUse) session="+w.sid+" outcome=failed") ||
		!strings.Contains(last, `detail="not said, for the watch state could not be written: notice: 500000,600000; watch state: `) {
		t.Errorf("log line %s", last)
	}
}

// A transcript in another valid JSON layout (Python's spacing, keys in
// another order) gets its notice: the newest response is found by parsing,
// not by Claude Code's bytes.
// spec: TR-56, WA-6
func TestTR56WatchNoticeInAnyLayout(t *testing.T) {
	w := newWatchWorld(t)
	line := fmt.Sprintf(`{"type":"assistant","message":{"model":"claude-opus-5-5","id":"m1","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":512340,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}},"uuid":"w1","isSidechain":false,"timestamp":%q,"sessionId":%q,"cwd":%q}`,
		time.Now().UTC().Format(time.RFC3339Nano), w.sid, w.project)
	w.append(t, string(transcripttest.Relayout([]byte(line), 56)))
	got := wtContext(t, w.hook(t, watch.PostToolUse, "p1", nil).Stdout, watch.PostToolUse)
	if !strings.Contains(got, "the context holds 512,340 tokens") || !strings.Contains(got, "Thresholds crossed: 500,000 at") {
		t.Errorf("notice:\n%s", got)
	}
}

// With the watch folder unusable (here a file where the folder should be:
// the tests run as root, for whom a read-only folder is writable), the
// notice still comes, with the first prompt after the turn whose fill
// crossed the thresholds, told by that turn's fill against the previous
// turn's — once per crossing, with no state to remember it (issue 28,
// item 4). Tool calls stay silent (WA-25), and the log says why.
// spec: WA-42, WA-25, WA-13
func TestWA42NoticeWithoutState(t *testing.T) {
	w := newWatchWorld(t)
	watchDir := filepath.Dir(watch.StoreFor(w.Snaps).Path(w.sid))
	if err := os.MkdirAll(filepath.Dir(watchDir), 0o700); err != nil {
		t.Fatal(err)
	}
	rbWriteFile(t, watchDir, []byte("not a folder"))
	w.rsPrompt(t, "step 2")
	w.fill(t, 400000)
	if r := w.hook(t, watch.UserPromptSubmit, "p2", nil); r.Stdout != "" {
		t.Errorf("below the thresholds: %q", r.Stdout)
	}
	w.rsPrompt(t, "step 3")
	w.fill(t, 612000) // this turn crosses 500,000 and 600,000
	if r := w.hook(t, watch.PostToolUse, "p3", nil); r.Stdout != "" {
		t.Errorf("a tool call's hook told without a state: %q", r.Stdout)
	}
	got := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p4", nil).Stdout, watch.UserPromptSubmit)
	if !strings.Contains(got, "the context holds 612,000 tokens") || !strings.Contains(got, "Thresholds crossed: 500,000 at") || !strings.Contains(got, "600,000 at") {
		t.Errorf("the notice without a state:\n%s", got)
	}
	lines := rbLogLines(t, w.Log())
	if last := lines[len(lines)-1]; !strings.Contains(last, "watch(UserPromptSubmit) session="+w.sid+" outcome=ok") ||
		!strings.Contains(last, `detail="notice without the watch state (crossed in the previous turn, from 400000): 500000,600000; watch state: `) {
		t.Errorf("log line %s", last)
	}
	// The next turn crosses nothing: nothing is told again.
	w.rsPrompt(t, "step 4")
	w.fill(t, 615000)
	if r := w.hook(t, watch.UserPromptSubmit, "p5", nil); r.Stdout != "" {
		t.Errorf("told again without a new crossing: %q", r.Stdout)
	}
	// The one after crosses the last threshold: that one alone is told.
	w.rsPrompt(t, "step 5")
	w.fill(t, 705000)
	got = wtContext(t, w.hook(t, watch.UserPromptSubmit, "p6", nil).Stdout, watch.UserPromptSubmit)
	if !strings.Contains(got, "Thresholds crossed: 700,000 at") || strings.Contains(got, "500,000 at") {
		t.Errorf("the third crossing:\n%s", got)
	}
}
