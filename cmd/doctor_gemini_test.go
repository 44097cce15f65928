package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/gemini"
	"github.com/compact-guard/compact-guard/settings"
)

// spec: DR-46, DR-47
// doctor --agent gemini reads ~/.gemini/settings.json, comments and all,
// judges PreCompress and BeforeAgent by Gemini CLI's rules (milliseconds,
// an exact trigger matcher) and asks for both.
func TestDoctorGemini(t *testing.T) {
	d := newDocEnv(t)
	d.agent = gemini.Name
	doc, _ := settings.ParseFor(gemini.Name, []byte("{\n  // mine\n}\n"))
	if _, err := doc.Install(d.exe, "", settings.Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d.home, ".gemini", "settings.json")
	good := string(doc.Bytes())
	d.write(p, good)
	report, code := d.run()
	if code != ExitOK || docLine(report, "PreCompress [*] runs", "timeout 60000 ms") == "" || docLine(report, "BeforeAgent [*] runs", "watch") == "" ||
		!strings.Contains(report, "Gemini CLI user settings "+p) || strings.Contains(report, "PreCompact") {
		t.Fatalf("DR-46 exit %d:\n%s", code, report)
	}
	// The matcher install for Claude Code writes matches nothing in Gemini CLI.
	d.write(p, strings.Replace(good, `"PreCompress": [`+"\n"+`      {`, `"PreCompress": [`+"\n"+`      {"matcher": "manual|auto",`, 1))
	report, code = d.run()
	if l := docLine(report, "PreCompress [manual|auto]", "matches neither"); code != ExitFailure || l == "" {
		t.Errorf("DR-46 matcher: exit %d\n%s", code, report)
	}
	// Seconds where milliseconds are meant.
	d.write(p, strings.Replace(good, `"timeout": 60000`, `"timeout": 60`, 1))
	report, code = d.run()
	if l := docLine(report, "PreCompress", "too short"); code != ExitFailure || l == "" {
		t.Errorf("DR-46 timeout: exit %d\n%s", code, report)
	}
	// No BeforeAgent: the pointer has no way to the model.
	d.write(p, `{"hooks": {"PreCompress": [{"hooks": [{"type": "command", "command": "\"`+d.exe+`\" precompact", "timeout": 60000}]}]}}`)
	report, code = d.run()
	if l := docLine(report, "no BeforeAgent hook runs compact-guard watch"); code != ExitFailure || !strings.Contains(l, "install --agent gemini") {
		t.Errorf("DR-47: exit %d\n%s", code, report)
	}
}
