package settings

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/compact-guard/compact-guard/snapshot"
)

// TrustEdit carries out a TrustPlan in Codex CLI's config.toml, backed up
// and written as settings files are (IN-8, IN-9, IN-20).
type TrustEdit struct {
	Path   string // config.toml
	Plan   TrustPlan
	DryRun bool
	Now    func() time.Time
	// Backups is compact-guard's folder for backups (IN-8).
	Backups string
	// Trace is what the edit records of itself or takes back (IN-76).
	Trace TraceMode
	// Agent is the client whose hooks files the trust's keys name, read
	// as that client reads them when the edit asks whether a file still
	// holds compact-guard's entries.
	Agent Agent
}

// TrustResult says what a TrustEdit did.
type TrustResult struct {
	Path    string
	Existed bool
	// Trusted lists the keys trusted anew or again, Untrusted the keys
	// whose table was removed, Moved the renamed ones ("old -> new");
	// Distrusted the keys of handlers not install's whose trust was
	// removed, each with why ("key: why").
	Trusted, Untrusted, Moved   []string
	Distrusted                  []string
	Backup                      string
	BackupsKept, BackupsRemoved int
	Diff                        string // dry run only
	// Removed is set when uninstall removed a config.toml install created
	// and left empty (IN-79); Trace is what it did with install's trace.
	Removed bool
	Trace   *TraceOutcome
}

// Changed reports whether the edit changed (or would change) the file.
func (r *TrustResult) Changed() bool {
	return len(r.Trusted)+len(r.Untrusted)+len(r.Moved)+len(r.Distrusted) > 0
}

// Apply reads config.toml, carries out the plan and, unless a dry run,
// writes it: backup first, then an atomic replace, then the older backups
// pruned. A missing file is created (0600, its folder 0700) when there is
// something to trust. On any error the file is left as it was.
func (e TrustEdit) Apply() (*TrustResult, error) {
	res := &TrustResult{Path: e.Path}
	sf, err := openTarget(e.Path, "")
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	data := sf.Data
	res.Path, res.Existed = sf.Path, sf.Exists
	doc, err := parseTOML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", e.Path, err)
	}
	out, changed, err := doc.apply(e.Plan)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", e.Path, err)
	}
	dropped := map[string]bool{}
	for _, k := range e.Plan.Drop {
		dropped[k] = true
	}
	for _, k := range changed {
		if why, ok := e.Plan.Distrust[k]; ok {
			res.Distrusted = append(res.Distrusted, k+": "+why)
		} else if dropped[k] {
			res.Untrusted = append(res.Untrusted, k)
		} else {
			res.Trusted = append(res.Trusted, k)
		}
	}
	for _, from := range sortedKeys(e.Plan.Move) {
		if doc.state[from] != nil {
			res.Moved = append(res.Moved, from+" -> "+e.Plan.Move[from])
		}
	}
	if !res.Changed() {
		return res, nil
	}
	// config.toml holds the trust of every hooks file (the user's, each
	// project's): a trace is extended by each install while it lasts, and
	// stays through the uninstalls that leave other trust in the file.
	ts := traceBefore(e.Trace, e.Backups, sf, doc.holdsManaged(e.Plan), nil, nil)
	if ts.prior != nil {
		ts.had = true
	}
	if after, err := parseTOML(out); err == nil {
		ts.inUse = after.trustsInstalled(e.Agent)
	}
	newName := sf.Path
	if ts.prior != nil && !isSymlink(e.Path) {
		// What install created goes; a blank file the user had comes back.
		if out, res.Removed = ts.restore(out, len(bytes.TrimSpace(out)) == 0); res.Removed {
			out, newName = nil, os.DevNull
		}
	}
	if e.DryRun {
		oldName := sf.Path
		if !sf.Exists {
			oldName = os.DevNull
		}
		res.Diff = string(diff.Diff(oldName, data, newName, out))
		return res, nil
	}
	switch {
	case res.Removed:
		if err := os.Remove(sf.Path); err != nil {
			return nil, fmt.Errorf("%w; nothing was changed", err)
		}
	case !sf.Exists:
		if err := os.MkdirAll(filepath.Dir(sf.Path), 0o700); err != nil {
			return nil, err
		}
	case !ts.restored(out, false):
		if res.Backup, err = writeBackup(sf, e.Now(), e.Backups); err != nil {
			return nil, fmt.Errorf("%s: %w; nothing was changed", sf.Path, err)
		}
	}
	if !res.Removed {
		if err := snapshot.WriteFileAtomic(sf.Path, out, sf.Mode); err != nil {
			return nil, fmt.Errorf("writing %s: %w", sf.Path, err)
		}
	}
	if res.Backup != "" {
		res.BackupsKept, res.BackupsRemoved = pruneBackups(filepath.Dir(res.Backup), filepath.Base(sf.Path))
	}
	if e.Trace == TraceOff {
		return res, nil
	}
	tr, err := ts.traceAfter(e.Backups, sf, out, res.Removed, res.Backup, nil)
	if err != nil {
		return nil, fmt.Errorf("%s is written, but its install trace is not: %w", sf.Path, err)
	}
	if e.Trace == TraceUninstall {
		res.Trace = tr
	}
	return res, nil
}

// trustsInstalled reports whether a [hooks.state] table's key names a
// hooks file of client a (the key's part before its event, group and
// handler) that still holds an entry of compact-guard's.
func (d *tomlDoc) trustsInstalled(a Agent) bool {
	for k := range d.state {
		parts := strings.Split(k, ":")
		if len(parts) < 4 {
			continue
		}
		data, _, ok, err := readIfExists(strings.Join(parts[:len(parts)-3], ":"))
		if err != nil || !ok {
			continue
		}
		if doc, err := ParseFor(a, data); err == nil && len(doc.Entries("")) > 0 {
			return true
		}
	}
	return false
}

// holdsManaged reports whether config.toml already holds a table of a
// handler the plan manages: install's trust was written before.
func (d *tomlDoc) holdsManaged(p TrustPlan) bool {
	for k := range d.state {
		if _, ok := p.Set[k]; ok || p.Move[k] != "" || slices.Contains(p.Drop, k) || p.Distrust[k] != "" {
			return true
		}
	}
	return false
}
