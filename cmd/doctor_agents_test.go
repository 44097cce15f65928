package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/clients/codex"
	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/settings"
)

// spec: DR-15
// doctor --agent codex reads ~/.codex/hooks.json and checks Codex's trust
// of each hook of ours in config.toml: trusted, missing, changed.
func TestDoctorCodexTrust(t *testing.T) {
	d := newDocEnv(t)
	d.agent = codex.Name
	var out strings.Builder
	opts := &SettingsOptions{IO: &IO{In: strings.NewReader(""), Out: &out, ErrOut: &out}, Scope: settings.ScopeUser, Agent: codex.Name,
		Executable: func() (string, error) { return d.exe, nil },
		Host:       settings.Host{Getenv: func(string) string { return "" }, Home: func() (string, error) { return d.home, nil }, Getwd: func() (string, error) { return d.proj, nil }},
		Now:        time.Now, Backups: filepath.Join(d.root, "backups")}
	if err := installRun(opts); err != nil {
		t.Fatal(err)
	}
	hooks := filepath.Join(d.home, ".codex", "hooks.json")
	cfg := filepath.Join(d.home, ".codex", "config.toml")
	report, code := d.run()
	if code != ExitOK || strings.Count(report, "trusted in "+cfg) != 3 || !strings.Contains(report, "Codex CLI user hooks "+hooks) {
		t.Fatalf("exit %d:\n%s", code, report)
	}

	// A handler changed by hand: its hash no longer matches.
	data, _ := os.ReadFile(hooks)
	os.WriteFile(hooks, []byte(strings.Replace(string(data), "precompact", "precompact --keep 10", 1)), 0o600)
	report, code = d.run()
	if l := docLine(report, "PreCompact", "changed since it was trusted"); code != ExitFailure || !strings.Contains(l, "fix: run 'compact-guard install --agent codex'") {
		t.Errorf("changed handler: exit %d\n%s", code, report)
	}

	// No trust at all: Codex skips the hooks silently, doctor says so.
	os.WriteFile(cfg, []byte("model = \"x\"\n"), 0o600)
	report, code = d.run()
	if code != ExitFailure || strings.Count(report, "is not trusted in "+cfg+": Codex skips it without a word") != 3 {
		t.Errorf("untrusted: exit %d\n%s", code, report)
	}
	os.WriteFile(cfg, []byte("[features]\nhooks = false\n"), 0o600)
	if report, _ = d.run(); docLine(report, "features.hooks is false") == "" {
		t.Errorf("features.hooks:\n%s", report)
	}
}

// spec: DR-15
// doctor --agent qwen reads ~/.qwen/settings.json, comments and all.
func TestDoctorQwen(t *testing.T) {
	d := newDocEnv(t)
	d.agent = qwen.Name
	doc, _ := settings.ParseFor(qwen.Name, []byte("{\n  // mine\n}\n"))
	if _, err := doc.Install(d.exe, "", settings.Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	d.write(filepath.Join(d.home, ".qwen", "settings.json"), string(doc.Bytes()))
	report, code := d.run()
	if code != ExitOK || docLine(report, "PreCompact [manual|auto] runs") == "" || strings.Contains(report, "trusted") ||
		docLine(report, "UserPromptSubmit [*] runs", "watch") == "" || docLine(report, "SessionStart [resume] runs", "watch") == "" || strings.Contains(report, "PostToolUse") || strings.Contains(report, "Stop") {
		t.Errorf("exit %d:\n%s", code, report)
	}
	// watch hands over the late pointer on Qwen Code: its prompt and resume
	// registrations are asked for, not those of tool calls and stops.
	group := func(matcher, sub string, timeout int) []any {
		return []any{map[string]any{"matcher": matcher, "hooks": []any{map[string]any{"type": "command", "command": `"` + d.exe + `" ` + sub, "timeout": timeout}}}}
	}
	noWatch, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreCompact": group("manual|auto", "precompact", 60),
		"SessionStart": group("compact", "postcompact", 15), "PostCompact": group("manual|auto", "postcompact", 15)}})
	d.write(filepath.Join(d.home, ".qwen", "settings.json"), string(noWatch))
	report, code = d.run()
	if l := docLine(report, "no UserPromptSubmit hook runs compact-guard watch: no pointer handed over late"); code != ExitOK || !strings.Contains(l, "warn") && !strings.Contains(l, "!") {
		t.Errorf("watch missing: exit %d\n%s", code, report)
	}
	if docLine(report, "no SessionStart hook runs compact-guard watch: a resumed session is not noted, so a pointer lost with the process that compacted is not handed over") == "" ||
		strings.Contains(report, "PostToolUse") || strings.Contains(report, "Stop") {
		t.Errorf("watch missing:\n%s", report)
	}
	os.Remove(filepath.Join(d.home, ".qwen", "settings.json"))
	report, code = d.run()
	if docLine(report, "no PreCompact hook") == "" || code != ExitFailure || !strings.Contains(report, "fix: run 'compact-guard install --agent qwen' (it registers the 5 hooks above)") {
		t.Errorf("missing: exit %d\n%s", code, report)
	}
}
