package settings

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
func readSettings(path string) (*settingsFile, error) {
	sf := &settingsFile{Path: path, Mode: 0o600}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		sf.Path = real
	}
	data, err := os.ReadFile(sf.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		sf.Doc, _ = Parse(nil) // an empty document always parses
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
	if sf.Doc, err = Parse(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sf, nil
}

// backupName is the backup path for path at t (local time).
func backupName(path string, t time.Time) string {
	return path + ".bak-" + t.Format("20060102-150405")
}

// writeBackup copies the file's current content next to it, never
// overwriting an earlier backup.
func writeBackup(sf *settingsFile, now time.Time) (string, error) {
	base := backupName(sf.Path, now)
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, sf.Mode)
		if errors.Is(err, os.ErrExist) && i < 100 {
			name = fmt.Sprintf("%s-%d", base, i)
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

// unifiedDiff returns a unified diff of a and b with three lines of
// context, or "" when they are equal. Settings files are small; past a
// size where the quadratic table would be costly the whole new text is
// shown instead.
func unifiedDiff(aName, bName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	if len(al)*len(bl) > 4_000_000 {
		for _, l := range bl {
			out.WriteString("+" + l + "\n")
		}
		return out.String()
	}
	// lcs[i][j] = length of the LCS of al[i:] and bl[j:].
	n, m := len(al), len(bl)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int
		bi   int
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			ops = append(ops, op{' ', al[i], i, j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', al[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', bl[j], i, j})
			j++
		}
	}
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start, last := max(k-ctx, 0), k
		for p := k + 1; p < len(ops); p++ {
			if ops[p].kind != ' ' {
				last = p
			} else if p-last > 2*ctx {
				break
			}
		}
		end := min(last+ctx+1, len(ops))
		var aCount, bCount int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aCount++
			}
			if o.kind != '-' {
				bCount++
			}
		}
		aStart, bStart := ops[start].ai+1, ops[start].bi+1
		if aCount == 0 {
			aStart--
		}
		if bCount == 0 {
			bStart--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart, aCount, bStart, bCount)
		for _, o := range ops[start:end] {
			out.WriteString(string(o.kind) + o.line + "\n")
		}
		k = end
	}
	return out.String()
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Edit is one change to one settings file.
type Edit struct {
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
	Diff    string // dry run only
}

// Apply reads, changes and (unless a dry run) writes a settings file:
// backup first, then an atomic replace. On any error the file is left as it
// was.
func (e Edit) Apply() (*Result, error) {
	sf, err := readSettings(e.Path)
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
	data := sf.Doc.Bytes()
	if e.DryRun {
		oldName := sf.Path
		if !sf.Exists {
			oldName = os.DevNull
		}
		res.Diff = unifiedDiff(oldName, sf.Path, sf.Data, data)
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
	return res, nil
}
