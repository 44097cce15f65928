package settings

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// One registration wins (specs/install.md PL-26 to PL-30). When the plugin
// and a settings file both register compact-guard for an event, Claude
// Code runs both handlers (their commands differ), and every compaction
// made two snapshots and handed the model two pointers. The settings file
// wins: it is the registration the user made by hand, with the flags the
// user chose there, and `compact-guard uninstall` takes it back; the
// plugin's hook, which runs the same code, stands down for that event.

// RunsAsPlugin reports whether this process is a hook of an installed
// plugin (PL-26): Claude Code sets CLAUDE_PLUGIN_ROOT only for a plugin's
// hooks, and the binary running lies inside that folder (so a variable
// inherited by a settings hook's process does not count).
func RunsAsPlugin(getenv func(string) string, exe string) bool {
	return RunsInPlugin(getenv("CLAUDE_PLUGIN_ROOT"), exe)
}

// RunsInPlugin reports whether the binary exe lies inside the plugin folder
// root, symlinks resolved: Copilot CLI names it COPILOT_PLUGIN_ROOT (PL-33).
func RunsInPlugin(root, exe string) bool {
	if root == "" || exe == "" {
		return false
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if e, err := filepath.EvalSymlinks(exe); err == nil {
		exe = e
	}
	rel, err := filepath.Rel(root, exe)
	return err == nil && rel != "." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != ".."
}

// SettingsRegistration names the user's Claude Code settings file when it
// registers compact-guard for this hook call, in the form install writes
// (IN-21), so that Claude Code surely runs that entry too and the plugin's
// hook can give way to it (PL-27); "" when it does not. The call is the
// event, the sub-command and value, what Claude Code compares the group's
// matcher with: the trigger at PreCompact and PostCompact, the source at
// SessionStart, "" when the payload does not say (PL-31). The entry's
// program must exist and be able to run, in a file whose hooks run (no
// disableAllHooks or allowManagedHooksOnly). A project's files never count,
// nor a user settings file or program inside the project or its
// repository: a repository can commit any of them, and its settings must
// not turn the guard off (PL-32). Whatever cannot be known for sure counts
// as none: the plugin then runs, and at worst the hook runs twice, as
// before PL-26 — never not at all.
func SettingsRegistration(h Host, event, sub, value string) string {
	project, _ := ProjectDir(h)
	home := HomeOf(h)
	for _, src := range claudeSources(h) {
		if src.Ignored != "" || src.Scope != ScopeUser || !OutsideProject(src.Path, project, home) {
			continue
		}
		data, _, err := ReadFile(src.Path)
		if err != nil {
			continue
		}
		doc, err := Parse(data)
		if err != nil || doc.IsTrue("disableAllHooks") || doc.IsTrue("allowManagedHooksOnly") {
			continue
		}
		for _, e := range doc.Entries("") {
			if e.Event == event && e.Sub == sub && e.Installed() && !e.If && e.surelyRunsFor(value) &&
				ProgramRuns(e.Program) && OutsideProject(e.Program, project, home) {
				return src.Path
			}
		}
	}
	return ""
}

// OutsideProject reports whether path lies outside the project folder and
// outside the git work tree that holds it (the nearest folder above with a
// .git), symlinks resolved: a file there is not the repository's to write
// (PL-32). The home folder, as a project or a work tree (a session started
// in ~, dotfiles kept in git), holds the user's own settings and binaries,
// so it is not one of them. A path that cannot be made absolute is not
// known to be outside.
func OutsideProject(path, project, home string) bool {
	if project == "" {
		return false
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	roots := []string{project}
	for d := project; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			roots = append(roots, d)
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	for _, root := range roots {
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if home != "" && root == home {
			continue
		}
		if rel, err := filepath.Rel(root, p); err != nil || rel == "." || rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return false
		}
	}
	return true
}

// ProgramRuns reports whether program is a file that can be started: a
// settings entry whose binary was removed does not make the plugin stand
// down, or nothing would run.
func ProgramRuns(program string) bool {
	fi, err := os.Stat(program)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// HomeOf is h's home folder, "" when it has none.
func HomeOf(h Host) string {
	home, _ := h.Home()
	return home
}
