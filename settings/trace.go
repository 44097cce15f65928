package settings

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// What install leaves of itself, and how uninstall takes exactly that back
// (IN-76 to IN-83). A file's edit cannot tell, from the file alone, whether
// an empty "hooks" object or event list was the user's or install's, or
// whether a folder on the way existed before; so install writes down, once
// per file it changes, what it found and what it created — the install
// trace, traceName in the file's own backup folder (BackupFolder), 0600,
// written atomically — and uninstall reads it back (trusted only as every
// file compact-guard reads back: a regular file of this user's that no one
// else can write, in folders that pass trust.CheckPrivateDir), acts on it
// and removes it. Without a trace (an older install, or one that cannot be
// trusted) uninstall does what it always did.
//
// Every edit of a client's file that install or uninstall makes goes
// through this with one call each: set Edit.Trace (hooks files of every
// client, through Edit.Apply) or TrustEdit.Trace (Codex's config.toml); a
// new client's file written through Edit needs nothing more. A writer of
// another kind calls traceBefore before its change and traceAfter once the
// file is written, as TrustEdit.Apply does.

// TraceMode says what an edit records of itself (IN-76).
type TraceMode int

// The modes of an edit.
const (
	// TraceOff records nothing and reads nothing (doctor's fixes, tests).
	TraceOff TraceMode = iota
	// TraceInstall records what the file was and what install created.
	TraceInstall
	// TraceUninstall reads that record, takes back what install created
	// and removes the record.
	TraceUninstall
)

// traceName is the install trace's name in a file's backup folder; no
// backup is ever so named (backupRE).
const traceName = "install-trace.json"

// maxTraceBytes bounds a trace that is read back.
const maxTraceBytes = 64 << 10

// installTrace is what install found and created in one file (IN-76).
type installTrace struct {
	Schema int `json:"schema"`
	// Path is the file it is about, symlinks resolved.
	Path string `json:"path"`
	// Existed says whether the file existed before the first install;
	// SHA256 is its content's digest then, Blank the content itself when it
	// was only whitespace (an empty file, "\n").
	Existed bool    `json:"existed"`
	SHA256  string  `json:"sha256,omitempty"`
	Blank   *string `json:"blank,omitempty"`
	// Created are the containers install created in the file ("hooks",
	// "hooks/PreCompact"); the others were the user's.
	Created []string `json:"created,omitempty"`
	// Empty are the containers that were empty before install, with what
	// stood between their brackets ("", " ", a comment): install's first
	// element changes that, and uninstall puts it back (IN-77).
	Empty map[string]string `json:"empty,omitempty"`
	// Backups are the names of the backups install made of the file since
	// the first install.
	Backups []string `json:"backups,omitempty"`
}

func tracePath(backups, path string) string {
	return filepath.Join(BackupFolder(backups, path), traceName)
}

// loadTrace reads the trace of the file at path (symlinks resolved). No
// trace is nil, nil; one that cannot be trusted or read is nil and why.
func loadTrace(backups, path string) (*installTrace, error) {
	if backups == "" {
		return nil, nil
	}
	tp := tracePath(backups, path)
	if _, err := os.Lstat(tp); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	for _, d := range []string{backups, filepath.Dir(tp)} {
		if err := trust.CheckPrivateDir(d); err != nil {
			return nil, err
		}
	}
	data, err := trust.ReadTrusted(tp, maxTraceBytes)
	if err != nil {
		return nil, err
	}
	var t installTrace
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", tp, err)
	}
	if t.Schema != 1 || t.Path != path {
		return nil, fmt.Errorf("%s: not a trace of %s", tp, path)
	}
	return &t, nil
}

// save writes the trace atomically, 0600, in the file's backup folder.
func (t *installTrace) save(backups string) error {
	folder, err := backupFolderFor(backups, t.Path)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	return snapshot.WriteFileAtomic(filepath.Join(folder, traceName), append(data, '\n'), 0o600)
}

// traceStart is what an edit knows of a file before it changes it.
type traceStart struct {
	mode  TraceMode
	prior *installTrace
	// priorErr says why a trace that exists was not used.
	priorErr error
	// had is set when the file already held what install writes.
	had bool
	// inUse is set for a file other installs still rely on after this
	// uninstall (config.toml holding the trust of another hooks file): its
	// trace stays for the last one out, unless the file is given back.
	inUse      bool
	containers []string
	empty      map[string]string
	dirs       []string // folders missing on the way to the file
}

// traceBefore starts an edit of sf: it reads the trace, and notes whether
// the file already holds install's entries (had), its containers and the
// folders missing on the way to it.
func traceBefore(mode TraceMode, backups string, sf *settingsFile, had bool, containers []string, empty map[string]string) *traceStart {
	ts := &traceStart{mode: mode, had: had, containers: containers, empty: empty}
	if mode == TraceOff {
		return ts
	}
	ts.prior, ts.priorErr = loadTrace(backups, sf.Path)
	if !sf.Exists {
		for d := filepath.Dir(sf.Path); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
				break
			}
			ts.dirs = append(ts.dirs, d)
		}
	}
	return ts
}

// created is the set of containers install created, as the trace says;
// nil without a trace (every container emptied by uninstall then goes, as
// before IN-77).
func (ts *traceStart) created() map[string]bool {
	if ts.mode != TraceUninstall || ts.prior == nil {
		return nil
	}
	m := map[string]bool{}
	for _, c := range ts.prior.Created {
		m[c] = true
	}
	return m
}

// restore is the content uninstall gives a file whose change left data:
// the original blank content when the file held only whitespace before
// install; and whether the file goes (install created it and nothing is
// left but what install's layout of a new file leaves). Without a trace
// uninstall cannot prove that install created the file — the user's own
// "{\n}\n" looks the same — so it stays (IN-88).
func (ts *traceStart) restore(data []byte, vacant bool) ([]byte, bool) {
	if ts.mode == TraceUninstall && ts.prior == nil {
		return data, false
	}
	if ts.mode != TraceUninstall {
		return data, vacant
	}
	if !ts.prior.Existed {
		return data, vacant
	}
	if vacant && ts.prior.Blank != nil {
		return []byte(*ts.prior.Blank), false
	}
	return data, false
}

// restored reports whether uninstall's result is, byte for byte, the file
// as install first found it: data written, or the file removed.
func (ts *traceStart) restored(data []byte, removed bool) bool {
	if ts.mode != TraceUninstall || ts.prior == nil {
		return false
	}
	if !ts.prior.Existed {
		return removed
	}
	return !removed && digest(data) == ts.prior.SHA256
}

func digest(data []byte) string {
	s := sum256(data)
	return hex.EncodeToString(s[:])
}

// TraceOutcome is what uninstall did with an install trace (IN-79 to
// IN-81), for its output.
type TraceOutcome struct {
	// Restored is set when the file is byte for byte what install found.
	Restored bool
	// BackupsRemoved are the backups install made that went with it (the
	// file is as it was, so they hold nothing the file does not);
	// BackupsKept the folder of those kept because the file differs.
	BackupsRemoved []string
	BackupsKept    string
	// Ignored says why a trace that exists was not used ("" when none).
	Ignored string
}

// traceAfter finishes an edit of sf written (or removed) with data: install
// records or extends the trace; uninstall removes it and, when the file is
// as install found it, the backups install made of it.
func (ts *traceStart) traceAfter(backups string, sf *settingsFile, data []byte, removed bool, backup string, containers []string) (*TraceOutcome, error) {
	out := &TraceOutcome{}
	if ts.priorErr != nil {
		out.Ignored = ts.priorErr.Error()
	}
	switch ts.mode {
	case TraceInstall:
		t := ts.prior
		switch {
		case ts.had && t == nil:
			return out, nil // an older install's file: what it created is not known
		case !ts.had || t == nil:
			t = &installTrace{Schema: 1, Path: sf.Path, Existed: sf.Exists}
			if sf.Exists {
				t.SHA256 = digest(sf.Data)
				if len(bytes.TrimSpace(sf.Data)) == 0 {
					s := string(sf.Data)
					t.Blank = &s
				}
			}
		}
		for _, c := range containers {
			if !slices.Contains(ts.containers, c) && !slices.Contains(t.Created, c) {
				t.Created = append(t.Created, c)
			}
		}
		for c, inside := range ts.empty {
			if _, ok := t.Empty[c]; !ok && !slices.Contains(t.Created, c) {
				if t.Empty == nil {
					t.Empty = map[string]string{}
				}
				t.Empty[c] = inside
			}
		}
		if err := recordDirs(backups, ts.dirs); err != nil {
			return out, err
		}
		if backup != "" {
			t.Backups = append(t.Backups, filepath.Base(backup))
		}
		return out, t.save(backups)
	case TraceUninstall:
		t := ts.prior
		if t == nil {
			return out, nil
		}
		folder := BackupFolder(backups, sf.Path)
		out.Restored = ts.restored(data, removed)
		if !out.Restored && ts.inUse {
			// Still installed for another hooks file: the backup made now
			// is one of the installation's too.
			if backup == "" {
				return out, nil
			}
			t.Backups = append(t.Backups, filepath.Base(backup))
			return out, t.save(backups)
		}
		if out.Restored {
			names := map[string]bool{}
			for _, b := range backupsOf(folder, filepath.Base(sf.Path)) {
				names[b.name] = true
			}
			for _, b := range t.Backups {
				if names[b] && os.Remove(filepath.Join(folder, b)) == nil {
					out.BackupsRemoved = append(out.BackupsRemoved, filepath.Join(folder, b))
				}
			}
		} else if len(backupsOf(folder, filepath.Base(sf.Path))) > 0 {
			out.BackupsKept = folder
		}
		if err := os.Remove(filepath.Join(folder, traceName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return out, err
		}
		// The folder and backups/ go when nothing else is left in them.
		if os.Remove(folder) == nil {
			removeBackupsRoot(backups)
		}
	}
	return out, nil
}

// foldersName is the list of folders install created, in the backups
// folder: one list for every file, since two files share a folder
// (.claude/ holds settings.json and settings.local.json) and the last one
// out takes it (IN-78).
const foldersName = "created-folders.json"

// createdFolders reads that list; a list that cannot be trusted is none.
func createdFolders(backups string) []string {
	p := filepath.Join(backups, foldersName)
	if backups == "" || trust.CheckPrivateDir(backups) != nil {
		return nil
	}
	data, err := trust.ReadTrusted(p, maxTraceBytes)
	if err != nil {
		return nil
	}
	var dirs []string
	if json.Unmarshal(data, &dirs) != nil {
		return nil
	}
	return dirs
}

// saveFolders writes the list, or removes it when empty.
func saveFolders(backups string, dirs []string) error {
	p := filepath.Join(backups, foldersName)
	if len(dirs) == 0 {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(backups, 0o700); err != nil {
		return err
	}
	if err := trust.CheckPrivateDir(backups); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(dirs, "", "  ")
	return snapshot.WriteFileAtomic(p, append(data, '\n'), 0o600)
}

// recordDirs adds the folders an install created to the list.
func recordDirs(backups string, dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	list := createdFolders(backups)
	for _, d := range dirs {
		if !slices.Contains(list, d) {
			list = append(list, d)
		}
	}
	return saveFolders(backups, list)
}

// RemoveCreatedDirs removes, once every file of an uninstall is written,
// the folders install created on the way to those files (IN-78) that are
// empty again, deepest first, and returns those it removed and those it
// kept: never a folder install did not create, never one with anything in
// it, never a symbolic link. A folder removed leaves the list; a folder
// kept stays on it, for the uninstall of the file still in it.
func RemoveCreatedDirs(backups string, files ...string) (removed, kept []string) {
	list := createdFolders(backups)
	var dirs []string
	for _, d := range list {
		for _, f := range files {
			if rel, err := filepath.Rel(d, filepath.Dir(f)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				dirs = append(dirs, d)
				break
			}
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return len(dirs[i]) > len(dirs[j]) })
	gone := map[string]bool{}
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			gone[d] = true
		case err != nil || !fi.IsDir():
			kept = append(kept, d)
		case os.Remove(d) == nil:
			removed = append(removed, d)
			gone[d] = true
		default:
			kept = append(kept, d)
		}
	}
	if len(gone) > 0 {
		list = slices.DeleteFunc(list, func(d string) bool { return gone[d] })
		saveFolders(backups, list)
		if len(list) == 0 {
			removeBackupsRoot(backups)
		}
	}
	return removed, kept
}

// containers lists the document's "hooks" object and the event lists in
// it, as a trace names them ("hooks", "hooks/PreCompact").
func (d *Document) containers() []string {
	hooks, _ := member(d.rootObject(), "hooks").(*hujson.Object)
	if hooks == nil {
		return nil
	}
	out := []string{"hooks"}
	for _, ev := range hooks.Members {
		if _, ok := ev.Value.Value.(*hujson.Array); ok {
			name, _ := stringOf(ev.Name.Value)
			out = append(out, "hooks/"+name)
		}
	}
	return out
}

// mayDrop reports whether uninstall may remove a container its removal
// left empty: with a trace, only one install created (IN-77).
func (d *Document) mayDrop(container string) bool {
	return d.created == nil || d.created[container]
}

// holdsInstalled reports whether the document holds an entry install
// writes (IN-21), for this binary or another compact-guard.
func (d *Document) holdsInstalled(self string) bool {
	for _, e := range d.Entries(self) {
		if e.Installed() {
			return true
		}
	}
	return false
}

// container is the "hooks" object or an event list in it, by its trace
// name; nil when there is none.
func (d *Document) container(name string) hujson.ValueTrimmed {
	hooks, _ := member(d.rootObject(), "hooks").(*hujson.Object)
	if hooks == nil {
		return nil
	}
	if name == "hooks" {
		return hooks
	}
	ev, ok := strings.CutPrefix(name, "hooks/")
	if !ok {
		return nil
	}
	list, _ := member(hooks, ev).(*hujson.Array)
	if list == nil {
		return nil
	}
	return list
}

// emptyInteriors maps each empty container to what stands between its
// brackets.
func (d *Document) emptyInteriors() map[string]string {
	out := map[string]string{}
	for _, c := range d.containers() {
		switch v := d.container(c).(type) {
		case *hujson.Object:
			if len(v.Members) == 0 {
				out[c] = string(v.AfterExtra)
			}
		case *hujson.Array:
			if len(v.Elements) == 0 {
				out[c] = string(v.AfterExtra)
			}
		}
	}
	return out
}

// restoreInteriors gives each container that is empty again what stood
// between its brackets before install (IN-77).
func (d *Document) restoreInteriors(empty map[string]string) {
	for c, inside := range empty {
		switch v := d.container(c).(type) {
		case *hujson.Object:
			if len(v.Members) == 0 {
				v.AfterExtra = hujson.Extra(inside)
			}
		case *hujson.Array:
			if len(v.Elements) == 0 {
				v.AfterExtra = hujson.Extra(inside)
			}
		}
	}
}

// removeBackupsRoot removes the backups folder when nothing is left in it,
// and compact-guard's state folder above it when that is empty too (install
// made it for its trace; with --dir or COMPACT_GUARD_DIR elsewhere the
// snapshots are not in it). A folder with anything in it stays.
func removeBackupsRoot(backups string) {
	if os.Remove(backups) == nil && filepath.Base(filepath.Dir(backups)) == "compact-guard" {
		os.Remove(filepath.Dir(backups))
	}
}
