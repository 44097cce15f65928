package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// spec: PC-24
// The wait for a Qwen Code transcript to settle, driven by a clock that moves one
// poll per look: it ends a quiet period after the last growth, at the cap
// while the file still grows, or when the deadline ends it.
func TestSettler(t *testing.T) {
	const poll = 10 * time.Millisecond
	for _, tc := range []struct {
		name   string
		sizes  []int64 // the size at each look; the last repeats
		cut    int     // the deadline ends the wait at this pause (0: never)
		want   settled
		quiet  time.Duration
		maxDur time.Duration
	}{
		{"nothing comes: one quiet period", []int64{100}, 0, settled{Quiet: true, Waited: 400 * time.Millisecond}, 400 * time.Millisecond, time.Second},
		{"a write after 30 ms, then quiet", []int64{100, 100, 100, 250}, 0,
			settled{Quiet: true, Waited: 430 * time.Millisecond, Grew: 150}, 400 * time.Millisecond, time.Second},
		{"two writes of one drain", []int64{100, 200, 300}, 0, settled{Quiet: true, Waited: 420 * time.Millisecond, Grew: 200}, 400 * time.Millisecond, time.Second},
		{"it keeps growing: the cap", nil, 0, settled{Waited: time.Second, Grew: 100 * 100}, 400 * time.Millisecond, time.Second},
		{"the deadline", []int64{100}, 5, settled{Waited: 40 * time.Millisecond}, 400 * time.Millisecond, time.Second},
		{"no quiet period asked for", []int64{100}, 0, settled{Quiet: true}, 0, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
			looks, pauses := 0, 0
			s := settler{quiet: tc.quiet, max: tc.maxDur, now: func() time.Time { return clock },
				size: func() int64 {
					defer func() { looks++ }()
					if tc.sizes == nil {
						return int64(100 * looks)
					}
					return tc.sizes[min(looks, len(tc.sizes)-1)]
				},
				wait: func() bool {
					pauses++
					if pauses == tc.cut {
						return false
					}
					clock = clock.Add(poll)
					return true
				},
			}
			if got := s.run(); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// toolHook runs watch as the hook of a tool call (PostToolUse) or a prompt
// (UserPromptSubmit) of s, at s's clock, and returns what it printed.
func (s *simSession) toolHook(event string) string {
	s.t.Helper()
	s.tick(time.Second)
	thresholds, _ := watch.ParseThresholds(watch.DefaultThresholds)
	var out strings.Builder
	extra := map[string]any{}
	if event != watch.UserPromptSubmit {
		extra = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "echo"}}
	}
	opts := &WatchOptions{IO: &IO{In: strings.NewReader(s.payload(event, extra)), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Thresholds: thresholds, Timeout: 5 * time.Second}
	if err := watchRun(opts); err != nil {
		s.t.Fatal(err)
	}
	return out.String()
}

func (s *simSession) wentOn() *watch.WentOn {
	s.t.Helper()
	st, err := watch.StoreFor(s.dir).Load(s.sid)
	if err != nil {
		s.t.Fatal(err)
	}
	if st == nil {
		return nil
	}
	return st.WentOn
}

// spec: SS-27 PC-37
// precompact marks its start in the session's watch state; the first tool
// call's or prompt's watch run after it records itself, once; a run that
// started before the mark, or a Stop, records nothing.
func TestWatchRecordsTheSessionGoingOn(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000f002")
	s.turn("a long task")
	if out := s.toolHook(watch.PostToolUse); out != "" || s.wentOn() != nil {
		t.Fatalf("before any PreCompact: printed %q, recorded %+v", out, s.wentOn())
	}
	s.arm()
	armed := s.clock
	w := s.wentOn()
	if w == nil || !w.PreCompact.Equal(armed) || !w.At.IsZero() {
		t.Fatalf("after PreCompact at %s: %+v", armed, w)
	}
	if out := s.toolHook(watch.Stop); out != "" || !s.wentOn().At.IsZero() {
		t.Fatalf("a Stop recorded %+v (printed %q)", s.wentOn(), out)
	}
	if out := s.toolHook(watch.PostToolUse); out != "" {
		t.Errorf("PostToolUse printed %q", out)
	}
	first := s.clock
	if w := s.wentOn(); w == nil || !w.At.Equal(first) || w.Event != watch.PostToolUse {
		t.Fatalf("the first tool call after the arm: %+v, want at %s", w, first)
	}
	s.toolHook(watch.UserPromptSubmit)
	if w := s.wentOn(); !w.At.Equal(first) {
		t.Errorf("a later run moved the record: %+v", w)
	}
	// A watch run that started before a later PreCompact's mark, and took
	// the lock after it, records nothing.
	late := s.clock.Add(500 * time.Millisecond)
	s.tick(time.Second)
	if err := markPreCompact(s.dir, s.sid, s.clock); err != nil {
		t.Fatal(err)
	}
	mark := s.clock
	s.clock = late.Add(-time.Second)
	s.toolHook(watch.PostToolUseFailure) // it ticks a second: 0.5 s before the mark
	if w := s.wentOn(); !w.PreCompact.Equal(mark) || !w.At.IsZero() {
		t.Errorf("a run that started before the mark was recorded: %+v", w)
	}
	// An older mark does not replace a newer one.
	if err := markPreCompact(s.dir, s.sid, mark.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if w := s.wentOn(); !w.PreCompact.Equal(mark) {
		t.Errorf("an older mark replaced the newer: %+v", w)
	}
}

// spec: SS-26 SS-18 SS-21 PO-C15 PO-C10
// A precomputed swap while the transcript lags: the responses after the
// arm are not in the file when SessionStart(compact) runs, but watch
// recorded the tool call after the arm, so the arm-time snapshot is not
// named; the snapshot is taken at the compaction, with the arm's trigger.
// Without the record (the same file, no watch) the arm-time one would be
// named: the transcript alone cannot tell. A proactive compaction, whose
// tool calls all came before its PreCompact, keeps its own snapshot.
func TestPostcompactSwapUnderLag(t *testing.T) {
	t.Run("swap, watch recorded the tool call", func(t *testing.T) {
		s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000f003")
		s.keepsTail = true
		s.turn("a long task")
		s.arm()
		armed := s.snapshots()
		s.toolHook(watch.PostToolUse) // the client has not written the response yet
		taken := s.wantTaken("swap", s.swap(), armed)
		if taken == "" {
			return
		}
		if rec := s.record(taken); rec.Trigger != "auto" {
			t.Errorf("trigger %q, want the arm's auto", rec.Trigger)
		}
		log := readLog(s.dir)
		if !strings.Contains(log, armed[0]+": the session went on after it (a PostToolUse hook ran at") {
			t.Errorf("the log does not say why the arm-time snapshot was turned down:\n%s", log)
		}
		if strings.Contains(log, "newer_turned_down=1") {
			t.Errorf("a newer snapshot was turned down:\n%s", log)
		}
	})
	t.Run("swap, no watch record: the transcript alone names the arm's", func(t *testing.T) {
		s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000f004")
		s.turn("a long task")
		s.arm()
		armed := s.snapshots()
		if got := s.swap(); !strings.Contains(got, armed[0]) {
			t.Errorf("the control: want the arm-time snapshot named, got:\n%s", got)
		}
	})
	t.Run("proactive: the tool calls came before its PreCompact", func(t *testing.T) {
		s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000f005")
		s.turn("a long task")
		s.toolHook(watch.PostToolUse)
		s.arm() // PreCompact(auto) at the threshold, then the compaction
		own := s.snapshots()
		s.wantPointer("proactive", s.swap(), own[len(own)-1])
	})
}

// The record's JSON keeps the mark's time to the nanosecond, so that the
// snapshot's created_at and the mark compare equal.
func TestWentOnRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 2, 0, 49, 53, 248311593, time.UTC)
	b, err := json.Marshal(watch.State{WentOn: &watch.WentOn{PreCompact: at}})
	if err != nil {
		t.Fatal(err)
	}
	var st watch.State
	if err := json.Unmarshal(b, &st); err != nil || !st.WentOn.PreCompact.Equal(at) {
		t.Fatalf("%s → %+v, %v", b, st.WentOn, err)
	}
	rec := snapshot.Record{CreatedAt: at}
	if b, _ := json.Marshal(rec); !strings.Contains(string(b), fmt.Sprint(at.Format(time.RFC3339Nano))) {
		t.Errorf("record %s", b)
	}
}

// spec: SS-29 PO-C15
// A watch state that does not parse, or that others can write, gives
// selection no record and the log line a warning; selection then goes by
// the transcript alone (the arm-time snapshot of the control case).
func TestWentOnUnreadableState(t *testing.T) {
	for _, tc := range []struct {
		name, sid string
		data      string
		mode      os.FileMode
	}{
		{"does not parse", "7c1d0e5a-0000-4000-8000-00000000f010", "{not json", 0o600},
		{"others can write it", "7c1d0e5a-0000-4000-8000-00000000f011", `{"schema":1}`, 0o622},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode != 0o600 && runtime.GOOS == "windows" {
				t.Skip("file modes say nothing of who can write on Windows (security.md)")
			}
			s := newSimSession(t, tc.sid)
			s.turn("a long task")
			s.arm()
			armed := s.snapshots()
			s.toolHook(watch.PostToolUse)
			path := watch.StoreFor(s.dir).Path(s.sid)
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.mode); err != nil {
				t.Fatal(err)
			}
			if rec, warning := wentOnRecorded(s.dir, s.sid); rec != nil || !strings.HasPrefix(warning, "watch state: ") {
				t.Fatalf("wentOnRecorded = %+v, %q; want nothing and a warning", rec, warning)
			}
			if got := s.swap(); !strings.Contains(got, armed[0]) {
				t.Errorf("want the transcript alone to decide (the arm-time snapshot named), got:\n%s", got)
			}
			if log := readLog(s.dir); !strings.Contains(log, "watch state: ") {
				t.Errorf("the log line has no warning:\n%s", log)
			}
		})
	}
}

// spec: PC-37
// The wait for the PreCompact's note goes on while the note is merely
// slow (the looks find no other run's lock), whatever the machine's load;
// it gives up, with a warning, on evidence that another run holds the
// session's watch lock, or at the deadline. The looks are driven by the
// test, not by time.
func TestPreCompactNoteWait(t *testing.T) {
	var warnings []string
	warn := func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }
	t.Run("slow, not held up", func(t *testing.T) {
		warnings = nil
		marked, tick := make(chan error, 1), make(chan time.Time)
		done := make(chan struct{})
		looks := 0
		go func() {
			waitPreCompactNote(context.Background(), marked, tick, func() bool { looks++; return false }, warn)
			close(done)
		}()
		for range 5 { // five looks, 1.25 s of a busy machine
			tick <- time.Time{}
		}
		marked <- nil
		<-done
		if looks != 5 || len(warnings) != 0 {
			t.Errorf("looks %d, warnings %q: want it to wait for the note", looks, warnings)
		}
	})
	t.Run("held by another run", func(t *testing.T) {
		warnings = nil
		tick := make(chan time.Time, 1)
		tick <- time.Time{}
		waitPreCompactNote(context.Background(), make(chan error), tick, func() bool { return true }, warn)
		if len(warnings) != 1 || !strings.Contains(warnings[0], "another run holds the session's watch lock") {
			t.Errorf("warnings %q", warnings)
		}
	})
	t.Run("the deadline", func(t *testing.T) {
		warnings = nil
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		waitPreCompactNote(ctx, make(chan error), make(chan time.Time), func() bool { return false }, warn)
		if len(warnings) != 1 || !strings.Contains(warnings[0], "not written by the deadline") {
			t.Errorf("warnings %q", warnings)
		}
	})
	t.Run("whose lock", func(t *testing.T) {
		dir := t.TempDir()
		const sid = "7c1d0e5a-0000-4000-8000-00000000f020"
		path := watch.StoreFor(dir).LockPath(sid)
		since := time.Now()
		held := watchLockHeldSince(dir, sid, since)
		if held() {
			t.Errorf("no lock file: held")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, d := range []time.Duration{time.Second, -10 * time.Millisecond} {
			if err := os.Chtimes(path, since.Add(d), since.Add(d)); err != nil {
				t.Fatal(err)
			}
			if held() {
				t.Errorf("a lock dated %s from the note's start (this run's own, the file clock coarse): held by another", d)
			}
		}
		if err := os.Chtimes(path, since.Add(-time.Second), since.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if !held() {
			t.Errorf("a lock taken before the note started: not held by another")
		}
	})
}
