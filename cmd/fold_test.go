package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/handover"
	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/take"
)

// The fold (PO-C18): the tests grow the transcript at a named step of a
// hook (its beforeStep), so the late lines come exactly between the hook's
// read and the next hook, with no sleep and whatever the machine's load.

// lateResponse appends, as Claude Code writes its queue late, a Bash call
// and its result made at at (before the hook that missed them started).
func (s *simSession) lateResponse(cmd string, at time.Time) {
	ts := at.UTC().Format("2006-01-02T15:04:05.000Z")
	id := fmt.Sprintf("toolu_late_%d", at.UnixNano())
	s.append(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": ts,
		"message": map[string]any{"role": "assistant", "model": "claude-opus-5-5", "content": []any{map[string]any{
			"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}}},
		map[string]any{"type": "user", "isSidechain": false, "timestamp": ts,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{
				"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
}

// preCompactMissing runs precompact while the client writes late: the
// response made just before the hook started is written once the hook has
// opened the transcript (its step "reading the transcript"), so the
// snapshot misses it. It returns the snapshot's name and the offset the
// late lines start at.
func (s *simSession) preCompactMissing(late string) (string, int64) {
	s.t.Helper()
	made := s.clock.Add(500 * time.Millisecond)
	s.tick(time.Second)
	var at int64 = -1
	var mu sync.Mutex // steps run in goroutines of their own
	steps := map[string]int{}
	opts := &PrecompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload("PreCompact", map[string]any{"trigger": "manual", "custom_instructions": nil})), Out: hooktest.NewHintWriter(s.t), ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 10 * time.Second, GitTimeout: time.Second,
		beforeStep: func(step string) {
			mu.Lock()
			defer mu.Unlock()
			steps[step]++
			if step == "reading the transcript" && at < 0 {
				at = s.size()
				s.lateResponse(late, made)
			}
		},
	}
	if err := precompactRun(opts); err != nil {
		s.t.Fatal(err)
	}
	if steps[take.StepSettle] != 0 || at < 0 {
		s.t.Fatalf("precompact's steps %v: want it to read at once (PC-48), the late lines written as it read", steps)
	}
	snaps := s.snapshots()
	name := snaps[len(snaps)-1]
	if got := s.lastCommand(name); got == late {
		s.t.Fatalf("precompact read the late lines: the test writes them too early")
	}
	if rec := s.record(name); rec.Coverage.TranscriptSize != at || rec.Coverage.Folded != nil {
		s.t.Fatalf("precompact's record covers %d bytes (folded %+v), want %d, where it read", rec.Coverage.TranscriptSize, rec.Coverage.Folded, at)
	}
	return name, at
}

func (s *simSession) size() int64 {
	s.t.Helper()
	fi, err := os.Stat(s.tr)
	if err != nil {
		s.t.Fatal(err)
	}
	return fi.Size()
}

// spec: PC-36 PC-48 PO-C14 PO-C18 SF-72 PC-38
// A compaction whose PreCompact missed the response the client wrote late:
// SessionStart(compact) reads at once (no wait for quiet: no settle step),
// folds the late lines into the same snapshot file, redacted, and hands
// out the pointer to it; the pointer and the snapshot hold the late
// command, and PostCompact confirms the same snapshot.
func TestFoldAtSessionStart(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000fa01")
	s.keepsTail = true
	s.turn("run the checks")
	token := "ghp_" + strings.Repeat("aB3dE5gH7j", 3) + "Kq9Zx1"
	late := "GITHUB_TOKEN=" + token + " go test ./... # written after PreCompact read"
	s.prompts++
	name, from := s.preCompactMissing(late)
	s.append(map[string]any{"type": "queue-operation", "operation": "dequeue", "timestamp": s.ts(), "sessionId": s.sid})
	var mu sync.Mutex // steps run in goroutines of their own
	steps := map[string]int{}
	s.beforeStep = func(step string) { mu.Lock(); steps[step]++; mu.Unlock() }
	summaryReady := s.tick(3 * time.Second)
	pointer := s.postcompact("SessionStart")
	s.wantPointer("SessionStart", pointer, name)
	if steps[take.StepSettle] != 0 || steps[handover.StepFold] != 1 {
		t.Errorf("SessionStart's steps %v: want no wait and one fold", steps)
	}
	rec := s.record(name)
	end := s.size()
	want := strings.Replace(late, token, "[REDACTED:github-pat]", 1)
	if got := s.lastCommand(name); !strings.Contains(got, "go test ./... # written after PreCompact read") || strings.Contains(got, token) {
		t.Errorf("the snapshot's last command is %q, want the late one redacted (%q)", got, want)
	}
	f := rec.Coverage.Folded
	if f == nil || f.Event != "SessionStart" || f.From != from || f.To != end || rec.Coverage.TranscriptSize != end || rec.Trigger != "manual" || rec.HookEvent != "PreCompact" {
		t.Errorf("coverage %+v, folded %+v, trigger %q, hook %q: want the PreCompact's snapshot completed from %d to %d", rec.Coverage, f, rec.Trigger, rec.HookEvent, from, end)
	}
	if rec.Redactions < 1 {
		t.Errorf("redactions %d, want the late line's token counted", rec.Redactions)
	}
	for _, ext := range []string{".md", ".json"} {
		path := filepath.Join(s.dir, name+ext)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", ext)
		}
		if ext == ".md" && !strings.Contains(string(b), "written after PreCompact read") {
			t.Errorf("the .md was not rendered again:\n%s", b)
		}
		if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", ext, fi.Mode())
		}
	}
	for _, w := range rec.Warnings {
		if strings.Contains(w, "still being written") {
			t.Errorf("a warning of the retired wait (PC-38): %q", w)
		}
	}
	if log := hooktest.ReadLog(s.dir); !strings.Contains(log, fmt.Sprintf("completed %s with bytes %d to %d", name, from, end)) {
		t.Errorf("the log does not say the snapshot was completed:\n%s", log)
	}
	s.pointer = pointer
	s.beforeStep = nil
	s.postcompact("PostCompact")
	s.boundary(summaryReady)
	if !s.confirmed(name) || len(s.snapshots()) != 1 {
		t.Errorf("PostCompact: confirmed %v, snapshots %v", s.confirmed(name), s.snapshots())
	}
	// The next compaction chains from the completed snapshot.
	s.turn("next task")
	next := s.compact(true)
	snaps := s.snapshots()
	s.wantPointer("the next compaction", next, snaps[len(snaps)-1])
	if prev := s.record(snaps[len(snaps)-1]).Coverage.Previous; prev != name {
		t.Errorf("the next snapshot chains from %q, want %s", prev, name)
	}
}

// spec: PO-C18 TR-90
// Lines the client writes after SessionStart read the transcript are
// folded in by PostCompact (which, like SessionStart, runs before the
// client writes the compaction's boundary); a tail of the client's
// bookkeeping alone (queue-operation) folds nothing and leaves the file
// untouched. With a client that writes the boundary first, the fold stops
// at it: nothing after the boundary is this compaction's.
func TestFoldAtPostCompact(t *testing.T) {
	t.Run("client order", func(t *testing.T) {
		s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000fa02")
		s.turn("a task")
		s.prompts++
		s.preCompact()
		name := s.snapshots()[0]
		s.append(map[string]any{"type": "queue-operation", "operation": "dequeue", "timestamp": s.ts(), "sessionId": s.sid})
		before, err := os.ReadFile(filepath.Join(s.dir, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		made := s.clock.Add(-200 * time.Millisecond)
		s.beforeStep = func(step string) {
			if step == handover.StepFold {
				// SessionStart has read the file: these come after it.
				s.lateResponse("make lint # written after SessionStart read", made)
				s.beforeStep = nil
			}
		}
		summaryReady := s.tick(3 * time.Second)
		pointer := s.postcompact("SessionStart")
		s.wantPointer("SessionStart", pointer, name)
		if after, _ := os.ReadFile(filepath.Join(s.dir, name+".json")); string(after) != string(before) {
			t.Errorf("SessionStart rewrote the snapshot for a tail of bookkeeping:\n%s", after)
		}
		s.pointer = pointer
		end := s.size()
		s.postcompact("PostCompact")
		s.boundary(summaryReady)
		rec := s.record(name)
		if got := s.lastCommand(name); got != "make lint # written after SessionStart read" {
			t.Errorf("the snapshot's last command is %q, want the late one", got)
		}
		if f := rec.Coverage.Folded; f == nil || f.Event != "PostCompact" || f.To != end || rec.Coverage.TranscriptSize != end {
			t.Errorf("coverage %+v folded %+v, want it completed up to %d", rec.Coverage, rec.Coverage.Folded, end)
		}
		if rec.Compaction == nil {
			t.Errorf("PostCompact did not confirm the completed snapshot")
		}
	})
	t.Run("boundary first", func(t *testing.T) {
		s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000fa04")
		s.boundaryFirst = true
		s.turn("a task")
		s.prompts++
		name, _ := s.preCompactMissing("make build # late, before the boundary")
		boundaryAt := s.size()
		s.boundary(s.tick(3 * time.Second))
		pointer := s.postcompact("SessionStart")
		s.wantPointer("SessionStart", pointer, name)
		rec := s.record(name)
		if got := s.lastCommand(name); got != "make build # late, before the boundary" {
			t.Errorf("the snapshot's last command is %q, want the last one before the boundary", got)
		}
		if f := rec.Coverage.Folded; f == nil || f.To != boundaryAt || rec.Coverage.TranscriptSize != boundaryAt || rec.EarlierCompactions != 0 {
			t.Errorf("coverage %+v folded %+v, earlier compactions %d: want it completed up to the boundary at %d", rec.Coverage, rec.Coverage.Folded, rec.EarlierCompactions, boundaryAt)
		}
	})
}

// spec: PO-C19
// A fold that does not end in its phase of the deadline is given up: the
// pointer names the snapshot as precompact wrote it, whole, and the log
// line says it was not completed.
func TestFoldGivenUp(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000fa03")
	s.turn("a task")
	s.prompts++
	name, from := s.preCompactMissing("go vet ./... # late")
	// The fold's step is held until the run goes on to its next step,
	// which it does once the fold's phase of the deadline has passed: the
	// fold then finds that deadline passed and writes nothing.
	hold := make(chan struct{})
	var held atomic.Bool
	var once sync.Once
	s.beforeStep = func(step string) {
		switch {
		case step == handover.StepFold:
			held.Store(true)
			<-hold
		case held.Load():
			once.Do(func() { close(hold) })
		}
	}
	t.Cleanup(func() { once.Do(func() { close(hold) }) })
	var out strings.Builder
	opts := &PostcompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload("SessionStart", map[string]any{"source": "compact"})), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 5 * time.Second, beforeStep: s.beforeStep,
	}
	if err := postcompactRun(opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), name) {
		t.Errorf("no pointer to %s:\n%s", name, out.String())
	}
	rec := s.record(name)
	if rec.Coverage.Folded != nil || rec.Coverage.TranscriptSize != from {
		t.Errorf("the snapshot changed: %+v", rec.Coverage)
	}
	if log := hooktest.ReadLog(s.dir); !strings.Contains(log, "snapshot not completed: "+handover.StepFold) {
		t.Errorf("the log does not say the fold was given up:\n%s", log)
	}
}

// spec: PC-36 PO-C14
// --settle is still accepted (a settings file written with it keeps its
// hooks) and does nothing.
func TestSettleFlagAccepted(t *testing.T) {
	for _, cmd := range []string{"precompact", "postcompact"} {
		var out, errOut strings.Builder
		dir := t.TempDir()
		code := Main([]string{"--dir", dir, cmd, "--settle", "400ms"}, strings.NewReader(`{"session_id":"x","hook_event_name":"SessionStart","source":"startup"}`), &out, &errOut)
		if code != 0 || out.Len() != 0 || strings.Contains(errOut.String(), "settle") || strings.Contains(hooktest.ReadLog(dir), "flag") {
			t.Errorf("%s --settle 400ms: exit %d, stdout %q, stderr %q, log %q", cmd, code, out.String(), errOut.String(), hooktest.ReadLog(dir))
		}
	}
}
