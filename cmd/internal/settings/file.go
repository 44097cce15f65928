package settings

import (
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
// survives the rewrite.
func readSettings(path string, a Agent) (*settingsFile, error) {
	sf := &settingsFile{Path: path, Mode: 0o600}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		sf.Path = real
	}
	data, err := os.ReadFile(sf.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		sf.Doc, _ = ParseFor(a, nil) // an empty document always parses
		return sf, nil
	case err != nil:
		return nil, err
	}
	st, err := os.Stat(sf.Path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	sf.Exists, sf.Data, sf.Mode = true, data, st.Mode().Perm()
	if sf.Doc, err = ParseFor(a, data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sf, nil
}

// KeepBackups is how many backups of a settings file install and uninstall
// keep: each change makes one, and the same run removes the older ones.
const KeepBackups = 5

// backupLayout is the local time in a backup's name.
const backupLayout = "20060102-150405"

// backupName is the backup path for path at t (local time).
func backupName(path string, t time.Time) string {
	return path + ".bak-" + t.Format(backupLayout)
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

// backupsOf lists the backups of path, newest first (by the time and
// number in their names); other files are not backups, whatever they are
// called.
func backupsOf(path string) []backup {
	prefix := filepath.Base(path) + ".bak-"
	ents, _ := os.ReadDir(filepath.Dir(path))
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

// pruneBackups removes all but the newest KeepBackups backups of path and
// returns how many are kept and how many it removed. A backup it cannot
// remove still counts as kept.
func pruneBackups(path string) (kept, removed int) {
	bs := backupsOf(path)
	for _, b := range bs[min(KeepBackups, len(bs)):] {
		if os.Remove(filepath.Join(filepath.Dir(path), b.name)) == nil {
			removed++
		}
	}
	return len(bs) - removed, removed
}

// writeBackup copies the file's current content next to it. A backup of a
// second that already has some takes the next number, so an earlier backup
// is never overwritten and the newest always sorts first.
func writeBackup(sf *settingsFile, now time.Time) (string, error) {
	base := backupName(sf.Path, now)
	n := 1
	for _, b := range backupsOf(sf.Path) {
		if b.stamp == now.Format(backupLayout) {
			n = max(n, b.n+1)
		}
	}
	for tries := 0; ; tries++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, sf.Mode)
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
}

// Apply reads, changes and (unless a dry run) writes a settings file:
// backup first, then an atomic replace, then the older backups pruned; a
// file left vacant is removed instead. On any error the file is left as it
// was.
func (e Edit) Apply() (*Result, error) {
	sf, err := readSettings(e.Path, e.Agent)
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	res := &Result{Path: sf.Path, Existed: sf.Exists}
	if !sf.Exists && e.MustExist {
		return res, nil
	}
	res.Changes, err = e.Change(sf.Doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", e.Path, err)
	}
	if len(res.Changes) == 0 {
		return res, nil
	}
	data, newName := sf.Doc.Bytes(), sf.Path
	// A file that held only what install put in a file it created goes
	// again, rather than staying behind as "{}"; a symlink's target is
	// kept, since the link would dangle.
	if sf.Exists && sf.Doc.Vacant() && !isSymlink(e.Path) {
		res.Removed, data, newName = true, nil, os.DevNull
	}
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
		return res, nil
	}
	if !sf.Exists {
		if err := os.MkdirAll(filepath.Dir(sf.Path), e.DirPerm); err != nil {
			return nil, err
		}
	}
	if sf.Exists {
		if res.Backup, err = writeBackup(sf, e.Now()); err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", sf.Path, err)
		}
	}
	if err := snapshot.WriteFileAtomic(sf.Path, data, sf.Mode); err != nil {
		return nil, fmt.Errorf("writing %s: %w", sf.Path, err)
	}
	if res.Backup != "" {
		res.BackupsKept, res.BackupsRemoved = pruneBackups(sf.Path)
	}
	return res, nil
}

// isSymlink reports whether path itself is a symbolic link.
func isSymlink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}
