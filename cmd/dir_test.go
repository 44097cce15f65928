package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// spec: IN-14
func TestDirPrintsSnapshotFolder(t *testing.T) {
	base := t.TempDir()
	t.Setenv(EnvDir, filepath.Join(base, "from-env"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"dir"}, filepath.Join(base, "from-env")},
		{[]string{"--dir", filepath.Join(base, "from-flag"), "dir"}, filepath.Join(base, "from-flag")},
	} {
		var out, errOut bytes.Buffer
		code := Main(c.args, strings.NewReader(""), &out, &errOut)
		if code != ExitOK || out.String() != c.want+"\n" {
			t.Errorf("%v: exit %d, out %q, want %q (%s)", c.args, code, out.String(), c.want, errOut.String())
		}
	}
}

// spec: IN-15
func TestCompletionShells(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "bash completion",
		"zsh":        "compdef",
		"fish":       "complete -c compact-guard",
		"powershell": "Register-ArgumentCompleter",
	} {
		var out, errOut bytes.Buffer
		code := Main([]string{"completion", shell}, strings.NewReader(""), &out, &errOut)
		if code != ExitOK || !strings.Contains(out.String(), marker) {
			t.Errorf("completion %s: exit %d, no %q in output (%s)", shell, code, marker, errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"completion", "tcsh"}, strings.NewReader(""), &out, &errOut); code != ExitUsage {
		t.Errorf("completion tcsh: exit %d, want %d", code, ExitUsage)
	}
}

// spec: IN-15
func TestCompletionUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "bash", "zsh"}} {
		var out, errOut bytes.Buffer
		if code := Main(args, strings.NewReader(""), &out, &errOut); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, ExitUsage)
		}
	}
}

// A plugin's hooks run with CLAUDE_PLUGIN_DATA and CLAUDE_PLUGIN_ROOT set;
// the snapshot folder is still the one every install uses, so that list,
// show and doctor from a terminal find it and it outlives the plugin, and
// COMPACT_GUARD_DIR still moves it.
// spec: PL-4
func TestDirIgnoresPluginData(t *testing.T) {
	dir := func() string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code := Main([]string{"dir"}, strings.NewReader(""), &out, &errOut); code != ExitOK {
			t.Fatalf("dir: exit %d (%s)", code, errOut.String())
		}
		return strings.TrimSuffix(out.String(), "\n")
	}
	t.Setenv(EnvDir, "")
	t.Setenv("CLAUDE_PLUGIN_DATA", "")
	t.Setenv("CLAUDE_PLUGIN_ROOT", "")
	terminal := dir()
	data := t.TempDir()
	t.Setenv("CLAUDE_PLUGIN_DATA", data)
	t.Setenv("CLAUDE_PLUGIN_ROOT", t.TempDir())
	if got := dir(); got != terminal || strings.HasPrefix(got, data) {
		t.Errorf("with the plugin's variables the folder is %q, from a terminal %q", got, terminal)
	}
	moved := filepath.Join(t.TempDir(), "moved")
	t.Setenv(EnvDir, moved)
	if got := dir(); got != moved {
		t.Errorf("COMPACT_GUARD_DIR=%s under the plugin gives %q", moved, got)
	}
}
