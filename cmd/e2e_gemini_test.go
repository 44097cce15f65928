//go:build e2e

package cmd_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	geminireader "github.com/compact-guard/compact-guard/clients/gemini/reader"
)

// Gemini CLI end to end (specs/e2e.md E2E-51 to E2E-55): the real client
// from npm, installed by the harness, hooks registered by `compact-guard
// install --agent gemini`, against the fake Gemini API on loopback.

const e2eGeminiVersion = "0.61.0"

// e2eRequireGemini returns Gemini CLI, installed with npm into
// <user cache>/compact-guard-e2e/gemini-<version> under the install lock
// (E2E-51). Outside CI a missing npm or registry skips; with CI=true it fails.
func e2eRequireGemini(t *testing.T) e2eClient {
	t.Helper()
	return e2eRequire(t, "gemini "+e2eGeminiVersion, func() (e2eClient, error) {
		dir, err := e2eCacheDir("gemini-" + e2eGeminiVersion)
		if err != nil {
			return e2eClient{}, err
		}
		c := e2eClient{Version: e2eGeminiVersion, Argv: []string{"node", filepath.Join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js")}}
		works := func(c e2eClient) error {
			return e2eVersionSays(c, func(out string) bool { return strings.Contains(out, e2eGeminiVersion) })
		}
		return e2eNpmInstalled(dir, "@google/gemini-cli@"+e2eGeminiVersion, 10*time.Minute, func() e2eClient { return c }, works, nil)
	})
}

type e2eGemWorld struct {
	t                            *testing.T
	bins                         e2eBinaries
	client                       e2eClient
	fake                         *e2eGemFake
	Root, Home, Project, SnapDir string
	runs                         []string
}

func e2eNewGemWorld(t *testing.T, bins e2eBinaries) *e2eGemWorld {
	t.Helper()
	client := e2eRequireGemini(t)
	root := t.TempDir()
	w := &e2eGemWorld{t: t, bins: bins, client: client, fake: e2eNewGemFake(t), Root: root, Home: filepath.Join(root, "home")}
	w.SnapDir = filepath.Join(w.Home, ".local", "state", "compact guard данные", "snapshots")
	if err := os.MkdirAll(filepath.Join(w.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.Project = (&e2eWorld{t: t, Home: w.Home}).NewProject("проект gemini")
	if err := os.WriteFile(filepath.Join(w.Project, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The user's own settings, with a comment, which install keeps.
	settings := `{
  // offline, against the fake API
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "ui": {"hideTips": true, "hideBanner": true}
}
`
	p := filepath.Join(w.Home, ".gemini", "settings.json")
	if err := os.WriteFile(p, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	out := w.Guard("install", "--agent", "gemini")
	if !strings.Contains(out, "added   PreCompress [*] precompact") || !strings.Contains(out, "added   BeforeAgent [*] watch") {
		t.Fatalf("install --agent gemini:\n%s", out)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "// offline, against the fake API") {
		t.Fatalf("install lost the comment:\n%s", b)
	}
	t.Cleanup(func() {
		if t.Failed() {
			w.fake.Log(t)
			for _, r := range w.runs {
				t.Logf("client run: %s", r)
			}
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(w.SnapDir), "compact-guard.log")); err == nil {
				t.Logf("hook log:\n%s", b)
			}
		}
	})
	return w
}

func (w *e2eGemWorld) env() []string {
	var env []string
	for _, kv := range e2eBaseEnv() {
		k, _, _ := strings.Cut(kv, "=")
		// Gemini CLI runs headless whenever CI or GITHUB_ACTIONS is
		// "true" (isHeadlessMode in its bundle: the terminal UI of E2E-52
		// then prints "No input provided via stdin" and waits for nothing);
		// its users run it without them, and so does the harness. The
		// test's own CI=true (fail rather than skip) is unaffected.
		if strings.HasPrefix(k, "GEMINI_") || strings.HasPrefix(k, "GOOGLE_") || k == "CI" || k == "GITHUB_ACTIONS" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"HOME="+w.Home, "USERPROFILE="+w.Home,
		"XDG_CONFIG_HOME="+filepath.Join(w.Home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(w.Home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(w.Home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(w.Home, ".local", "state"),
		"COMPACT_GUARD_DIR="+w.SnapDir,
		"GOOGLE_GEMINI_BASE_URL="+w.fake.URL(), "GEMINI_API_KEY=e2e-test",
		// A fresh HOME trusts no folder; without trust no hook runs.
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
	)
}

// Guard runs compact-guard in the project.
func (w *e2eGemWorld) Guard(args ...string) string {
	w.t.Helper()
	cmd := exec.Command(w.bins.Guard, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("compact-guard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Run runs the client headless with args and returns its stdout.
func (w *e2eGemWorld) Run(args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2eClientTimeout)
	defer cancel()
	cmd := w.client.Command(ctx, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	w.runs = append(w.runs, strings.Join(args, " ")+" -> "+strings.TrimSpace(string(out))+" | stderr: "+errOut.String())
	if err != nil {
		w.t.Fatalf("gemini %s: %v\n%s\n%s", strings.Join(args, " "), err, out, errOut.String())
	}
	// PC-44, WA-39: our hooks print nothing the client would show.
	if strings.Contains(errOut.String(), "Hook system message") || strings.Contains(errOut.String(), "compact-guard") {
		w.t.Errorf("the client showed hook output: %s", errOut.String())
	}
	return string(out)
}

// Chat is the session's chat file, the one with a compression or the
// largest.
func (w *e2eGemWorld) Chat() string {
	w.t.Helper()
	m, _ := filepath.Glob(filepath.Join(w.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	best, size := "", int64(-1)
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
	}
	if best == "" {
		w.t.Fatal("no chat file")
	}
	return best
}

func (w *e2eGemWorld) readChat() *geminireader.Chat {
	w.t.Helper()
	c, err := geminireader.Read(context.Background(), w.Chat(), geminireader.Options{Cwd: w.Project})
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// Snaps are the session's snapshots, oldest first.
func (w *e2eGemWorld) Snaps() []e2eSnap {
	w.t.Helper()
	if _, err := os.Stat(w.SnapDir); err != nil {
		return nil
	}
	return e2eSnapshots(w.t, w.SnapDir, w.readChat().SessionID)
}

// e2eGemPointers are the hook_context parts of a request that name a
// snapshot.
func e2eGemPointers(r *e2eGemRequest) []string {
	var out []string
	for _, s := range r.Texts {
		if strings.Contains(s, "<hook_context>") && strings.Contains(s, "snap_") {
			out = append(out, s)
		}
	}
	return out
}

// checkPointer says whether the first main request after the first n
// carries exactly one pointer, to own, with what it must say (E2E-51).
func (w *e2eGemWorld) checkPointer(what string, n int, own e2eSnap, snaps []e2eSnap, wants ...string) {
	w.t.Helper()
	var main *e2eGemRequest
	for _, r := range e2eGemSince(w.fake.Requests(), n) {
		if r.Kind == "main" {
			main = r
			break
		}
	}
	if main == nil {
		w.t.Fatalf("%s: no main request", what)
	}
	ps := e2eGemPointers(main)
	if len(ps) != 1 || !strings.Contains(ps[0], own.Base+".md") {
		w.t.Fatalf("%s: request #%d carries %d pointers, want one to %s:\n%s", what, main.Seq, len(ps), own.Base, strings.Join(ps, "\n---\n"))
	}
	for _, want := range append([]string{own.MDPath}, wants...) {
		if !strings.Contains(ps[0], want) {
			w.t.Errorf("%s: the pointer lacks %q:\n%s", what, want, ps[0])
		}
	}
	for _, s := range snaps {
		if s.Base != own.Base && strings.Contains(ps[0], s.Base+".") {
			w.t.Errorf("%s: the pointer names another snapshot %s", what, s.Base)
		}
	}
}

// noPointer says that no request after the first n carries a new pointer:
// none beyond the had ones already in the history (a pointer handed over
// stays in its turn's user message, measured).
func (w *e2eGemWorld) noPointer(what string, n, had int) {
	w.t.Helper()
	for _, r := range e2eGemSince(w.fake.Requests(), n) {
		if ps := e2eGemPointers(r); len(ps) > had {
			w.t.Errorf("%s: request #%d (%s) carries %d pointers, %d were in the history:\n%s", what, r.Seq, r.Kind, len(ps), had, strings.Join(ps, "\n---\n"))
		}
	}
}

var (
	e2eGemEdit = e2eGemCall{Name: "replace", Args: map[string]any{"file_path": "hello.txt", "old_string": "hello", "new_string": "hello world", "instruction": "greet the world"}}
	e2eGemFail = e2eGemCall{Name: "run_shell_command", Args: map[string]any{"command": "ls /nonexistent-e2e-dir", "description": "a failing command"}}
)

const (
	e2eGemPromptA = "prompt A: edit hello.txt and run a failing command."
	e2eGemFailed  = "ls /nonexistent-e2e-dir"
)

func TestE2EGemini(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	t.Run("E2E51_53_GeminiAuto", func(t *testing.T) { t.Parallel(); e2eGeminiAutoScenario(t, bins) })
	t.Run("E2E52_54_GeminiManual", func(t *testing.T) { t.Parallel(); e2eGeminiManualScenario(t, bins) })
}

// e2eGeminiAutoScenario (E2E-51, E2E-53): headless runs; an automatic
// compression inside a turn; the next prompt carries its own pointer, once;
// the PreCompress runs that compressed nothing take no snapshot and give
// no pointer.
func e2eGeminiAutoScenario(t *testing.T, bins e2eBinaries) {
	w := e2eNewGemWorld(t, bins)
	w.fake.Script(
		e2eGemReply{Text: "I will edit the file.", Calls: []e2eGemCall{e2eGemEdit}, Tokens: 1200},
		e2eGemReply{Calls: []e2eGemCall{e2eGemFail}, Tokens: 1300},
		e2eGemReply{Text: "Done with prompt A.", Tokens: 1400},
	)
	w.Run("-p", e2eGemPromptA, "--yolo")
	// E2E-53: three PreCompress runs, below the threshold: nothing taken.
	if s := w.Snaps(); len(s) != 0 || w.fake.Count("compress") != 0 {
		t.Fatalf("E2E-53: %d snapshots, %d compressions after prompt A", len(s), w.fake.Count("compress"))
	}
	if b, _ := os.ReadFile(filepath.Join(w.Project, "hello.txt")); string(b) != "hello world\n" {
		t.Fatalf("the edit did not happen: %q", b)
	}
	// prompt B: the reply reports 600,000 prompt tokens (over 0.5 of
	// 1,048,576) and calls the failing command again; the PreCompress before
	// the next request compresses.
	w.fake.Script(
		e2eGemReply{Text: "B: running it again.", Calls: []e2eGemCall{e2eGemFail}, Tokens: 600000},
		e2eGemReply{Text: "Done with prompt B.", Tokens: 1500},
	)
	n := len(w.fake.Requests())
	w.Run("-p", "prompt B", "--yolo", "--resume", "latest")
	if c := w.readChat(); len(c.Compressions) != 1 {
		t.Fatalf("E2E-51: the chat shows %d compressions after prompt B", len(c.Compressions))
	}
	snaps := w.Snaps()
	if len(snaps) != 1 {
		t.Fatalf("E2E-51: %d snapshots after the compression, want 1", len(snaps))
	}
	w.noPointer("E2E-51 the turn that compressed", n, 0) // the chat showed nothing at its BeforeAgent
	w.fake.Script(e2eGemReply{Text: "Answer to prompt C.", Tokens: 1600})
	n = len(w.fake.Requests())
	w.Run("-p", "prompt C", "--yolo", "--resume", "latest")
	w.checkPointer("E2E-51 prompt C", n, snaps[0], snaps, "prompt B", "hello.txt", e2eGemFailed, "No such file or directory")
	// E2E-53: once.
	w.fake.Script(e2eGemReply{Text: "Answer to prompt D.", Tokens: 1700})
	n = len(w.fake.Requests())
	w.Run("-p", "prompt D", "--yolo", "--resume", "latest")
	w.noPointer("E2E-53 prompt D", n, 1)
	if len(w.Snaps()) != 1 {
		t.Errorf("E2E-53: %d snapshots at the end, want 1", len(w.Snaps()))
	}
	// AU-26, AU-27 on the chat the client wrote: the compression, its
	// snapshot, and the pointer the next prompt carried.
	var rep struct {
		Sessions []struct {
			Compactions []struct {
				Snapshot, Delivered, Named string
				Own                        bool
			} `json:"compactions"`
		} `json:"sessions"`
	}
	out := w.Guard("audit", "--agent", "gemini", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, out)
	}
	var comps int
	for _, s := range rep.Sessions {
		for _, c := range s.Compactions {
			comps++
			if c.Snapshot != snaps[0].Base || c.Delivered != "yes" || c.Named != snaps[0].Base || !c.Own {
				t.Errorf("AU-27 in the real chat: %+v, want %s delivered", c, snaps[0].Base)
			}
		}
	}
	if comps != 1 {
		t.Errorf("AU-26: audit found %d compressions, want 1:\n%s", comps, out)
	}
}

// e2eGemTUI is Gemini CLI's terminal UI under tmux.
type e2eGemTUI struct {
	w      *e2eGemWorld
	socket string
}

func (w *e2eGemWorld) StartTUI() *e2eGemTUI {
	w.t.Helper()
	tmux := e2eRequireTmux(w.t)
	u := &e2eGemTUI{w: w, socket: filepath.Join(w.Root, "tmux.sock")}
	argv := append(append([]string(nil), w.client.Argv...), "--yolo")
	cmd := exec.Command(tmux, append([]string{"-S", u.socket, "-f", os.DevNull,
		"start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-s", "gem", "-x", "160", "-y", "50", "-c", w.Project, "--"}, argv...)...)
	cmd.Env = w.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	w.t.Cleanup(func() {
		if w.t.Failed() {
			w.t.Logf("last screen:\n%s", u.Screen())
		}
		exec.Command(tmux, "-S", u.socket, "kill-server").Run()
	})
	return u
}

func (u *e2eGemTUI) tmux(args ...string) error {
	return exec.Command("tmux", append([]string{"-S", u.socket}, args...)...).Run()
}

func (u *e2eGemTUI) Screen() string {
	out, _ := exec.Command("tmux", "-S", u.socket, "capture-pane", "-p", "-t", "gem").Output()
	return string(out)
}

// idle: the input box is shown and nothing runs.
func e2eGemIdle(s string) bool {
	return strings.Contains(s, "Type your message") && !strings.Contains(s, "esc to cancel") && !strings.Contains(s, "Executing Hook") &&
		!strings.Contains(s, "Compressing chat history")
}

// Wait waits until cond holds on two screens in a row, the client idle.
func (u *e2eGemTUI) Wait(what string, cond func(screen string) bool) {
	u.w.t.Helper()
	k := 0
	var s string
	if !e2eWaitFor(3*e2eClientTimeout, func() bool {
		s = u.Screen()
		if cond(s) && e2eGemIdle(s) {
			k++
		} else {
			k = 0
		}
		return k >= 2
	}) {
		u.w.t.Fatalf("interactive Gemini CLI: %s did not happen; the screen:\n%s", what, s)
	}
}

// input is the text in the input box ("* text"), "" when it is empty.
func (u *e2eGemTUI) input() string {
	lines := strings.Split(u.Screen(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "> ") && i > len(lines)-8 {
			if strings.Contains(l, "Type your message") {
				return ""
			}
			return strings.TrimSpace(l[2:])
		}
	}
	return ""
}

// Submit types text and Enter, once the client is idle, and presses Enter
// again while the text stays in the input box (a slash command's first
// Enter may only pick it from the completions).
func (u *e2eGemTUI) Submit(text string) {
	u.w.t.Helper()
	u.Wait("idle before "+text, func(string) bool { return true })
	if err := u.tmux("send-keys", "-t", "gem", "-l", text); err != nil {
		u.w.t.Fatal(err)
	}
	if !e2eWaitFor(10*time.Second, func() bool { return strings.Contains(u.input(), text) }) {
		u.w.t.Fatalf("%q does not show in the input box:\n%s", text, u.Screen())
	}
	for tries := 0; ; tries++ {
		if err := u.tmux("send-keys", "-t", "gem", "Enter"); err != nil {
			u.w.t.Fatal(err)
		}
		if e2eWaitFor(10*time.Second, func() bool { return !strings.Contains(u.input(), text) }) {
			return
		}
		if tries == 3 {
			u.w.t.Fatalf("%q was not submitted:\n%s", text, u.Screen())
		}
	}
}

// e2eGeminiManualScenario (E2E-52, E2E-54): the terminal UI; a /compress
// whose summary comes back empty (Gemini CLI keeps the history: a
// PreCompress that compressed nothing) takes a snapshot and gives no
// pointer; the next /compress compresses, and the next prompt carries that
// compression's own pointer, not the first snapshot's, once.
func e2eGeminiManualScenario(t *testing.T, bins e2eBinaries) {
	w := e2eNewGemWorld(t, bins)
	u := w.StartTUI()
	w.fake.Script(
		e2eGemReply{Text: "I will edit the file.", Calls: []e2eGemCall{e2eGemEdit}, Tokens: 1200},
		e2eGemReply{Calls: []e2eGemCall{e2eGemFail}, Tokens: 1300},
		e2eGemReply{Text: "Done with prompt A.", Tokens: 1400},
	)
	u.Submit(e2eGemPromptA)
	u.Wait("prompt A's answer", func(s string) bool { return strings.Contains(s, "Done with prompt A.") && w.fake.Remaining() == 0 })

	w.fake.RefuseCompress(true)
	u.Submit("/compress")
	u.Wait("the failed compression", func(s string) bool { return strings.Contains(s, "Failed to compress chat history") })
	w.fake.RefuseCompress(false)
	if c := w.readChat(); len(c.Compressions) != 0 {
		t.Fatalf("E2E-54: an empty summary compressed: %+v", c.Compressions)
	}
	if s := w.Snaps(); len(s) != 1 {
		t.Fatalf("E2E-54: %d snapshots after the manual PreCompress, want 1", len(s))
	}
	w.fake.Script(e2eGemReply{Text: "Answer to prompt B.", Tokens: 1500})
	n := len(w.fake.Requests())
	u.Submit("prompt B")
	u.Wait("prompt B's answer", func(s string) bool { return strings.Contains(s, "Answer to prompt B.") })
	w.noPointer("E2E-54 prompt B after a compression that did not happen", n, 0)

	u.Submit("/compress")
	u.Wait("the compression", func(s string) bool { return strings.Contains(s, "Chat history compressed") })
	if c := w.readChat(); len(c.Compressions) != 1 {
		t.Fatalf("E2E-52: the chat shows %d compressions", len(c.Compressions))
	}
	// The refused compression's snapshot was never handed out: the
	// compression's own supersedes it (PC-47), one snapshot per compaction.
	snaps := w.Snaps()
	if len(snaps) != 1 {
		t.Fatalf("E2E-52: %d snapshots, want 1 (PC-47)", len(snaps))
	}
	w.fake.Script(e2eGemReply{Text: "Answer to prompt C.", Tokens: 1600})
	n = len(w.fake.Requests())
	u.Submit("prompt C")
	u.Wait("prompt C's answer", func(s string) bool { return strings.Contains(s, "Answer to prompt C.") })
	w.checkPointer("E2E-52 prompt C", n, snaps[0], snaps, "prompt B", "hello.txt", e2eGemFailed)

	w.fake.Script(e2eGemReply{Text: "Answer to prompt D.", Tokens: 1700})
	n = len(w.fake.Requests())
	u.Submit("prompt D")
	u.Wait("prompt D's answer", func(s string) bool { return strings.Contains(s, "Answer to prompt D.") })
	w.noPointer("E2E-52 prompt D", n, 1)
	var rec struct {
		Trigger string `json:"trigger"`
	}
	if b, err := os.ReadFile(snaps[0].JSONPath); err != nil || json.Unmarshal(b, &rec) != nil || rec.Trigger != "manual" {
		t.Errorf("E2E-52: the snapshot's trigger is %q, want manual", rec.Trigger)
	}
}
