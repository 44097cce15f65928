//go:build unix

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openNoBlock opens path without following a final symlink and without
// waiting for a writer or reader when it is a FIFO: O_NONBLOCK has no effect
// on a regular file's reads and writes, and openRegular refuses the rest.
func openNoBlock(path string, flag int, perm fs.FileMode) (*os.File, error) {
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
