package snapshot

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// spec: DR-6, DR-19
// What makes a folder unwritable decides the fix; chmod only when the mode
// is the reason.
func TestUnwritableDirSaysWhy(t *testing.T) {
	for _, c := range []struct {
		perm      os.FileMode
		err       error
		why, fix  string
		unixModes bool
	}{
		{0o500, os.ErrPermission, "lacks the owner's write permission", "chmod u+w /s", true},
		{0o700, fmt.Errorf("open: %w", syscall.EROFS), "mounted read-only", "choose another folder with COMPACT_GUARD_DIR", false},
		{0o700, fmt.Errorf("open: %w", syscall.ENOSPC), "is full", "free space on it", false},
	} {
		if c.unixModes && runtime.GOOS == "windows" {
			continue
		}
		why, fix := unwritableDir("/s", c.perm, c.err)
		if !strings.Contains(why, c.why) || !strings.Contains(fix, c.fix) || c.perm&0o200 != 0 && strings.Contains(fix, "chmod") {
			t.Errorf("%v %v: %q / %q", c.perm, c.err, why, fix)
		}
	}
}
