package cmd

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// spec: PF-17 (each registered name is the command its builder builds, so
// that a process building only that one finds it)
func TestRegisteredNamesMatchCommands(t *testing.T) {
	ios := &IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	for name, build := range commandBuilders {
		if got := build(ios, &GlobalOptions{}).Name(); got != name {
			t.Errorf("registered as %q, builds %q", name, got)
		}
	}
	for _, name := range []string{"precompact", "postcompact", "version"} {
		if commandBuilders[name] == nil {
			t.Errorf("%s is not registered", name)
		}
	}
}

// spec: PF-17
func TestCommandName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"precompact"}, "precompact"},
		{[]string{"postcompact", "--lang", "ru"}, "postcompact"},
		{[]string{"--dir", "/tmp/x", "--lang=ru", "version"}, "version"},
		{[]string{"--dir=version", "list"}, "list"},
		{[]string{"--dir", "version"}, ""},
		{[]string{"help", "precompact"}, ""},
		{[]string{"--help", "precompact"}, ""},
		{[]string{"-h"}, ""},
		{[]string{"--version"}, ""},
		{[]string{"precompat"}, ""},
		{[]string{"__complete", "pre"}, ""},
		{nil, ""},
	} {
		if got := commandName(tc.args); got != tc.want {
			t.Errorf("commandName(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// spec: PF-17 (a command built alone still behaves as in the whole tree)
func TestCommandBuiltAlone(t *testing.T) {
	run := func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errOut)
		return out.String(), errOut.String(), code
	}
	// The scripts complete through __complete, which builds the whole tree:
	// built alone, completion writes the same script.
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		var whole bytes.Buffer
		root := NewRootCmd(&IO{In: strings.NewReader(""), Out: &whole, ErrOut: io.Discard})
		root.SetArgs([]string{"completion", shell})
		if err := root.Execute(); err != nil {
			t.Fatal(err)
		}
		if out, _, code := run("completion", shell); code != 0 || out != whole.String() {
			t.Errorf("completion %s built alone (exit %d) differs from the whole tree's", shell, code)
		}
	}
	if out, _, code := run("__complete", "post"); code != 0 || !strings.Contains(out, "postcompact") {
		t.Errorf("__complete post (exit %d) does not offer postcompact:\n%s", code, out)
	}
	if out, _, code := run("--lang", "en", "version"); code != 0 || !strings.HasPrefix(out, "compact-guard ") {
		t.Errorf("version: exit %d, %q", code, out)
	}
	if _, errOut, code := run("version", "--bogus"); code != ExitUsage || !strings.Contains(errOut, "unknown flag: --bogus") {
		t.Errorf("version --bogus: exit %d, %q; want exit 2 and the unknown flag", code, errOut)
	}
	if out, _, code := run("--help"); code != 0 || !strings.Contains(out, "postcompact") || !strings.Contains(out, "doctor") {
		t.Errorf("--help (exit %d) does not list every command:\n%s", code, out)
	}
}
