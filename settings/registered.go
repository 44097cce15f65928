package settings

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// Registered lists the files install knows that still register
// compact-guard (IN-82): every scope's hooks file of every client (the
// project's as seen from the current folder), the installed Claude Code
// plugins' hooks files, and extra (a --settings file). An entry counts when
// it names compact-guard (IN-5), install's or the user's: either runs
// watch, whose state uninstall would otherwise remove under it. A file
// that cannot be read or parsed counts too, since what it holds is not
// known.
func Registered(h Host, self string, extra ...string) []string {
	type file struct {
		path     string
		comments bool
	}
	var files []file
	for _, a := range Agents {
		for _, scope := range a.Scopes() {
			if p, err := AgentPathFor(a, scope, "", h); err == nil {
				files = append(files, file{p, a.Comments()})
			}
		}
	}
	for _, p := range pluginHookFiles(h) {
		files = append(files, file{p, false})
	}
	for _, p := range extra {
		// A --settings file may be any client's: comments are allowed
		// when that client reads its file with them, so reading with
		// them is safe.
		files = append(files, file{p, true})
	}
	var out []string
	for _, f := range files {
		if slices.Contains(out, f.path) {
			continue
		}
		data, _, ok, err := readIfExists(f.path)
		if err == nil && !ok {
			continue
		}
		if d, perr := parse(data, f.comments); err == nil && perr == nil && len(d.Entries(self)) == 0 {
			continue
		}
		out = append(out, f.path)
	}
	return out
}

// pluginHookFiles are the hooks files of every installed Claude Code
// plugin (PL-5), enabled or not.
func pluginHookFiles(h Host) []string {
	dir, err := pluginConfigDir(h)
	if err != nil {
		return nil
	}
	plugins, _ := readInstalledPlugins(filepath.Join(dir, "plugins", "installed_plugins.json"))
	var out []string
	for _, p := range plugins {
		if p.InstallPath != "" {
			out = append(out, pluginHooksPaths(p.InstallPath)...)
		}
	}
	return out
}

// RemoveWatchState removes watch's per-session state folder dir (IN-83):
// its state files and locks, then the folder. Anything else in it — a
// folder, a file of another name — keeps the folder, with what is left
// named in the error; so does a folder compact-guard cannot trust as its
// own. A folder that does not exist is not an error (false, nil).
func RemoveWatchState(dir string) (bool, error) {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return false, nil
	}
	if err := trust.CheckPrivateDir(dir); err != nil {
		return false, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	var left []string
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && (strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".lock")) {
			if os.Remove(filepath.Join(dir, n)) == nil {
				continue
			}
		}
		left = append(left, n)
	}
	if len(left) > 0 {
		return false, &os.PathError{Op: "keep", Path: dir, Err: errHolds(left)}
	}
	return true, os.Remove(dir)
}

type errHolds []string

func (e errHolds) Error() string { return "it holds " + strings.Join(e, ", ") }
