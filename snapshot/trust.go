package snapshot

// What compact-guard reads back it trusts only when no one but the user
// could have written it (specs/security.md SEC-13 to SEC-18): the snapshot
// folder may sit in a folder others share (--dir /tmp/cg), and whatever is
// read back can reach the model through the pointer.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
)

// ErrUntrusted is wrapped by every error about a file or folder that
// another user owns or others can write to (SEC-13, SEC-14).
var ErrUntrusted = errors.New("not trusted")

// UntrustedError says which file or folder was not trusted, and why.
type UntrustedError struct {
	Path string
	Why  string
}

func (e *UntrustedError) Error() string { return e.Path + ": not trusted: " + e.Why }

// Is makes errors.Is(err, ErrUntrusted) hold.
func (e *UntrustedError) Is(target error) bool { return target == ErrUntrusted }

// posixModes is false on Windows, where mode bits say nothing about who
// may write (SEC-18).
const posixModes = runtime.GOOS != "windows"

// OpenTrusted opens path for reading when it is a regular file (not a
// symlink, FIFO or device, as OpenRegular), owned by this user and not
// writable by group or others. The checks are made on the opened file, so
// nothing swapped in after them is read (SEC-13).
func OpenTrusted(path string) (*os.File, error) {
	f, fi, err := openRegularInfo(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if why := fileProblem(ownerOfFile(f, fi), fi); why != "" {
		f.Close()
		return nil, &UntrustedError{path, why}
	}
	return f, nil
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
		return &UntrustedError{path, "a symbolic link"}
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if why := fileProblem(ownerOfPath(path, fi), fi); why != "" {
		return &UntrustedError{path, why}
	}
	return nil
}

// CheckPrivateDir reports whether dir is fit to be compact-guard's own
// folder (the snapshot folder): a folder, reached through a symlink or not,
// owned by this user, with no access for group or others (SEC-14). A folder
// that does not exist gives an error wrapping fs.ErrNotExist.
func CheckPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	return privateDirProblem(dir, fi)
}

// checkPrivateDirNoFollow is CheckPrivateDir for a folder in a place others
// can write to (failures/, the per-user temp folder): a symlink there may
// be anyone's, and is refused.
func checkPrivateDirNoFollow(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UntrustedError{dir, "a symbolic link"}
	}
	return privateDirProblem(dir, fi)
}

func privateDirProblem(dir string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	o := ownerOfPath(dir, fi)
	if !o.mine {
		return &UntrustedError{dir, "owned by " + o.who + ", not by this user"}
	}
	if posixModes && fi.Mode().Perm()&0o077 != 0 {
		return &UntrustedError{dir, fmt.Sprintf("group or others have access (mode %04o), and compact-guard changes no folder it did not create (chmod 700 %s closes it)", fi.Mode().Perm(), dir)}
	}
	return nil
}

// checkSharedDir reports whether a folder that is not compact-guard's own
// may hold what it writes and reads back: the folder above the snapshot
// folder (the log, failures/) and the system temp folder. It must be owned
// by this user or root and either closed to writes by group and others or
// sticky, where only an entry's owner, the folder's owner and root can
// rename or remove the entry (/tmp). Windows: not checked (SEC-18).
func checkSharedDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if !posixModes {
		return nil
	}
	if o := ownerOfPath(dir, fi); !o.mine && !o.root {
		return &UntrustedError{dir, "owned by " + o.who + ", neither this user nor root"}
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return &UntrustedError{dir, fmt.Sprintf("group or others can write to it and it is not sticky (mode %04o)", fi.Mode().Perm())}
	}
	return nil
}

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
	if posixModes && fi.Mode().Perm()&0o022 != 0 {
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
