package cmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/settings"
)

// spec: IN-2, IN-18
// PostToolUseFailure is registered for the releases that fire it (2.0.56
// and later, E2E-37), and left out before, where a file naming it would
// load no hook at all.
func TestInstallRegistersPostToolUseFailure(t *testing.T) {
	for _, c := range []struct {
		client string
		want   bool
	}{{"", true}, {"2.1.328", true}, {"2.0.56", true}, {"2.0.55", false}} {
		d := newDocEnv(t)
		var out, errOut bytes.Buffer
		err := installRun(&InstallOptions{IO: &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Scope: settings.ScopeUser,
			Executable: func() (string, error) { return d.exe, nil }, Now: time.Now, Backups: d.backups(),
			Host:       settings.Host{Getenv: func(string) string { return "" }, Home: func() (string, error) { return d.home, nil }, Getwd: func() (string, error) { return d.proj, nil }},
			FindClaude: func() (string, string) { return c.client, "'claude --version'" }})
		code := exitCode(err, &errOut)
		d.client = c.client
		b := instRead(t, d.userSettings())
		if code != ExitOK || bytes.Contains(b, []byte(`"PostToolUseFailure"`)) != c.want ||
			!c.want && !strings.Contains(errOut.String(), "does not know PostToolUseFailure, which came in 2.0.56") {
			t.Errorf("Claude Code %q: exit %d, stderr %q\n%s", c.client, code, errOut.String(), b)
		}
		if c.want {
			report, _ := d.run()
			if l := docLine(report, "PostToolUseFailure [*] runs"); !strings.Contains(l, "[ok]") {
				t.Errorf("Claude Code %q: doctor:\n%s", c.client, report)
			}
		}
	}
	// doctor warns when it is missing, saying what is lost.
	d := newDocEnv(t)
	d.write(d.userSettings(), strings.Replace(d.installed(), `"PostToolUseFailure"`, `"Notification"`, 1))
	report, _ := d.run()
	if docLine(report, "[warn]", "no PostToolUseFailure hook runs compact-guard watch", "after a tool call that failed") == "" {
		t.Errorf("no warning for a missing PostToolUseFailure:\n%s", report)
	}
}
