//go:build !unix

package snapshot

import (
	"fmt"
	"io/fs"
	"os"
)

// openNoBlock opens path, refusing a symlink first. Windows has no FIFOs in
// the file system (named pipes live under \\.\pipe\), so an open cannot
// block; openRegular checks the type of what was opened.
func openNoBlock(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link, not a regular file", path)
	}
	return os.OpenFile(path, flag, perm)
}
