package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/clients/codex"
	"github.com/compact-guard/compact-guard/clients/copilot"
	"github.com/compact-guard/compact-guard/clients/gemini"
	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// docEnv is a fake machine for doctor: a home, a project folder, a
// compact-guard binary and a snapshot folder, all in a temporary folder.
type docEnv struct {
	t      *testing.T
	root   string
	home   string
	proj   string
	exe    string
	snaps  string
	env    map[string]string
	now    time.Time
	selfOK health.Result
	// client is what `claude --version` says, "" for no claude on PATH.
	client string
	agent  settings.Agent
}

func newDocEnv(t *testing.T) *docEnv {
	t.Helper()
	root := t.TempDir()
	d := &docEnv{
		t: t, root: root,
		home:   filepath.Join(root, "home"),
		proj:   filepath.Join(root, "proj"),
		exe:    filepath.Join(root, "bin", "compact-guard"),
		snaps:  filepath.Join(root, "state", "snapshots"),
		env:    map[string]string{},
		now:    time.Now(),
		selfOK: health.Result{Status: health.OK, Text: "round trip: stubbed"},
	}
	for _, dir := range []string{d.home, d.proj, filepath.Dir(d.exe)} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(d.exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *docEnv) userSettings() string { return filepath.Join(d.home, ".claude", "settings.json") }

// write puts content into a settings file, creating its folder.
func (d *docEnv) write(path, content string) {
	d.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		d.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		d.t.Fatal(err)
	}
}

// installed is the settings install writes for the fake binary.
func (d *docEnv) installed() string {
	doc, err := settings.Parse(nil)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := doc.Install(d.exe, "", settings.Carry{Own: true}); err != nil {
		d.t.Fatal(err)
	}
	return string(doc.Bytes())
}

// run runs doctor and returns its output and exit code.
func (d *docEnv) run() (string, int) {
	d.t.Helper()
	var out, errOut bytes.Buffer
	opts := &DoctorOptions{
		IO:         &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Global:     &GlobalOptions{Dir: d.snaps},
		Executable: func() (string, error) { return d.exe, nil },
		Host: settings.Host{
			Getenv: func(k string) string { return d.env[k] },
			Home:   func() (string, error) { return d.home, nil },
			Getwd:  func() (string, error) { return d.proj, nil },
		},
		Now:           func() time.Time { return d.now },
		SelfTest:      func(settings.Agent) health.Result { return d.selfOK },
		ClaudeVersion: func() (string, string) { return d.client, "'claude --version'" },
		Agent:         d.agent,
		Backups:       d.backups(),
	}
	err := doctorRun(opts)
	return out.String(), exitCode(err, &errOut)
}

// docLine finds the report line holding all of the given parts and returns
// it with the fix line after it.
func docLine(out string, parts ...string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "fix:") {
				return l + "\n" + lines[i+1]
			}
			return l
		}
	}
	return ""
}

// spec: DR-1, DR-2, DR-10
func TestDoctorAllGood(t *testing.T) {
	d := newDocEnv(t)
	d.write(d.userSettings(), d.installed())
	out, code := d.run()
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range [][]string{
		{"[ok]", "compact-guard " + Version, d.exe},
		{"[info]", "user settings", d.userSettings()},
		{"[ok]", "PreCompact [manual|auto] runs", "precompact (timeout 60 s)"},
		{"[ok]", "SessionStart [compact] runs", "postcompact (timeout 15 s)"},
		{"[ok]", "PostCompact [manual|auto] runs"},
		{"[ok]", "UserPromptSubmit [*] runs", "watch (timeout 10 s)"},
		{"[ok]", "PostToolUse [*] runs", "watch (timeout 10 s)"},
		{"[ok]", "Stop [*] runs", "watch (timeout 10 s)"},
		{"[ok]", "SessionStart [resume] runs", "watch (timeout 10 s)"},
		{"[info]", "project settings", "not found"},
		{"[ok]", "snapshot folder", "not created yet"},
		{"[ok]", "log", "no hook runs recorded yet"},
		{"[ok]", "round trip: stubbed"},
		{"all checks passed"},
	} {
		if docLine(out, want...) == "" {
			t.Errorf("no line with %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[FAIL]") || strings.Contains(out, "[warn]") {
		t.Errorf("unexpected problem reported:\n%s", out)
	}
}

// spec: DR-14
func TestDoctorFlagsAnEventTheClientDoesNotKnow(t *testing.T) {
	d := newDocEnv(t)
	d.write(d.userSettings(), d.installed())
	d.client = "2.0.76"
	out, code := d.run()
	line := docLine(out, "[FAIL]", d.userSettings(), "registers PostCompact, which Claude Code 2.0.76 ('claude --version') does not know")
	if code != ExitFailure || line == "" || !strings.Contains(line, "fix: run 'compact-guard install' (it leaves PostCompact out") {
		t.Errorf("exit %d, want a failure with the fix:\n%s", code, out)
	}
	d.client = "2.1.328"
	if out, code := d.run(); code != ExitOK || strings.Contains(out, "does not know") {
		t.Errorf("2.1.328: exit %d:\n%s", code, out)
	}
}

// spec: DR-3, DR-10
func TestDoctorFlagsMissingHook(t *testing.T) {
	d := newDocEnv(t)
	// Only SessionStart: no snapshot would ever be taken.
	d.write(d.userSettings(), fmt.Sprintf(`{"hooks":{"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":%q,"timeout":15}]}]}}`, settings.Command(d.exe, "postcompact")))
	out, code := d.run()
	if code != ExitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	// DR-3: one install run adds them all, so one fix, on the last line.
	if docLine(out, "[FAIL]", "no PreCompact hook") == "" || strings.Count(out, "fix: run 'compact-guard install' (it registers the 7 hooks above)") != 1 {
		t.Errorf("missing PreCompact not flagged with a fix:\n%s", out)
	}
	if docLine(out, "[warn]", "no PostCompact hook") == "" {
		t.Errorf("missing PostCompact not warned:\n%s", out)
	}
	if !strings.Contains(out, "1 check(s) failed") {
		t.Errorf("summary:\n%s", out)
	}

	// Nothing installed anywhere: both essential hooks fail.
	d2 := newDocEnv(t)
	out, code = d2.run()
	if code != ExitFailure || docLine(out, "[FAIL]", "no PreCompact hook") == "" || docLine(out, "[FAIL]", `no SessionStart hook with matcher "compact"`) == "" {
		t.Errorf("empty setup: exit %d\n%s", code, out)
	}
}

// spec: DR-4
func TestDoctorFlagsBadEntries(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "compact-guard")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		handler string // the PreCompact handler
		matcher string
		want    []string
		status  string
	}{
		{"dead path", `{"type":"command","command":"\"/gone/away/compact-guard\" precompact","timeout":60}`, "manual|auto",
			[]string{"/gone/away/compact-guard does not exist", "fix: run 'compact-guard install' to point it at"}, "[FAIL]"},
		{"millisecond timeout", `{"type":"command","command":%q,"timeout":60000}`, "manual|auto",
			[]string{"timeout 60000 looks like milliseconds; Claude Code reads seconds (16h40m0s)", "(it writes 60)"}, "[FAIL]"},
		{"short timeout", `{"type":"command","command":%q,"timeout":2}`, "manual|auto",
			[]string{"timeout 2 s is too short"}, "[FAIL]"},
		{"timeout as text", `{"type":"command","command":%q,"timeout":"60"}`, "manual|auto",
			[]string{"timeout is not a number"}, "[FAIL]"},
		{"manual only", `{"type":"command","command":%q,"timeout":60}`, "manual",
			[]string{`matcher "manual" does not match "auto"`}, "[FAIL]"},
		{"regex matcher covering both", `{"type":"command","command":%q,"timeout":60}`, "^(manual|auto)$",
			[]string{"PreCompact [^(manual|auto)$] runs"}, "[ok]"},
		{"broken regex", `{"type":"command","command":%q}`, "(manual",
			[]string{"is not a valid pattern"}, "[FAIL]"},
		{"if condition", `{"type":"command","command":%q,"if":"Bash(git *)"}`, "manual|auto",
			[]string{`"if" condition`}, "[FAIL]"},
		{"async", `{"type":"command","command":%q,"async":true}`, "manual|auto",
			[]string{"async: the compaction may start"}, "[warn]"},
		{"wrong sub-command", `{"type":"command","command":"\"` + "EXE" + `\" postcompact"}`, "manual|auto",
			[]string{"PreCompact needs compact-guard precompact, not postcompact"}, "[FAIL]"},
		{"another binary", `{"type":"command","command":"\"` + notExec + `\" precompact"}`, "manual|auto",
			[]string{"is not executable", "fix: chmod +x"}, "[FAIL]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if runtime.GOOS == "windows" && c.name == "another binary" {
				t.Skip("no executable bit")
			}
			d := newDocEnv(t)
			h := c.handler
			if strings.Contains(h, "%q") {
				h = fmt.Sprintf(h, settings.Command(d.exe, "precompact"))
			}
			h = strings.ReplaceAll(h, "EXE", strings.ReplaceAll(d.exe, `\`, `\\`))
			d.write(d.userSettings(), fmt.Sprintf(`{"hooks":{"PreCompact":[{"matcher":%q,"hooks":[%s]}],
"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":%q}]}],
"PostCompact":[{"matcher":"auto|manual","hooks":[{"type":"command","command":%q}]}]}}`, c.matcher, h, settings.Command(d.exe, "postcompact"), settings.Command(d.exe, "postcompact")))
			out, code := d.run()
			l := docLine(out, c.status, "PreCompact")
			for _, w := range c.want {
				if !strings.Contains(l, w) {
					t.Errorf("no %q on the %s PreCompact line:\n%s", w, c.status, out)
				}
			}
			wantCode := ExitOK
			if c.status == "[FAIL]" {
				wantCode = ExitFailure
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d", code, wantCode)
			}
		})
	}
}

// spec: DR-5
func TestDoctorFlagsSettingsProblems(t *testing.T) {
	t.Run("invalid JSON", func(t *testing.T) {
		d := newDocEnv(t)
		d.write(d.userSettings(), d.installed())
		d.write(filepath.Join(d.proj, ".claude", "settings.local.json"), "{\n  \"hooks\": {,\n}")
		out, code := d.run()
		if code != ExitFailure || docLine(out, "[FAIL]", "local settings", "invalid JSON at line 2, column 13") == "" {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("disableAllHooks", func(t *testing.T) {
		d := newDocEnv(t)
		d.write(d.userSettings(), d.installed())
		d.write(filepath.Join(d.proj, ".claude", "settings.json"), `{"disableAllHooks": true}`)
		out, code := d.run()
		if l := docLine(out, "[FAIL]", `"disableAllHooks" is true`); code != ExitFailure || !strings.Contains(l, "fix: remove") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("different commands in two files", func(t *testing.T) {
		d := newDocEnv(t)
		d.write(d.userSettings(), d.installed())
		other := filepath.Join(d.root, "other", "compact-guard")
		d.write(other, "#!/bin/sh\n")
		os.Chmod(other, 0o755)
		d.write(filepath.Join(d.proj, ".claude", "settings.local.json"), fmt.Sprintf(`{"hooks":{"PreCompact":[{"hooks":[{"type":"command","command":%q}]}]}}`, settings.Command(other, "precompact")))
		out, code := d.run()
		if code != ExitOK {
			t.Errorf("exit %d (warnings must not fail)", code)
		}
		if docLine(out, "[warn]", "PreCompact runs compact-guard precompact 2 times (user settings, local settings) with different commands") == "" {
			t.Errorf("duplicate not warned:\n%s", out)
		}
		if docLine(out, "[warn]", "another compact-guard than this one") == "" {
			t.Errorf("other binary not warned:\n%s", out)
		}
	})
	t.Run("same command in two files runs once", func(t *testing.T) {
		d := newDocEnv(t)
		d.write(d.userSettings(), d.installed())
		d.write(filepath.Join(d.proj, ".claude", "settings.json"), d.installed())
		out, code := d.run()
		if code != ExitOK || strings.Contains(out, "times (") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("CLAUDE_CONFIG_DIR hides ~/.claude", func(t *testing.T) {
		d := newDocEnv(t)
		d.write(d.userSettings(), d.installed())
		d.env["CLAUDE_CONFIG_DIR"] = filepath.Join(d.root, "cfg")
		out, code := d.run()
		if code != ExitFailure {
			t.Errorf("exit %d", code)
		}
		if docLine(out, "[warn]", "~/.claude settings", "does not read it while CLAUDE_CONFIG_DIR is set") == "" ||
			docLine(out, "[info]", "user settings ($CLAUDE_CONFIG_DIR)", "not found") == "" {
			t.Errorf("CLAUDE_CONFIG_DIR:\n%s", out)
		}
	})
	t.Run("placeholder path", func(t *testing.T) {
		d := newDocEnv(t)
		d.write(filepath.Join(d.proj, "bin", "compact-guard"), "#!/bin/sh\n")
		os.Chmod(filepath.Join(d.proj, "bin", "compact-guard"), 0o755)
		s := strings.ReplaceAll(d.installed(), strings.ReplaceAll(filepath.ToSlash(d.exe), `"`, `\"`), "${CLAUDE_PROJECT_DIR}/bin/compact-guard")
		d.write(filepath.Join(d.proj, ".claude", "settings.json"), s)
		out, _ := d.run()
		if docLine(out, "PreCompact", "${CLAUDE_PROJECT_DIR}/bin/compact-guard") == "" || strings.Contains(out, "does not exist") {
			t.Errorf("placeholder not resolved:\n%s", out)
		}
	})
}

// spec: DR-6, SEC-15
func TestDoctorSnapshotFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permission bits")
	}
	d := newDocEnv(t)
	d.write(d.userSettings(), d.installed())
	if err := os.MkdirAll(d.snaps, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(d.snaps, 0o775)
	d.write(filepath.Join(d.snaps, "snap_20260101-120000_abcdef12.json"), "{}")
	// precompact refuses a folder the group can write to, so doctor fails
	// it with the hooks' own reason and fix (SEC-14, SEC-15), and nothing
	// in it changes.
	out, code := d.run()
	if l := docLine(out, "[FAIL]", "compact-guard refuses it", "group or others can write to it (mode 0775)"); code != ExitFailure || !strings.Contains(l, "fix: chmod go-w "+d.snaps) {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if fi, _ := os.Stat(d.snaps); fi.Mode().Perm() != 0o775 {
		t.Errorf("doctor changed the folder's mode to %v", fi.Mode().Perm())
	}
	// Others may read it: the hooks use it, so doctor passes it.
	for _, mode := range []os.FileMode{0o755, 0o700} {
		os.Chmod(d.snaps, mode)
		if out, _ := d.run(); docLine(out, "[ok]", "snapshot folder", "writable, private") == "" {
			t.Errorf("%04o folder:\n%s", mode, out)
		}
	}
	os.RemoveAll(d.snaps)
	d.write(d.snaps, "not a folder")
	if out, code := d.run(); code != ExitFailure || docLine(out, "[FAIL]", "is not a folder") == "" {
		t.Errorf("file as folder: exit %d\n%s", code, out)
	}
}

// spec: DR-7
func TestDoctorLogFailures(t *testing.T) {
	d := newDocEnv(t)
	d.write(d.userSettings(), d.installed())
	old := hookio.Entry{At: d.now.Add(-30 * time.Hour), Command: "precompact", Session: "s1", Outcome: hookio.OutcomeFailed, Detail: "old trouble"}
	recent := hookio.Entry{At: d.now.Add(-2 * time.Hour), Command: "precompact", Session: "s2", Outcome: hookio.OutcomeFailed, Detail: "snapshot not written: disk full"}
	ok := hookio.Entry{At: d.now.Add(-time.Hour), Command: "postcompact", Session: "s2", Outcome: hookio.OutcomeOK, Snapshot: "snap_x"}
	warned := hookio.Entry{At: d.now.Add(-time.Hour), Command: "precompact", Session: "s3", Outcome: hookio.OutcomeWarn, Warnings: []string{"git: timeout"}}
	logFile := hookio.LogPath(d.snaps)

	d.write(logFile, old.String()+"\n"+ok.String()+"\n"+warned.String()+"\ngarbage line\n")
	out, code := d.run()
	if code != ExitOK || docLine(out, "[ok]", "2 hook runs in the last 24 h, none failed (1 with warnings)") == "" {
		t.Errorf("old failure only: exit %d\n%s", code, out)
	}

	d.write(logFile, old.String()+"\n"+recent.String()+"\n"+ok.String()+"\n")
	out, code = d.run()
	if code != ExitOK {
		t.Errorf("a past failure must warn, not fail: exit %d", code)
	}
	if l := docLine(out, "[warn]", "1 of 2 hook runs in the last 24 h failed", "precompact: snapshot not written: disk full"); !strings.Contains(l, "fix: read the log") {
		t.Errorf("recent failure:\n%s", out)
	}
}

// spec: DR-8
func TestDoctorSelfTestResult(t *testing.T) {
	d := newDocEnv(t)
	d.write(d.userSettings(), d.installed())
	d.selfOK = health.Result{Status: health.Fail, Text: "round trip: precompact wrote no snapshot"}
	out, code := d.run()
	if code != ExitFailure || docLine(out, "[FAIL]", "round trip") == "" {
		t.Errorf("failed round trip: exit %d\n%s", code, out)
	}
}

// spec: DR-8
func TestDoctorSelfTestRoundTrip(t *testing.T) {
	c := doctorSelfTest(settings.AgentClaude)
	if c.Status != health.OK {
		t.Fatalf("round trip: %s (%s)", c.Text, c.Fix)
	}
	if !regexp.MustCompile(`precompact wrote snap_\d{8}-\d{6}_d0c70000\.md and named it in its summary hint, postcompact pointed at it`).MatchString(c.Text) {
		t.Errorf("round trip text: %s", c.Text)
	}
	// The other clients get no hint: their round trip line names none
	// (issue 28: doctor --agent codex spoke of a hint Codex never gets).
	for _, a := range []settings.Agent{codex.Name, qwen.Name, copilot.Name, gemini.Name} {
		c := doctorSelfTest(a)
		if c.Status != health.OK || strings.Contains(c.Text, "hint") ||
			!regexp.MustCompile(`precompact wrote snap_\d{8}-\d{6}_d0c70000\.md, postcompact pointed at it`).MatchString(c.Text) {
			t.Errorf("round trip for %s: %s", a, c.Text)
		}
	}
}

// spec: DR-9
func TestDoctorMarks(t *testing.T) {
	c := health.Result{Status: health.Fail, Text: "bad", Fix: "do this"}
	if got := resultLine(c, false, false); got != "[FAIL] bad\n       fix: do this\n" {
		t.Errorf("ascii: %q", got)
	}
	if got := resultLine(c, true, false); got != "✗ bad\n  fix: do this\n" {
		t.Errorf("fancy: %q", got)
	}
	if got := resultLine(health.Result{Status: health.OK, Text: "good"}, true, true); got != "\x1b[32m✓\x1b[0m good\n" {
		t.Errorf("colour: %q", got)
	}
	if f, col := markStyle(&bytes.Buffer{}, func(string) string { return "" }); f || col {
		t.Error("a buffer is not a terminal")
	}
}

// spec: DR-3, DR-4, WA-1
func TestDoctorChecksWatch(t *testing.T) {
	d := newDocEnv(t)
	installed := d.installed()
	// No watch at all: each missing registration is a warning, not a failure.
	var doc map[string]map[string]any
	json.Unmarshal([]byte(installed), &doc)
	for _, ev := range []string{"UserPromptSubmit", "PostToolUse", "Stop"} {
		delete(doc["hooks"], ev)
	}
	doc["hooks"]["SessionStart"] = doc["hooks"]["SessionStart"].([]any)[:1]
	b, _ := json.Marshal(doc)
	d.write(d.userSettings(), string(b))
	out, code := d.run()
	if code != ExitOK || docLine(out, "[warn]", "no UserPromptSubmit hook runs compact-guard watch") == "" ||
		docLine(out, "[warn]", "no Stop hook runs compact-guard watch: no Stop gate") == "" ||
		docLine(out, "[warn]", "no SessionStart hook runs compact-guard watch: a resumed session is not noted") == "" {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// watch under SessionStart with the wrong matcher, and postcompact on Stop.
	bad := strings.Replace(installed, `"matcher": "resume"`, `"matcher": "compact"`, 1)
	bad = strings.Replace(bad, `"hooks": {`, fmt.Sprintf(`"hooks": {"Stop": [{"hooks":[{"type":"command","command":%q}]}],`, settings.Command(d.exe, "postcompact")), 1)
	d.write(d.userSettings(), bad)
	out, code = d.run()
	if code != ExitFailure || docLine(out, "[FAIL]", "SessionStart [compact]", "watch", `matcher "compact" does not match "resume"`) == "" ||
		docLine(out, "[FAIL]", "Stop [*]", "Stop needs compact-guard watch, not postcompact") == "" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// spec: DR-4
func TestDoctorWarnsAboutOtherEvents(t *testing.T) {
	d := newDocEnv(t)
	other := fmt.Sprintf(`"Notification": [{"hooks":[{"type":"command","command":%q}]}],`, settings.Command(d.exe, "precompact"))
	d.write(d.userSettings(), strings.Replace(d.installed(), `"hooks": {`, `"hooks": {`+other, 1))
	out, code := d.run()
	if code != ExitOK || docLine(out, "[warn]", "Notification [*]", "compact-guard precompact is not meant for Notification") == "" {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// spec: DR-4
func TestDoctorReportsEveryProblemOfAnEntry(t *testing.T) {
	d := newDocEnv(t)
	d.write(d.userSettings(), fmt.Sprintf(`{"hooks":{"PreCompact":[{"matcher":"manual","hooks":[{"type":"command","command":"/old/compact-guard precompact","timeout":30000}]}],
"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":%q}]}]}}`, settings.Command(d.exe, "postcompact")))
	out, code := d.run()
	l := docLine(out, "[FAIL]", "PreCompact [manual]") + "\n"
	for _, want := range []string{"/old/compact-guard does not exist", `matcher "manual" does not match "auto"`, "timeout 30000 looks like milliseconds",
		"fix: run 'compact-guard install' to point it at " + d.exe + " (it writes 60)\n"} {
		if !strings.Contains(l, want) {
			t.Errorf("no %q in %q", want, l)
		}
	}
	if code != ExitFailure {
		t.Errorf("exit %d", code)
	}
}

// spec: DR-11
func TestDoctorConfirmations(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	if _, ok := snapshot.CheckConfirmations(dir, now); ok {
		t.Fatal("a line for a folder without snapshots")
	}
	st := &snapshot.Store{Dir: dir, Now: func() time.Time { return now }}
	save := func(sid string, at time.Time) string {
		t.Helper()
		rec := &snapshot.Record{SessionID: sid, CreatedAt: at, Trigger: "auto", TranscriptPath: "/t.jsonl"}
		if _, _, err := st.Save(rec, snapshot.English); err != nil {
			t.Fatal(err)
		}
		return rec.Name
	}
	name := save("confirmed-0000", now.Add(-2*time.Hour))
	if err := st.Confirm(name, "confirmed-0000", snapshot.CompactionConfirmation{At: now.Add(-2*time.Hour + time.Minute), SummaryChars: 100}); err != nil {
		t.Fatal(err)
	}
	save("skipped-00000", now.Add(-time.Hour))
	save("recent-000000", now.Add(-time.Minute))
	c, ok := snapshot.CheckConfirmations(dir, now)
	want := "snapshots: 1 confirmed by PostCompact, 1 never confirmed (the compaction was skipped, or PostCompact did not run), 1 too recent to tell"
	if !ok || c.Status != health.Info || c.Text != want {
		t.Errorf("check = %+v, %v; want info %q", c, ok, want)
	}
}

// spec: DR-12
func TestDoctorChecksHookArguments(t *testing.T) {
	cases := []struct {
		name   string
		event  string
		args   string // after the quoted program; or a JSON array for exec form
		status string
		want   []string
	}{
		{"keep not a number", "PreCompact", "precompact --keep abc", "[FAIL]",
			[]string{`compact-guard precompact would reject its arguments (invalid argument "abc" for "--keep" flag`, "fix: remove or correct --keep abc in SETTINGS"}},
		{"unknown flag", "SessionStart", "postcompact --bogus", "[FAIL]",
			[]string{"unknown flag: --bogus", "fix: remove or correct --bogus in SETTINGS"}},
		{"flag of the other sub-command", "SessionStart", "postcompact --keep 3", "[FAIL]",
			[]string{"unknown flag: --keep"}},
		{"missing value", "PreCompact", "precompact --keep", "[FAIL]",
			[]string{"flag needs an argument: --keep", "fix: remove or correct --keep in"}},
		{"keep zero", "PreCompact", "precompact --keep=0", "[FAIL]",
			[]string{"--keep 0: at least 1 snapshot must be kept", "fix: remove or correct --keep 0 in"}},
		{"keep negative", "PreCompact", "precompact --keep -2", "[FAIL]",
			[]string{"--keep -2: at least 1"}},
		{"unsupported language before the sub-command", "PreCompact", "--lang de precompact", "[FAIL]",
			[]string{`--lang de: unsupported language "de"`, "fix: remove or correct --lang de in"}},
		{"unknown language after it", "SessionStart", "postcompact --lang=klingon", "[FAIL]",
			[]string{`--lang klingon`}},
		{"help", "PreCompact", "precompact --help", "[FAIL]",
			[]string{"would print its help and do nothing"}},
		{"stray argument", "PreCompact", "precompact 100", "[warn]",
			[]string{"ignores the argument(s) 100"}},
		{"shell variable", "PreCompact", "precompact --keep $KEEP", "[warn]",
			[]string{`rejects its arguments as written (invalid argument "$KEEP" for "--keep" flag`, "only the shell's expansion"}},
		{"exec form", "PreCompact", `["precompact", "--timeout", "soon"]`, "[FAIL]",
			[]string{`invalid argument "soon" for "--timeout" flag`, "fix: remove or correct --timeout soon in"}},
		{"valid flags", "PreCompact", "--dir /tmp/snaps precompact --keep 100 --lang ru --no-redact --timeout=20s", "[ok]", nil},
		{"valid postcompact flags", "SessionStart", "postcompact --max-age 1h --lang en_US.UTF-8 --max-chars 2000", "[ok]", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDocEnv(t)
			q := func(s string) string { return fmt.Sprintf("%q", s) }
			entries := map[string]string{
				"PreCompact":   `{"type":"command","command":` + q(settings.Command(d.exe, "precompact")) + `,"timeout":60}`,
				"SessionStart": `{"type":"command","command":` + q(settings.Command(d.exe, "postcompact")) + `,"timeout":15}`,
				"PostCompact":  `{"type":"command","command":` + q(settings.Command(d.exe, "postcompact")) + `,"timeout":15}`,
			}
			if strings.HasPrefix(c.args, "[") {
				entries[c.event] = `{"type":"command","command":` + q(d.exe) + `,"args":` + c.args + `}`
			} else {
				entries[c.event] = `{"type":"command","command":` + q(settings.QuotePath(d.exe)+" "+c.args) + `}`
			}
			d.write(d.userSettings(), `{"hooks":{
"PreCompact":[{"matcher":"manual|auto","hooks":[`+entries["PreCompact"]+`]}],
"SessionStart":[{"matcher":"compact","hooks":[`+entries["SessionStart"]+`]}],
"PostCompact":[{"matcher":"manual|auto","hooks":[`+entries["PostCompact"]+`]}]}}`)
			out, code := d.run()
			l := docLine(out, c.status, c.event+" [")
			if l == "" {
				t.Fatalf("no %s %s line:\n%s", c.status, c.event, out)
			}
			for _, w := range c.want {
				w = strings.ReplaceAll(w, "SETTINGS", d.userSettings())
				if !strings.Contains(l, w) {
					t.Errorf("no %q in\n%s", w, l)
				}
			}
			wantCode := ExitOK
			if c.status == "[FAIL]" {
				wantCode = ExitFailure
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d:\n%s", code, wantCode, out)
			}
		})
	}
}
