//go:build !unix

package nonblock

import (
	"fmt"
	"io/fs"
	"os"
)

// Open opens path for reading. Outside Unix there is no FIFO to block on:
// named pipes live under \\.\pipe\, and the caller checks the type of what
// was opened.
func Open(path string) (*os.File, error) {
	return os.Open(path)
}

// OpenNoFollow opens path, refusing a symlink first. Windows has no FIFOs in
// the file system (named pipes live under \\.\pipe\), so an open cannot
// block; the caller checks the type of what was opened.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link, not a regular file", path)
	}
	return os.OpenFile(path, flag, perm)
}
