package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// Doctor's fixes are applied as written (specs/install.md DR-19): each
// case breaks the setup, finds doctor's line and its fix, applies the fix
// — running the commands it names, or making the edit it describes — and
// checks that doctor no longer reports the problem.

// docFix returns the fix printed under the line holding parts, failing the
// test when there is none.
func docFix(t *testing.T, out string, parts ...string) string {
	t.Helper()
	l := docLine(out, parts...)
	_, fix, ok := strings.Cut(l, "\n")
	fix, ok2 := strings.CutPrefix(strings.TrimSpace(fix), "fix: ")
	if !ok || !ok2 {
		t.Fatalf("no line with %q and a fix in:\n%s", parts, out)
	}
	return fix
}

// compactGuardCmd matches a compact-guard command a fix names.
var compactGuardCmd = regexp.MustCompile(`'compact-guard ([^']*)'`)

// apply carries out the commands of a fix: its steps are joined by ", then"
// or "; ", each a compact-guard command in quotes (run as install or
// uninstall on the fake machine) or a shell command (run by sh); a step's
// remark in parentheses and "in the project folder" are not part of it.
func (d *docEnv) apply(fix string) {
	d.t.Helper()
	for _, step := range regexp.MustCompile(`, then |; `).Split(fix, -1) {
		step = strings.TrimPrefix(step, "run ")
		if m := compactGuardCmd.FindStringSubmatch(step); m != nil {
			args := strings.Fields(m[1])
			if _, errOut, code := d.setup(args[0] == "uninstall", args[1:]...); code != ExitOK {
				d.t.Fatalf("fix step %q: exit %d: %s", step, code, errOut)
			}
			continue
		}
		if i := strings.Index(step, " ("); i >= 0 {
			step = step[:i]
		}
		if out, err := exec.Command("sh", "-c", step).CombinedOutput(); err != nil {
			d.t.Fatalf("fix step %q: %v\n%s", step, err, out)
		}
	}
}

// spec: DR-3, DR-5, DR-19
// An unparsable user settings file: one line says where and what, the
// missing hooks carry one fix, which repairs the file first; correcting the
// line and column doctor names, then running install, passes. With a
// backup install made, the fix's cp puts it back.
func TestDoctorFixesAnUnparsableFile(t *testing.T) {
	d := newDocEnv(t)
	p := d.userSettings()
	d.write(p, "{\n  \"model\": \"opus\",\n}\n")
	out, code := d.run()
	if code != ExitFailure || strings.Count(out, "run 'compact-guard install'") != 1 {
		t.Fatalf("exit %d; want install named once:\n%s", code, out)
	}
	fix := docFix(t, out, "[FAIL]", p, "invalid JSON at line 3, column 1", "Claude Code reads no hook from it")
	if fix != "correct line 3, column 1 of "+p+" (strict JSON: no comments, no trailing commas)" {
		t.Errorf("fix %q", fix)
	}
	cov := docFix(t, out, "no SessionStart hook runs compact-guard watch")
	want := "repair " + p + " first (see above), then run 'compact-guard install' (it registers the 8 hooks above)"
	if cov != want {
		t.Fatalf("coverage fix %q, want %q", cov, want)
	}
	// Line 3 column 1 is the "}" after a trailing comma: the comma goes.
	d.write(p, "{\n  \"model\": \"opus\"\n}\n")
	d.apply(strings.TrimPrefix(cov, "repair "+p+" first (see above), then "))
	if out, code := d.run(); code != ExitOK {
		t.Fatalf("after the fix: exit %d\n%s", code, out)
	}

	// Broken again after install backed it up: the fix puts the backup back.
	d.write(p, "{\n  \"model\": \"opus\",\n}\n")
	out, _ = d.run()
	fix = docFix(t, out, "[FAIL]", p, "invalid JSON")
	bak := settings.BackupFiles(d.backups(), p)
	if len(bak) == 0 || !strings.HasSuffix(fix, ", or put back the copy install made before its last change: cp "+health.ShellQuote(bak[0])+" "+health.ShellQuote(p)) {
		t.Fatalf("fix %q, backups %v", fix, bak)
	}
	d.apply(fix[strings.Index(fix, "cp "):])
	out, _ = d.run()
	if strings.Contains(out, "invalid JSON") {
		t.Fatalf("after cp:\n%s", out)
	}
	// The backup is of the file before install's change: install again.
	d.apply(docFix(t, out, "no SessionStart hook runs compact-guard watch"))
	if out, code := d.run(); code != ExitOK {
		t.Errorf("after cp and install: exit %d\n%s", code, out)
	}
}

// spec: DR-3, DR-19
// Nothing installed: the missing hooks say "run install" once, and it
// mends them all.
func TestDoctorFixesMissingHooks(t *testing.T) {
	d := newDocEnv(t)
	out, _ := d.run()
	if strings.Count(out, "fix: ") != 1 {
		t.Errorf("want one fix:\n%s", out)
	}
	d.apply(docFix(t, out, "[warn]", "no SessionStart hook runs compact-guard watch"))
	if out, code := d.run(); code != ExitOK {
		t.Errorf("after the fix: exit %d\n%s", code, out)
	}
}

// spec: IN-22, DR-19
// A settings file that is a link to /dev/zero: rm removes the link, install
// writes a new file.
func TestDoctorFixesAFileThatIsNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no /dev/zero")
	}
	d := newDocEnv(t)
	p := filepath.Join(d.proj, ".claude", "settings.json")
	if !notRegular(t, "/dev/zero", p) {
		t.Skip("no symlinks here")
	}
	d.write(d.userSettings(), d.installed())
	out, _ := d.run()
	fix := docFix(t, out, "[FAIL]", p, "is a character device")
	if want := "rm " + health.ShellQuote(p) + " (it removes the link, not its target), then run 'compact-guard install --scope project' in the project folder"; fix != want {
		t.Fatalf("fix %q, want %q", fix, want)
	}
	d.apply(fix)
	if out, code := d.run(); code != ExitOK || strings.Contains(out, "character device") {
		t.Errorf("after the fix: exit %d\n%s", code, out)
	}
}

// spec: DR-18, DR-19
// An entry that runs more than compact-guard is not install's: its line's
// fixes are hand edits, not install (which would not touch it).
func TestDoctorFixesAForeignEntry(t *testing.T) {
	d := newDocEnv(t)
	p := d.userSettings()
	mine := "/gone/compact-guard precompact && notify-send done"
	d.write(p, fmt.Sprintf(`{"hooks":{"PreCompact":[{"matcher":"manual|auto","hooks":[{"type":"command","command":%q}]}]}}`, mine))
	out, _ := d.run()
	fix := docFix(t, out, "PreCompact [manual|auto] runs "+mine, "it is not an entry install writes (it runs more than compact-guard")
	if strings.Contains(fix, "compact-guard install") || !strings.Contains(fix, "edit or remove it in "+p+" by hand (install then registers one of its own)") {
		t.Fatalf("fix %q", fix)
	}
	d.write(p, "{}\n") // removed by hand
	d.apply("run 'compact-guard install'")
	if out, code := d.run(); code != ExitOK {
		t.Errorf("after the fix: exit %d\n%s", code, out)
	}
}

// spec: DR-2, DR-19
// Hooks in ~/.claude/settings.json while CLAUDE_CONFIG_DIR is set: the fix
// registers them where Claude Code reads and removes these.
func TestDoctorFixesHooksClaudeCodeDoesNotRead(t *testing.T) {
	d := newDocEnv(t)
	d.env["CLAUDE_CONFIG_DIR"] = filepath.Join(d.root, "config")
	old := filepath.Join(d.home, ".claude", "settings.json")
	d.write(old, d.installed())
	out, _ := d.run()
	fix := docFix(t, out, "[warn]", old, "does not read it while CLAUDE_CONFIG_DIR is set")
	d.apply(fix)
	if out, code := d.run(); code != ExitOK || strings.Contains(out, "does not read it") {
		t.Errorf("after the fix %q: exit %d\n%s", fix, code, out)
	}
}

// spec: DR-4, DR-12, DR-19
// An entry's own problems: each fix, applied, clears its line.
func TestDoctorFixesEntries(t *testing.T) {
	for _, c := range []struct {
		name, from, to, why string
		edit                bool // the fix is an edit of the file, not a command
	}{
		{"not executable", "", "", "is not executable", false},
		{"an if condition", `"timeout": 60`, `"timeout": 60, "if": "Bash(x)"`, `has an "if" condition`, true},
		{"async precompact", `"timeout": 60`, `"timeout": 60, "async": true`, "async: the compaction may start", true},
		{"keep 0", `precompact"`, `precompact --keep 0"`, "--keep 0: at least 1", true},
		{"timeout in milliseconds", `"timeout": 60`, `"timeout": 60000`, "looks like milliseconds", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDocEnv(t)
			good := d.installed()
			if c.from == "" {
				os.Chmod(d.exe, 0o644)
			}
			d.write(d.userSettings(), strings.Replace(good, c.from, c.to, 1))
			out, code := d.run()
			line := docLine(out, c.why)
			fix := docFix(t, out, c.why)
			if code == ExitOK && !strings.Contains(line, "[warn]") {
				t.Fatalf("not flagged:\n%s", out)
			}
			if c.edit {
				// The fix says what to remove from the file; undoing the
				// change is that edit.
				if !strings.Contains(fix, d.userSettings()) {
					t.Fatalf("fix %q does not name the file", fix)
				}
				d.write(d.userSettings(), good)
			} else {
				d.apply(fix)
			}
			if out, code := d.run(); code != ExitOK || strings.Contains(out, c.why) {
				t.Errorf("after %q: exit %d\n%s", fix, code, out)
			}
		})
	}
}

// spec: DR-6, DR-19
// As root, a 0700 snapshot folder that is immutable refuses new files:
// doctor says so, not "chmod 700", and chattr -i -a mends it.
func TestDoctorFixesAnImmutableFolder(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("immutable folders: Linux, as root")
	}
	d := newDocEnv(t)
	d.write(d.userSettings(), d.installed())
	if err := os.MkdirAll(d.snaps, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", d.snaps).CombinedOutput(); err != nil {
		t.Skipf("chattr +i: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", "-a", d.snaps).Run() })
	out, _ := d.run()
	fix := docFix(t, out, "[FAIL]", "snapshot folder", "immutable or append-only")
	if strings.Contains(fix, "chmod") || !strings.HasPrefix(fix, "chattr -i -a "+health.ShellQuote(d.snaps)+" (as root)") {
		t.Fatalf("fix %q", fix)
	}
	d.apply(fix[:strings.Index(fix, " (as root)")])
	if out, code := d.run(); code != ExitOK {
		t.Errorf("after the fix: exit %d\n%s", code, out)
	}
}

// Fixes not applied here, and why they work: "run 'claude plugin update
// ID', or uninstall and install it again" re-extracts the plugin the
// client installed (PL-6); "report it with the output of 'compact-guard
// version'" is for a round trip that fails in a fresh temporary folder,
// which only a defect can make fail (DR-8); "read the log" points at
// failures that are history (DR-7). The Codex trust fixes are applied in
// TestInstallCodexTrustsOnlyWhatItWrites.

// spec: DR-5, DR-19
// The user's entry beside install's for one registration: the duplicate
// warning's fix names the user's entry, which uninstall would not remove.
func TestDoctorFixesADuplicateWithAForeignEntry(t *testing.T) {
	d := newDocEnv(t)
	mine := settings.QuotePath(d.exe) + " precompact && notify-send done"
	d.write(d.userSettings(), fmt.Sprintf(`{"hooks":{"PreCompact":[{"matcher":"manual|auto","hooks":[{"type":"command","command":%q,"timeout":60}]}]}}`, mine))
	d.apply("run 'compact-guard install'")
	out, _ := d.run()
	fix := docFix(t, out, "[warn]", "PreCompact runs compact-guard precompact 2 times")
	if !strings.Contains(fix, "edit or remove by hand the entry install does not write") || !strings.Contains(fix, "notify-send done") {
		t.Fatalf("fix %q", fix)
	}
	d.write(d.userSettings(), strings.Replace(string(instRead(t, d.userSettings())), " && notify-send done", "", 1)) // removed by hand: now a duplicate of install's
	d.apply("run 'compact-guard install'")
	if out, code := d.run(); code != ExitOK || strings.Contains(out, "2 times") {
		t.Errorf("after the fix: exit %d\n%s", code, out)
	}
}
