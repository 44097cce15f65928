package settings

import (
	"strings"
	"testing"
)

// spec: DR-26
// Which flags of a project's file fail: those that lose or leak the
// user's snapshots beyond that project.
func TestRepoFlagRisk(t *testing.T) {
	for _, c := range []struct {
		flag  Flag
		risky bool
	}{
		{Flag{Name: "--keep", Value: "1", Text: "--keep 1"}, true},
		{Flag{Name: "--keep", Value: "39", Text: "'--keep=39'"}, true},
		{Flag{Name: "--keep", Value: "40", Text: "--keep 40"}, false},
		{Flag{Name: "--keep", Value: "100", Text: "--keep 100"}, false},
		{Flag{Name: "--keep", Value: "x", Text: "--keep x"}, true},
		{Flag{Name: "--dir", Value: "/tmp/x", Text: "--dir /tmp/x"}, true},
		{Flag{Name: "--no-redact", Text: "--no-redact"}, true},
		{Flag{Name: "--no-redact", Value: "true", Text: "'--no-redact=true'"}, true},
		{Flag{Name: "--no-redact", Value: "false", Text: "'--no-redact=false'"}, false},
		{Flag{Name: "--timeout", Value: "10m", Text: "--timeout 10m"}, false},
		{Flag{Name: "--lang", Value: "ru", Text: "--lang ru"}, false},
	} {
		if got := repoFlagRisk(c.flag, 40); (got != "") != c.risky || c.risky && !strings.HasPrefix(got, c.flag.Text+" ") {
			t.Errorf("%s: %q", c.flag.Text, got)
		}
	}
}
