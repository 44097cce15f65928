package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/copilot"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// checkCopilot is doctor's settings check for Copilot CLI, as doctor runs it.
func checkCopilot(opts *DoctorOptions, exe string) []health.Result {
	return settings.Check(settings.DoctorEnv{Host: opts.Host, Agent: copilot.Name, Exe: exe})
}

func copilotDoctorText(cs []health.Result) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(resultLine(c, false, false))
	}
	return b.String()
}

// spec: DR-41, DR-42, DR-43
func TestDoctorCopilot(t *testing.T) {
	root := t.TempDir()
	opts := &DoctorOptions{Host: instAgentHost(root)}
	// Only compact-guard's Claude Code entries: Copilot runs them, and they
	// do nothing there, so Copilot is not guarded.
	if _, errOut, code := instAgentRun(t, root, false, "--scope", "project"); code != ExitOK {
		t.Fatalf("claude install: %s", errOut)
	}
	got := copilotDoctorText(checkCopilot(opts, instExe))
	for _, want := range []string{"[FAIL] Copilot CLI: no compact-guard hooks registered", "settings.json: compact-guard's Claude Code entries (PreCompact, SessionStart",
		"also run under Copilot CLI, where they do nothing"} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor lacks %q:\n%s", want, got)
		}
	}
	if _, errOut, code := instAgentRun(t, root, false, "--agent", "copilot", "--scope", "project"); code != ExitOK {
		t.Fatalf("copilot install: %s", errOut)
	}
	got = copilotDoctorText(checkCopilot(opts, instExe))
	for _, want := range []string{"[ok]   Copilot CLI project hooks " + filepath.Join(root, "proj", ".github", "hooks", "compact-guard.json") + ": PreCompact, UserPromptSubmit, PostToolUse",
		"[warn] Copilot CLI does not trust " + filepath.Join(root, "proj")} {
		if !strings.Contains(got, want) {
			t.Errorf("doctor lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "FAIL") {
		t.Errorf("a failure with the hooks installed:\n%s", got)
	}
	// Trusted: Copilot's config.json names the project.
	cfg := filepath.Join(root, "home", ".copilot", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"trustedFolders": ["`+filepath.ToSlash(filepath.Join(root, "proj"))+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := copilotDoctorText(checkCopilot(opts, instExe)); strings.Contains(got, "does not trust") {
		t.Errorf("trusted folder reported untrusted:\n%s", got)
	}
	// One registration removed by hand: what is lost is said.
	p := filepath.Join(root, "proj", ".github", "hooks", "compact-guard.json")
	data, _ := os.ReadFile(p)
	lines := strings.Split(string(data), "\n")
	var kept []string
	for _, l := range lines {
		if !strings.Contains(l, `"PostToolUse"`) {
			kept = append(kept, l)
		}
	}
	fixed := strings.Replace(strings.Join(kept, "\n"), `"timeoutSec":15}],`, `"timeoutSec":15}]`, 1)
	if err := os.WriteFile(p, []byte(fixed), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := copilotDoctorText(checkCopilot(opts, instExe)); !strings.Contains(got, "PostToolUse not registered: no pointer within the turn an automatic compaction happened in") {
		t.Errorf("missing registration not said:\n%s", got)
	}
}

// spec: PL-13, PL-14, PL-33
// The Claude Code plugin enabled in Copilot from a local marketplace is
// found and guards the client; with a hooks file too, doctor warns, unless
// the plugin's hooks stand down for the user's file, which it explains.
func TestDoctorCopilotPlugin(t *testing.T) {
	root := t.TempDir()
	opts := &DoctorOptions{Host: instAgentHost(root)}
	mkt := filepath.Join(root, "mkt")
	plug := filepath.Join(mkt, "plugins", "compact-guard")
	for p, text := range map[string]string{
		filepath.Join(mkt, ".claude-plugin", "marketplace.json"): `{"name":"compact-guard-tools","plugins":[{"name":"compact-guard","source":"./plugins/compact-guard"}]}`,
		filepath.Join(plug, "hooks", "hooks.json"):               string(PluginHooksJSON()),
		filepath.Join(root, "home", ".copilot", "settings.json"): `{"extraKnownMarketplaces":{"compact-guard-tools":{"source":{"source":"directory","path":"` + filepath.ToSlash(mkt) + `"}}},
  "enabledPlugins":{"compact-guard@compact-guard-tools":true}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got := copilotDoctorText(checkCopilot(opts, instExe))
	if !strings.Contains(got, "[ok]   Copilot CLI plugin compact-guard@compact-guard-tools ("+plug+"): its hooks run compact-guard as Copilot's guard") || strings.Contains(got, "FAIL") {
		t.Errorf("plugin not recognised:\n%s", got)
	}
	if _, errOut, code := instAgentRun(t, root, false, "--agent", "copilot"); code != ExitOK {
		t.Fatal(errOut)
	}
	if got := copilotDoctorText(checkCopilot(opts, instExe)); !strings.Contains(got, "two snapshots per compaction (one pointer)") {
		t.Errorf("no warning for the plugin and the file together (its program is not there: the plugin does not stand down):\n%s", got)
	}
	// PL-33: the user's file in install's form, for a program that runs:
	// the plugin's hooks stand down, which doctor explains without a warning.
	bin := filepath.Join(root, "bin", "compact-guard")
	if err := os.MkdirAll(filepath.Dir(bin), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(root, "home", ".copilot", "hooks", copilot.CopilotFileName)
	if err := os.WriteFile(user, copilot.CopilotFile(bin), 0o600); err != nil {
		t.Fatal(err)
	}
	got = copilotDoctorText(checkCopilot(opts, bin))
	if !strings.Contains(got, "[info] Copilot CLI plugin compact-guard@compact-guard-tools and "+user+" both register compact-guard: the plugin's hooks stand down") ||
		strings.Contains(got, "two snapshots per compaction (one pointer)") {
		t.Errorf("the plugin's stand-down not explained:\n%s", got)
	}
}
