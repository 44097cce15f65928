package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// MaxLogBytes is the size the log stays under: past it, AppendLog keeps the
// newest half (SF-61).
const MaxLogBytes = 1 << 20

// maxLogLine bounds one line, so that no single entry can crowd out the rest.
const maxLogLine = 16 << 10

// trimLockStale is when a trim lock left by a killed process is ignored.
const trimLockStale = time.Minute

// AppendLog appends one line to the log at path, creating its folder (0700)
// when missing and the file (0600). An existing folder is left as it is: it
// is the folder above the snapshot folder, which may be the user's home or
// /tmp (SEC-1); it must be one others cannot swap the log in (SEC-14), and
// the log a file of this user's that no one else can write to (SEC-13):
// otherwise nothing is written and the error says why. Control characters,
// newlines included, are escaped so that an entry is always one line; a
// line is cut at 16 KiB. The line is written with one append, so that lines
// of processes logging at once do not mix (SF-60).
func AppendLog(path string, line string) error {
	f, err := openLog(path)
	if err != nil {
		return err
	}
	line = escapeInline(line)
	line = textcut.Marked(textcut.Bytes(line, maxLogLine))
	_, err = f.Write([]byte(line + "\n"))
	fi, serr := f.Stat()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if serr == nil && fi.Size() > MaxLogBytes {
		return trimLog(path)
	}
	return nil
}

// CheckLog tells whether a line could be appended to the log at path now,
// as AppendLog would, without writing one: precompact asks before it names
// the log in a failure marker (RB-26). It may create the log, empty.
func CheckLog(path string) error {
	f, err := openLog(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// openLog opens the log for appending, creating its folder and the file
// when missing. A FIFO, device or symlink at the log's name is refused,
// never waited on: a hook blocked on its log would block the compaction. A
// log of this user's that others could read is narrowed to 0600 on the open
// file, never through the path.
func openLog(path string) (*os.File, error) {
	if err := ensureLogDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("log folder: %w", err)
	}
	f, fi, err := trust.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if trust.PosixModes && fi.Mode().Perm()&0o077 != 0 {
		f.Chmod(0o600)
	}
	return f, nil
}

// ensureLogDir creates dir 0700 when missing. Unlike ensurePrivateDir it
// accepts a folder open to others, as long as they cannot swap the log in
// it (trust.CheckSharedDir): that folder is not compact-guard's own.
func ensureLogDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return trust.CheckSharedDir(dir)
}

// trimLog replaces the log with its newest half, starting at a line, through
// a temp file and a rename, so that readers see either the old log or the
// new one. One process trims at a time (a lock file made with O_EXCL); a line
// another process appends while the trim runs can be lost, which is the price
// of never locking the appends themselves.
func trimLog(path string) error {
	lock := path + ".trim"
	lf, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > trimLockStale {
			os.Remove(lock)
		}
		return nil // another process is trimming
	}
	if err != nil {
		return fmt.Errorf("trim log: %w", err)
	}
	lf.Close()
	defer os.Remove(lock)

	tail, _, err := readTail(path, MaxLogBytes/2)
	if err != nil {
		return fmt.Errorf("trim log: %w", err)
	}
	if err := WriteFileAtomic(path, tail, 0o600); err != nil {
		return fmt.Errorf("trim log: %w", err)
	}
	return nil
}

// readTail reads at most limit bytes from the end of a regular file, dropping
// a first line it came into half-way. cut says whether anything was left
// out.
func readTail(path string, limit int64) (tail []byte, cut bool, err error) {
	f, err := trust.OpenTrusted(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	size := fi.Size()
	start := max(0, size-limit)
	// Read one byte more to see whether the tail starts at a line.
	from := max(0, start-1)
	buf, err := io.ReadAll(io.NewSectionReader(f, from, size-from))
	if err != nil {
		return nil, false, err
	}
	if start == 0 {
		return buf, false, nil
	}
	if buf[0] != '\n' {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, true, nil
		}
		buf = buf[i:]
	}
	return buf[1:], true, nil
}

// RecentLogLines returns the last n lines of the log, oldest first; nil, nil
// when there is no log yet (SF-62). A log AppendLog would not write to is
// not read either: its lines may be anyone's (SEC-16).
func RecentLogLines(path string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	if err := trust.CheckSharedDir(filepath.Dir(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	tail, _, err := readTail(path, 2*MaxLogBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(tail), "\r\n", "\n"), "\n")
	if s == "" {
		return nil, nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}
