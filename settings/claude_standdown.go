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
	root := getenv("CLAUDE_PLUGIN_ROOT")
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

// SettingsRegistration names the first of Claude Code's settings files
// (user, project, local, as Claude Code reads them for the session of h)
// that registers compact-guard for event with sub-command sub in the form
// install writes (IN-21), with a program that exists and can run, in a
// file whose hooks Claude Code runs (no disableAllHooks or
// allowManagedHooksOnly); "" when none does (PL-27). A file that cannot be
// read or parsed counts as none: the plugin then runs, and at worst the
// hook runs twice, as before PL-26.
func SettingsRegistration(h Host, event, sub string) string {
	for _, src := range claudeSources(h) {
		if src.Ignored != "" {
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
			if e.Event == event && e.Sub == sub && e.Installed() && programRuns(e.Program) {
				return src.Path
			}
		}
	}
	return ""
}

// programRuns reports whether program is a file that can be started: a
// settings entry whose binary was removed does not make the plugin stand
// down, or nothing would run.
func programRuns(program string) bool {
	fi, err := os.Stat(program)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}
