package cmd

import (
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// EnvDir names the environment variable that sets the snapshot folder.
const EnvDir = "COMPACT_GUARD_DIR"

// snapshotDir resolves the snapshot folder: --dir, else $COMPACT_GUARD_DIR,
// else <XDG state home>/compact-guard/snapshots. The result is absolute so
// that the pointer can name it.
func snapshotDir(g *GlobalOptions) string {
	d := g.Dir
	if d == "" {
		d = os.Getenv(EnvDir)
	}
	if d == "" {
		d = filepath.Join(xdg.StateHome, "compact-guard", "snapshots")
	}
	if abs, err := filepath.Abs(d); err == nil {
		d = abs
	}
	return filepath.Clean(d)
}

// sameFile reports whether a and b name one file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
