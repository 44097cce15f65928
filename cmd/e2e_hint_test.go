//go:build e2e

// The summary hint with the real clients (specs/e2e.md E2E-26, E2E-27;
// specs/precompact.md PC-27 to PC-34; specs/postcompact.md PO-16).
package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

// e2eHintOldRelease is the release before 2.1.76 the hint is proved on
// (E2E-10 installs it too).
const e2eHintOldRelease = "2.0.76"

// TestE2EHint runs E2E-26 and E2E-27 in parallel: each Claude Code scenario
// on 2.1.328 and on 2.0.76, then the measurement of what Codex CLI and Qwen
// Code do with a PreCompact hook's plain stdout.
func TestE2EHint(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	for _, version := range []string{e2eClaudeVersion, e2eHintOldRelease} {
		for _, sc := range []struct {
			name string
			run  func(*testing.T, e2eBinaries, e2eClient)
		}{
			{"E2E26_Manual", e2eHintManual},
			{"E2E26_Auto", e2eHintAuto},
			{"E2E26_Unwritable", e2eHintUnwritable},
			{"E2E26_Terminal", e2eHintTerminal},
			{"E2E27_ClaudeStdoutStderr", e2eHintClaudeChannels},
		} {
			t.Run(sc.name+"_"+version, func(t *testing.T) {
				t.Parallel()
				sc.run(t, bins, e2eRequireClaudeVersion(t, version))
			})
		}
	}
	t.Run("E2E27_Codex", func(t *testing.T) { t.Parallel(); e2eHintCodex(t, bins) })
	t.Run("E2E27_Qwen", func(t *testing.T) { t.Parallel(); e2eHintQwen(t, bins) })
}

// e2eHintWorld is a world with compact-guard installed as a user installs
// it for the release (IN-18: no PostCompact before 2.1.76), told the
// release with --claude-version: asking `claude --version` may take longer
// than install waits on a busy machine, and a settings file naming
// PostCompact makes 2.0.76 load no hook at all.
func e2eHintWorld(t *testing.T, bins e2eBinaries, claude e2eClient) *e2eWorld {
	t.Helper()
	w := e2eNewWorld(t, bins, claude, e2eNoHooks)
	cmd := exec.Command(bins.Guard, "install", "--settings", w.Settings, "--claude-version", claude.Version)
	cmd.Env = w.env(nil)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("compact-guard install: %v\n%s", err, out)
	}
	w.CheckInstalledFor(claude.Version)
	return w
}

// e2eHintOf is the hint precompact prints for the snapshot s of a session
// in project: restore.Hint of its record, as the hook made it.
func e2eHintOf(t *testing.T, s e2eSnap, project string) string {
	t.Helper()
	rec, err := (&snapshot.Store{Dir: filepath.Dir(s.MDPath)}).Load(s.Base)
	if err != nil {
		t.Fatalf("loading %s: %v", s.Base, err)
	}
	hint := restore.Hint(restore.HintInput{Record: rec, MDPath: s.MDPath, ProjectDir: project, Lang: snapshot.English})
	if hint == "" {
		t.Fatalf("no hint for %s", s.Base)
	}
	return hint
}

// e2eQuoted is s as the hint quotes it, cut as PC-29's first step cuts a
// prompt.
func e2eQuoted(s string) string {
	q, _ := textesc.Quote(s, 300)
	return q
}

// e2eInstructions is the n-th compaction request's "Additional
// Instructions", failing the test when there is no such request.
func e2eInstructions(t *testing.T, fake *e2eFake, n int) (string, bool) {
	t.Helper()
	reqs := fake.Requests()
	i := e2eSummaryIndex(reqs, n)
	if i < 0 {
		t.Fatalf("no compaction request #%d", n)
	}
	return e2eSummaryInstructions(reqs[i])
}

// e2eEditSettings rewrites the settings file at path with edit.
func e2eEditSettings(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o600); err != nil {
		t.Fatal(err)
	}
}

// spec: E2E-26, PC-27, PC-28, PC-31, PC-34
//
// e2eHintManual: two turns and `/compact keep the failing test`; the
// compaction request's instructions are the user's text, intact, then the
// hint of the compaction's own snapshot (its path and the last prompt); the
// next request holds it as the client showed it under the command. Then
// COMPACT_GUARD_HINT=off in the settings file's "env", then --no-hint in
// the command: no hint in either compaction request.
func e2eHintManual(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eHintWorld(t, bins, claude)
	proj := w.NewProject("проект подсказка")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})
	sid := e2eRunTwoTurns(w, fake, proj)
	w.Compact(fake, proj, sid, "keep the failing test")
	w.Claude(fake, proj, sid, "What was I doing?")

	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1", len(snaps))
	}
	hint := e2eHintOf(t, snaps[0], proj)
	for _, part := range []string{`"` + snaps[0].MDPath + `"`, "The user's last request, verbatim: " + e2eQuoted(e2ePrompt2), `Files in work, newest first: "hello.txt"`,
		"The last failing command (exit code 3): " + e2eQuoted(e2eFailCmd)} {
		if !strings.Contains(hint, part) {
			t.Errorf("the hint lacks %q:\n%s", part, hint)
		}
	}
	if ins, ok := e2eInstructions(t, fake, 1); !ok || ins != "keep the failing test\n\n"+hint {
		t.Errorf("compaction request instructions:\n%q\nwant the user's text, a blank line, the hint:\n%q", ins, "keep the failing test\n\n"+hint)
	}
	_, after := e2ePostCompaction(t, fake, 1)
	if !strings.Contains(e2eAllText(after), "completed successfully: "+hint) {
		t.Errorf("request #%d does not hold the hint as shown under /compact", after.Seq)
	}
	runs := e2ePreCompactRuns(w.Transcript(sid))
	if len(runs) != 1 || runs[0].Stdout != hint {
		t.Errorf("recorded PreCompact runs %+v, want one whose stdout is the hint", runs)
	}

	// Off by the settings file's env, which reaches the hooks (PC-31).
	e2eEditSettings(t, w.Settings, func(s string) string {
		return strings.Replace(s, "{", `{"env": {"COMPACT_GUARD_HINT": "off"},`, 1)
	})
	w.Compact(fake, proj, sid, "second")
	if ins, _ := e2eInstructions(t, fake, 2); ins != "second" {
		t.Errorf("with COMPACT_GUARD_HINT=off the instructions are %q, want only the user's", ins)
	}
	// Off by the flag, the env gone.
	e2eEditSettings(t, w.Settings, func(s string) string {
		s = strings.Replace(s, `{"env": {"COMPACT_GUARD_HINT": "off"},`, "{", 1)
		return strings.Replace(s, ` precompact"`, ` precompact --no-hint"`, 1)
	})
	w.Compact(fake, proj, sid, "third")
	if ins, _ := e2eInstructions(t, fake, 3); ins != "third" {
		t.Errorf("with --no-hint the instructions are %q, want only the user's", ins)
	}
	for _, h := range []string{"hint=printed", "hint=off:env", "hint=off:flag"} {
		if b, _ := os.ReadFile(w.Log); strings.Count(string(b), h) != 1 {
			t.Errorf("the log has not one precompact line with %s:\n%s", h, b)
		}
	}
}

// spec: E2E-26, PC-27
//
// e2eHintAuto: 190,000 tokens reported (3,000 after the compaction) and a
// window of 100,000: the client compacts by itself during the first turn,
// and its compaction request's instructions are the hint of the snapshot
// taken for that compaction, alone (no user text).
func e2eHintAuto(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eHintWorld(t, bins, claude)
	w.ExtraEnv = append(w.ExtraEnv, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000")
	proj := w.NewProject("проект авто подсказка")
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
	sid := w.Claude(fake, proj, "", e2ePrompt1).SessionID
	w.Claude(fake, proj, sid, "What next?")
	reqs := fake.Requests()
	i := e2eSummaryIndex(reqs, 1)
	if i < 0 {
		t.Fatal("the client did not compact")
	}
	var happened *e2eSnap
	snaps := e2eSnapshots(t, w.SnapDir, sid)
	for k := range snaps {
		if !snaps[k].Rec.CreatedAt.After(reqs[i].Time) {
			happened = &snaps[k]
		}
	}
	if happened == nil || happened.Rec.Trigger != "auto" {
		t.Fatalf("no automatic snapshot before the compaction request: %+v", snaps)
	}
	hint := e2eHintOf(t, *happened, proj)
	if !strings.Contains(hint, `"`+happened.MDPath+`"`) || !strings.Contains(hint, e2eQuoted(e2ePrompt1)) {
		t.Errorf("the hint lacks the path or the prompt:\n%s", hint)
	}
	if ins, ok := e2eSummaryInstructions(reqs[i]); !ok || ins != hint {
		t.Errorf("automatic compaction request instructions:\n%q\nwant the hint alone:\n%q", ins, hint)
	}
}

// e2eBreakSnapshotFolder puts a regular file where the snapshot folder is,
// so that precompact can write no snapshot (its failure marker goes to the
// folder above, which stays writable).
func e2eBreakSnapshotFolder(t *testing.T, w *e2eWorld) {
	t.Helper()
	if err := os.RemoveAll(w.SnapDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(w.SnapDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.SnapDir, []byte("not a folder\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// e2eFailureMessage is the start of PO-16's message to the user.
const e2eFailureMessage = "compact-guard wrote no snapshot before this compaction"

// spec: E2E-26, PC-2, PO-16
//
// e2eHintUnwritable: one stream-json process; after two turns the snapshot
// folder's path is a regular file, and `/compact keep the failing test`
// sends only the user's text as instructions (no hint: no snapshot); the
// next request carries the failure notice naming the log, and the user is
// told (2.1.328: a stream-json "informational" event and the transcript's
// hook_system_message; no request carries that message).
func e2eHintUnwritable(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eHintWorld(t, bins, claude)
	proj := w.NewProject("проект без папки")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})
	s := w.StartStream(fake, proj)
	s.Turn(e2ePrompt1)
	s.Turn(e2ePrompt2)
	e2eBreakSnapshotFolder(t, w)
	s.Turn("/compact keep the failing test")
	s.Turn("What was I doing?")
	sid := s.Close()

	if ins, _ := e2eInstructions(t, fake, 1); ins != "keep the failing test" {
		t.Errorf("instructions %q, want only the user's: no snapshot, no hint", ins)
	}
	_, after := e2ePostCompaction(t, fake, 1)
	notice := ""
	for _, c := range e2eAdditionalContexts(after) {
		if strings.Contains(c, e2eFailureMessage) {
			notice = c
		}
	}
	if notice == "" || !strings.Contains(notice, "compact-guard.log") {
		t.Errorf("request #%d carries no failure notice naming the log: %q", after.Seq, e2eAdditionalContexts(after))
	}
	for _, r := range fake.Requests() {
		// The user's one-line message joins the notice's lines with ". ".
		if strings.Contains(e2eAllText(r), ". The compact-guard log is at") {
			t.Errorf("request #%d carries the message meant for the user", r.Seq)
		}
	}
	if transcript := w.Transcript(sid); claude.Version == e2eClaudeVersion {
		told := false
		for _, ev := range s.Seen {
			c, _ := ev["content"].(string)
			told = told || ev["subtype"] == "informational" && strings.HasPrefix(c, "SessionStart:compact says: "+e2eFailureMessage)
		}
		if !told {
			t.Errorf("no stream-json event tells the user; events: %v", s.Seen)
		}
		if len(e2eHookAttachments(transcript, "hook_system_message", "SessionStart")) != 1 {
			t.Error("the transcript records no hook_system_message for the notice")
		}
	}
	// The instructions above show stdout was empty (PC-34: any stdout
	// follows the user's text); the log says the run failed, with no hint.
	if b, _ := os.ReadFile(w.Log); !regexp.MustCompile(`precompact session=` + sid + ` outcome=failed duration=\d+ms warnings`).Match(b) {
		t.Errorf("the log has no failed precompact run without hint=:\n%s", b)
	}
}

// e2eFlat is text without blanks and line breaks: a terminal wraps long
// lines anywhere, inside words too, and may indent what follows.
func e2eFlat(s string) string { return strings.Join(strings.Fields(s), "") }

// spec: E2E-26, PC-34, PO-16
//
// e2eHintTerminal: the interactive client in tmux. After `/compact` the
// screen shows the hint under the command; with the snapshot folder broken,
// the next `/compact` shows the failure message instead, and no hint.
func e2eHintTerminal(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eHintWorld(t, bins, claude)
	proj := w.NewProject("проект экран")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	old := claude.Version == e2eHintOldRelease
	w.ReturningUser()
	if old {
		// 2.0.76 asks about the folder and the key with dialogs of its
		// own; a returning user has answered both.
		e2eWriteSettings(t, filepath.Join(w.Home, ".claude.json"), map[string]any{
			"hasCompletedOnboarding": true, "lastOnboardingVersion": claude.Version, "theme": "dark",
			"customApiKeyResponses": map[string]any{"approved": []any{"test"}, "rejected": []any{}},
			"projects":              map[string]any{proj: map[string]any{"hasTrustDialogAccepted": true}},
		})
	}
	u := w.StartTUI(fake, proj, "--allowedTools", "Write Edit Bash", "--permission-mode", "default")
	if !old {
		u.Choose("Yes, I trust this folder", false)
		u.Choose("Yes", true)
	}
	u.WaitScreen("the prompt", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "? for shortcuts") || strings.Contains(s, "manual mode")
	})
	submit := func(text string, done func() bool) {
		if !old {
			u.Submit(text, done)
			return
		}
		// 2.0.76's input line starts with ">", which Submit does not know.
		u.Type(text)
		u.WaitScreen("the typed text", 20*time.Second, func(s string) bool { return strings.Contains(s, text) })
		// An Enter that comes while the client still takes the typed text
		// in is lost on a busy machine, or, inside its paste window, taken
		// as a newline in the input. Both are screen states: the text still
		// in the input line, with a line of input below it (the stray
		// newline) or the input's rule right below it. The stray newline is
		// deleted, and the screen waited for until the rule is back below
		// the text, before Enter is pressed again.
		input := func() (inInput, stray bool) {
			lines := strings.Split(u.Screen(), "\n")
			for i := len(lines) - 1; i >= 0; i-- {
				if strings.HasPrefix(strings.TrimSpace(lines[i]), ">") {
					inInput = strings.Contains(lines[i], text)
					stray = inInput && i+1 < len(lines) && !strings.Contains(lines[i+1], "───")
					return inInput, stray
				}
			}
			return false, false
		}
		for tries := 0; ; tries++ {
			u.Type("", "Enter")
			if e2eWaitFor(60*time.Second, done) {
				return
			}
			inInput, stray := input()
			if tries == 2 || !inInput {
				t.Fatalf("%q was not acted on; the screen:\n%s", text, u.Screen())
			}
			if stray {
				u.Type("", "BSpace")
				u.WaitScreen("the stray newline deleted", 20*time.Second, func(string) bool { in, st := input(); return in && !st })
			}
		}
	}
	// No file is written: 2.1.328 would open its diff pane beside the
	// conversation, and the screen's lines would mix the two.
	const prompt = "Step 1: run the failing test"
	fake.Script(e2eReply{e2eBash(e2eFailCmd, "Run the failing test")}, e2eReply{e2eText("Done with step 1.")})
	main := func() int {
		n := 0
		for _, r := range fake.Requests() {
			if r.Kind == "tools" {
				n++
			}
		}
		return n
	}
	submit(prompt, func() bool { return main() > 0 })
	u.WaitScreen("the answer", 90*time.Second, func(s string) bool { return strings.Contains(s, "Done with step 1.") })

	before := fake.Summaries()
	submit("/compact keep it", func() bool { return fake.Summaries() > before })
	// The compaction is over once SessionStart(compact) handed out the
	// pointer (its delivery record, SF-53).
	if !e2eWaitFor(90*time.Second, func() bool { m, _ := filepath.Glob(filepath.Join(w.SnapDir, "*.delivered")); return len(m) == 1 }) {
		t.Fatalf("no pointer delivered after /compact; the screen:\n%s", u.Screen())
	}
	shown := "completed successfully: compact-guard saved a mechanical snapshot of this session before the compaction:"
	screen := u.WaitScreen("the hint under /compact", 90*time.Second, func(s string) bool { return strings.Contains(e2eFlat(s), e2eFlat(shown)) })
	if ins, _ := e2eInstructions(t, fake, 1); !strings.HasPrefix(ins, "keep it\n\ncompact-guard saved a mechanical snapshot") ||
		!strings.Contains(ins, "The user's last request, verbatim: \""+prompt+"\".") || !strings.Contains(ins, "The last failing command (exit code 3): "+e2eQuoted(e2eFailCmd)) {
		t.Errorf("instructions %q", ins)
	}
	t.Logf("the screen after /compact:\n%s", screen)

	e2eBreakSnapshotFolder(t, w)
	before = fake.Summaries()
	submit("/compact again", func() bool { return fake.Summaries() > before })
	told := "SessionStart:compact says: " + e2eFailureMessage
	screen = u.WaitScreen("the failure message", 90*time.Second, func(s string) bool { return strings.Contains(e2eFlat(s), e2eFlat(told)) })
	if !strings.Contains(e2eFlat(screen), "compact-guard.log") {
		t.Errorf("the message on screen names no log:\n%s", screen)
	}
	if ins, _ := e2eInstructions(t, fake, 2); ins != "again" {
		t.Errorf("instructions %q, want only the user's", ins)
	}
	t.Logf("the screen after the failed /compact:\n%s", screen)
}

// e2eCanaryHook writes a PreCompact hook that records that it ran and
// prints canaries: plain text on stdout, and on stderr.
func e2eCanaryHook(t *testing.T, dir, name string) (path, ran string) {
	t.Helper()
	path, ran = filepath.Join(dir, name+".sh"), filepath.Join(dir, name+".ran")
	script := fmt.Sprintf("#!/bin/sh\ncat >/dev/null\necho run >> '%s'\nprintf 'E2E-STDOUT-CANARY %s'\nprintf 'E2E-STDERR-CANARY %s\\n' >&2\nexit 0\n", ran, name, name)
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, ran
}

// e2eRuns is how often a canary hook ran.
func e2eRuns(ran string) int {
	b, _ := os.ReadFile(ran)
	return strings.Count(string(b), "run")
}

// spec: E2E-27, PC-34
//
// e2eHintClaudeChannels: a PreCompact hook that prints a canary on stdout
// and another on stderr and exits 0. The stdout canary follows the user's
// text in the compaction request; the stderr canary is nowhere: no request,
// not the transcript, not the client's stream-json output.
func e2eHintClaudeChannels(t *testing.T, bins e2eBinaries, claude e2eClient) {
	w := e2eNewWorld(t, bins, claude, e2eNoHooks)
	canary, ran := e2eCanaryHook(t, filepath.Dir(w.Home), "claude")
	e2eWriteSettings(t, w.Settings, map[string]any{"hooks": map[string]any{
		"PreCompact": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": e2eQuote(canary), "timeout": 15}}}},
	}})
	proj := w.NewProject("проект канарейка")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptTwoTurns(fake, proj)
	fake.Script(e2eReply{e2eText("After compaction.")})
	s := w.StartStream(fake, proj)
	s.Turn(e2ePrompt1)
	s.Turn("/compact keep the failing test")
	s.Turn("What was I doing?")
	sid := s.Close()
	if e2eRuns(ran) != 1 {
		t.Fatalf("the canary hook ran %d times", e2eRuns(ran))
	}
	if ins, _ := e2eInstructions(t, fake, 1); ins != "keep the failing test\n\nE2E-STDOUT-CANARY claude" {
		t.Errorf("instructions %q", ins)
	}
	events, _ := json.Marshal(s.Seen)
	tr, _ := os.ReadFile(w.TranscriptPath(sid))
	places := map[string]string{"stream-json events": string(events), "transcript": string(tr)}
	for _, r := range fake.Requests() {
		places[fmt.Sprintf("request #%d", r.Seq)] = e2eAllText(r)
	}
	for where, text := range places {
		if strings.Contains(text, "E2E-STDERR-CANARY") {
			t.Errorf("the PreCompact hook's stderr reached the %s", where)
		}
	}
}

// e2eTrustAll appends to Codex's config.toml the trust of every hook that
// hooks/list reports, as a user accepts them.
func e2eTrustAll(t *testing.T, w *e2eAgentWorld, codexHome string) {
	t.Helper()
	as := w.AppServer()
	list := as.Call("hooks/list", map[string]any{"cwds": []any{w.Project}})
	as.in.Close()
	data, _ := list["data"].([]any)
	var trust []string
	for _, d := range data {
		hs, _ := d.(map[string]any)["hooks"].([]any)
		for _, h := range hs {
			m := h.(map[string]any)
			if m["trustStatus"] != "trusted" {
				trust = append(trust, fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", m["key"], m["currentHash"]))
			}
		}
	}
	f, err := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(strings.Join(trust, ""))
}

// e2eAddHook appends a PreCompact handler running command to the hooks of
// the JSON file at path (Codex's hooks.json, Qwen Code's settings.json).
func e2eAddHook(t *testing.T, path, command string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &s); err != nil {
		t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	list, _ := hooks["PreCompact"].([]any)
	hooks["PreCompact"] = append(list, map[string]any{"matcher": "manual|auto", "hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 15}}})
	out, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// e2eNoCanary fails the test when any request of fake carries the canary.
func e2eNoCanary(t *testing.T, fake *e2eAgentFake, canary string) {
	t.Helper()
	for _, r := range fake.Requests() {
		for _, s := range r.Texts {
			if strings.Contains(s, canary) {
				t.Errorf("request #%d (%s) carries %s: %.300q", r.Seq, r.Kind, canary, s)
			}
		}
	}
}

// spec: E2E-27, PC-32
//
// e2eHintCodex: compact-guard installed for Codex CLI 0.169.0 and a canary
// PreCompact hook beside it; an automatic compaction (codex exec) and a
// manual one (app-server thread/compact/start). The canary hook ran twice
// and reported completed; no request carries its stdout, nor does exec's
// output; compact-guard's precompact printed no hint (hint=none:codex).
func e2eHintCodex(t *testing.T, bins e2eBinaries) {
	w := e2eNewAgentWorld(t, bins, "codex")
	codexHome := filepath.Join(w.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"fake\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n"+
		"compact_prompt = %q\nmodel_auto_compact_token_limit = 20000\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"%s/v1\"\n"+
		"env_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n", e2eCodexCompactPrompt, w.fake.srv.URL)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Guard("install", "--agent", "codex")
	canary, ran := e2eCanaryHook(t, filepath.Dir(w.Home), "codex")
	e2eAddHook(t, filepath.Join(codexHome, "hooks.json"), e2eQuote(canary))
	e2eTrustAll(t, w, codexHome)

	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "exec_command", Args: map[string]any{"cmd": "ls /nonexistent-e2e-dir"}}}, Usage: 30000},
		e2eAgentReply{Text: "turn one done", Usage: 1000},
	)
	out := w.Run("exec", "--json", "Привет: run the failing command")
	rollouts, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	sid := strings.TrimSuffix(filepath.Base(rollouts[0]), ".jsonl")
	sid = sid[len(sid)-36:]
	as := w.AppServer()
	as.Call("thread/resume", map[string]any{"threadId": sid})
	as.Call("thread/compact/start", map[string]any{"threadId": sid})
	var completed []string
	as.Wait("the compaction turn", func(m map[string]any) bool {
		if m["method"] == "hook/completed" {
			run, _ := m["params"].(map[string]any)["run"].(map[string]any)
			if run["eventName"] == "preCompact" {
				entries, _ := run["entries"].([]any)
				completed = append(completed, fmt.Sprintf("%v/%d", run["status"], len(entries)))
			}
		}
		return m["method"] == "turn/completed"
	})
	as.in.Close()

	if n := len(e2eCompactionRequests(w.fake.Requests())); n != 2 || e2eRuns(ran) != 2 {
		t.Fatalf("%d compaction requests, the canary hook ran %d times; want 2 and 2", n, e2eRuns(ran))
	}
	if strings.Join(completed, " ") != "completed/0 completed/0" {
		t.Errorf("app-server hook/completed of the manual compaction's PreCompact hooks: %v, want both completed with no entries", completed)
	}
	e2eNoCanary(t, w.fake, "E2E-STDOUT-CANARY")
	if strings.Contains(out, "CANARY") {
		t.Errorf("codex exec showed a canary:\n%s", out)
	}
	if b, _ := os.ReadFile(w.Log); strings.Count(string(b), "hint=none:codex") != 2 {
		t.Errorf("the log has not two precompact runs with hint=none:codex:\n%s", b)
	}
}

// spec: E2E-27, PC-32
//
// e2eHintQwen: compact-guard installed for Qwen Code 0.24.4 with a canary
// PreCompact hook beside it, and a second hook printing JSON
// additionalContext (the positive control: that one reaches the compression
// request); an automatic compaction in a headless run and a manual
// `/compress`. The plain canary reaches no request and no output;
// compact-guard's precompact printed no hint (hint=none:qwen).
func e2eHintQwen(t *testing.T, bins e2eBinaries) {
	w := e2eNewAgentWorld(t, bins, "qwen")
	qwenHome := e2eQwenInstall(t, w)
	settingsFile := filepath.Join(qwenHome, "settings.json")
	canary, ran := e2eCanaryHook(t, filepath.Dir(w.Home), "qwen")
	e2eAddHook(t, settingsFile, e2eQuote(canary))
	jsonHook := filepath.Join(filepath.Dir(w.Home), "json.sh")
	if err := os.WriteFile(jsonHook, []byte("#!/bin/sh\ncat >/dev/null\nprintf '%s' '{\"hookSpecificOutput\":{\"hookEventName\":\"PreCompact\",\"additionalContext\":\"E2E-JSON-CONTROL\"}}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e2eAddHook(t, settingsFile, e2eQuote(jsonHook))
	shell := func(cmd string, usage int) e2eAgentReply {
		return e2eAgentReply{Calls: []e2eAgentCall{{Name: "run_shell_command", Args: map[string]any{"command": cmd, "is_background": false, "description": "e2e"}}}, Usage: usage}
	}
	w.fake.Script(shell("ls /nonexistent-e2e-dir", 9000), shell("echo after", 1000), e2eAgentReply{Text: "done", Usage: 1000})
	out := w.Run("--yolo", "-o", "stream-json", "Привет: run the failing command")
	out += w.Run("--yolo", "-o", "stream-json", "-c", "/compress")

	comps := e2eCompactionRequests(w.fake.Requests())
	if len(comps) != 2 || e2eRuns(ran) != 2 {
		t.Fatalf("%d compaction requests, the canary hook ran %d times; want 2 and 2", len(comps), e2eRuns(ran))
	}
	for _, i := range comps {
		r := w.fake.Requests()[i]
		if !strings.Contains(strings.Join(r.Texts, "\n"), "Additional Instructions:\nE2E-JSON-CONTROL") {
			t.Errorf("compaction request #%d lacks the JSON control's instructions", r.Seq)
		}
	}
	e2eNoCanary(t, w.fake, "E2E-STDOUT-CANARY")
	if strings.Contains(out, "CANARY") {
		t.Errorf("qwen's output showed a canary:\n%s", out)
	}
	if b, _ := os.ReadFile(w.Log); strings.Count(string(b), "hint=none:qwen") != 2 {
		t.Errorf("the log has not two precompact runs with hint=none:qwen:\n%s", b)
	}
}
