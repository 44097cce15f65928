package settings

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// settingsFile is a settings file as read from disk.
type settingsFile struct {
	Path   string // the path written to (symlinks resolved)
	Exists bool
	Data   []byte
	Mode   os.FileMode
	Doc    *Document
}

// readSettings reads and parses a settings file; a missing file is an empty
// object. A symlinked file (dotfile managers) is followed, so that the link
// survives the rewrite; within, when set, is the project folder the file
// belongs to, outside which a symlink may not lead (IN-22).
func readSettings(path string, a Agent, within string) (*settingsFile, error) {
	sf, err := openTarget(path, within)
	if err != nil {
		return nil, err
	}
	if !sf.Exists {
		sf.Doc, _ = ParseFor(a, nil) // an empty document always parses
		return sf, nil
	}
	if sf.Doc, err = ParseFor(a, sf.Data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sf, nil
}

// openTarget reads path as ReadFile does (IN-22: a regular file of at most
// MaxFileBytes, or none) and finds the file a change of it writes: its
// symlinks resolved (IN-9). A symlink whose target is missing is refused,
// and so is a target outside within.
func openTarget(path, within string) (*settingsFile, error) {
	sf := &settingsFile{Path: path, Mode: 0o600}
	// What the file is decides first: a link to /dev/zero is a device,
	// wherever it points.
	data, fi, ok, err := readIfExists(path)
	if err != nil {
		return nil, err
	}
	if ok {
		sf.Exists, sf.Data, sf.Mode = true, data, fi.Mode().Perm()
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		sf.Path = real
	} else if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("%s is a symbolic link to a file that does not exist", path)
	} else {
		sf.Path = resolveMissing(path)
	}
	if within != "" {
		root, err := filepath.EvalSymlinks(within)
		if err != nil {
			root = resolveMissing(within)
		}
		if rel, err := filepath.Rel(root, sf.Path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return nil, fmt.Errorf("%s leads to %s, outside the project %s; compact-guard writes no file a project's symlink points elsewhere to (name the file itself with --settings)", path, sf.Path, within)
		}
	}
	return sf, nil
}

// resolveMissing is path, a file that does not exist yet, with the
// symlinks of its nearest existing folder resolved: the file install
// creates there, which may lie elsewhere when a folder on the way is a link
// (a committed .claude/ pointing out of the project, /tmp on macOS).
func resolveMissing(path string) string {
	rest := filepath.Base(path)
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// KeepBackups is how many backups of a settings file install and uninstall
// keep: each change makes one, and the same run removes the older ones.
const KeepBackups = 5

// backupLayout is the local time in a backup's name.
const backupLayout = "20060102-150405"

// BackupFolder is the folder under backups (compact-guard's own, IN-8)
// that holds the backups of the file at path: the file's name and the
// first 16 hex digits of the SHA-256 of its path, so that two projects'
// settings.json never share one, and nothing lands in a repository.
func BackupFolder(backups, path string) string {
	sum := sum256([]byte(path))
	return filepath.Join(backups, filepath.Base(path)+"-"+hex.EncodeToString(sum[:8]))
}

// backupRE matches what follows "<file>.bak-" in a backup's name: the time,
// and the number of a later backup in the same second. It compiles on first
// use: package initialisation is paid by every hook process (PF-16).
var backupRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{8}-\d{6})(?:-([1-9]\d*))?$`)
})

// backup is one backup of a settings file, as its name tells.
type backup struct {
	name  string
	stamp string // the time, as in the name
	n     int    // 1, or the number after the time
}

// backupsOf lists the backups named for base in folder, newest first (by
// the time and number in their names); other files are not backups,
// whatever they are called.
func backupsOf(folder, base string) []backup {
	prefix := base + ".bak-"
	ents, _ := os.ReadDir(folder)
	var bs []backup
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		m := backupRE().FindStringSubmatch(rest)
		if !ok || m == nil || !e.Type().IsRegular() {
			continue
		}
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		bs = append(bs, backup{e.Name(), m[1], n})
	}
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].stamp != bs[j].stamp {
			return bs[i].stamp > bs[j].stamp
		}
		return bs[i].n > bs[j].n
	})
	return bs
}

// pruneBackups removes all but the newest KeepBackups backups in folder of
// the file named base and returns how many are kept and how many it
// removed. A backup it cannot remove still counts as kept.
func pruneBackups(folder, base string) (kept, removed int) {
	bs := backupsOf(folder, base)
	for _, b := range bs[min(KeepBackups, len(bs)):] {
		if os.Remove(filepath.Join(folder, b.name)) == nil {
			removed++
		}
	}
	return len(bs) - removed, removed
}

// backupFolderFor makes (0700) and checks the folder that keeps the
// backups of path: compact-guard's own, so it must be private (SEC-14).
func backupFolderFor(backups, path string) (string, error) {
	if backups == "" {
		return "", errors.New("no folder for backups")
	}
	folder := BackupFolder(backups, path)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return "", err
	}
	for _, d := range []string{backups, folder} {
		if err := trust.CheckPrivateDir(d); err != nil {
			return "", err
		}
	}
	return folder, nil
}

// writeBackup copies the file's current content into its backup folder
// (IN-8), 0600 whatever the file's mode. A backup of a second that already
// has some takes the next number, so an earlier backup is never
// overwritten and the newest always sorts first.
func writeBackup(sf *settingsFile, now time.Time, backups string) (string, error) {
	folder, err := backupFolderFor(backups, sf.Path)
	if err != nil {
		return "", fmt.Errorf("backup: %w", err)
	}
	stamp := now.Format(backupLayout)
	base := filepath.Join(folder, filepath.Base(sf.Path)+".bak-"+stamp)
	n := 1
	for _, b := range backupsOf(folder, filepath.Base(sf.Path)) {
		if b.stamp == stamp {
			n = max(n, b.n+1)
		}
	}
	for tries := 0; ; tries++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) && tries < 100 {
			n++ // another run made it meanwhile
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
		_, werr := f.Write(sf.Data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(name)
			return "", fmt.Errorf("backup: %w", werr)
		}
		return name, nil
	}
}

// Edit is one change to one settings file.
type Edit struct {
	// Agent is the client whose file it is ("" is Claude Code): it says
	// whether comments are allowed (IN-18).
	Agent   Agent
	Path    string
	DryRun  bool
	Now     func() time.Time
	DirPerm os.FileMode // for a missing parent folder
	// Change edits the document in place and says what it did; no change
	// means nothing is written.
	Change func(*Document) ([]Change, error)
	// MustExist makes a missing file "nothing to do" instead of an empty
	// object to fill.
	MustExist bool
	// Within is the project folder of a project's file, outside which a
	// symlink may not lead ("" for the user's files and --settings).
	Within string
	// Backups is compact-guard's folder for backups (IN-8).
	Backups string
	// Trace is what the edit records of itself (install) or takes back
	// (uninstall), IN-76; Self is the running binary, which counts as
	// compact-guard under any name.
	Trace TraceMode
	Self  string
}

// Result says what Apply did.
type Result struct {
	Path    string // the file written (symlinks resolved)
	Existed bool
	Changes []Change
	Backup  string
	// BackupsKept and BackupsRemoved count the file's backups after this
	// one was made: those kept (KeepBackups at most) and the older ones
	// removed.
	BackupsKept, BackupsRemoved int
	Diff                        string // dry run only
	// Removed is set when the change left the file holding nothing but
	// what install writes into a file it creates (Document.Vacant), and
	// the file was removed (or, in a dry run, would be) instead.
	Removed bool
	// KeptVacant is set when uninstall left such a file in place because
	// no install trace proves that install created it (IN-88).
	KeptVacant bool
	// Trace is what uninstall did with install's trace (IN-79 to IN-81);
	// nil for install, a dry run, or no trace.
	Trace *TraceOutcome
}

// Apply reads, changes and (unless a dry run) writes a settings file:
// backup first, then an atomic replace, then the older backups pruned; a
// file left vacant is removed instead. On any error the file is left as it
// was.
func (e Edit) Apply() (*Result, error) {
	sf, err := readSettings(e.Path, e.Agent, e.Within)
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	res := &Result{Path: sf.Path, Existed: sf.Exists}
	if !sf.Exists && e.MustExist {
		if e.Trace == TraceUninstall && !e.DryRun {
			os.Remove(tracePath(e.Backups, sf.Path)) // the file went since install: so does its trace
		}
		return res, nil
	}
	ts := traceBefore(e.Trace, e.Backups, sf, sf.Exists && sf.Doc.holdsInstalled(e.Self), sf.Doc.containers(), sf.Doc.emptyInteriors())
	sf.Doc.created = ts.created()
	res.Changes, err = e.Change(sf.Doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", e.Path, err)
	}
	if e.Trace == TraceUninstall && ts.prior != nil {
		sf.Doc.restoreInteriors(ts.prior.Empty)
	}
	if len(res.Changes) == 0 {
		if e.Trace == TraceUninstall && ts.prior != nil && !e.DryRun && !sf.Doc.holdsInstalled(e.Self) {
			// Nothing of install's is left to take back: its trace goes.
			os.Remove(tracePath(e.Backups, sf.Path))
		}
		return res, nil
	}
	data, newName := sf.Doc.Bytes(), sf.Path
	// A file that held only what install put in a file it created goes
	// again, rather than staying behind as "{}"; a symlink's target is
	// kept, since the link would dangle. A file the trace says the user
	// had gets its content back instead (IN-79).
	vacant := sf.Exists && sf.Doc.Vacant() && !isSymlink(e.Path)
	var goes bool
	if data, goes = ts.restore(data, vacant); goes {
		res.Removed, data, newName = true, nil, os.DevNull
	}
	res.KeptVacant = vacant && !goes && e.Trace == TraceUninstall && ts.prior == nil
	if e.DryRun {
		oldName := sf.Path
		if !sf.Exists {
			oldName = os.DevNull
		}
		res.Diff = string(diff.Diff(oldName, sf.Data, newName, data))
		return res, nil
	}
	if res.Removed {
		if err := os.Remove(sf.Path); err != nil {
			return nil, fmt.Errorf("%w; nothing was changed", err)
		}
		return e.finish(res, ts, sf, data)
	}
	if !sf.Exists {
		if err := os.MkdirAll(filepath.Dir(sf.Path), e.DirPerm); err != nil {
			return nil, err
		}
	}
	// A file uninstall gives back as install found it needs no backup:
	// what it held beyond the original was install's alone (IN-80).
	if sf.Exists && !ts.restored(data, false) {
		if res.Backup, err = writeBackup(sf, e.Now(), e.Backups); err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", sf.Path, err)
		}
	}
	if err := snapshot.WriteFileAtomic(sf.Path, data, sf.Mode); err != nil {
		return nil, fmt.Errorf("writing %s: %w", sf.Path, err)
	}
	if res.Backup != "" {
		res.BackupsKept, res.BackupsRemoved = pruneBackups(filepath.Dir(res.Backup), filepath.Base(sf.Path))
	}
	return e.finish(res, ts, sf, data)
}

// finish records or takes back install's trace once the file is written
// (IN-76). The file is already changed: a trace that cannot be written is
// an error that says so.
func (e Edit) finish(res *Result, ts *traceStart, sf *settingsFile, data []byte) (*Result, error) {
	if e.Trace == TraceOff {
		return res, nil
	}
	out, err := ts.traceAfter(e.Backups, sf, data, res.Removed, res.Backup, sf.Doc.containers())
	if err != nil {
		return nil, fmt.Errorf("%s is written, but its install trace is not: %w", sf.Path, err)
	}
	if e.Trace == TraceUninstall {
		res.Trace = out
	}
	return res, nil
}

// isSymlink reports whether path itself is a symbolic link.
func isSymlink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// BackupFiles lists the backups of the file at path (its symlinks
// resolved) in compact-guard's backups folder, newest first (IN-8).
func BackupFiles(backups, path string) []string {
	folder := BackupFolder(backups, path)
	var out []string
	for _, b := range backupsOf(folder, filepath.Base(path)) {
		out = append(out, filepath.Join(folder, b.name))
	}
	return out
}
