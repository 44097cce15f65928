package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/clients/codex"
	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/settings"
)

// instAgentHost is a machine whose home and current folder are in root.
func instAgentHost(root string) settings.Host {
	return settings.Host{
		Getenv: func(string) string { return "" },
		Home:   func() (string, error) { return filepath.Join(root, "home"), nil },
		Getwd:  func() (string, error) { return filepath.Join(root, "proj"), nil },
	}
}

// instAgentWatchDir is watch's state folder uninstall looks at in
// instAgentRun; "" leaves watch's state alone.
var instAgentWatchDir string

// instAgentRun runs install or uninstall --agent a with args as flags.
func instAgentRun(t *testing.T, root string, uninstall bool, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	run := func(o *SettingsOptions) error {
		o.Executable = func() (string, error) { return instExe, nil }
		o.Host = instAgentHost(root)
		o.Now = func() time.Time { return instFixedNow }
		o.Backups = filepath.Join(root, "home", ".local", "state", "compact-guard", "backups")
		o.WatchDir = instAgentWatchDir
		if uninstall {
			return uninstallRun(o)
		}
		return installRun(o)
	}
	var c = newCmdInstall(ios, nil, run)
	if uninstall {
		c = newCmdUninstall(ios, nil, run)
	}
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	c.SilenceErrors, c.SilenceUsage = true, true
	err := c.Execute()
	code := exitCode(err, &errOut)
	return out.String(), errOut.String(), code
}

// spec: IN-19, IN-20
func TestInstallCodex(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", ".codex")
	cfg := instWrite(t, home, "config.toml", "model = \"gpt-5.5\"\n", 0o600)
	out, errOut, code := instAgentRun(t, root, false, "--agent", "codex")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	hooks := filepath.Join(home, "hooks.json")
	for _, want := range []string{"created " + hooks, "updated " + cfg + " (Codex runs only the hooks it trusts there)",
		"trusted   " + hooks + ":pre_compact:0:0", "check the setup with: compact-guard doctor --agent codex"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	doc, err := settings.ParseFor(codex.Name, instRead(t, hooks))
	if err != nil {
		t.Fatal(err)
	}
	c, err := settings.ReadTrustConfig(instRead(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	hs := doc.Handlers(instExe)
	if len(hs) != 3 {
		t.Fatalf("handlers: %+v", hs)
	}
	for _, h := range hs {
		if !h.Ours || c.Hooks.State[h.TrustKey(hooks)].TrustedHash != h.TrustHash() {
			t.Errorf("%s not trusted: %+v", h.Event, c.Hooks.State)
		}
	}
	if !strings.HasPrefix(string(instRead(t, cfg)), "model = \"gpt-5.5\"\n\n[hooks.state.") {
		t.Errorf("config.toml:\n%s", instRead(t, cfg))
	}

	out, _, code = instAgentRun(t, root, false, "--agent", "codex")
	if code != ExitOK || !strings.Contains(out, "compact-guard hooks already installed in "+hooks) || !strings.Contains(out, "trust already recorded in "+cfg) {
		t.Errorf("second install: %d\n%s", code, out)
	}

	out, _, code = instAgentRun(t, root, true, "--agent", "codex")
	if code != ExitOK || !strings.Contains(out, "removed "+hooks) || !strings.Contains(out, "removed   "+hooks+":session_start:0:0") {
		t.Errorf("uninstall: %d\n%s", code, out)
	}
	if got := string(instRead(t, cfg)); got != "model = \"gpt-5.5\"\n" {
		t.Errorf("config.toml after uninstall: %q", got)
	}

	_, errOut, code = instAgentRun(t, root, false, "--agent", "codex", "--scope", "local")
	if code != ExitUsage || !strings.Contains(errOut, `invalid --scope "local" for Codex CLI`) {
		t.Errorf("--scope local for codex: exit %d", code)
	}
	_, _, code = instAgentRun(t, root, false, "--agent", "copilot-x")
	if code != ExitUsage {
		t.Errorf("--agent copilot-x: exit %d", code)
	}
}

// spec: IN-19 (a project's .codex/hooks.json, trusted in the user's
// config.toml, with a note when Codex would not load the project's
// folder)
func TestInstallCodexProject(t *testing.T) {
	root := t.TempDir()
	out, errOut, code := instAgentRun(t, root, false, "--agent", "codex", "--scope", "project")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	hooks := filepath.Join(root, "proj", ".codex", "hooks.json")
	cfg := filepath.Join(root, "home", ".codex", "config.toml")
	if !strings.Contains(out, "created "+hooks) || !strings.Contains(out, "created "+cfg) {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(errOut, "only in a trusted project") {
		t.Errorf("no note on project trust: %q", errOut)
	}
	c, _ := settings.ReadTrustConfig(instRead(t, cfg))
	if len(c.Hooks.State) != 3 {
		t.Errorf("state %v", c.Hooks.State)
	}
}

// spec: IN-19, IN-2 (Qwen Code's settings.json: the same registrations but
// watch's on tool calls and stops, comments kept, no trust step)
func TestInstallQwen(t *testing.T) {
	root := t.TempDir()
	orig := "{\n  // chosen by hand\n  \"model\": {\"name\": \"qwen3-coder\"}\n}\n"
	p := instWrite(t, filepath.Join(root, "home", ".qwen"), "settings.json", orig, 0o600)
	out, errOut, code := instAgentRun(t, root, false, "--agent", "qwen")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := string(instRead(t, p))
	if !strings.Contains(out, "updated "+p) || !strings.Contains(got, "// chosen by hand") || !strings.Contains(got, `"PostCompact"`) {
		t.Errorf("out:\n%s\nfile:\n%s", out, got)
	}
	if strings.Contains(out, "config.toml") {
		t.Errorf("qwen install touched trust:\n%s", out)
	}
	// watch for the late pointer alone: the prompt and the resume.
	doc, err := settings.ParseFor(qwen.Name, instRead(t, p))
	if err != nil {
		t.Fatal(err)
	}
	var regs []string
	for _, e := range doc.Entries(instExe) {
		regs = append(regs, e.Event+"["+e.Matcher+"]:"+e.Sub)
	}
	if got := strings.Join(regs, " "); got != "PreCompact[manual|auto]:precompact SessionStart[compact]:postcompact SessionStart[resume]:watch PostCompact[manual|auto]:postcompact UserPromptSubmit[]:watch" {
		t.Errorf("registrations: %s", got)
	}
	out, _, code = instAgentRun(t, root, false, "--agent", "qwen")
	if code != ExitOK || !strings.Contains(out, "compact-guard hooks already installed in "+p) {
		t.Errorf("second install: %d\n%s", code, out)
	}
	_, _, code = instAgentRun(t, root, true, "--agent", "qwen")
	if code != ExitOK || string(instRead(t, p)) != orig {
		t.Errorf("uninstall: %d\n%s", code, instRead(t, p))
	}
	if _, err := os.Stat(filepath.Join(root, "home", ".codex")); err == nil {
		t.Error("qwen install made ~/.codex")
	}
}
