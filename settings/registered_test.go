package settings

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func writeTestFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// spec: IN-82 — a plugin installation whose hooks run compact-guard, a
// user's own entry naming it, and a file that does not parse all count as
// registrations; a file without an entry of ours does not.
func TestRegistered(t *testing.T) {
	root := t.TempDir()
	home, proj := filepath.Join(root, "home"), filepath.Join(root, "proj")
	h := Host{
		Getenv: func(string) string { return "" },
		Home:   func() (string, error) { return home, nil },
		Getwd:  func() (string, error) { return proj, nil },
	}
	if got := Registered(h, ""); len(got) != 0 {
		t.Fatalf("nothing installed: %v", got)
	}
	writeTestFile(t, filepath.Join(home, ".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`)
	plugin := filepath.Join(home, ".claude", "plugins", "cache", "m", "compact-guard", "1.0.0")
	writeTestFile(t, filepath.Join(home, ".claude", "plugins", "installed_plugins.json"),
		`{"version": 2, "plugins": {"compact-guard@compact-guard-tools": [{"scope": "user", "installPath": "`+plugin+`"}]}}`)
	hooks := filepath.Join(plugin, "hooks", "hooks.json")
	writeTestFile(t, hooks, `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/bin/compact-guard", "args": ["precompact"]}]}]}}`)
	qwen := filepath.Join(proj, ".qwen", "settings.json")
	writeTestFile(t, qwen, "{\n  // mine\n  \"hooks\": {\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"compact-guard watch && notify\"}]}]}\n}\n")
	broken := filepath.Join(proj, ".codex", "hooks.json")
	writeTestFile(t, broken, "{")
	got := Registered(h, "")
	for _, want := range []string{hooks, qwen, broken} {
		if !slices.Contains(got, want) {
			t.Errorf("Registered lacks %s: %v", want, got)
		}
	}
	if slices.Contains(got, filepath.Join(home, ".claude", "settings.json")) {
		t.Errorf("a file without compact-guard counts: %v", got)
	}
}

// spec: IN-83 — watch's state files and locks go, then the folder; a
// folder holding anything else stays.
func TestRemoveWatchState(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "watch")
	if ok, err := RemoveWatchState(dir); ok || err != nil {
		t.Errorf("no folder: %v %v", ok, err)
	}
	writeTestFile(t, filepath.Join(dir, "a_1.json"), "{}")
	writeTestFile(t, filepath.Join(dir, "a_1.lock"), "")
	if ok, err := RemoveWatchState(dir); !ok || err != nil {
		t.Errorf("state files: %v %v", ok, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("folder left: %v", err)
	}
	writeTestFile(t, filepath.Join(dir, "a_1.json"), "{}")
	writeTestFile(t, filepath.Join(dir, "notes.txt"), "mine")
	if ok, err := RemoveWatchState(dir); ok || err == nil {
		t.Errorf("a foreign file: %v %v", ok, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("the foreign file went: %v", err)
	}
}
