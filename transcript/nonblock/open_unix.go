//go:build unix

package nonblock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Open opens path for reading with O_NONBLOCK, so that even a FIFO swapped
// in after a Stat check cannot block the open; the flag changes nothing for
// the regular file the caller goes on to require. A final symlink is
// followed.
func Open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// OpenNoFollow opens path without following a final symlink and without
// waiting for a writer or reader when it is a FIFO: O_NONBLOCK has no effect
// on a regular file's reads and writes, and the caller refuses the rest.
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, perm)
	if err != nil && (errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)) {
		// ELOOP (Linux, macOS) or EMLINK (FreeBSD): the name is a symlink.
		return nil, fmt.Errorf("%s is a symbolic link, not a regular file", path)
	}
	// A FIFO opened for writing with no reader fails with ENXIO rather than
	// blocking.
	if err != nil && errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, err
}
