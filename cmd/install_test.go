package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/settings"
)

// instFixedNow is the clock of every install test.
var instFixedNow = time.Date(2026, 3, 14, 15, 9, 26, 0, time.Local)

const instExe = "/opt/tools/compact-guard"

// instRun runs install (or uninstall) on an explicit settings file and
// returns stdout, stderr and the error.
func instRun(t *testing.T, uninstall bool, path, exe string, dryRun bool) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	ios := &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	exeF := func() (string, error) { return exe, nil }
	now := func() time.Time { return instFixedNow }
	var err error
	if uninstall {
		err = uninstallRun(&UninstallOptions{IO: ios, Scope: settings.ScopeUser, Settings: path, DryRun: dryRun, Executable: exeF, Host: instNoHost(t), Now: now,
			Backups: instBackupRoot(path)})
	} else {
		err = installRun(&InstallOptions{IO: ios, Scope: settings.ScopeUser, Settings: path, DryRun: dryRun, Executable: exeF, Host: instNoHost(t), Now: now,
			Backups:    instBackupRoot(path),
			FindClaude: func() (string, string) { return "", "" }})
	}
	return out.String(), errOut.String(), err
}

// instNoHost fails the test if a settings path is resolved from the host.
func instNoHost(t *testing.T) settings.Host {
	return settings.Host{
		Getenv: func(string) string { return "" },
		Home:   func() (string, error) { t.Error("home folder consulted"); return "", errors.New("no home") },
		Getwd:  func() (string, error) { t.Error("cwd consulted"); return "", errors.New("no cwd") },
	}
}

// instWrite writes content to dir/name and returns the path.
func instWrite(t *testing.T, dir, name, content string, perm os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	return p
}

func instRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// instJSONEqual compares two JSON texts by meaning.
func instJSONEqual(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("JSON differs\n got: %s\nwant: %s", got, want)
	}
}

// instGone fails the test unless the file p does not exist.
func instGone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there: %v", p, err)
	}
}

// instBackupRoot is the backups folder (IN-8) instRun gives install and
// uninstall for the settings file p: beside it, so that each test has its
// own.
func instBackupRoot(p string) string { return filepath.Join(filepath.Dir(p), ".test-backups") }

// instBackupFolder is the folder that holds the backups of p.
func instBackupFolder(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return settings.BackupFolder(instBackupRoot(p), p)
}

// instBackups lists the backups of a settings file.
func instBackups(t *testing.T, p string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(instBackupFolder(p), filepath.Base(p)+".bak-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// instTopKeys returns the top-level keys of a JSON object in file order.
func instTopKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	var keys []string
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

const instForeign = `{
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}
        ],
        "PreCompact": [
            {"matcher": "manual", "hooks": [{"type": "command", "command": "echo compacting >> /tmp/log"}]}
        ]
    },
    "env": {"FOO": "1", "<html>": "a&b"},
    "statusLine": {"type": "command", "command": "printf x", "padding": 0},
    "cleanupPeriodDays": 1.50
}
`

// spec: IN-2, IN-3, IN-4
func TestInstallPreservesForeignKeysAndHooks(t *testing.T) {
	dir := t.TempDir()
	p := instWrite(t, dir, "settings.json", instForeign, 0o644)
	out, _, err := instRun(t, false, p, instExe, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "model": "opus",
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 5}]}
        ],
        "PreCompact": [
            {"matcher": "manual", "hooks": [{"type": "command", "command": "echo compacting >> /tmp/log"}]},
            {"matcher": "manual|auto", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" precompact", "timeout": 60}]}
        ],
        "SessionStart": [
            {"matcher": "compact", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" postcompact", "timeout": 15}]},
            {"matcher": "resume", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}
        ],
        "PostCompact": [
            {"matcher": "manual|auto", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" postcompact", "timeout": 15}]}
        ],
        "UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}
        ],
        "PostToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}
        ],
        "PostToolUseFailure": [
            {"matcher": "*", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}
        ],
        "Stop": [
            {"hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}
        ]
    },
    "env": {"FOO": "1", "<html>": "a&b"},
    "statusLine": {"type": "command", "command": "printf x", "padding": 0},
    "cleanupPeriodDays": 1.50
}
`
	got := instRead(t, p)
	if string(got) != want {
		t.Errorf("install wrote\n%s\nwant\n%s", got, want)
	}
	if k := instTopKeys(t, got); !reflect.DeepEqual(k, []string{"model", "permissions", "hooks", "env", "statusLine", "cleanupPeriodDays"}) {
		t.Errorf("top-level key order changed: %v", k)
	}
	for _, s := range []string{`"cleanupPeriodDays": 1.50`, `"<html>": "a&b"`, "\n    \"model\""} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("rewrite lost %q (number literal, no HTML escaping, 4-space indent)\n%s", s, got)
		}
	}
	if !strings.Contains(out, "added   PreCompact [manual|auto] precompact") {
		t.Errorf("output does not list the added hook:\n%s", out)
	}
}

// spec: IN-7
func TestInstallTwiceChangesNothing(t *testing.T) {
	dir := t.TempDir()
	p := instWrite(t, dir, "settings.json", instForeign, 0o644)
	if _, _, err := instRun(t, false, p, instExe, false); err != nil {
		t.Fatal(err)
	}
	for _, b := range instBackups(t, p) {
		os.Remove(b)
	}
	first := instRead(t, p)
	st1, _ := os.Stat(p)
	out, _, err := instRun(t, false, p, instExe, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, instRead(t, p)) {
		t.Error("second install changed the file")
	}
	if st2, _ := os.Stat(p); !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("second install rewrote the file")
	}
	if b := instBackups(t, p); len(b) != 0 {
		t.Errorf("second install made a backup: %v", b)
	}
	if !strings.Contains(out, "already installed") {
		t.Errorf("output %q does not say already installed", out)
	}
}

// spec: IN-6
func TestInstallOverOldPathUpdatesInPlace(t *testing.T) {
	dir := t.TempDir()
	in := `{
  "hooks": {
    "PreCompact": [
      {"matcher": "auto|manual", "hooks": [
        {"type": "command", "command": "echo first"},
        {"type": "command", "command": "'/old place/compact-guard' precompact", "timeout": 30000, "statusMessage": "snapshot"}
      ]}
    ],
    "SessionStart": [
      {"matcher": "compact", "hooks": [{"type": "command", "command": "/old/bin/compact-guard", "args": ["postcompact"], "timeout": 15}]},
      {"matcher": "compact", "hooks": [{"type": "command", "command": "/older/compact-guard postcompact"}]}
    ]
  }
}`
	p := instWrite(t, dir, "settings.json", in, 0o600)
	out, _, err := instRun(t, false, p, instExe, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "hooks": {
    "PreCompact": [
      {"matcher": "auto|manual", "hooks": [
        {"type": "command", "command": "echo first"},
        {"type": "command", "command": "\"/opt/tools/compact-guard\" precompact", "timeout": 60, "statusMessage": "snapshot"}
      ]}
    ],
    "SessionStart": [
      {"matcher": "compact", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" postcompact", "timeout": 15}]},
      {"matcher": "resume", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}
    ],
    "PostCompact": [
      {"matcher": "manual|auto", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" postcompact", "timeout": 15}]}
    ],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}],
    "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}],
    "PostToolUseFailure": [{"matcher": "*", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch", "timeout": 10}]}]
  }
}`
	instJSONEqual(t, instRead(t, p), []byte(want))
	for _, s := range []string{"updated PreCompact", "timeout 30000 -> 60", "exec-form args moved into the command", "1 duplicate(s) removed"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

// spec: IN-6, PC-31
// The summary hint turned off in the command stays off when install runs
// again over it, with the settings file's "env" left alone.
func TestInstallKeepsNoHint(t *testing.T) {
	dir := t.TempDir()
	in := `{
  "env": {"COMPACT_GUARD_HINT": "off"},
  "hooks": {
    "PreCompact": [{"matcher": "manual|auto", "hooks": [{"type": "command", "command": "'/old place/compact-guard' precompact --no-hint --keep 100", "timeout": 60}]}]
  }
}`
	p := instWrite(t, dir, "settings.json", in, 0o600)
	if _, _, err := instRun(t, false, p, instExe, false); err != nil {
		t.Fatal(err)
	}
	got := string(instRead(t, p))
	for _, want := range []string{`"command": "\"/opt/tools/compact-guard\" precompact --no-hint --keep 100"`, `"env": {"COMPACT_GUARD_HINT": "off"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("after install, no %s in:\n%s", want, got)
		}
	}
}

// spec: IN-10
func TestInstallRefusesInvalidJSON(t *testing.T) {
	cases := []struct {
		name, content, wantErr string
	}{
		{"trailing comma", "{\n  \"model\": \"opus\",\n}\n", "line 3, column 1"},
		{"truncated", "{\n  \"hooks\": {\n", "line 2, column 13"},
		{"comment", "{\n  // mine\n  \"a\": 1\n}", "line 2, column 3"},
		{"comment after a value", "{\"a\": 1 /* mine */}", "a comment: Claude Code reads settings as strict JSON"},
		{"array at top", `["hooks"]`, "top-level value is not an object"},
		{"hooks is an array", `{"hooks": []}`, `"hooks" is not an object`},
		{"event is an object", `{"hooks": {"PreCompact": {}}}`, `"hooks.PreCompact" is not an array`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := instWrite(t, dir, "settings.json", c.content, 0o640)
			_, _, err := instRun(t, false, p, instExe, false)
			if err == nil {
				t.Fatal("install accepted it")
			}
			if !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q lacks %q or the path", err, c.wantErr)
			}
			if !strings.HasSuffix(err.Error(), "nothing was changed") {
				t.Errorf("error %q does not say the file is untouched", err)
			}
			var stderr bytes.Buffer
			if code := exitCode(err, &stderr); code != ExitFailure {
				t.Errorf("exit code %d, want %d", code, ExitFailure)
			}
			if got := string(instRead(t, p)); got != c.content {
				t.Errorf("file changed to %q", got)
			}
			if b := instBackups(t, p); len(b) != 0 {
				t.Errorf("backup written: %v", b)
			}
		})
	}
}

// spec: IN-8, IN-9, SEC-1
func TestInstallBackupAndModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permission bits")
	}
	dir := t.TempDir()
	p := instWrite(t, dir, "settings.json", `{"model":"opus"}`, 0o640)
	out, _, err := instRun(t, false, p, instExe, false)
	if err != nil {
		t.Fatal(err)
	}
	bak := filepath.Join(instBackupFolder(p), "settings.json.bak-"+instFixedNow.Format("20060102-150405"))
	if got := string(instRead(t, bak)); got != `{"model":"opus"}` {
		t.Errorf("backup holds %q", got)
	}
	if !strings.Contains(out, "  backup  "+bak+" (") {
		t.Errorf("output does not name the backup:\n%s", out)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("%s mode %v, want 0640 (kept)", p, st.Mode().Perm())
	}
	// The backup is 0600 whatever the file's mode, in 0700 folders
	// (IN-8, SEC-1).
	for f, want := range map[string]os.FileMode{bak: 0o600, filepath.Dir(bak): 0o700, instBackupRoot(p): 0o700} {
		if st, _ := os.Stat(f); st.Mode().Perm() != want {
			t.Errorf("%s mode %v, want %v", f, st.Mode().Perm(), want)
		}
	}
	// A second change in the same second keeps the first backup.
	if _, _, err := instRun(t, false, p, "/elsewhere/compact-guard", false); err != nil {
		t.Fatal(err)
	}
	if got := string(instRead(t, bak)); got != `{"model":"opus"}` {
		t.Errorf("first backup overwritten: %q", got)
	}
	if _, err := os.Stat(bak + "-2"); err != nil {
		t.Errorf("second backup missing: %v", err)
	}
	// No temporary files and no backups are left beside the file.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "settings.json" && e.Name() != filepath.Base(instBackupRoot(p)) {
			t.Errorf("left %s", e.Name())
		}
	}

	// A new file is 0600 in a new 0700 folder.
	np := filepath.Join(dir, "new", ".claude", "settings.json")
	if _, _, err := instRun(t, false, np, instExe, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(np); st.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v", st.Mode().Perm())
	}
	if st, _ := os.Stat(filepath.Dir(np)); st.Mode().Perm() != 0o700 {
		t.Errorf("new folder mode %v", st.Mode().Perm())
	}
	if b := instBackups(t, np); len(b) != 0 {
		t.Errorf("backup of a file that did not exist: %v", b)
	}
}

// spec: IN-8
func TestBackupsArePrunedToTheNewest(t *testing.T) {
	dir := t.TempDir()
	p := instWrite(t, dir, "settings.json", `{"model":"opus"}`, 0o600)
	folder := instBackupFolder(p)
	foreign := []string{
		instWrite(t, folder, "settings.json.bak-mine", "x", 0o600),
		instWrite(t, folder, "other.json.bak-20200101-000000", "x", 0o600),
	}
	bak := filepath.Join(folder, "settings.json.bak-"+instFixedNow.Format("20060102-150405"))
	// Eleven changes in the same second (the test clock stands still):
	// backups bak, bak-2 ... bak-11; the newest five stay.
	for i := 1; i <= 11; i++ {
		out, _, err := instRun(t, i%2 == 0, p, instExe, false)
		if err != nil {
			t.Fatal(err)
		}
		// Without install's trace uninstall backs up as before (IN-81),
		// rather than give the file back needing none (IN-80).
		os.Remove(filepath.Join(folder, "install-trace.json"))
		want := fmt.Sprintf("(%d backups kept, at most 5)", i)
		if i > 5 {
			want = "(5 backups kept, 1 older removed)"
		}
		if !strings.Contains(out, want) {
			t.Errorf("change %d: output lacks %q:\n%s", i, want, out)
		}
	}
	var want []string
	for n := 7; n <= 11; n++ {
		want = append(want, fmt.Sprintf("%s-%d", bak, n))
	}
	got := instBackups(t, p)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Contains(got, foreign[0]) {
		t.Errorf("a file that is not a backup of ours was removed: %v", got)
	}
	got = slices.DeleteFunc(got, func(s string) bool { return s == foreign[0] })
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backups kept:\n%v\nwant\n%v", got, want)
	}
	if _, err := os.Stat(foreign[1]); err != nil {
		t.Errorf("another file's backup was removed: %v", err)
	}
	// A run that changes nothing makes and removes no backup.
	instRun(t, true, p, instExe, false) // the 11th change installed: remove
	before := instBackups(t, p)
	if out, _, _ := instRun(t, true, p, instExe, false); strings.Contains(out, "backup") || !reflect.DeepEqual(before, instBackups(t, p)) {
		t.Errorf("a run without a change touched the backups:\n%s", out)
	}
}

// spec: IN-9
func TestInstallFollowsSymlinkedSettings(t *testing.T) {
	dir := t.TempDir()
	target := instWrite(t, dir, "dotfiles/claude-settings.json", `{"model":"opus"}`, 0o600)
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, _, err := instRun(t, false, link, instExe, false); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	if !bytes.Contains(instRead(t, target), []byte("precompact")) {
		t.Error("the link's target was not updated")
	}
}

// spec: IN-11
func TestInstallDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	p := instWrite(t, dir, "settings.json", "{\n  \"model\": \"opus\"\n}\n", 0o600)
	out, _, err := instRun(t, false, p, instExe, true)
	if err != nil {
		t.Fatal(err)
	}
	if string(instRead(t, p)) != "{\n  \"model\": \"opus\"\n}\n" {
		t.Error("dry run changed the file")
	}
	if b := instBackups(t, p); len(b) != 0 {
		t.Errorf("dry run made a backup: %v", b)
	}
	for _, s := range []string{"--- " + p, "+++ " + p, "@@ -1,3 +1,", `-  "model": "opus"`, `+  "model": "opus",`, `+        "matcher": "manual|auto",`} {
		if !strings.Contains(out, s) {
			t.Errorf("dry-run output lacks %q:\n%s", s, out)
		}
	}

	// A missing file: a diff from the null device, and no folder made.
	np := filepath.Join(dir, "absent", "settings.json")
	out, _, err = instRun(t, false, np, instExe, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "--- "+os.DevNull) || !strings.Contains(out, "+{") {
		t.Errorf("dry run of a new file:\n%s", out)
	}
	if _, err := os.Stat(filepath.Dir(np)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run created the folder: %v", err)
	}
}

// spec: IN-12
func TestUninstallRestoresOriginal(t *testing.T) {
	for name, orig := range map[string]string{
		"foreign hooks and keys": instForeign,
		"no hooks at all":        `{"model": "opus"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := instWrite(t, dir, "settings.json", orig, 0o600)
			if _, _, err := instRun(t, false, p, instExe, false); err != nil {
				t.Fatal(err)
			}
			for _, b := range instBackups(t, p) {
				os.Remove(b)
			}
			out, _, err := instRun(t, true, p, instExe, false)
			if err != nil {
				t.Fatal(err)
			}
			got := instRead(t, p)
			if string(got) != orig {
				t.Errorf("uninstall gave back\n%s\nwant\n%s", got, orig)
			}
			// IN-80: the file is as install found it, so uninstall makes no
			// backup of it.
			if len(instBackups(t, p)) != 0 {
				t.Errorf("uninstall backups: %v", instBackups(t, p))
			}
			if strings.Count(out, "\n  removed ") != len(settings.Hooks) {
				t.Errorf("uninstall output:\n%s", out)
			}
			// Nothing left to remove: a message, no change.
			out, _, err = instRun(t, true, p, instExe, false)
			if err != nil || !strings.Contains(out, "no compact-guard hooks") || !bytes.Equal(got, instRead(t, p)) {
				t.Errorf("second uninstall: %v %q", err, out)
			}
		})
	}
}

// spec: IN-12
func TestUninstallRemovesAFileItLeavesVacant(t *testing.T) {
	for _, c := range []struct {
		name   string
		before *string // nil: no file
		gone   bool
	}{
		{"no file before install", nil, true},
		// IN-79: install's trace says the user had it, empty.
		{"an empty file before install", new(""), false},
		{"an empty object before install", new("{}\n"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "settings.json")
			if c.before != nil {
				instWrite(t, dir, "settings.json", *c.before, 0o600)
			}
			if _, _, err := instRun(t, false, p, instExe, false); err != nil {
				t.Fatal(err)
			}
			backups := instBackups(t, p)
			out, _, err := instRun(t, true, p, instExe, true)
			if err != nil || strings.Contains(out, "+++ "+os.DevNull) != c.gone {
				t.Errorf("dry run: %v\n%s", err, out)
			}
			out, _, err = instRun(t, true, p, instExe, false)
			if err != nil {
				t.Fatal(err)
			}
			_, statErr := os.Stat(p)
			if gone := errors.Is(statErr, os.ErrNotExist); gone != c.gone {
				t.Errorf("file gone: %v, want %v; output:\n%s", gone, c.gone, out)
			}
			if c.gone && (!strings.Contains(out, "removed "+p+" (it held nothing but compact-guard's hooks)") || strings.Contains(out, "backup")) {
				t.Errorf("output:\n%s", out)
			}
			if c.gone && len(instBackups(t, p)) != len(backups) {
				t.Errorf("uninstall backed up a file that held nothing of the user's: %v", instBackups(t, p))
			}
			if !c.gone && string(instRead(t, p)) != *c.before {
				t.Errorf("file is now %q", instRead(t, p))
			}
		})
	}

	// Something added since install keeps the file.
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if _, _, err := instRun(t, false, p, instExe, false); err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(instRead(t, p)), "{\n", "{\n  \"model\": \"opus\",\n", 1)
	instWrite(t, dir, "settings.json", edited, 0o600)
	if _, _, err := instRun(t, true, p, instExe, false); err != nil {
		t.Fatal(err)
	}
	if got := string(instRead(t, p)); got != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("file edited after install: %q", got)
	}
}

// spec: IN-12
func TestUninstallMissingFileWritesNothing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	out, _, err := instRun(t, true, p, instExe, false)
	if err != nil || !strings.Contains(out, "nothing to remove") {
		t.Errorf("missing file: %v %q", err, out)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Error("uninstall created a file")
	}
}

// spec: IN-3
func TestInstallRefusesTemporaryBuild(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	_, _, err := instRun(t, false, p, "/tmp/go-build123/b001/exe/compact-guard", false)
	if err == nil || !strings.Contains(err.Error(), "temporary build") {
		t.Errorf("err = %v", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Error("file written")
	}
}

// spec: IN-1, IN-17
func TestInstallFlags(t *testing.T) {
	cases := []struct {
		args     []string
		wantCode int
		check    func(*InstallOptions) bool
	}{
		{[]string{}, 0, func(o *InstallOptions) bool { return o.Scope == settings.ScopeUser && o.Settings == "" && !o.DryRun }},
		{[]string{"--scope", "project", "--dry-run"}, 0, func(o *InstallOptions) bool { return o.Scope == settings.ScopeProject && o.DryRun }},
		{[]string{"--settings", "x.json"}, 0, func(o *InstallOptions) bool { return o.Settings == "x.json" }},
		{[]string{"--scope", "global"}, ExitUsage, nil},
		{[]string{"--scope", "local", "--settings", "x.json"}, ExitUsage, nil},
		{[]string{"extra"}, ExitUsage, nil},
		{[]string{"--force"}, ExitUsage, nil},
	}
	for _, c := range cases {
		var got *InstallOptions
		var out, errOut bytes.Buffer
		ios := &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		root := NewRootCmd(ios)
		// Swap the registered install for one that records its options.
		for _, sc := range root.Commands() {
			if sc.Name() == "install" {
				root.RemoveCommand(sc)
			}
		}
		root.AddCommand(newCmdInstall(ios, &GlobalOptions{}, func(o *InstallOptions) error { got = o; return nil }))
		root.SetArgs(append([]string{"install"}, c.args...))
		code := exitCode(root.Execute(), &errOut)
		if code != c.wantCode {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.wantCode, errOut.String())
			continue
		}
		if c.check != nil && (got == nil || !c.check(got)) {
			t.Errorf("%v: options %+v", c.args, got)
		}
		if c.wantCode == ExitUsage && !strings.HasPrefix(errOut.String(), "compact-guard: ") {
			t.Errorf("%v: stderr %q", c.args, errOut.String())
		}
	}
}

// spec: IN-13
func TestSettingsExampleMatchesInstall(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "settings.example.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "settings.json")
	if _, _, err := instRun(t, false, p, "/path/to/compact-guard", false); err != nil {
		t.Fatal(err)
	}
	if got := instRead(t, p); !bytes.Equal(got, want) {
		t.Errorf("settings.example.json drifted from what install writes; install writes:\n%s", got)
	}
}

// instScriptEnv is a clean environment for install.sh: a temporary HOME,
// BIN_DIR off PATH, and the real Go caches so that nothing is downloaded.
func instScriptEnv(t *testing.T, home, binDir string) []string {
	t.Helper()
	env := []string{
		"HOME=" + home,
		"BIN_DIR=" + binDir,
		"PATH=" + os.Getenv("PATH"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"GOPROXY=off",
		"GOTOOLCHAIN=local",
		"GOFLAGS=-mod=readonly",
		"NO_COLOR=1",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	return env
}

func instScript(t *testing.T, env []string, dir string, args ...string) (string, string, error) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("sh", append([]string{script}, args...)...)
	c.Dir, c.Env = dir, env
	var out, errOut bytes.Buffer
	c.Stdout, c.Stderr = &out, &errOut
	err = c.Run()
	return out.String(), errOut.String(), err
}

// spec: IN-16
func TestInstallScriptThenDoctor(t *testing.T) {
	t.Parallel() // its go build runs while other tests wait on files
	if runtime.GOOS == "windows" {
		t.Skip("install.sh needs a POSIX sh")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, tool := range []string{"sh", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	tmp := t.TempDir()
	home, binDir, proj := filepath.Join(tmp, "home dir"), filepath.Join(tmp, "my bin"), filepath.Join(tmp, "proj")
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := instScriptEnv(t, home, binDir)
	bin := filepath.Join(binDir, "compact-guard")
	user := filepath.Join(home, ".claude", "settings.json")

	out, errOut, err := instScript(t, env, proj)
	if err != nil {
		t.Fatalf("install.sh: %v\nstdout:\n%s\nstderr:\n%s", err, out, errOut)
	}
	if !strings.Contains(out, "created "+user) || !strings.Contains(errOut, "is not on PATH") {
		t.Errorf("install.sh output:\n%s\nstderr:\n%s", out, errOut)
	}
	if !strings.Contains(out, "[ok]   round trip") || strings.Contains(out, "[FAIL]") {
		t.Errorf("doctor after install.sh:\n%s", out)
	}
	// The script runs doctor itself: no advice to run it.
	if strings.Contains(out, "check the setup with") || !strings.Contains(out, "checking the setup (compact-guard doctor):\n") {
		t.Errorf("install.sh repeats install's advice to run doctor:\n%s", out)
	}
	if st, err := os.Stat(bin); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("binary: %v", err)
	}
	settings := instRead(t, user)
	want := instRead(t, filepath.Join("..", "settings.example.json"))
	want = bytes.ReplaceAll(want, []byte("/path/to/compact-guard"), []byte(bin))
	instJSONEqual(t, settings, want)

	// Again: the same settings, no backup.
	out, errOut, err = instScript(t, env, proj)
	if err != nil || !strings.Contains(out, "already installed") {
		t.Errorf("second run: %v\n%s\n%s", err, out, errOut)
	}
	if !bytes.Equal(settings, instRead(t, user)) || len(instBackups(t, user)) != 0 {
		t.Error("second run changed the user settings")
	}

	// --project writes the project's file; --uninstall undoes each.
	if out, errOut, err = instScript(t, env, proj, "--project"); err != nil {
		t.Fatalf("--project: %v\n%s\n%s", err, out, errOut)
	}
	projFile := filepath.Join(proj, ".claude", "settings.json")
	if !bytes.Contains(instRead(t, projFile), []byte("precompact")) {
		t.Error("--project did not write .claude/settings.json")
	}
	if out, errOut, err = instScript(t, env, proj, "--project", "--uninstall"); err != nil {
		t.Fatalf("--project --uninstall: %v\n%s\n%s", err, out, errOut)
	}
	instGone(t, projFile)

	// --local writes the personal file; --uninstall --local (the README's
	// order) undoes it.
	if out, errOut, err = instScript(t, env, proj, "--local"); err != nil {
		t.Fatalf("--local: %v\n%s\n%s", err, out, errOut)
	}
	localFile := filepath.Join(proj, ".claude", "settings.local.json")
	if !bytes.Contains(instRead(t, localFile), []byte("precompact")) {
		t.Error("--local did not write .claude/settings.local.json")
	}
	if out, errOut, err = instScript(t, env, proj, "--uninstall", "--local"); err != nil {
		t.Fatalf("--uninstall --local: %v\n%s\n%s", err, out, errOut)
	}
	instGone(t, localFile)
	var ee *exec.ExitError
	if _, errOut, err := instScript(t, env, proj, "--project", "--local"); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(errOut, "cannot be used together") {
		t.Errorf("--project --local: %v\n%s", err, errOut)
	}
	// What the hooks leave in the state folder: snapshots, the log,
	// watch's state, a failure marker.
	state := filepath.Join(home, ".local", "state", "compact-guard")
	for _, f := range []string{"snapshots/snap_20261201-102636_0f3c2a1b.md", "compact-guard.log", "watch/w.json", "failures/f.json"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(state, f)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, errOut, err = instScript(t, env, proj, "--uninstall"); err != nil {
		t.Fatalf("--uninstall: %v\n%s\n%s", err, out, errOut)
	}
	instGone(t, user)
	if !strings.Contains(out, `rm "`+bin+`"`) {
		t.Errorf("--uninstall does not say how to remove the binary:\n%s", out)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Error("--uninstall removed the binary")
	}
	// The commands it prints remove everything, the state folder too
	// (README's "Nothing else of compact-guard's is left").
	var steps []string
	for _, ln := range strings.Split(out, "\n") {
		if strings.HasPrefix(ln, "  rm ") || strings.HasPrefix(ln, "  rmdir ") {
			steps = append(steps, strings.TrimSpace(ln))
		}
	}
	rm := exec.Command("sh", "-c", strings.Join(steps, " && "))
	rm.Env = env
	if b, err := rm.CombinedOutput(); err != nil || len(steps) < 5 {
		t.Fatalf("the printed steps %q: %v\n%s", steps, err, b)
	}
	for _, p := range []string{bin, state} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is left after the printed steps (%v):\n%s", p, err, out)
		}
	}

	if _, _, err := instScript(t, env, proj, "--bogus"); err == nil {
		t.Error("unknown option accepted")
	}
}

// instCorpus holds settings files as people and tools write them.
var instCorpus = []struct {
	name, content string
	oneLine       bool   // stays on one line
	indent        string // the unit new lines use ("" for one-line files)
	absent        bool   // no file: uninstall must leave none
}{
	{"absent", "", false, "  ", true},
	{"claude code's own, 2 spaces", "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(git status)\"\n    ]\n  }\n}\n", false, "  ", false},
	{"4 spaces", "{\n    \"model\": \"opus\",\n    \"env\": {\n        \"FOO\": \"1\"\n    }\n}\n", false, "    ", false},
	{"tabs", "{\n\t\"model\": \"opus\",\n\t\"env\": {\n\t\t\"FOO\": \"1\"\n\t}\n}\n", false, "\t", false},
	{"one line, compact", `{"model":"opus","env":{"FOO":"1"}}`, true, "", false},
	{"one line, spaced, final newline", `{"model": "opus", "permissions": {"allow": ["Bash(ls)"], "deny": []}}` + "\n", true, "", false},
	{"empty object", `{}`, true, "", false},
	{"empty object, final newline", "{}\n", true, "", false},
	{"CRLF", "{\r\n  \"model\": \"opus\",\r\n  \"env\": {\r\n    \"FOO\": \"1\"\r\n  }\r\n}\r\n", false, "  ", false},
	{"no final newline", "{\n  \"model\": \"opus\"\n}", false, "  ", false},
	{"UTF-8 byte order mark", "\ufeff{\n  \"model\": \"opus\"\n}\n", false, "  ", false},
	{"key order, literals and escapes kept", "{\n  \"z\": 1.50,\n  \"a\": 1e3,\n  \"name\": \"caf\\u00e9 <b>&\",\n  \"path\": \"C:\\\\x\"\n}\n", false, "  ", false},
	{"foreign hooks, indented lists of one-line groups", instForeign, false, "    ", false},
	{"foreign hooks on one line inside an indented file", "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}]}\n}\n", false, "  ", false},
	{"foreign group under our event", "{\n  \"hooks\": {\n    \"PreCompact\": [\n      {\n        \"matcher\": \"manual\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"echo compacting\"\n          }\n        ]\n      }\n    ]\n  }\n}\n", false, "  ", false},
}

// spec: IN-4, IN-7, IN-12
func TestInstallUninstallCorpusByteForByte(t *testing.T) {
	for _, c := range instCorpus {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "settings.json")
			if !c.absent {
				instWrite(t, filepath.Dir(p), "settings.json", c.content, 0o600)
			}
			if _, _, err := instRun(t, false, p, instExe, false); err != nil {
				t.Fatal(err)
			}
			installed := instRead(t, p)
			if n := bytes.Count(installed, []byte("compact-guard\\\" ")); n != len(settings.Hooks) {
				t.Errorf("%d hooks installed, want %d:\n%s", n, len(settings.Hooks), installed)
			}
			if !instIsSubsequence([]byte(c.content), installed) {
				t.Errorf("install changed or removed bytes of the file, not only added:\n%s", installed)
			}
			body := bytes.TrimSuffix(bytes.TrimSuffix(installed, []byte("\n")), []byte("\r"))
			if c.oneLine && bytes.ContainsAny(body, "\r\n") {
				t.Errorf("a one-line file got more lines:\n%s", installed)
			}
			for _, line := range strings.SplitAfter(string(installed), "\n") {
				if strings.Contains(c.content, "\r\n") != strings.HasSuffix(line, "\r\n") && strings.HasSuffix(line, "\n") {
					t.Errorf("line ending differs from the file's: %q", line)
				}
				ws := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
				if c.indent != "" && strings.Trim(ws, "\r\n") != "" && strings.ReplaceAll(ws, c.indent, "") != "" {
					t.Errorf("line not indented in units of %q: %q", c.indent, line)
				}
			}

			// spec: IN-7 — installing again changes nothing.
			if out, _, err := instRun(t, false, p, instExe, false); err != nil || !strings.Contains(out, "already installed") || !bytes.Equal(installed, instRead(t, p)) {
				t.Errorf("second install: %v %s", err, out)
			}
			if _, _, err := instRun(t, true, p, instExe, false); err != nil {
				t.Fatal(err)
			}
			if c.absent {
				instGone(t, p)
				return
			}
			if got := instRead(t, p); string(got) != c.content {
				t.Errorf("uninstall gave back\n%q\nwant\n%q", got, c.content)
			}
		})
	}
}

// instIsSubsequence reports whether every byte of a appears in b, in order.
func instIsSubsequence(a, b []byte) bool {
	for _, c := range b {
		if len(a) > 0 && a[0] == c {
			a = a[1:]
		}
	}
	return len(a) == 0
}

// spec: IN-12
func TestUninstallGivesBackInstallFormattedFileByteForByte(t *testing.T) {
	orig := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"say done\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"
	p := instWrite(t, t.TempDir(), "settings.json", orig, 0o600)
	if _, _, err := instRun(t, false, p, instExe, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := instRun(t, true, p, instExe, false); err != nil {
		t.Fatal(err)
	}
	if got := string(instRead(t, p)); got != orig {
		t.Errorf("got\n%s\nwant\n%s", got, orig)
	}
}

// spec: IN-1
func TestInstallNotesGitRootBelow(t *testing.T) {
	repo := t.TempDir()
	sub := filepath.Join(repo, "sub")
	for _, d := range []string{filepath.Join(repo, ".git"), sub} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut bytes.Buffer
	err := installRun(&InstallOptions{
		IO: &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Scope: settings.ScopeLocal,
		Executable: func() (string, error) { return instExe, nil },
		Host: settings.Host{
			Getenv: func(string) string { return "" },
			Home:   func() (string, error) { return "", errors.New("no home") },
			Getwd:  func() (string, error) { return sub, nil },
		},
		Now:     func() time.Time { return instFixedNow },
		Backups: filepath.Join(repo, "backups"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "created "+filepath.Join(sub, ".claude", "settings.local.json")) {
		t.Errorf("out: %s", out.String())
	}
	if !strings.Contains(errOut.String(), "inside the git work tree "+repo) {
		t.Errorf("no note about the git root: %q", errOut.String())
	}
	if st, err := os.Stat(filepath.Join(sub, ".claude")); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o755) {
		t.Errorf(".claude folder: %v", err)
	}
}

// spec: IN-17
func TestSetupHelpNamesOnlyRealFlags(t *testing.T) {
	flagRE := regexp.MustCompile(`(?:^|[\s(])(--[a-z][a-z-]*)`)
	// Flags of the hooks that a help text talks about on purpose.
	hookFlags := map[string][]string{"doctor": {"--keep"}, "install": {"--keep"}}
	root := NewRootCmd(&IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	for _, name := range []string{"install", "uninstall", "doctor", "list", "show"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("%s: %v", name, err)
		}
		c.InitDefaultHelpFlag()
		help := c.Use + "\n" + c.Long + "\n" + c.Example
		for _, m := range flagRE.FindAllStringSubmatch(help, -1) {
			f := m[1]
			if slices.Contains(hookFlags[name], f) {
				continue
			}
			if c.Flags().Lookup(f[2:]) == nil && c.InheritedFlags().Lookup(f[2:]) == nil {
				t.Errorf("%s --help names %s, which it does not have", name, f)
			}
		}
		if i := strings.LastIndex(c.Long, "\nExit status:"); i < 0 || strings.Contains(c.Long[i+1:], "\n\n") {
			t.Errorf("%s --help does not end with its exit statuses", name)
		}
	}
}

// spec: IN-18
func TestInstallForAnOldClient(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	var out, errOut bytes.Buffer
	opts := &InstallOptions{IO: &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Scope: settings.ScopeUser, Settings: p,
		Executable: func() (string, error) { return instExe, nil }, Host: instNoHost(t), Now: func() time.Time { return instFixedNow },
		FindClaude: func() (string, string) { return "2.0.76", "'/usr/bin/claude --version'" }, Backups: instBackupRoot(p)}
	if err := installRun(opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "Claude Code 2.0.76 ('/usr/bin/claude --version') does not know PostCompact") {
		t.Errorf("stderr does not say why PostCompact is left out:\n%s", errOut.String())
	}
	if b := instRead(t, p); bytes.Contains(b, []byte("PostCompact")) || !bytes.Contains(b, []byte("PreCompact")) {
		t.Errorf("settings for 2.0.76:\n%s", b)
	}
	// --claude-version wins over what is on PATH.
	opts.ClaudeVersion = "2.1.328"
	errOut.Reset()
	if err := installRun(opts); err != nil {
		t.Fatal(err)
	}
	if b := instRead(t, p); !bytes.Contains(b, []byte("PostCompact")) || errOut.Len() != 0 {
		t.Errorf("settings for 2.1.328 (stderr %q):\n%s", errOut.String(), b)
	}
}
