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

// isRegularFile reports a regular file at p.
func isRegularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
