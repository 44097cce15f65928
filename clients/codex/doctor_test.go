package codex

import (
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/settings"
)

// spec: DR-26
// Which flags of a project's file fail: those that lose or leak the
// user's snapshots beyond that project.
func TestRepoFlagRisk(t *testing.T) {
	for _, c := range []struct {
		flag  settings.Flag
		risky bool
	}{
		{settings.Flag{Name: "--keep", Value: "1", Text: "--keep 1"}, true},
		{settings.Flag{Name: "--keep", Value: "39", Text: "'--keep=39'"}, true},
		{settings.Flag{Name: "--keep", Value: "40", Text: "--keep 40"}, false},
		{settings.Flag{Name: "--keep", Value: "100", Text: "--keep 100"}, false},
		{settings.Flag{Name: "--keep", Value: "x", Text: "--keep x"}, true},
		{settings.Flag{Name: "--dir", Value: "/tmp/x", Text: "--dir /tmp/x"}, true},
		{settings.Flag{Name: "--no-redact", Text: "--no-redact"}, true},
		{settings.Flag{Name: "--no-redact", Value: "true", Text: "'--no-redact=true'"}, true},
		{settings.Flag{Name: "--no-redact", Value: "false", Text: "'--no-redact=false'"}, false},
		{settings.Flag{Name: "--timeout", Value: "10m", Text: "--timeout 10m"}, false},
		{settings.Flag{Name: "--lang", Value: "ru", Text: "--lang ru"}, false},
	} {
		if got := repoFlagRisk(c.flag, 40); (got != "") != c.risky || c.risky && !strings.HasPrefix(got, c.flag.Text+" ") {
			t.Errorf("%s: %q", c.flag.Text, got)
		}
	}
}
