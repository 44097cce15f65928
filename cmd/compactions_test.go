package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
)

// simSession plays a Claude Code session that compacts many times, writing
// its transcript the way the client does and running precompact and
// postcompact at the moments the client runs their hooks. Its clock moves
// on by itself, so snapshot names, record times and transcript timestamps
// agree as they do for real.
type simSession struct {
	t     *testing.T
	dir   string // snapshot folder
	tr    string // transcript
	sid   string
	clock time.Time
	// boundaryFirst plays a client that writes a compaction's boundary
	// before its SessionStart(compact) hook runs; every release measured
	// writes it after (specs/selectsnap.md).
	boundaryFirst bool
	// noPromptIDs plays a client older than 2.1.196, whose payloads carry
	// no prompt_id.
	noPromptIDs bool
	prompts     int
	// pointer is what the last SessionStart(compact) handed out, which the
	// client records after the boundary.
	pointer string
	// keepsTail plays a release whose boundaries name the messages they
	// kept (TR-53: 2.1.210, 2.1.328).
	keepsTail bool
	// beforeStep, when set, is given to postcompact's runs (a step that
	// hangs).
	beforeStep func(string)
}

func newSimSession(t *testing.T, sid string) *simSession {
	tmp := t.TempDir()
	s := &simSession{t: t, dir: filepath.Join(tmp, "snaps"), tr: filepath.Join(tmp, "claude", "projects", "-p", sid+".jsonl"), sid: sid,
		clock: time.Now().Add(-20 * time.Minute).Truncate(time.Second)}
	if err := os.MkdirAll(filepath.Dir(s.tr), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.tr, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *simSession) tick(d time.Duration) time.Time { s.clock = s.clock.Add(d); return s.clock }

func (s *simSession) ts() string { return s.clock.UTC().Format("2006-01-02T15:04:05.000Z") }

func (s *simSession) append(entries ...map[string]any) {
	s.t.Helper()
	f, err := os.OpenFile(s.tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	for _, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			s.t.Fatal(err)
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			s.t.Fatal(err)
		}
	}
}

// promptID is the id of the prompt being processed, "" for a client that
// sends none.
func (s *simSession) promptID() string {
	if s.noPromptIDs {
		return ""
	}
	return fmt.Sprintf("prompt-%04d", s.prompts)
}

// turn is one typed prompt answered by the model with a file edit.
func (s *simSession) turn(text string) {
	s.prompts++
	s.tick(time.Minute)
	s.append(map[string]any{"type": "user", "isSidechain": false, "timestamp": s.ts(), "promptSource": "typed",
		"message": map[string]any{"role": "user", "content": text}})
	s.tick(time.Second)
	s.append(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": s.ts(),
		"message": map[string]any{"role": "assistant", "model": "claude-opus-5-5", "content": []any{map[string]any{
			"type": "tool_use", "id": fmt.Sprintf("toolu_%d", s.prompts), "name": "Write",
			"input": map[string]any{"file_path": fmt.Sprintf("/p/file%d.txt", s.prompts), "content": "x"}}}}})
	s.append(map[string]any{"type": "user", "isSidechain": false, "timestamp": s.ts(),
		"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": fmt.Sprintf("toolu_%d", s.prompts), "content": "ok"}}}})
	s.tick(time.Second)
	s.append(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": s.ts(),
		"message": map[string]any{"role": "assistant", "model": "claude-opus-5-5", "content": []any{map[string]any{"type": "text", "text": "done"}},
			"usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": 1000}}})
}

func (s *simSession) payload(event string, extra map[string]any) string {
	p := map[string]any{"session_id": s.sid, "transcript_path": s.tr, "cwd": "/p", "hook_event_name": event}
	if id := s.promptID(); id != "" {
		p["prompt_id"] = id
	}
	for k, v := range extra {
		p[k] = v
	}
	b, _ := json.Marshal(p)
	return string(b)
}

func (s *simSession) now() time.Time { return s.clock }

func (s *simSession) preCompact() {
	s.t.Helper()
	s.tick(time.Second)
	opts := &PrecompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload("PreCompact", map[string]any{"trigger": "manual", "custom_instructions": nil})), Out: hooktest.NewHintWriter(s.t), ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 10 * time.Second, GitTimeout: time.Second,
	}
	if err := precompactRun(opts); err != nil {
		s.t.Fatal(err)
	}
}

// postcompact runs the SessionStart(compact) or PostCompact hook and
// returns the additionalContext it printed, "" for nothing.
func (s *simSession) postcompact(event string) string {
	s.t.Helper()
	s.tick(2 * time.Second)
	extra := map[string]any{"source": "compact"}
	if event == "PostCompact" {
		extra = map[string]any{"trigger": "manual", "compact_summary": "summary"}
	}
	var out strings.Builder
	opts := &PostcompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload(event, extra)), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 5 * time.Second,
		beforeStep: s.beforeStep,
	}
	if err := postcompactRun(opts); err != nil {
		s.t.Fatal(err)
	}
	if out.Len() == 0 {
		return ""
	}
	var o struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out.String()), &o); err != nil {
		s.t.Fatalf("postcompact output %q: %v", out.String(), err)
	}
	return o.HookSpecificOutput.AdditionalContext
}

// boundary writes what the client writes for a finished compaction: the
// boundary (timestamped when the summary was ready), the summary, and the
// /compact command's echo.
func (s *simSession) boundary(at time.Time) {
	ts := at.UTC().Format("2006-01-02T15:04:05.000Z")
	meta := map[string]any{"trigger": "manual", "preTokens": 1010}
	if s.keepsTail {
		meta["preservedSegment"] = map[string]any{"headUuid": "h", "anchorUuid": "a", "tailUuid": "t"}
	}
	s.append(
		map[string]any{"type": "system", "subtype": "compact_boundary", "isSidechain": false, "parentUuid": nil, "timestamp": ts,
			"content": "Conversation compacted", "compactMetadata": meta},
		map[string]any{"type": "user", "isSidechain": false, "isCompactSummary": true, "timestamp": ts,
			"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation…"}},
		map[string]any{"type": "user", "isSidechain": false, "timestamp": ts,
			"message": map[string]any{"role": "user", "content": "<command-name>/compact</command-name>"}},
	)
	if s.pointer != "" {
		// What 2.1.328 records of a SessionStart hook that gave context.
		s.append(
			map[string]any{"type": "attachment", "timestamp": ts, "attachment": map[string]any{"type": "hook_success",
				"hookName": "SessionStart:compact", "hookEvent": "SessionStart", "content": "", "exitCode": 0}},
			map[string]any{"type": "attachment", "timestamp": ts, "attachment": map[string]any{"type": "hook_additional_context",
				"hookName": "SessionStart", "hookEvent": "SessionStart", "content": []any{s.pointer}}},
		)
	}
}

// compact plays one /compact in the client's order and returns the pointer
// SessionStart(compact) handed out. withPreCompact false plays a compaction
// whose PreCompact hook never ran.
func (s *simSession) compact(withPreCompact bool) string {
	s.t.Helper()
	s.prompts++ // "/compact" is a prompt of its own
	if withPreCompact {
		s.preCompact()
	}
	s.append(map[string]any{"type": "mode", "mode": "normal", "sessionId": s.sid})
	summaryReady := s.tick(3 * time.Second)
	if s.boundaryFirst {
		s.boundary(summaryReady)
	}
	pointer := s.postcompact("SessionStart")
	s.pointer = pointer
	s.postcompact("PostCompact")
	if !s.boundaryFirst {
		s.boundary(summaryReady)
	}
	return pointer
}

// refusedCompaction plays a compaction the client abandoned after its
// PreCompact hook ran: no boundary, no SessionStart.
func (s *simSession) refusedCompaction() {
	s.preCompact()
	s.append(map[string]any{"type": "mode", "mode": "normal", "sessionId": s.sid})
}

// snapshots returns the session's snapshot names, oldest first.
func (s *simSession) snapshots() []string {
	s.t.Helper()
	es, err := (&snapshot.Store{Dir: s.dir}).Entries()
	if err != nil {
		s.t.Fatal(err)
	}
	var names []string
	for i := len(es) - 1; i >= 0; i-- {
		names = append(names, es[i].Name)
	}
	return names
}

func (s *simSession) wantPointer(what, pointer, name string) {
	s.t.Helper()
	if name == "" {
		if pointer != "" {
			s.t.Errorf("%s: a pointer was handed out, want none:\n%s\nlog:\n%s", what, pointer, hooktest.ReadLog(s.dir))
		}
		return
	}
	if !strings.Contains(pointer, filepath.Join(s.dir, name+".md")) {
		s.t.Errorf("%s: the pointer does not name %s:\n%s\nlog:\n%s", what, name, pointer, hooktest.ReadLog(s.dir))
	}
	for _, other := range s.snapshots() {
		if other != name && strings.Contains(pointer, other) {
			s.t.Errorf("%s: the pointer names %s too", what, other)
		}
	}
}

// wantTaken checks that pointer names one snapshot, taken at SessionStart
// for this compaction: none of before (the snapshots that existed before
// it), one postcompact took (hook_event SessionStart), and says so. It
// returns its name.
func (s *simSession) wantTaken(what, pointer string, before []string) string {
	s.t.Helper()
	named := selectsnap.NamedSnapshot(pointer)
	for _, b := range before {
		if strings.Contains(pointer, b) {
			s.t.Errorf("%s: the pointer names %s, a snapshot of before the compaction:\n%s", what, b, pointer)
		}
	}
	if named == "" {
		s.t.Errorf("%s: no pointer to a snapshot taken at the compaction:\n%q\nlog:\n%s", what, pointer, hooktest.ReadLog(s.dir))
		return ""
	}
	rec, err := (&snapshot.Store{Dir: s.dir}).Load(named)
	if err != nil {
		s.t.Fatal(err)
	}
	if rec.HookEvent != "SessionStart" || !strings.Contains(pointer, "taken at the compaction is at") ||
		!strings.Contains(pointer, "so this one was taken as the compacted session started") {
		s.t.Errorf("%s: %s (hook %q) is not said to be taken at the compaction:\n%s", what, named, rec.HookEvent, pointer)
	}
	return named
}

func (s *simSession) confirmed(name string) bool {
	s.t.Helper()
	rec, err := (&snapshot.Store{Dir: s.dir}).Load(name)
	if err != nil {
		s.t.Fatal(err)
	}
	return rec.Compaction != nil
}

// spec: SS-8 PO-C3 PO-C6 PO-C8
// One session compacted again and again, in the client's order and in the
// other: after the k-th compaction the pointer names the k-th snapshot and
// no other, and PostCompact confirms that one.
func TestPostcompactEveryCompactionGetsItsOwnPointer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                       string
		boundaryFirst, noPromptIDs bool
	}{
		{"boundary after the hooks (every release measured)", false, false},
		{"boundary before the hooks", true, false},
		{"boundary after the hooks, no prompt ids (before 2.1.196)", false, true},
		{"boundary before the hooks, no prompt ids", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000a001")
			s.boundaryFirst, s.noPromptIDs = c.boundaryFirst, c.noPromptIDs
			for k := 1; k <= 12; k++ {
				s.turn(fmt.Sprintf("work before compaction %d", k))
				back := k%4 == 0 // now and then two compactions back to back
				pointer := s.compact(true)
				snaps := s.snapshots()
				own := snaps[len(snaps)-1]
				s.wantPointer(fmt.Sprintf("compaction %d", k), pointer, own)
				if !strings.Contains(pointer, fmt.Sprintf("work before compaction %d", k)) {
					t.Errorf("compaction %d: the pointer lacks the last prompt:\n%s", k, pointer)
				}
				if !s.confirmed(own) {
					t.Errorf("compaction %d: PostCompact did not confirm %s", k, own)
				}
				if back {
					k++
					pointer := s.compact(true)
					snaps := s.snapshots()
					s.wantPointer(fmt.Sprintf("compaction %d, right after the one before", k), pointer, snaps[len(snaps)-1])
				}
			}
			if log := hooktest.ReadLog(s.dir); strings.Contains(log, "newer_turned_down=1") {
				t.Errorf("a newer snapshot was turned down:\n%s", log)
			}
		})
	}
}

// spec: SS-8a SS-8c SS-8d SS-21 PO-C6 PO-C10
// Compactions that have no snapshot of their own get one taken at
// SessionStart, whatever the client's order, and never an earlier
// compaction's: a PreCompact that never ran (after a turn, or back to back),
// and a refused compaction followed by one without PreCompact. (Before
// issue 19 these got no pointer at all; SS-8 still keeps every earlier
// compaction's snapshot out.) PostCompact confirms the snapshot taken.
func TestPostcompactCompactionWithoutItsSnapshot(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                       string
		boundaryFirst, noPromptIDs bool
	}{
		{"boundary after", false, false},
		{"boundary before", true, false},
		{"boundary after, no prompt ids", false, true},
		{"boundary before, no prompt ids", true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			t.Run("PreCompact did not run, after a turn", func(t *testing.T) {
				s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000b001")
				s.boundaryFirst, s.noPromptIDs = c.boundaryFirst, c.noPromptIDs
				s.turn("one")
				first := s.compact(true)
				s.wantPointer("first", first, s.snapshots()[0])
				s.turn("two")
				before := s.snapshots()
				taken := s.wantTaken("second, without PreCompact", s.compact(false), before)
				if !strings.Contains(s.pointer, "two") {
					t.Errorf("the snapshot taken at the compaction lacks the prompt typed before it:\n%s", s.pointer)
				}
				if taken != "" && !s.confirmed(taken) {
					t.Errorf("PostCompact did not confirm %s", taken)
				}
				// The next compaction with its PreCompact is itself again.
				s.turn("three")
				third := s.compact(true)
				snaps := s.snapshots()
				s.wantPointer("third", third, snaps[len(snaps)-1])
			})
			t.Run("PreCompact did not run, back to back", func(t *testing.T) {
				s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000b002")
				s.boundaryFirst, s.noPromptIDs = c.boundaryFirst, c.noPromptIDs
				s.turn("one")
				s.wantPointer("first", s.compact(true), s.snapshots()[0])
				before := s.snapshots()
				second := s.wantTaken("second, right after, without PreCompact", s.compact(false), before)
				// A third without PreCompact gets its own again, not the second's.
				s.wantTaken("third, right after, without PreCompact", s.compact(false), append(before, second))
			})
			t.Run("refused compaction, then one without PreCompact", func(t *testing.T) {
				s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000b003")
				s.boundaryFirst, s.noPromptIDs = c.boundaryFirst, c.noPromptIDs
				s.turn("one")
				s.wantPointer("first", s.compact(true), s.snapshots()[0])
				s.turn("two")
				s.refusedCompaction()
				s.turn("three")
				before := s.snapshots()
				s.wantTaken("compaction after the refused one, without PreCompact", s.compact(false), before)
				// With its PreCompact, it is its own, not the refused one's.
				s.turn("four")
				p := s.compact(true)
				snaps := s.snapshots()
				s.wantPointer("next compaction", p, snaps[len(snaps)-1])
			})
		})
	}
}

// spec: PO-C5 SS-12 PO-C12
// A failed precompact of this compaction: the snapshot is taken at
// SessionStart, and the pointer says precompact failed; when the take fails
// too, the failure notice is given. A marker of an earlier compaction is not
// used, and the log says why.
func TestPostcompactFailureMarkerOfThisCompactionOnly(t *testing.T) {
	t.Parallel()
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000c001")
	s.turn("one")
	s.wantPointer("first", s.compact(true), s.snapshots()[0])
	failed := func() {
		s.prompts++
		s.tick(time.Second)
		info, _ := os.Stat(s.tr)
		if err := snapshot.WriteFailure(s.dir, snapshot.Failure{SessionID: s.sid, Time: s.clock, Reason: "disk full",
			TranscriptSize: info.Size(), PromptID: s.promptID()}); err != nil {
			t.Fatal(err)
		}
		s.tick(3 * time.Second)
	}

	s.turn("two")
	failed()
	before := s.snapshots()
	pointer := s.postcompact("SessionStart")
	s.wantTaken("second, precompact failed", pointer, before)
	if !strings.Contains(pointer, "compact-guard wrote no snapshot before this compaction (\"disk full\")") {
		t.Errorf("the pointer does not say precompact failed:\n%s", pointer)
	}
	if m, _ := snapshot.ReadFailure(s.dir, s.sid); m != nil {
		t.Errorf("the failure marker is left after the snapshot was taken: %+v", m)
	}
	s.pointer = pointer
	s.postcompact("PostCompact")
	s.boundary(s.clock)

	// The take fails too (its save hangs): the notice wins.
	s.turn("three")
	failed()
	s.beforeStep = func(step string) {
		if step == "saving the snapshot" {
			select {}
		}
	}
	notice := s.postcompact("SessionStart")
	s.beforeStep = nil
	if !strings.Contains(notice, "disk full") || selectsnap.NamedSnapshot(notice) != "" {
		t.Errorf("want the failure notice, got:\n%s", notice)
	}
	s.pointer = notice
	s.postcompact("PostCompact")
	s.boundary(s.clock)

	// The next compaction's precompact fails too, but its marker is not
	// written (a crash): the old marker is about another compaction.
	s.turn("four")
	before = s.snapshots()
	s.wantTaken("fourth, no snapshot, stale marker", s.compact(false), before)
	if log := hooktest.ReadLog(s.dir); !strings.Contains(log, "failure marker of") {
		t.Errorf("the log does not say why the marker was not used:\n%s", log)
	}
}

// spec: PO-C7
// The log line names what selection turned down and counts the newer ones.
func TestPostcompactLogsTurnedDown(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-00000000d001")
	s.turn("one")
	s.compact(true)
	s.turn("two")
	s.compact(false)
	log := hooktest.ReadLog(s.dir)
	first := s.snapshots()[0]
	lines := strings.Split(strings.TrimSpace(log), "\n")
	var last string
	for _, l := range lines {
		if strings.Contains(l, " postcompact session=") {
			last = l
		}
	}
	// The compaction without PreCompact got a snapshot taken at SessionStart
	// (PO-C10): what was turned down is older than it.
	if !strings.Contains(last, "outcome=ok") || !strings.Contains(last, "newer_turned_down=0") ||
		!strings.Contains(last, `turned_down="`+first+`: `) || !strings.Contains(last, "snapshot taken at the compaction") {
		t.Errorf("the last SessionStart line does not name the snapshot turned down:\n%s", last)
	}
}
