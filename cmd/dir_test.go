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
