package settings

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/compact-guard/compact-guard/transcript/nonblock"
)

// MaxFileBytes bounds every settings, hooks and config file compact-guard
// reads (IN-22): Claude Code's, Codex's and Qwen Code's own files are a few
// KiB, and a committed file may be anything, /dev/zero included.
const MaxFileBytes = 4 << 20

// ReadFile reads a settings file, following symlinks, when it is a regular
// file of at most MaxFileBytes (IN-22). It opens without blocking (a FIFO,
// or a symlink to /dev/stdin, does not wait for a writer), checks the type
// of what it opened (fstat, so nothing swapped in after the check is read),
// refuses anything but a regular file, and reads at most one byte more than
// the limit. A missing file gives an error wrapping fs.ErrNotExist.
func ReadFile(path string) ([]byte, fs.FileInfo, error) {
	f, err := nonblock.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, nil, fmt.Errorf("%s is larger than %d bytes, more than any settings file holds", path, MaxFileBytes)
	}
	return data, fi, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// readIfExists is ReadFile with a missing file reported as no data.
func readIfExists(path string) ([]byte, fs.FileInfo, bool, error) {
	data, fi, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, false, nil
	}
	return data, fi, err == nil, err
}
