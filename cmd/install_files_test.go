package cmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/codex"
	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/settings"
)

// Tests of the files install, uninstall and doctor read and the backups
// they make (specs/install.md IN-8, IN-9, IN-22; security.md SEC-23,
// SEC-24).

// backups is the backups folder (IN-8) of the fake machine.
func (d *docEnv) backups() string {
	return filepath.Join(d.home, ".local", "state", "compact-guard", "backups")
}

// notRegular makes path into something that is not a settings file:
// a symlink to /dev/zero, a FIFO (as /dev/stdin is when the client's
// stdin is a pipe), a folder, or a regular file larger than any settings
// file. ok is false when this system cannot make it.
func notRegular(t *testing.T, kind, path string) bool {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "/dev/zero":
		return os.Symlink("/dev/zero", path) == nil
	case "FIFO":
		return exec.Command("mkfifo", path).Run() == nil
	case "folder":
		return os.Mkdir(path, 0o700) == nil
	case "huge":
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		// Spaces parse as an empty object: only the size is wrong.
		_, err = f.Write(bytes.Repeat([]byte(" "), settings.MaxFileBytes+1))
		return err == nil
	}
	return false
}

// spec: IN-22, SEC-23
// Every file install, uninstall and doctor read, made into something that
// is not a settings file: each run ends (no wait on the FIFO, no read of
// /dev/zero), says what the file is, and changes nothing.
func TestSettingsFilesThatAreNotRegular(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and /dev/zero are Unix's")
	}
	for _, f := range []struct {
		name  string
		agent settings.Agent
		args  []string
		path  func(d *docEnv) string
	}{
		{"settings.json", settings.AgentClaude, []string{"--scope", "project"}, func(d *docEnv) string { return filepath.Join(d.proj, ".claude", "settings.json") }},
		{"settings.local.json", settings.AgentClaude, []string{"--scope", "local"}, func(d *docEnv) string { return filepath.Join(d.proj, ".claude", "settings.local.json") }},
		{"hooks.json", codex.Name, []string{"--agent", "codex", "--scope", "project"}, func(d *docEnv) string { return filepath.Join(d.proj, ".codex", "hooks.json") }},
		{"config.toml", codex.Name, []string{"--agent", "codex"}, func(d *docEnv) string { return filepath.Join(d.home, ".codex", "config.toml") }},
		{"qwen settings.json", qwen.Name, []string{"--agent", "qwen", "--scope", "project"}, func(d *docEnv) string { return filepath.Join(d.proj, ".qwen", "settings.json") }},
	} {
		for _, kind := range []string{"/dev/zero", "FIFO", "folder", "huge"} {
			t.Run(f.name+" "+kind, func(t *testing.T) {
				d := newDocEnv(t)
				d.agent = f.agent
				p := f.path(d)
				if !notRegular(t, kind, p) {
					t.Skipf("cannot make %s here", kind)
				}
				want := map[string]string{"/dev/zero": "is a character device, not a regular file", "FIFO": "is a FIFO, not a regular file",
					"folder": "is a folder, not a regular file", "huge": fmt.Sprintf("is larger than %d bytes", settings.MaxFileBytes)}[kind]
				before, _ := os.Lstat(p)
				for _, uninstall := range []bool{false, true} {
					_, errOut, code := d.setup(uninstall, f.args...)
					if code != ExitFailure || !strings.HasPrefix(errOut, "compact-guard: ") || !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing was changed") {
						t.Errorf("uninstall=%v: exit %d, stderr %q, want %q", uninstall, code, errOut, want)
					}
				}
				report, code := d.run()
				if l := docLine(report, "[FAIL]", p, want); code != ExitFailure || !strings.Contains(l, "fix: ") {
					t.Errorf("doctor: exit %d, want a failure saying %q with a fix:\n%s", code, want, report)
				}
				after, err := os.Lstat(p)
				if err != nil || after.Mode() != before.Mode() || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
					t.Errorf("the file changed: %v %v", before, after)
				}
				if _, err := os.Stat(d.backups()); err == nil {
					t.Errorf("a backup was made")
				}
			})
		}
	}
}

// spec: IN-9, IN-22, SEC-23
// A project's settings file that is a symlink out of the project is
// refused; one that stays inside is followed.
func TestInstallRefusesAProjectSymlinkOutOfTheProject(t *testing.T) {
	d := newDocEnv(t)
	outside := filepath.Join(d.root, "elsewhere", "app.json")
	d.write(outside, "{\"theme\": \"dark\"}\n")
	p := filepath.Join(d.proj, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, p); err != nil {
		t.Skip("no symlinks here:", err)
	}
	_, errOut, code := d.setup(false, "--scope", "project")
	if code != ExitFailure || !strings.Contains(errOut, "outside the project") || string(instRead(t, outside)) != "{\"theme\": \"dark\"}\n" {
		t.Errorf("exit %d, stderr %q, target:\n%s", code, errOut, instRead(t, outside))
	}
	// .claude/ itself linked out of the project: the same.
	os.Remove(p)
	os.Remove(filepath.Dir(p))
	if err := os.Symlink(filepath.Dir(outside), filepath.Dir(p)); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := d.setup(false, "--scope", "project"); code != ExitFailure || !strings.Contains(errOut, "outside the project") {
		t.Errorf(".claude linked out: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(outside), "settings.json")); err == nil {
		t.Error("install wrote through the linked folder")
	}
	// Inside the project a link is followed, and its backup is ours.
	os.Remove(filepath.Dir(p))
	inside := filepath.Join(d.proj, "config", "claude.json")
	d.write(inside, "{\"theme\": \"dark\"}\n")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(inside, p); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := d.setup(false, "--scope", "project")
	if code != ExitOK || !bytes.Contains(instRead(t, inside), []byte("precompact")) || !strings.Contains(out, "  backup  "+settings.BackupFolder(d.backups(), inside)) {
		t.Errorf("link inside the project: exit %d\n%s%s", code, out, errOut)
	}
}

// spec: IN-8, SEC-24
// The backup of a git-ignored settings.local.json does not show up in the
// repository, and is 0600 even when the file is not.
func TestBackupsStayOutOfTheRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	d := newDocEnv(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = d.proj
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	d.write(filepath.Join(d.proj, ".gitignore"), ".claude/settings.local.json\n")
	local := filepath.Join(d.proj, ".claude", "settings.local.json")
	d.write(local, "{\"env\": {\"API_TOKEN\": \"secret\"}}\n")
	if err := os.Chmod(local, 0o644); err != nil {
		t.Fatal(err)
	}
	before := git("status", "--porcelain", "--untracked-files=all")
	out, errOut, code := d.setup(false, "--scope", "local")
	if code != ExitOK {
		t.Fatalf("install: exit %d: %s", code, errOut)
	}
	if after := git("status", "--porcelain", "--untracked-files=all"); after != before {
		t.Errorf("install left files in the repository:\n%s\nwas\n%s", after, before)
	}
	baks := settings.BackupFiles(d.backups(), local)
	if len(baks) != 1 || !strings.Contains(out, "  backup  "+baks[0]+" (1 backups kept") {
		t.Fatalf("backups %v, output:\n%s", baks, out)
	}
	if st, _ := os.Stat(baks[0]); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("backup mode %v, want 0600", st.Mode().Perm())
	}
	// uninstall's backup goes there too: nothing is left in the project.
	// (An edit since install, so that uninstall does not give the file
	// back byte for byte, which needs no backup: IN-80.)
	data, _ := os.ReadFile(local)
	d.write(local, strings.Replace(string(data), `"env": {`, `"model": "x", "env": {`, 1))
	if _, errOut, code := d.setup(true, "--scope", "local"); code != ExitOK {
		t.Fatalf("uninstall: exit %d: %s", code, errOut)
	}
	if after := git("status", "--porcelain", "--untracked-files=all", "--ignored"); strings.Contains(after, ".bak-") {
		t.Errorf("a backup is in the repository:\n%s", after)
	}
	if n := len(settings.BackupFiles(d.backups(), local)); n != 2 {
		t.Errorf("%d backups after uninstall, want 2", n)
	}
}
