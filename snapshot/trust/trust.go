// Package trust holds the owner and mode checks of everything compact-guard
// reads back. What it reads back it trusts only when no one but the user
// could have written it (specs/security.md SEC-13 to SEC-18): the snapshot
// folder may sit in a folder others share (--dir /tmp/cg), and whatever is
// read back can reach the model through the pointer. Every reader and
// writer of compact-guard's files and folders (the store, the log, the
// failure markers, watch's state, selection, doctor) asks these functions,
// so they all agree; OpenSSH's StrictModes is the model: write access
// matters, not read access.
package trust

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// ErrUntrusted is wrapped by every error about a file or folder that
// another user owns or others can write to (SEC-13, SEC-14).
var ErrUntrusted = errors.New("not trusted")

// UntrustedError says which file or folder was not trusted, and why.
type UntrustedError struct {
	Path string
	Why  string
	// Fix is what the user can do about it, "" when nothing short of
	// another file or folder helps; doctor shows it (DR-6).
	Fix string
}

func (e *UntrustedError) Error() string { return e.Path + ": not trusted: " + e.Why }

// Is makes errors.Is(err, ErrUntrusted) hold.
func (e *UntrustedError) Is(target error) bool { return target == ErrUntrusted }

// PosixModes is false on Windows, where mode bits say nothing about who
// may write (SEC-18).
const PosixModes = runtime.GOOS != "windows"

// OpenTrusted opens path for reading when it is a regular file (not a
// symlink, FIFO or device, as OpenRegular), owned by this user and not
// writable by group or others. The checks are made on the opened file, so
// nothing swapped in after them is read (SEC-13).
func OpenTrusted(path string) (*os.File, error) {
	f, _, err := OpenFile(path, os.O_RDONLY, 0)
	return f, err
}

// OpenFile is OpenTrusted with os.OpenFile's flag and perm (the log opens
// for appending, creating the file): the file opened, never blocking, not
// through a final symlink, must be a regular file owned by this user that
// group and others cannot write to. It returns the open file's stat.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, fi, err := openRegularInfo(path, flag, perm)
	if err != nil {
		return nil, nil, err
	}
	if why := fileProblem(ownerOfFile(f, fi), fi); why != "" {
		f.Close()
		return nil, nil, &UntrustedError{Path: path, Why: why}
	}
	return f, fi, nil
}

// ReadTrusted reads a file OpenTrusted accepts, of at most max bytes.
func ReadTrusted(path string, max int64) ([]byte, error) {
	f, err := OpenTrusted(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAtMost(f, path, max)
}

// CheckTrustedFile applies OpenTrusted's checks without opening the file,
// to a file compact-guard only names (a snapshot's .md, which the pointer
// hands out): a symlink is refused, not followed.
func CheckTrustedFile(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UntrustedError{Path: path, Why: "a symbolic link"}
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if why := fileProblem(ownerOfPath(path, fi), fi); why != "" {
		return &UntrustedError{Path: path, Why: why}
	}
	return nil
}

// CheckPrivateDir reports whether dir is fit to be one of compact-guard's
// own folders (the snapshot folder, watch/): a folder, reached through a
// symlink or not, owned by this user, that group and others cannot write
// to, in a chain of folders up to the root that no one else can rename it
// in (SEC-14). Others may read and search it: what lets another user steer
// the pointer is write access, as OpenSSH's StrictModes holds, and the
// files inside are 0600. A folder that does not exist gives an error
// wrapping fs.ErrNotExist. Every reader and writer of those folders, and
// doctor, asks this one function (or its no-follow form), so they agree.
func CheckPrivateDir(dir string) error { return checkDir(dir, true, true) }

// CheckPrivateDirNoFollow is CheckPrivateDir for a folder in a place others
// can write to (failures/, the per-user temp folder): a symlink there may
// be anyone's, and is refused.
func CheckPrivateDirNoFollow(dir string) error { return checkDir(dir, true, false) }

// CheckSharedDir reports whether a folder that is not compact-guard's own
// may hold what it writes and reads back: the folder above the snapshot
// folder (the log, failures/) and the system temp folder. It and every
// folder above it must be owned by this user or root and either closed to
// writes by group and others or sticky, where only an entry's owner, the
// folder's owner and root can rename or remove the entry (/tmp).
func CheckSharedDir(dir string) error { return checkDir(dir, false, true) }

// checkDir is the one folder check (SEC-14). own: the folder is
// compact-guard's (this user's, not writable by group or others); else it
// may also be root's, and sticky when others can write to it. follow: a
// symlink in the folder's place is followed (the snapshot folder), else
// refused. The folders above it, up to the root, are then checked as
// OpenSSH's StrictModes checks the components of a path: after resolving
// symlinks, each must be owned by this user or root and either not
// writable by group and others or sticky, or whoever can write to it could
// rename the folder below and put another in its place. Windows: only the
// owner of the folder itself (SEC-18).
func checkDir(dir string, own, follow bool) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if !follow {
			return &UntrustedError{Path: dir, Why: "a symbolic link"}
		}
		if fi, err = os.Stat(dir); err != nil {
			return err
		}
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if !own && !PosixModes {
		return nil
	}
	o := ownerOfPath(dir, fi)
	switch {
	case own && !o.mine:
		return &UntrustedError{Path: dir, Why: "owned by " + o.who + ", not by this user",
			Fix: "choose a folder of your own"}
	case !own && !o.mine && !o.root:
		return &UntrustedError{Path: dir, Why: "owned by " + o.who + ", neither this user nor root",
			Fix: "choose a folder of your own"}
	}
	if !PosixModes {
		return nil
	}
	perm := fi.Mode().Perm()
	if own && perm&0o022 != 0 {
		return &UntrustedError{Path: dir, Why: fmt.Sprintf("group or others can write to it (mode %04o), and compact-guard changes no folder it did not create (chmod go-w %s closes it)", perm, dir),
			Fix: "chmod go-w " + dir}
	}
	if !own && perm&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return &UntrustedError{Path: dir, Why: fmt.Sprintf("group or others can write to it and it is not sticky (mode %04o)", perm),
			Fix: fixFor(o, dir)}
	}
	return checkAbove(dir)
}

// checkAbove checks the folders above dir, up to the root, once symlinks
// are resolved (SEC-14).
func checkAbove(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		o := ownerOfPath(p, fi)
		if !o.mine && !o.root {
			return &UntrustedError{Path: dir, Why: fmt.Sprintf("%s, a folder above it, is owned by %s, neither this user nor root, who can rename what is in it", p, o.who),
				Fix: "choose a folder whose parents only you and root can write to"}
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return &UntrustedError{Path: dir, Why: fmt.Sprintf("%s, a folder above it, can be written to by group or others and is not sticky (mode %04o): they could rename the folders in it and put their own in their place", p, fi.Mode().Perm()),
				Fix: fixFor(o, p)}
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

// fixFor is the fix for a folder others can write to: chmod when it is the
// user's, else another folder.
func fixFor(o owner, dir string) string {
	if o.mine {
		return "chmod go-w " + dir
	}
	return "choose a folder whose parents only you and root can write to"
}

// OwnedByMe reports whether this user owns the file at path (fi is its
// stat), as the checks here decide it: the uid on Unix, the owner SID (or
// the Administrators group, for an administrator) on Windows.
func OwnedByMe(path string, fi fs.FileInfo) bool { return ownerOfPath(path, fi).mine }

// owner is what the file system says of a file's owner.
type owner struct {
	// mine: the user running compact-guard; root: the superuser (uid 0).
	mine, root bool
	// who names the owner for messages: "uid 4242", a SID.
	who string
}

// fileProblem says why a regular file is not trusted, "" when it is.
func fileProblem(o owner, fi fs.FileInfo) string {
	if !o.mine {
		return "owned by " + o.who + ", not by this user"
	}
	if PosixModes && fi.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("group or others can write to it (mode %04o)", fi.Mode().Perm())
	}
	return ""
}

// readAtMost reads r to its end, refusing more than max bytes.
func readAtMost(r io.Reader, path string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}
