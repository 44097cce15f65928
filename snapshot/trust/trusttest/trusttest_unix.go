//go:build unix

package trusttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// UID and GID are the other user's. No account needs to exist for them:
// the kernel checks ids, not names.
const (
	UID = 4242
	GID = 4242
)

// Require skips t, saying why, unless it runs as root, which alone can act
// as another user.
func Require(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("acting as another user (uid 4242) needs root; run the tests as root to prove SEC-19")
	}
}

// Reach makes path and every folder above it searchable by others (o+x, not
// listable), so that the other user can reach the test's folders; it only
// adds that bit, and only to folders made for this test (below the temp
// folder).
func Reach(t testing.TB, path string) {
	t.Helper()
	tmp := filepath.Clean(os.TempDir())
	for p := filepath.Clean(path); strings.HasPrefix(p, tmp+string(filepath.Separator)); p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, fi.Mode()&(os.ModePerm|os.ModeSticky)|0o001); err != nil {
			t.Fatal(err)
		}
	}
}

// Run runs script with /bin/sh as the other user, with args as $1..., and
// fails t when it fails.
func Run(t testing.TB, script string, args ...string) {
	t.Helper()
	Require(t)
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sh"}, args...)...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: GID}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as uid %d: %s: %v\n%s", UID, script, err, out)
	}
}

// Owner is the uid that owns path (not following a symlink).
func Owner(t testing.TB, path string) int {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid)
}
