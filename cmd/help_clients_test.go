package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// spec: IN-89
//
// compact-guard --help names the five clients it runs as hooks of, and
// install's and uninstall's help name each client's --agent and its file,
// so that a Codex, Qwen, Copilot or Gemini user reading the help does not
// take it for a Claude Code tool only.
func TestIN89HelpNamesEveryClient(t *testing.T) {
	root := newRootCmd(&IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, "")
	// help is a command's help text as --help prints it (a hook prints it
	// on stderr), its lines joined so that a name a line break splits is
	// found.
	help := func(args ...string) string {
		t.Helper()
		c, _, err := root.Find(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return c.Short + "\n" + c.Long + "\n"
	}
	clients := []string{"Claude Code", "Codex CLI", "Qwen Code", "GitHub Copilot CLI", "Gemini CLI"}
	top := strings.Join(strings.Fields(help()), " ")
	for _, c := range clients {
		if !strings.Contains(top, c) {
			t.Errorf("compact-guard --help does not name %s:\n%s", c, top)
		}
	}
	if strings.Contains(top, "runs as Claude Code hooks") {
		t.Errorf("compact-guard --help still says it runs as Claude Code hooks")
	}
	for _, cmd := range []string{"install", "uninstall"} {
		text := help(cmd)
		for _, want := range []string{"codex    Codex CLI", "qwen     Qwen Code", "copilot  GitHub Copilot CLI", "gemini   Gemini CLI"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s --help lacks %q", cmd, want)
			}
		}
	}
	for cmd, want := range map[string]string{"doctor": "--agent gemini", "audit": "Gemini CLI's", "precompact": "PreCompress", "postcompact": "GitHub Copilot CLI", "watch": "Gemini CLI"} {
		if text := strings.Join(strings.Fields(help(cmd)), " "); !strings.Contains(text, want) {
			t.Errorf("%s --help lacks %q", cmd, want)
		}
	}
}
