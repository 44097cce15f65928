//go:build !unix

package watch

import (
	"fmt"
	"io/fs"
	"os"
)

// ownedByMe reports true: on Windows the state folder lies in the user's
// profile, closed to other users by its ACL.
func ownedByMe(fs.FileInfo) bool { return true }

// openRegular opens path for reading, refusing a symlink and whatever is
// not a regular file. Windows has no FIFOs in the file system.
func openRegular(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link, not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}
