package trust

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/compact-guard/compact-guard/transcript/nonblock"
)

// OpenRegular opens path for reading only when it is a regular file and not
// a symlink. The open itself never blocks: a FIFO swapped in for a snapshot
// file between listing the folder and opening it is refused, not waited on.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := openRegularInfo(path, os.O_RDONLY, 0)
	return f, err
}

// openRegularInfo is os.OpenFile that never blocks on a FIFO, does not
// follow a final symlink and refuses whatever is not a regular file once
// opened (checked on the open file, so nothing can be swapped in after the
// check). It returns the open file's stat for further checks.
func openRegularInfo(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := nonblock.OpenNoFollow(path, flag, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, fi, nil
}
