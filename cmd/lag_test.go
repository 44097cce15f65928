package cmd

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/take"
)

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
	if err := take.MarkPreCompact(s.dir, s.sid, s.clock); err != nil {
		t.Fatal(err)
	}
	mark := s.clock
	s.clock = late.Add(-time.Second)
	s.toolHook(watch.PostToolUseFailure) // it ticks a second: 0.5 s before the mark
	if w := s.wentOn(); !w.PreCompact.Equal(mark) || !w.At.IsZero() {
		t.Errorf("a run that started before the mark was recorded: %+v", w)
	}
	// An older mark does not replace a newer one.
	if err := take.MarkPreCompact(s.dir, s.sid, mark.Add(-time.Hour)); err != nil {
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
		log := hooktest.ReadLog(s.dir)
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
			if rec, warning := take.WentOnRecorded(s.dir, s.sid); rec != nil || !strings.HasPrefix(warning, "watch state: ") {
				t.Fatalf("WentOnRecorded = %+v, %q; want nothing and a warning", rec, warning)
			}
			if got := s.swap(); !strings.Contains(got, armed[0]) {
				t.Errorf("want the transcript alone to decide (the arm-time snapshot named), got:\n%s", got)
			}
			if log := hooktest.ReadLog(s.dir); !strings.Contains(log, "watch state: ") {
				t.Errorf("the log line has no warning:\n%s", log)
			}
		})
	}
}
