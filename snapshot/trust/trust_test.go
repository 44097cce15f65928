package trust

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The user's own files and folders are trusted only while no one else can
// write to them: read and search access for others does not matter, as
// OpenSSH's StrictModes holds; these need no second user.
// spec: SEC-13, SEC-14, SEC-16
func TestTrustModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes; Windows checks the owner only (SEC-18)")
	}
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		mode os.FileMode
		ok   bool
	}{{0o600, true}, {0o644, true}, {0o400, true}, {0o620, false}, {0o602, false}, {0o666, false}} {
		p := file("f", tc.mode)
		_, err := ReadTrusted(p, 100)
		if cerr := CheckTrustedFile(p); (err == nil) != tc.ok || (cerr == nil) != tc.ok {
			t.Errorf("mode %04o: ReadTrusted %v, CheckTrustedFile %v; trusted %v", tc.mode, err, cerr, tc.ok)
		}
		if !tc.ok && (!errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "group or others can write to it")) {
			t.Errorf("mode %04o: %v, want why", tc.mode, err)
		}
	}
	if err := os.Symlink(file("target", 0o600), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := CheckTrustedFile(filepath.Join(dir, "link")); !errors.Is(err, ErrUntrusted) {
		t.Errorf("a symlink passed CheckTrustedFile: %v", err)
	}

	for _, tc := range []struct {
		mode            os.FileMode
		private, shared bool
	}{
		{0o700, true, true}, {0o500, true, true}, {0o750, true, true}, {0o755, true, true}, {0o711, true, true},
		{0o720, false, false}, {0o702, false, false}, {0o770, false, false}, {0o777, false, false},
		{0o777 | os.ModeSticky, false, true},
	} {
		if err := os.Chmod(dir, tc.mode); err != nil {
			t.Fatal(err)
		}
		if err := CheckPrivateDir(dir); (err == nil) != tc.private {
			t.Errorf("folder mode %v: CheckPrivateDir %v, want trusted %v", tc.mode, err, tc.private)
		}
		if err := CheckSharedDir(dir); (err == nil) != tc.shared {
			t.Errorf("folder mode %v: CheckSharedDir %v, want trusted %v", tc.mode, err, tc.shared)
		}
	}
	os.Chmod(dir, 0o700)
}
