package health

import "testing"

// spec: DR-19
// A fix's path is pasted into a shell as it is: quoted only when the shell
// would read something into it.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/home/me/.claude/settings.json": "/home/me/.claude/settings.json",
		"/tmp/my dir/x":                  "'/tmp/my dir/x'",
		"/tmp/it's":                      `"/tmp/it's"`,
		"/tmp/проект":                    "/tmp/проект",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	if OK >= Info || Info >= Warn || Warn >= Fail {
		t.Error("the statuses are not ordered by severity, so max no longer picks the worst")
	}
}
