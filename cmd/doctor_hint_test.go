package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/take"
)

// spec: DR-16, PC-31
// doctor says per PreCompact entry whether precompact prints the summary
// hint and why: --no-hint in the command, else COMPACT_GUARD_HINT from the
// "env" of the local settings over the project's over the user's, over
// doctor's own environment.
func TestDoctorHint(t *testing.T) {
	withEnv := func(settingsText, value string) string {
		return strings.Replace(settingsText, "{", `{"env": {"`+take.EnvHint+`": "`+value+`"},`, 1)
	}
	project := func(d *docEnv) string { return filepath.Join(d.proj, ".claude", "settings.json") }
	local := func(d *docEnv) string { return filepath.Join(d.proj, ".claude", "settings.local.json") }
	for _, tc := range []struct {
		name  string
		setup func(d *docEnv)
		want  []string
		warn  bool
	}{
		{"on by default", func(d *docEnv) { d.write(d.userSettings(), d.installed()) },
			[]string{"[info] summary hint (user settings " + "USER" + "): on; precompact hands Claude Code's summarizer", `(off: --no-hint in the command, or "env": {"COMPACT_GUARD_HINT": "off"} in a settings file)`}, false},
		{"off by the flag", func(d *docEnv) {
			d.write(d.userSettings(), strings.Replace(d.installed(), `precompact"`, `precompact --no-hint"`, 1))
		}, []string{"summary hint (user settings USER): off, --no-hint in the command"}, false},
		{"off by the user's env", func(d *docEnv) { d.write(d.userSettings(), withEnv(d.installed(), "off")) },
			[]string{`summary hint (user settings USER): off, COMPACT_GUARD_HINT=off in the "env" of user settings USER`}, false},
		{"the local settings win", func(d *docEnv) {
			d.write(d.userSettings(), withEnv(d.installed(), "off"))
			d.write(project(d), `{"env": {"COMPACT_GUARD_HINT": "0"}}`)
			d.write(local(d), `{"env": {"COMPACT_GUARD_HINT": "on"}}`)
		}, []string{`summary hint (user settings USER): on (COMPACT_GUARD_HINT=on in the "env" of local settings LOCAL)`}, false},
		{"the project's over the user's", func(d *docEnv) {
			d.write(d.userSettings(), withEnv(d.installed(), "on"))
			d.write(project(d), `{"env": {"COMPACT_GUARD_HINT": "no"}}`)
		}, []string{`off, COMPACT_GUARD_HINT=no in the "env" of project settings PROJECT`}, false},
		{"doctor's environment", func(d *docEnv) {
			d.write(d.userSettings(), d.installed())
			d.env[take.EnvHint] = "false"
		}, []string{"off, COMPACT_GUARD_HINT=false in the doctor's environment"}, false},
		{"a settings file's env over doctor's", func(d *docEnv) {
			d.write(d.userSettings(), withEnv(d.installed(), "yes"))
			d.env[take.EnvHint] = "off"
		}, []string{`on (COMPACT_GUARD_HINT=yes in the "env" of user settings USER)`}, false},
		{"neither on nor off", func(d *docEnv) { d.write(d.userSettings(), withEnv(d.installed(), "later")) },
			[]string{`[warn] summary hint (user settings USER): off, COMPACT_GUARD_HINT="later" in the "env" of user settings USER is neither on nor off`,
				`fix: set COMPACT_GUARD_HINT to "on" or "off" there`}, true},
		{"arguments that do not parse", func(d *docEnv) {
			d.write(d.userSettings(), strings.Replace(d.installed(), `precompact"`, `precompact --no-hint --kep 3"`, 1))
		}, []string{"summary hint (user settings USER): off, the entry's arguments do not parse"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDocEnv(t)
			tc.setup(d)
			report, _ := d.run()
			for _, w := range tc.want {
				w = strings.NewReplacer("USER", d.userSettings(), "PROJECT", project(d), "LOCAL", local(d)).Replace(w)
				if !strings.Contains(report, w) {
					t.Errorf("no %q in:\n%s", w, report)
				}
			}
			if strings.Count(report, "summary hint (") != 1 {
				t.Errorf("one line for the one PreCompact entry:\n%s", report)
			}
			if got := strings.Contains(report, "[warn] summary hint"); got != tc.warn {
				t.Errorf("warning %v, want %v:\n%s", got, tc.warn, report)
			}
		})
	}
}

// spec: DR-16, PC-32
// For Codex CLI and Qwen Code doctor says that no hint is printed.
func TestDoctorHintOtherClients(t *testing.T) {
	d := newDocEnv(t)
	d.agent = qwen.Name
	path := filepath.Join(d.home, ".qwen", "settings.json")
	doc, _ := settings.ParseFor(qwen.Name, []byte("{}"))
	if _, err := doc.Install(d.exe, string(qwen.Name), settings.Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	d.write(path, string(doc.Bytes()))
	report, _ := d.run()
	if !strings.Contains(report, "[info] summary hint: not printed for Qwen Code, whose PreCompact hook's plain stdout reaches no summarizer") {
		t.Errorf("report:\n%s", report)
	}
}
