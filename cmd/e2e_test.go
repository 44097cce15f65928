//go:build e2e

package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestE2E runs every end-to-end scenario of specs/e2e.md against one build of
// compact-guard. The scenarios are independent (each has its own HOME, fake
// API and projects) and run in parallel.
func TestE2E(t *testing.T) {
	claude := e2eRequireClaude(t)
	bins := e2eBuild(t, t.TempDir())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eBinaries, e2eClient)
	}{
		{"E2E4_Harness", e2eScenarioHarness},
		{"E2E5_ManualCompaction", e2eScenarioManual},
		{"E2E6_AutoCompaction", e2eScenarioAuto},
		{"E2E7_TwoSessionsOneHome", e2eScenarioTwoSessions},
		{"E2E8_StaleSnapshotAndFailure", e2eScenarioStale},
		{"E2E8_StaleSnapshotAlone", e2eScenarioStaleAlone},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins, claude)
		})
	}
}

// The two-turn session most scenarios start with: a Write and a Bash that
// succeeds, then an Edit and a Bash that fails. The prompts hold Cyrillic
// letters, quotes and Markdown so that "verbatim" means something.
const (
	e2ePrompt1 = "Создай hello.txt with a greeting — «привет» and `quotes`"
	e2ePrompt2 = "Fix the greeting, then run the failing test:\n\n## step\n```sh\n./test.sh\n```"
	e2eFailCmd = "printf 'FAIL: TestGreeting\\n' >&2; exit 3"
)

// e2eScriptTwoTurns scripts the fake for e2ePrompt1 and e2ePrompt2 run in
// project and returns the file the session edits.
func e2eScriptTwoTurns(fake *e2eFake, project string) string {
	hello := filepath.Join(project, "hello.txt")
	fake.Script(
		e2eReply{e2eText("Writing it."), e2eWrite(hello, "hello\n")},
		e2eReply{e2eBash("git status --short", "Show the working tree status")},
		e2eReply{e2eText("Created hello.txt.")},
		e2eReply{e2eEdit(hello, "hello", "hello, world")},
		e2eReply{e2eBash(e2eFailCmd, "Run the failing test")},
		e2eReply{e2eText("The test fails with exit code 3.")},
	)
	return hello
}

// e2eRunTwoTurns runs the two scripted turns and returns the session id.
func e2eRunTwoTurns(w *e2eWorld, fake *e2eFake, project string) string {
	w.t.Helper()
	sid := w.Claude(fake, project, "", e2ePrompt1).SessionID
	if sid == "" {
		w.t.Fatal("the client reported no session id")
	}
	w.Claude(fake, project, sid, e2ePrompt2)
	return sid
}

// e2eFailOnExit logs the fake's requests when the test has failed.
func e2eFailOnExit(t *testing.T, fakes ...*e2eFake) {
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range fakes {
				f.Log(t)
			}
		}
	})
}

// e2ePostCompaction returns the compaction request (the n-th) and the first
// main-loop request after it, failing the test when either is missing.
func e2ePostCompaction(t *testing.T, fake *e2eFake, n int) (summary, after *e2eRequest) {
	t.Helper()
	reqs := fake.Requests()
	i := e2eSummaryIndex(reqs, n)
	if i < 0 {
		t.Fatalf("the fake saw no compaction request #%d", n)
	}
	after = e2eFirstAfter(reqs, i)
	if after == nil {
		t.Fatalf("the fake saw no model request after compaction request #%d", n)
	}
	return reqs[i], after
}

// e2eContextWith returns the SessionStart additional context of r that
// names path, or "" when none does.
func e2eContextWith(r *e2eRequest, path string) string {
	for _, c := range e2eAdditionalContexts(r) {
		if strings.Contains(c, path) {
			return c
		}
	}
	return ""
}

// e2eHasPrompt reports whether text holds prompt verbatim, line by line,
// allowing the same quoting prefix (such as "> ") before every line; an
// empty line of the prompt may then carry the prefix without its trailing
// blanks. A prompt with its line breaks flattened does not match.
func e2eHasPrompt(text, prompt string) bool {
	lines := strings.Split(text, "\n")
	want := strings.Split(prompt, "\n")
	for i := range lines {
		if !strings.HasSuffix(lines[i], want[0]) || i+len(want) > len(lines) {
			continue
		}
		prefix := strings.TrimSuffix(lines[i], want[0])
		ok := true
		for k, w := range want[1:] {
			l := lines[i+1+k]
			if l != prefix+w && !(w == "" && l == strings.TrimRight(prefix, " \t")) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// spec: E2E-4
//
// e2eScenarioHarness proves the harness itself with the recording hook:
// the hooks fire with the payloads the reference describes, the scripted
// tools really run, SessionStart context reaches the next request, and the
// PreCompact stdout check of E2E-5 sees stdout when there is some.
func e2eScenarioHarness(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eRecordingHooks)
	proj := w.NewProject("проект демо")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	const mark = "E2E-PRECOMPACT-STDOUT-MARK"
	w.ExtraEnv = append(w.ExtraEnv, "E2E_PRECOMPACT_STDOUT="+mark)
	hello := e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})

	sid := e2eRunTwoTurns(w, fake, proj)
	w.Compact(fake, proj, sid, "keep the failing test")
	w.Claude(fake, proj, sid, "What next?")

	if n := fake.Remaining(); n != 0 {
		t.Errorf("%d scripted replies were not asked for", n)
	}
	if b, err := os.ReadFile(hello); err != nil || string(b) != "hello, world\n" {
		t.Errorf("hello.txt after Write and Edit = %q, %v; want %q", b, err, "hello, world\n")
	}
	for _, r := range fake.Requests() {
		if r.Kind == "unknown" {
			t.Errorf("the client asked the fake for %s %s", r.Method, r.Path)
		}
		if s := r.SessionID(); r.Path == "/v1/messages" && s != sid {
			t.Errorf("request #%d names session %q, want %q", r.Seq, s, sid)
		}
	}

	// The hooks fired once each, for this session, with the documented fields.
	var pre, start, post []map[string]any
	for _, rec := range w.Records() {
		if rec["session_id"] != sid {
			t.Errorf("hook payload for another session: %v", rec)
		}
		switch {
		case rec["hook_event_name"] == "PreCompact":
			pre = append(pre, rec)
		case rec["hook_event_name"] == "SessionStart" && rec["source"] == "compact":
			start = append(start, rec)
		case rec["hook_event_name"] == "PostCompact":
			post = append(post, rec)
		}
	}
	if len(pre) != 1 || len(start) != 1 || len(post) != 1 {
		t.Fatalf("PreCompact, SessionStart(compact), PostCompact ran %d, %d, %d times; want once each", len(pre), len(start), len(post))
	}
	if pre[0]["trigger"] != "manual" || pre[0]["custom_instructions"] != "keep the failing test" {
		t.Errorf("PreCompact payload = %v; want trigger manual and the /compact arguments", pre[0])
	}
	if tp, _ := pre[0]["transcript_path"].(string); tp != w.TranscriptPath(sid) {
		t.Errorf("PreCompact transcript_path = %q, want %q", tp, w.TranscriptPath(sid))
	}
	if cwd, _ := pre[0]["cwd"].(string); cwd != proj {
		t.Errorf("PreCompact cwd = %q, want %q", cwd, proj)
	}
	if s, _ := post[0]["compact_summary"].(string); !strings.Contains(s, "E2E-SUMMARY") {
		t.Errorf("PostCompact compact_summary = %q, want the fake's summary", s)
	}

	// The recording hook's SessionStart context reaches the model.
	summary, after := e2ePostCompaction(t, fake, 1)
	want := "E2E-RECORDING-HOOK session " + sid + " compacted"
	if !strings.Contains(e2eAllText(after), e2eAdditionalContext+" "+want) {
		t.Errorf("request #%d after compaction lacks %q; contexts: %q", after.Seq, e2eAdditionalContext+" "+want, e2eAdditionalContexts(after))
	}
	for _, r := range fake.Requests() {
		if r.Seq < summary.Seq && strings.Contains(e2eAllText(r), want) {
			t.Errorf("request #%d, before the compaction, already carries %q", r.Seq, want)
		}
	}

	// Positive control for E2E-5's "PreCompact stdout is empty": a hook
	// that prints is seen both in the transcript and by the summarizer.
	runs := e2ePreCompactRuns(w.Transcript(sid))
	if len(runs) != 1 || !runs[0].OK || runs[0].Stdout != mark {
		t.Errorf("recorded PreCompact runs = %+v; want one successful run with stdout %q", runs, mark)
	}
	if ins, ok := e2eSummaryInstructions(summary); !ok || ins != "keep the failing test\n\n"+mark {
		t.Errorf("compaction request instructions = %q (found %v); want the /compact arguments then the hook's stdout", ins, ok)
	}

	// A failing Bash call is recorded as an error with its exit code.
	found := false
	for _, e := range w.Transcript(sid) {
		msg, _ := e["message"].(map[string]any)
		blocks, _ := msg["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if bm["type"] == "tool_result" && bm["is_error"] == true && strings.HasPrefix(fmt.Sprint(bm["content"]), "Exit code 3") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("the transcript has no tool_result with is_error and \"Exit code 3\" for %q", e2eFailCmd)
	}
}

// spec: E2E-5
//
// e2eScenarioManual: two turns with tool calls, /compact with instructions,
// one more turn. The snapshot holds the session's facts and the pointer
// reaches the first request after the compaction.
func e2eScenarioManual(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект демо")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	hello := e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})

	sid := e2eRunTwoTurns(w, fake, proj)
	w.Compact(fake, proj, sid, "keep the failing test")
	w.Claude(fake, proj, sid, "What was I doing?")

	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 1 {
		t.Fatalf("snapshots of session %s in %s: %d, want 1", sid, w.SnapDir, len(snaps))
	}
	s := snaps[0]
	e2eCheckFile(t, s.JSONPath)
	e2eCheckFile(t, s.MDPath)
	if md, err := os.ReadFile(s.MDPath); err == nil && !strings.Contains(string(md), sid) {
		t.Errorf("%s does not name session %s", s.MDPath, sid)
	}
	r := s.Rec
	if r.Name != s.Base {
		t.Errorf("record name = %q, want the file's base name %q", r.Name, s.Base)
	}
	if r.Trigger != "manual" {
		t.Errorf("trigger = %q, want manual", r.Trigger)
	}
	if r.CustomInstructions == nil || *r.CustomInstructions != "keep the failing test" {
		t.Errorf("custom_instructions = %v, want %q", r.CustomInstructions, "keep the failing test")
	}
	var prompts []string
	for _, p := range r.Prompts {
		prompts = append(prompts, p.Text)
	}
	if want := []string{e2ePrompt1, e2ePrompt2}; strings.Join(prompts, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("prompts = %q, want exactly %q", prompts, want)
	}
	if len(r.Files) != 1 || r.Files[0].Path != hello || r.Files[0].Edits != 2 || r.Files[0].LastTool != "Edit" {
		t.Errorf("files = %+v, want only %s with 2 edits, last by Edit", r.Files, hello)
	}
	if len(r.Commands) != 2 {
		t.Errorf("commands = %+v, want the two Bash calls", r.Commands)
	} else {
		if c := r.Commands[0]; c.Command != "git status --short" || c.Outcome != "ok" {
			t.Errorf("first command = %+v, want git status --short, ok", c)
		}
		if c := r.Commands[1]; c.Command != e2eFailCmd || c.Outcome != "error" || c.ExitCode == nil || *c.ExitCode != 3 {
			t.Errorf("second command = %+v, want %q, error, exit code 3", c, e2eFailCmd)
		}
	}
	if r.Git == nil || !r.Git.Repo || r.Git.Branch != "main" || r.Git.ChangeCount != 1 {
		t.Errorf("git = %+v, want a repository on main with 1 uncommitted change (hello.txt)", r.Git)
	}
	if r.Cwd != proj {
		t.Errorf("cwd = %q, want %q", r.Cwd, proj)
	}

	summary, after := e2ePostCompaction(t, fake, 1)
	ctx := e2eContextWith(after, s.MDPath)
	if ctx == "" {
		t.Errorf("request #%d after compaction has no %q naming %s; contexts: %q", after.Seq, e2eAdditionalContext, s.MDPath, e2eAdditionalContexts(after))
	} else if !e2eHasPrompt(ctx, e2ePrompt2) {
		t.Errorf("the pointer lacks the last prompt %q:\n%s", e2ePrompt2, ctx)
	}

	runs := e2ePreCompactRuns(w.Transcript(sid))
	if len(runs) != 1 {
		t.Errorf("recorded PreCompact runs = %+v, want 1", runs)
	}
	// The summary hint (PC-27, E2E-26): the run's stdout, after the
	// /compact arguments in the compaction request's instructions.
	for _, run := range runs {
		if !run.OK || !strings.HasPrefix(run.Stdout, "compact-guard saved a mechanical snapshot") || !strings.Contains(run.Stdout, s.MDPath) {
			t.Errorf("recorded PreCompact run %q: want success with the summary hint naming %s", run.Line, s.MDPath)
		}
		if ins, ok := e2eSummaryInstructions(summary); !ok || ins != "keep the failing test\n\n"+run.Stdout {
			t.Errorf("compaction request instructions = %q (found %v), want the /compact arguments, then the hint", ins, ok)
		}
	}
}

// spec: E2E-6
//
// e2eScenarioAuto: the fake reports 190,000 input tokens and the client
// runs with --autocompact 100000, so it compacts by itself in the middle of
// the first turn. 2.1.328 fires PreCompact once for a compaction it then
// skips and once more for the one that happens (specs/e2e.md): the pointer
// must name the snapshot taken for the compaction that happened.
func e2eScenarioAuto(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект авто")
	fake := e2eNewFake(t, 190000)
	fake.tokensAfterSummary = 3000
	e2eFailOnExit(t, fake)
	hello := filepath.Join(proj, "hello.txt")
	fake.Script(
		e2eReply{e2eText("Writing it."), e2eWrite(hello, "hello\n")},
		e2eReply{e2eBash("git status --short", "Show the working tree status")},
		e2eReply{e2eText("Created hello.txt.")},
		e2eReply{e2eText("After compaction.")},
	)
	auto := []string{"--autocompact", "100000"}
	sid := w.Claude(fake, proj, "", e2ePrompt1, auto...).SessionID
	w.Claude(fake, proj, sid, "What next?", auto...)

	summary, after := e2ePostCompaction(t, fake, 1)
	if i := e2eSummaryIndex(fake.Requests(), 2); i >= 0 {
		t.Errorf("the client compacted more than once (request #%d)", fake.Requests()[i].Seq)
	}
	var boundary map[string]any
	for _, e := range w.Transcript(sid) {
		if e["type"] == "system" && e["subtype"] == "compact_boundary" {
			boundary, _ = e["compactMetadata"].(map[string]any)
		}
	}
	if boundary == nil || boundary["trigger"] != "auto" {
		t.Errorf("transcript compact_boundary metadata = %v, want trigger auto", boundary)
	}

	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) == 0 {
		t.Fatalf("no snapshot of session %s in %s", sid, w.SnapDir)
	}
	t.Logf("PreCompact left %d snapshot(s) of the session for 1 compaction", len(snaps))
	// The compaction that happened is the last one PreCompact ran for
	// before the fake received the compaction request.
	var happened *e2eSnap
	for i := range snaps {
		e2eCheckFile(t, snaps[i].JSONPath)
		e2eCheckFile(t, snaps[i].MDPath)
		if snaps[i].Rec.Trigger != "auto" {
			t.Errorf("%s: trigger = %q, want auto", snaps[i].Base, snaps[i].Rec.Trigger)
		}
		if !snaps[i].Rec.CreatedAt.After(summary.Time) {
			happened = &snaps[i]
		}
	}
	if happened == nil {
		t.Fatalf("no snapshot created before the compaction request at %s: %+v", summary.Time, snaps)
	}
	// It was taken after the Bash call that preceded the compaction.
	hasCmd := false
	for _, c := range happened.Rec.Commands {
		hasCmd = hasCmd || c.Command == "git status --short"
	}
	if !hasCmd {
		t.Errorf("%s (the compaction that happened) lacks the Bash call run before it: %+v", happened.Base, happened.Rec.Commands)
	}
	ctx := e2eContextWith(after, happened.MDPath)
	if ctx == "" {
		t.Errorf("request #%d after compaction has no %q naming %s; contexts: %q", after.Seq, e2eAdditionalContext, happened.MDPath, e2eAdditionalContexts(after))
	} else if !e2eHasPrompt(ctx, e2ePrompt1) {
		t.Errorf("the pointer lacks the last prompt %q:\n%s", e2ePrompt1, ctx)
	}
	for _, s := range snaps {
		// Compare whole file names: one snapshot's base name can be the
		// prefix of another's (snap_…_3f18e20e and snap_…_3f18e20e_1).
		if s.Base != happened.Base && (strings.Contains(e2eAllText(after), s.Base+".md") || strings.Contains(e2eAllText(after), s.Base+".json")) {
			t.Errorf("request #%d names %s, the snapshot of a compaction that did not happen", after.Seq, s.Base)
		}
	}
}

// spec: E2E-7
//
// e2eScenarioTwoSessions: two sessions in two projects of one HOME, whose
// ids share their first 8 characters (so their snapshot names share the
// sid8), compact at the same moment; each post-compaction request carries
// its own session's pointer and nothing of the other's.
func e2eScenarioTwoSessions(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	type session struct {
		id, project, prompt string
		fake                *e2eFake
		summary, after      *e2eRequest
		snap                e2eSnap
	}
	ss := []*session{
		{id: "e2e7a11d-0000-4000-8000-00000000000a", project: w.NewProject("проект один"), prompt: "Первая сессия: create one.txt"},
		{id: "e2e7a11d-0000-4000-8000-00000000000b", project: w.NewProject("проект два"), prompt: "Вторая сессия: create two.txt"},
	}
	for i, s := range ss {
		s.fake = e2eNewFake(t, 2000)
		e2eFailOnExit(t, s.fake)
		s.fake.Script(
			e2eReply{e2eWrite(filepath.Join(s.project, fmt.Sprintf("file%d.txt", i)), "content\n")},
			e2eReply{e2eText("Done.")},
			e2eReply{e2eText("After compaction.")},
		)
	}
	both := func(run func(s *session) error) {
		t.Helper()
		var wg sync.WaitGroup
		errs := make([]error, len(ss))
		for i, s := range ss {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = run(s) }()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	both(func(s *session) error {
		_, err := w.TryClaude(s.fake, s.project, "", s.prompt, "--session-id", s.id)
		return err
	})
	both(func(s *session) error {
		return w.TryCompact(s.fake, s.project, s.id, "")
	})
	both(func(s *session) error {
		_, err := w.TryClaude(s.fake, s.project, s.id, "What next?")
		return err
	})

	for _, s := range ss {
		s.summary, s.after = e2ePostCompaction(t, s.fake, 1)
		snaps := e2eSnapshots(t, w.SnapDir, s.id)
		if len(snaps) != 1 {
			t.Fatalf("snapshots of session %s: %d, want 1", s.id, len(snaps))
		}
		s.snap = snaps[0]
		e2eCheckFile(t, s.snap.JSONPath)
		e2eCheckFile(t, s.snap.MDPath)
	}
	if d := ss[0].summary.Time.Sub(ss[1].summary.Time).Abs(); d > time.Minute {
		t.Errorf("the two compactions were %s apart, want within a minute", d)
	}
	for i, s := range ss {
		other := ss[1-i]
		text := e2eAllText(s.after)
		ctx := e2eContextWith(s.after, s.snap.MDPath)
		if ctx == "" {
			t.Errorf("session %s: request #%d after compaction has no %q naming %s; contexts: %q",
				s.id, s.after.Seq, e2eAdditionalContext, s.snap.MDPath, e2eAdditionalContexts(s.after))
		} else if !e2eHasPrompt(ctx, s.prompt) {
			t.Errorf("session %s: the pointer lacks its last prompt %q:\n%s", s.id, s.prompt, ctx)
		}
		// Whole file names: the two sessions share a sid8, so one base name
		// can be the prefix of the other's (snap_…_e2e7a11d, snap_…_e2e7a11d_1).
		if strings.Contains(text, other.snap.Base+".md") || strings.Contains(text, other.snap.Base+".json") ||
			strings.Contains(text, other.prompt) || strings.Contains(text, other.id) {
			t.Errorf("session %s: request #%d carries the other session's snapshot %s or prompt:\n%q",
				s.id, s.after.Seq, other.snap.Base, e2eAdditionalContexts(s.after))
		}
		if n := len(e2eAdditionalContexts(s.after)); n != 1 {
			t.Errorf("session %s: request #%d carries %d SessionStart contexts, want 1: %q", s.id, s.after.Seq, n, e2eAdditionalContexts(s.after))
		}
	}
}

// spec: E2E-8
//
// e2eScenarioStale: the session's only snapshot is 40 minutes old and the
// PreCompact hook of the next compaction cannot write one (its folder is a
// regular file while it runs). The post-compaction request must not point
// at the old snapshot: postcompact takes one at SessionStart, the folder
// being back by then (PO-C10, PO-C12), and its pointer says that precompact
// failed, why, and where the log is.
func e2eScenarioStale(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект старый")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})
	sid := e2eRunTwoTurns(w, fake, proj)

	stale := e2eStaleSnapshot(t, w, bins, proj, sid, 40*time.Minute)

	// PreCompact finds a regular file where its folder should be; the fake
	// puts the folder back when the compaction request arrives, that is
	// after PreCompact and before SessionStart, so that postcompact sees the
	// stale snapshot.
	aside := w.SnapDir + ".aside"
	if err := os.Rename(w.SnapDir, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.SnapDir, []byte("not a folder\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var swapErr error
	swapped := false
	fake.onSummary = func() {
		if err := os.Remove(w.SnapDir); err != nil {
			swapErr = err
			return
		}
		swapErr = os.Rename(aside, w.SnapDir)
		swapped = swapErr == nil
	}
	w.Compact(fake, proj, sid, "")
	if !swapped {
		t.Fatalf("the snapshot folder was not put back during the compaction: %v", swapErr)
	}
	w.Claude(fake, proj, sid, "What next?")

	now := e2eSnapshots(t, w.SnapDir, sid)
	if len(now) != 2 || now[0].Base != stale.Base {
		t.Fatalf("snapshots of the session after the failed PreCompact = %d (%+v), want the stale %s and one taken at SessionStart", len(now), now, stale.Base)
	}
	taken := now[1]
	runs := e2ePreCompactRuns(w.Transcript(sid))
	if len(runs) != 1 || !runs[0].OK || runs[0].Stdout != "" {
		t.Errorf("recorded PreCompact runs = %+v, want one success with empty stdout (it must not block)", runs)
	}
	_, after := e2ePostCompaction(t, fake, 1)
	text := e2eAllText(after)
	if strings.Contains(text, stale.Base) {
		t.Errorf("request #%d after compaction points at the stale snapshot %s: %q", after.Seq, stale.Base, e2eAdditionalContexts(after))
	}
	ctxs := e2eAdditionalContexts(after)
	notice := ""
	for _, c := range ctxs {
		if strings.Contains(c, w.Log) {
			notice = c
		}
	}
	if notice == "" {
		t.Errorf("request #%d after compaction has no %q context naming the log %s; contexts: %q", after.Seq, e2eAdditionalContext, w.Log, ctxs)
	} else if !strings.Contains(notice, "compact-guard wrote no snapshot before this compaction") || !strings.Contains(notice, taken.MDPath) {
		t.Errorf("the pointer does not say that precompact wrote no snapshot, or does not name the one taken at SessionStart %s:\n%s", taken.Base, notice)
	}
	if b, err := os.ReadFile(w.Log); err != nil || !strings.Contains(string(b), sid) {
		t.Errorf("hook log %s has no line for session %s: %v", w.Log, sid, err)
	}
}

// e2eStaleSnapshot takes a real snapshot of the session by running
// `compact-guard precompact` by hand with the session's payload, then ages
// it by age (e2eAge).
func e2eStaleSnapshot(t *testing.T, w *e2eWorld, bins e2eBinaries, proj, sid string, age time.Duration) e2eSnap {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{
		"session_id": sid, "transcript_path": w.TranscriptPath(sid), "cwd": proj,
		"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": nil,
	})
	cmd := exec.Command(bins.Guard, "precompact", "--no-hint") // nothing on stdout at all (PC-31)
	cmd.Dir = proj
	cmd.Env = w.env(nil)
	cmd.Stdin = strings.NewReader(string(payload))
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("compact-guard precompact by hand: %v, output %q", err, out)
	}
	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 1 {
		t.Fatalf("snapshots after precompact by hand: %d, want 1", len(snaps))
	}
	return e2eAge(t, snaps[0], time.Now().Add(-age).UTC())
}

// spec: E2E-8
//
// e2eScenarioStaleAlone: the session's only snapshot is 40 minutes old and
// no PreCompact hook runs for the next compaction (it is taken out of the
// settings), so neither a new snapshot nor a failure marker exists and only
// the snapshot's age keeps it out of the pointer: the post-compaction request
// carries a pointer to a snapshot taken at SessionStart (PO-C10), not to the
// stale one. (With the failure of e2eScenarioStale the notice would win over
// a fresh snapshot too, so that scenario alone does not show the age limit at
// work.)
func e2eScenarioStaleAlone(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект без хука")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})
	sid := e2eRunTwoTurns(w, fake, proj)
	stale := e2eStaleSnapshot(t, w, bins, proj, sid, 40*time.Minute)
	e2eDropHook(t, w.Settings, "PreCompact")

	w.Compact(fake, proj, sid, "")
	w.Claude(fake, proj, sid, "What next?")

	if runs := e2ePreCompactRuns(w.Transcript(sid)); len(runs) != 0 {
		t.Errorf("recorded PreCompact runs = %+v, want none (the hook was taken out)", runs)
	}
	_, after := e2ePostCompaction(t, fake, 1)
	if strings.Contains(e2eAllText(after), stale.Base) {
		t.Errorf("request #%d after compaction points at the stale snapshot %s: %q", after.Seq, stale.Base, e2eAdditionalContexts(after))
	}
	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 2 || snaps[0].Base != stale.Base {
		t.Fatalf("snapshots %+v, want the stale one and one taken at SessionStart", snaps)
	}
	if ctxs := e2eAdditionalContexts(after); len(ctxs) != 1 || !strings.Contains(ctxs[0], snaps[1].MDPath) ||
		!strings.Contains(ctxs[0], "taken at the compaction is at") {
		t.Errorf("request #%d after compaction carries %q, want one pointer to the snapshot taken at SessionStart %s", after.Seq, ctxs, snaps[1].Base)
	}
	// postcompact took it and said why it passed the stale one over
	// (specs/postcompact.md PO-C7).
	b, err := os.ReadFile(w.Log)
	want := "postcompact session=" + sid + " outcome=ok"
	if err != nil || !strings.Contains(string(b), want) || !strings.Contains(string(b), stale.Base+": older than 30m0s") {
		t.Errorf("hook log %s has no line with %q turning %s down: %v\n%s", w.Log, want, stale.Base, err, b)
	}
}

// e2eDropHook removes every hook registered for event from the settings
// file at path.
func e2eDropHook(t *testing.T, path, event string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	if _, ok := hooks[event]; !ok {
		t.Fatalf("settings %s register no %s hook:\n%s", path, event, b)
	}
	delete(hooks, event)
	e2eWriteSettings(t, path, s)
}

// e2eAge renames a snapshot's files to the name it would have had at t,
// rewrites the record's name and created_at to match and shifts the files'
// times back, returning the aged snapshot.
func e2eAge(t *testing.T, s e2eSnap, at time.Time) e2eSnap {
	t.Helper()
	parts := strings.SplitN(s.Base, "_", 3) // snap, <time>, <sid8>[_N]
	if len(parts) != 3 || parts[0] != "snap" {
		t.Fatalf("snapshot name %q is not snap_<time>_<sid8>", s.Base)
	}
	base := "snap_" + at.Format("20060102-150405") + "_" + parts[2]
	dir := filepath.Dir(s.JSONPath)
	b, err := os.ReadFile(s.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	rec["name"] = base
	rec["created_at"] = at.Format(time.RFC3339Nano)
	if b, err = json.MarshalIndent(rec, "", "  "); err != nil {
		t.Fatal(err)
	}
	aged := e2eSnap{Base: base, JSONPath: filepath.Join(dir, base+".json"), MDPath: filepath.Join(dir, base+".md")}
	if err := os.WriteFile(aged.JSONPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.JSONPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(s.MDPath, aged.MDPath); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{aged.JSONPath, aged.MDPath} {
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := json.Unmarshal(b, &aged.Rec); err != nil {
		t.Fatal(err)
	}
	return aged
}

// TestE2EHasPrompt checks the matcher the scenarios use to find a prompt in
// the pointer: verbatim line by line under one quoting prefix, never
// flattened or cut.
func TestE2EHasPrompt(t *testing.T) {
	const p = "Fix it:\n\n## step\n```sh\n./test.sh\n```"
	for _, c := range []struct {
		text string
		want bool
	}{
		{"x\n" + p + "\ny", true},
		{"Prompt 2:\n> Fix it:\n>\n> ## step\n> ```sh\n> ./test.sh\n> ```\nPrompt 3:", true},
		{"> Fix it:\n> \n> ## step\n> ```sh\n> ./test.sh\n> ```", true},
		{"Fix it:  ## step ```sh ./test.sh ```", false},
		{"> Fix it:\n>\n> ## step\n> ```sh\n> ./test.sh", false},
		{"> Fix it:\n>\n## step\n> ```sh\n> ./test.sh\n> ```", false},
		{"", false},
	} {
		if got := e2eHasPrompt(c.text, p); got != c.want {
			t.Errorf("e2eHasPrompt(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	if !e2eHasPrompt("a\nCreate hello.txt\nb", "Create hello.txt") {
		t.Error("a one-line prompt on its own line is not found")
	}
}
