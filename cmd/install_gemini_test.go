package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/gemini"
	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/settings"
)

// spec: IN-56 to IN-60 (Gemini CLI's settings.json, user and project
// scope: PreCompress and BeforeAgent, timeouts in milliseconds, no
// matcher; comments, formatting and another tool's hooks kept; uninstall
// gives back the file as it was)
func TestInstallGemini(t *testing.T) {
	orig := `{
  // chosen by hand
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "hooks": {
    "BeforeAgent": [{"hooks": [{"type": "command", "command": "other-tool inject", "timeout": 5000}]}],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "other-tool stop"}]}]
  }
}
`
	for _, scope := range []string{"user", "project"} {
		t.Run(scope, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "home", ".gemini")
			if scope == "project" {
				dir = filepath.Join(root, "proj", ".gemini")
			}
			p := instWrite(t, dir, "settings.json", orig, 0o600)
			out, errOut, code := instAgentRun(t, root, false, "--agent", "gemini", "--scope", scope)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got := string(instRead(t, p))
			for _, want := range []string{"// chosen by hand", `"other-tool inject"`, `"other-tool stop"`, `"PreCompress"`, `"timeout": 60000`, `"timeout": 10000`} {
				if !strings.Contains(got, want) {
					t.Errorf("IN-56: %q missing after install:\n%s", want, got)
				}
			}
			if !strings.Contains(out, "updated "+p) || !strings.Contains(out, "timeout 60000ms") {
				t.Errorf("IN-57 out:\n%s", out)
			}
			doc, err := settings.ParseFor(gemini.Name, []byte(got))
			if err != nil {
				t.Fatal(err)
			}
			var regs []string
			for _, e := range doc.Entries(instExe) {
				regs = append(regs, e.Event+"["+e.Matcher+"]:"+e.Sub)
			}
			// IN-57: no matcher: Gemini compares a trigger matcher as one exact
			// string, so "manual|auto" would match neither. WA-40: BeforeModel,
			// which could rewrite every request, is not registered.
			if got := strings.Join(regs, " "); got != "BeforeAgent[]:watch PreCompress[]:precompact" {
				t.Errorf("IN-57 registrations: %s", got)
			}
			out, _, code = instAgentRun(t, root, false, "--agent", "gemini", "--scope", scope)
			if code != ExitOK || !strings.Contains(out, "compact-guard hooks already installed in "+p) {
				t.Errorf("IN-59 second install: %d\n%s", code, out)
			}
			_, _, code = instAgentRun(t, root, true, "--agent", "gemini", "--scope", scope)
			if code != ExitOK || string(instRead(t, p)) != orig {
				t.Errorf("IN-60 uninstall: %d\n%s", code, instRead(t, p))
			}
			for _, other := range []string{".claude", ".qwen", ".codex"} {
				if _, err := os.Stat(filepath.Join(root, "home", other)); err == nil {
					t.Errorf("gemini install made ~/%s", other)
				}
			}
		})
	}
}

// spec: IN-58 (a timeout of ours in seconds is milliseconds to Gemini CLI:
// 60 is replaced; one in milliseconds the user chose stays)
func TestInstallGeminiTimeouts(t *testing.T) {
	root := t.TempDir()
	cmdline := settings.Command(instExe, "precompact")
	orig := `{"hooks": {"PreCompress": [{"hooks": [{"type": "command", "command": ` + hooktest.QuoteJSON(t, cmdline) + `, "timeout": 60}]}],
 "BeforeAgent": [{"hooks": [{"type": "command", "command": ` + hooktest.QuoteJSON(t, settings.Command(instExe, "watch")) + `, "timeout": 20000}]}]}}
`
	p := instWrite(t, filepath.Join(root, "home", ".gemini"), "settings.json", orig, 0o600)
	out, errOut, code := instAgentRun(t, root, false, "--agent", "gemini")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := string(instRead(t, p))
	if !strings.Contains(got, `"timeout": 60000`) || !strings.Contains(got, `"timeout": 20000`) || !strings.Contains(out, "timeout 60 -> 60000") {
		t.Errorf("out:\n%s\nfile:\n%s", out, got)
	}
}
