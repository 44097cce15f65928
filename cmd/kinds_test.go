package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
)

// The kinds of compaction of issue 19, played in the order Claude Code
// 2.1.210 and 2.1.328 were measured to run them (specs/selectsnap.md SS-18
// to SS-20).

// arm plays what a precomputed compaction does when the client arms it:
// PreCompact(auto) runs and the summary is requested; nothing of it is
// written to the transcript, and the session goes on.
func (s *simSession) arm() {
	s.t.Helper()
	s.tick(time.Second)
	opts := &PrecompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload("PreCompact", map[string]any{"trigger": "auto", "custom_instructions": nil})), Out: hooktest.NewHintWriter(s.t), ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 10 * time.Second, GitTimeout: time.Second,
	}
	if err := precompactRun(opts); err != nil {
		s.t.Fatal(err)
	}
}

// response plays one more model response of the running prompt, with a
// command, as the session goes on after an arm.
func (s *simSession) response(cmd string) {
	s.tick(time.Second)
	id := fmt.Sprintf("toolu_r%d_%d", s.prompts, s.clock.Unix())
	s.append(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": s.ts(),
		"message": map[string]any{"role": "assistant", "model": "claude-opus-5-5", "content": []any{map[string]any{
			"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}},
			"usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": 150000}}})
	s.append(map[string]any{"type": "user", "isSidechain": false, "timestamp": s.ts(),
		"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
}

// swap plays the swap of a precomputed compaction: no PreCompact;
// SessionStart(compact), PostCompact, then the boundary, marked
// precomputed. It returns the pointer.
func (s *simSession) swap() string {
	s.t.Helper()
	summaryReady := s.tick(time.Second)
	pointer := s.postcompact("SessionStart")
	s.pointer = pointer
	s.postcompact("PostCompact")
	s.boundary(summaryReady)
	return pointer
}

func (s *simSession) record(name string) *snapshot.Record {
	s.t.Helper()
	rec, err := (&snapshot.Store{Dir: s.dir}).Load(name)
	if err != nil {
		s.t.Fatal(err)
	}
	return rec
}

func (s *simSession) lastCommand(name string) string {
	rec := s.record(name)
	if n := len(rec.Commands); n > 0 {
		return rec.Commands[n-1].Command
	}
	return ""
}

// spec: SS-18 SS-21 SS-25 PO-18 PO-C10 PO-C6
// Three precomputed compactions in one prompt: each arms (PreCompact at arm
// time), the session goes on, and the swap comes without a PreCompact. Each
// swap's pointer names a snapshot taken at SessionStart that holds the
// commands run up to the swap, never the arm-time snapshot nor an earlier
// swap's; its trigger is the arm's; PostCompact confirms it.
func TestPostcompactPrecomputedSwaps(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000e001")
	s.keepsTail = true
	s.turn("a long task")
	var armed []string
	for k := 1; k <= 3; k++ {
		s.arm()
		snaps := s.snapshots()
		armed = append(armed, snaps[len(snaps)-1])
		cmd := fmt.Sprintf("echo after the arm %d", k)
		s.response(cmd)
		s.response(cmd + " again")
		before := s.snapshots()
		taken := s.wantTaken(fmt.Sprintf("swap %d", k), s.swap(), before)
		if taken == "" {
			continue
		}
		if got := s.lastCommand(taken); got != cmd+" again" {
			t.Errorf("swap %d: the snapshot's last command is %q, want the one before the swap", k, got)
		}
		if rec := s.record(taken); rec.Trigger != "auto" {
			t.Errorf("swap %d: trigger %q, want the arm's auto", k, rec.Trigger)
		}
		if !s.confirmed(taken) {
			t.Errorf("swap %d: PostCompact did not confirm %s", k, taken)
		}
		for _, old := range armed {
			if s.confirmed(old) {
				t.Errorf("swap %d: the arm-time snapshot %s was confirmed", k, old)
			}
		}
	}
	if log := hooktest.ReadLog(s.dir); strings.Contains(log, "newer_turned_down=1") {
		t.Errorf("a newer snapshot was turned down:\n%s", log)
	}
}

// spec: SS-23 SS-25
// A typed /compact after an arm: two PreCompact runs, and the compaction
// that happens is the typed one, whose own snapshot the pointer names.
func TestPostcompactCompactAfterArm(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000e002")
	s.turn("one")
	s.arm()
	s.response("echo more")
	s.turn("two")
	p := s.compact(true)
	snaps := s.snapshots()
	s.wantPointer("typed /compact after the arm", p, snaps[len(snaps)-1])
	if s.record(snaps[len(snaps)-1]).HookEvent != "PreCompact" {
		t.Errorf("the pointer names a snapshot taken at SessionStart, want the typed compaction's PreCompact one")
	}
}

// spec: PO-19 SS-24 SS-25
// On a release that keeps tails (TR-53), a pointer handed out after the last
// boundary may still be in the context at the next compaction: the next
// pointer says it supersedes the one of its time. A release that keeps no
// tail gets no such line, and neither does the first compaction.
func TestPostcompactSupersedes(t *testing.T) {
	for _, keeps := range []bool{true, false} {
		t.Run(fmt.Sprintf("keeps tail %v", keeps), func(t *testing.T) {
			s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000e003")
			s.keepsTail = keeps
			s.turn("one")
			first := s.compact(true)
			if strings.Contains(first, "supersedes") {
				t.Errorf("the first pointer supersedes something:\n%s", first)
			}
			firstSnap := s.snapshots()[0]
			n, _ := snapshot.ParseName(firstSnap)
			s.turn("two")
			second := s.compact(true)
			want := "This pointer supersedes the one of " + n.Time.UTC().Format("15:04") + " UTC."
			if got := strings.Contains(second, want); got != keeps {
				t.Errorf("second pointer has %q: %v, want %v:\n%s", want, got, keeps, second)
			}
			if strings.Contains(second, firstSnap) {
				t.Errorf("the second pointer names the first's snapshot:\n%s", second)
			}
			// A swap without PreCompact supersedes too.
			s.turn("three")
			before := s.snapshots()
			third := s.compact(false)
			s.wantTaken("third", third, before)
			if got := strings.Contains(third, "This pointer supersedes the one of "); got != keeps {
				t.Errorf("third pointer supersedes: %v, want %v:\n%s", got, keeps, third)
			}
		})
	}
}

// spec: SS-20 SS-8 SS-25
// Idle compaction (2.1.328+, read from the bundle: 54 minutes after the last
// request): PreCompact(auto), SessionStart(compact), PostCompact, after a
// long silence. The pointer names its own snapshot; the precomputed variant
// ("compacted using a summary written while you were away", no PreCompact
// at the swap) gets one taken at SessionStart.
func TestPostcompactIdleCompaction(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000e004")
	s.turn("one")
	s.tick(54 * time.Minute)
	s.prompts++ // the idle timer's compaction runs outside any typed prompt
	s.arm()     // PreCompact(auto) at idle time
	own := s.snapshots()[0]
	summaryReady := s.tick(3 * time.Second)
	pointer := s.postcompact("SessionStart")
	s.postcompact("PostCompact")
	s.pointer = pointer
	s.boundary(summaryReady)
	s.wantPointer("idle compaction", pointer, own)
	if !s.confirmed(own) {
		t.Errorf("PostCompact did not confirm %s", own)
	}

	s.turn("two")
	s.arm() // armed while the user was there
	s.tick(54 * time.Minute)
	before := s.snapshots()
	s.wantTaken("idle swap of a precomputed summary", s.swap(), before)
}

// spec: PO-C13
// No snapshot is taken by a run by hand (no hook_event_name), nor for a
// client that writes its boundary before SessionStart (Codex CLI).
func TestPostcompactTakesOnlyForTheClient(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000e005")
	s.turn("one")
	payload := strings.Replace(s.payload("", map[string]any{"source": "compact"}), `"hook_event_name":"",`, "", 1)
	var out strings.Builder
	if err := postcompactRun(&PostcompactOptions{IO: &IO{In: strings.NewReader(payload), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.dir); out.Len() != 0 || err == nil {
		t.Errorf("a run by hand printed %q, and the snapshot folder exists: %v", out.String(), err == nil)
	}

	tmp := t.TempDir()
	tr := filepath.Join(tmp, "rollout-2026-12-01T10-00-00-0193aaaa-1111-7222-8333-444455556666.jsonl")
	if err := os.WriteFile(tr, []byte(strings.Join(hooktest.AgentLines["codex"], "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "snaps")
	start := `{"session_id":"0193aaaa-1111-7222-8333-444455556666","transcript_path":"` + tr + `","hook_event_name":"SessionStart","source":"compact"}`
	out.Reset()
	postcompactRun(&PostcompactOptions{IO: &IO{In: strings.NewReader(start), Out: &out, ErrOut: os.Stderr}, Dir: dir,
		Getenv: func(string) string { return "" }, Now: time.Now})
	if out.Len() != 0 {
		t.Errorf("a Codex session got a pointer: %q", out.String())
	}
	if es, _ := (&snapshot.Store{Dir: dir}).Entries(); len(es) != 0 {
		t.Errorf("a snapshot was taken for a Codex session: %v", es)
	}
}

// spec: SS-8c PO-C10
// SessionStart run again for the same compaction gets the snapshot the
// first run took; it takes no second one.
func TestPostcompactSessionStartAgainAfterATake(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000e006")
	s.turn("one")
	first := s.wantTaken("first run", s.postcompact("SessionStart"), nil)
	again := s.postcompact("SessionStart")
	s.wantPointer("second run", again, first)
	if n := len(s.snapshots()); n != 1 {
		t.Errorf("%d snapshots after two runs, want 1", n)
	}
}

// spec: PO-C11
// The take runs under postcompact's deadline: a transcript read that hangs
// leaves a snapshot that says it was not read (PO-14), a save that hangs
// leaves none and no pointer; each is logged, and the hook ends.
func TestPostcompactHungTake(t *testing.T) {
	t.Parallel()
	const sid = "d3ad11e5-0000-4000-8000-0000000000c3"
	for _, tc := range []struct {
		step    string
		pointer bool
		log     string
	}{
		{"reading the transcript", true, `outcome=ok .*transcript: not read within`},
		{"saving the snapshot", false, `outcome=none .*snapshot at the compaction: saving the snapshot: not done within the deadline; given up`},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "snaps")
			payload, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": hooktest.SmallTranscript(t), "hook_event_name": "SessionStart", "source": "compact"})
			var out strings.Builder
			if err := postcompactRun(&PostcompactOptions{
				IO:  &IO{In: bytes.NewReader(payload), Out: &out, ErrOut: &strings.Builder{}},
				Dir: dir, Lang: snapshot.English, Timeout: 2 * time.Second,
				Getenv: func(string) string { return "" }, Now: time.Now, beforeStep: hooktest.Hang(tc.step),
			}); err != nil {
				t.Fatal(err)
			}
			named := selectsnap.NamedSnapshot(out.String())
			if (named != "") != tc.pointer {
				t.Errorf("pointer %q, want one: %v", out.String(), tc.pointer)
			}
			if tc.pointer && !strings.Contains(out.String(), "were not read") && !strings.Contains(out.String(), "nothing was read") {
				t.Errorf("the pointer does not say the transcript was not read:\n%s", out.String())
			}
			if log := hooktest.ReadLog(dir); !regexp.MustCompile(tc.log).MatchString(log) {
				t.Errorf("log (%s):\n%s", tc.log, log)
			}
		})
	}
}
