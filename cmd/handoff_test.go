package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

var hoNow = time.Date(2026, 12, 1, 10, 22, 5, 0, time.UTC)

// fillBlock fills every section of a template with "none", leaving its
// session marker as it is.
func fillBlock(tpl string) string {
	s := strings.ReplaceAll(tpl, "\n<!-- ", "\nnone <!-- ")
	return strings.ReplaceAll(s, "\nnone <!-- compact-guard session:", "\n<!-- compact-guard session:")
}

// spec: HO-5, HO-6
func TestHO6HandoffFlags(t *testing.T) {
	cases := []struct {
		args     []string
		wantCode int
		want     HandoffOptions
	}{
		{[]string{"--template"}, ExitOK, HandoffOptions{Template: true}},
		{[]string{"--check"}, ExitOK, HandoffOptions{Check: true}},
		{[]string{"--check", "notes/S.md", "--session", "s1", "--state-file", "NOTES.md"}, ExitOK,
			HandoffOptions{Check: true, File: "notes/S.md", SessionID: "s1", StateFileName: "NOTES.md"}},
		{nil, ExitUsage, HandoffOptions{}},
		{[]string{"--template", "--check"}, ExitUsage, HandoffOptions{}},
		{[]string{"--template", "S.md"}, ExitUsage, HandoffOptions{}},
		{[]string{"--check", "a", "b"}, ExitUsage, HandoffOptions{}},
	}
	for _, c := range cases {
		var got *HandoffOptions
		var errOut bytes.Buffer
		cmd := newCmdHandoff(&IO{Out: &bytes.Buffer{}, ErrOut: &errOut}, &GlobalOptions{}, func(o *HandoffOptions) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SetErr(&errOut)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		if code := exitCode(err, &errOut); code != c.wantCode {
			t.Errorf("%q: exit %d, want %d (%v)", c.args, code, c.wantCode, err)
			continue
		}
		if c.wantCode != ExitOK {
			continue
		}
		if got.Template != c.want.Template || got.Check != c.want.Check || got.File != c.want.File || got.SessionID != c.want.SessionID ||
			c.want.StateFileName != "" && got.StateFileName != c.want.StateFileName {
			t.Errorf("%q: options %+v", c.args, got)
		}
	}
}

// spec: HO-5
func TestHO5Template(t *testing.T) {
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		var out bytes.Buffer
		opts := &HandoffOptions{IO: &IO{Out: &out, ErrOut: &bytes.Buffer{}}, Template: true, Lang: lang, Now: func() time.Time { return hoNow }}
		if err := handoffRun(opts); err != nil {
			t.Fatal(err)
		}
		if out.String() != handoff.Template(lang, hoNow) {
			t.Errorf("%s: printed\n%s", lang, out.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"--lang", "ru", "handoff", "--template"}, strings.NewReader(""), &out, &errOut); code != ExitOK ||
		!strings.HasPrefix(out.String(), "## HANDOFF ") || !strings.Contains(out.String(), "### СЛЕДУЮЩИЙ ШАГ") {
		t.Errorf("exit %d:\n%s%s", code, out.String(), errOut.String())
	}
}

// spec: HO-6
func TestHO6Check(t *testing.T) {
	root := t.TempDir()
	snaps := filepath.Join(root, "state", "snapshots")
	project := filepath.Join(root, "проект")
	sub := filepath.Join(project, "internal", "x")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(sub, 0o700)
	const sid = "5e55-10n"
	crossed := hoNow.Add(-10 * time.Minute)
	if _, err := watch.StoreFor(snaps).Update(sid, func(st *watch.State) bool {
		st.Crossings = []watch.Crossing{{Tokens: 500000, At: crossed}}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	filled := func(at time.Time) string {
		return strings.ReplaceAll(handoff.Template(snapshot.English, at), "\n<!-- ", "\nnone <!-- ")
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	state := filepath.Join(project, "SESSION-STATE.md")
	other := filepath.Join(root, "OTHER.md")
	cases := []struct {
		name     string
		setup    func()
		file     string
		env      map[string]string
		lang     snapshot.Lang
		wantCode int
		want     []string
	}{
		{"no state file", func() { os.Remove(state) }, "", nil, snapshot.English, ExitFailure,
			[]string{"no SESSION-STATE.md found in " + project + ", " + sub}},
		{"the template as printed", func() { write(state, "# notes\n\n"+handoff.Template(snapshot.English, hoNow)) }, "", nil, snapshot.English, ExitFailure,
			[]string{"handoff not ready: " + state + " line 3", "- not filled: TASK, CURRENT STATE, NEXT STEP"}},
		{"complete, no session known", func() { write(state, filled(hoNow.Add(-5*time.Minute))) }, "", nil, snapshot.English, ExitOK,
			[]string{"handoff current: " + state + " line 1, HANDOFF "}},
		// spec: HO-13 (with nothing known, only a block of the last hour)
		{"complete, no session known, older than an hour", func() { write(state, filled(crossed.Add(-time.Hour))) }, "", nil, snapshot.English, ExitFailure,
			[]string{"- dated 2026-12-01T09:12:05Z, before 2026-12-01T09:22:05Z, an hour before the clock (nothing tells when this session began)"}},
		{"complete but older than the crossing", func() {}, "", map[string]string{"CLAUDE_CODE_SESSION_ID": sid}, snapshot.English, ExitFailure,
			[]string{"- dated 2026-12-01T09:12:05Z, before the handoff threshold was crossed at 2026-12-01T10:12:05Z"}},
		{"the newest block counts", func() { write(state, filled(crossed.Add(-time.Hour))+"\n"+filled(crossed.Add(time.Minute))) }, "",
			map[string]string{"CLAUDE_CODE_SESSION_ID": sid}, snapshot.English, ExitOK,
			[]string{"line 31", "(the context crossed its first threshold at 2026-12-01T10:12:05Z)"}},
		{"FILE, in Russian", func() { write(other, strings.Replace(filled(hoNow), "### DON'T\nnone", "", 1)) }, other, nil, snapshot.Russian, ExitFailure,
			[]string{"передача не готова: " + other + ", строка 1", "- нет разделов: НЕ ТРОГАТЬ"}},
		{"CLAUDE_PROJECT_DIR first", func() {
			os.MkdirAll(filepath.Join(root, "p2"), 0o700)
			write(filepath.Join(root, "p2", "SESSION-STATE.md"), filled(hoNow))
		}, "", map[string]string{"CLAUDE_PROJECT_DIR": filepath.Join(root, "p2"), "CLAUDE_CODE_SESSION_ID": sid}, snapshot.English, ExitOK,
			[]string{"handoff current: " + filepath.Join(root, "p2", "SESSION-STATE.md")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			var out, errOut bytes.Buffer
			opts := &HandoffOptions{IO: &IO{Out: &out, ErrOut: &errOut}, Dir: snaps, Check: true, File: tc.file, Lang: tc.lang,
				Getenv: func(k string) string { return tc.env[k] }, Getwd: func() (string, error) { return sub, nil },
				Now: func() time.Time { return hoNow }}
			if code := exitCode(handoffRun(opts), &errOut); code != tc.wantCode {
				t.Errorf("exit %d, want %d:\n%s%s", code, tc.wantCode, out.String(), errOut.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
