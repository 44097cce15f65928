package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/copilot"
)

// spec: IN-41, IN-42, IN-43, IN-45, IN-46
func TestInstallCopilot(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		scope, path string
		perm        os.FileMode
	}{
		{"user", filepath.Join(root, "home", ".copilot", "hooks", "compact-guard.json"), 0o600},
		{"project", filepath.Join(root, "proj", ".github", "hooks", "compact-guard.json"), 0o644},
	} {
		t.Run(c.scope, func(t *testing.T) {
			// Another tool's hooks file beside ours stays as it is.
			other := filepath.Join(filepath.Dir(c.path), "other.json")
			otherText := "{\"version\": 1, \"hooks\": {\"preCompact\": [{\"type\": \"command\", \"bash\": \"notify\"}]}}\n"
			if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(other, []byte(otherText), 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := instAgentRun(t, root, false, "--agent", "copilot", "--scope", c.scope)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			data, err := os.ReadFile(c.path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != string(copilot.CopilotFile(instExe)) {
				t.Errorf("file:\n%s", data)
			}
			for _, want := range []string{`"PreCompact": [{"type":"command","bash":"\"` + instExe + `\" copilot","powershell":"& '` + instExe + `' copilot","timeoutSec":60}]`,
				`"UserPromptSubmit"`, `"PostToolUse"`, `"version": 1`} {
				if !strings.Contains(string(data), want) {
					t.Errorf("file lacks %s:\n%s", want, data)
				}
			}
			if fi, _ := os.Stat(c.path); fi.Mode().Perm() != c.perm {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), c.perm)
			}
			if !strings.Contains(out, "created "+c.path) {
				t.Errorf("out %q", out)
			}
			if c.scope == "project" && !strings.Contains(errOut, "trustedFolders") {
				t.Errorf("no trust note: %q", errOut)
			}
			if out, _, _ := instAgentRun(t, root, false, "--agent", "copilot", "--scope", c.scope); !strings.Contains(out, "already installed") {
				t.Errorf("second install: %q", out)
			}
			if out, errOut, code := instAgentRun(t, root, true, "--agent", "copilot", "--scope", c.scope); code != ExitOK || !strings.Contains(out, "removed "+c.path) {
				t.Fatalf("uninstall exit %d: %s %s", code, out, errOut)
			}
			if _, err := os.Stat(c.path); !os.IsNotExist(err) {
				t.Errorf("file still there: %v", err)
			}
			if got, _ := os.ReadFile(other); string(got) != otherText {
				t.Errorf("another tool's file changed: %q", got)
			}
		})
	}
}

// spec: IN-43, IN-46
// A compact-guard.json holding someone else's entries is neither
// overwritten nor removed.
func TestInstallCopilotLeavesForeignEntries(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "home", ".copilot", "hooks", "compact-guard.json")
	text := "{\"version\":1,\"hooks\":{\"PreCompact\":[{\"type\":\"command\",\"bash\":\"notify-send compacting\"}]}}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, un := range []bool{false, true} {
		_, errOut, code := instAgentRun(t, root, un, "--agent", "copilot")
		if code != ExitFailure || !strings.Contains(errOut, "not compact-guard's (PreCompact); left untouched") {
			t.Errorf("uninstall=%v: exit %d: %s", un, code, errOut)
		}
		if got, _ := os.ReadFile(path); string(got) != text {
			t.Errorf("uninstall=%v: file changed: %q", un, got)
		}
	}
}

// spec: IN-44
func TestInstallCopilotNotThroughASymlinkOut(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "proj", ".github")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, errOut, code := instAgentRun(t, root, false, "--agent", "copilot", "--scope", "project")
	if code != ExitFailure || !strings.Contains(errOut, "leads outside the project") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("wrote outside the project: %v", entries)
	}
}
