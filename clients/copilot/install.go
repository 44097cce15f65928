package copilot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
)

// install and uninstall --agent copilot (specs/install.md IN-41 to IN-48):
// compact-guard's own hooks file, .github/hooks/compact-guard.json or
// $COPILOT_HOME/hooks/compact-guard.json, written whole, never another
// tool's file; uninstall removes exactly that file.

// copilotWithin checks that path's folder, once its symlinks are resolved,
// is inside project (IN-44): a .github/hooks that leads out of the
// repository is not written through.
func copilotWithin(path, project string) error {
	if project == "" {
		return nil
	}
	dir := filepath.Dir(path)
	for d := dir; ; d = filepath.Dir(d) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			root, rerr := filepath.EvalSymlinks(project)
			if rerr != nil {
				return rerr
			}
			rel, err := filepath.Rel(root, filepath.Join(real, strings.TrimPrefix(dir, d)))
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%s leads outside the project %s", dir, project)
			}
			return nil
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// ownFile is install and uninstall of Copilot CLI's hooks file, which is
// compact-guard's own.
var ownFile = &agent.OwnFile{Install: install, Uninstall: uninstall}

// install writes compact-guard's hooks file for the binary opts.Exe
// (IN-41 to IN-45).
func install(opts agent.Request) error {
	exe := opts.Exe
	path, err := CopilotPath(opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	project := copilotProject(opts)
	if err := copilotWithin(path, project); err != nil {
		return err
	}
	old, err := ReadCopilotHooks(path)
	if err != nil {
		return fmt.Errorf("%s: %w; left untouched", path, err)
	}
	want := CopilotFile(exe)
	out := opts.Out
	if old != nil {
		st, perr := ReadCopilotFile(old, exe)
		switch {
		case perr != nil:
			return fmt.Errorf("%s: %w; left untouched", path, perr)
		case len(st.Foreign) > 0:
			return fmt.Errorf("%s holds entries that are not compact-guard's (%s); left untouched: move them to another file of %s", path, strings.Join(st.Foreign, ", "), filepath.Dir(path))
		case st.Current:
			fmt.Fprintf(out, "compact-guard hooks already installed in %s\n", path)
			return nil
		}
	}
	verb := "created"
	if old != nil {
		verb = "updated"
	}
	if opts.DryRun {
		fmt.Fprintf(out, "would write %s (dry run, nothing written):\n%s", path, want)
		return nil
	}
	perm, dirPerm := os.FileMode(0o600), os.FileMode(0o700)
	if project != "" {
		perm, dirPerm = 0o644, 0o755 // .github/hooks is the repository's
	}
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return err
	}
	if err := snapshot.WriteFileAtomic(path, want, perm); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s %s: PreCompact, UserPromptSubmit and PostToolUse run %s\n", verb, path, settings.Command(exe, CopilotSub))
	if project != "" {
		fmt.Fprintf(opts.ErrOut, "note: %s is usually committed, and the hooks name this machine's path to compact-guard; --scope user keeps them personal\n", filepath.Base(path))
		if !CopilotTrusted(opts.Host, project) {
			fmt.Fprintf(opts.ErrOut, "note: Copilot CLI runs a project's hooks only in a folder it trusts: answer yes when it asks about %s, or add it to \"trustedFolders\" in %s\n", project, CopilotConfigPath(opts.Host))
		}
	}
	fmt.Fprintf(out, "check the setup with: compact-guard doctor --agent copilot\n")
	return nil
}

// uninstall removes compact-guard's hooks file, exactly it (IN-46); self
// is opts.Exe, the running binary ("" when unknown).
func uninstall(opts agent.Request) error {
	self := opts.Exe
	path, err := CopilotPath(opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	old, err := ReadCopilotHooks(path)
	if err != nil {
		return fmt.Errorf("%s: %w; left untouched", path, err)
	}
	out := opts.Out
	if old == nil {
		fmt.Fprintf(out, "no compact-guard hooks file at %s: nothing to remove\n", path)
		return nil
	}
	st, perr := ReadCopilotFile(old, self)
	switch {
	case perr != nil:
		return fmt.Errorf("%s: %w; left untouched", path, perr)
	case len(st.Foreign) > 0:
		return fmt.Errorf("%s holds entries that are not compact-guard's (%s); left untouched", path, strings.Join(st.Foreign, ", "))
	case len(st.Ours) == 0:
		return fmt.Errorf("%s holds no compact-guard entry; left untouched", path)
	}
	if opts.DryRun {
		fmt.Fprintf(out, "would remove %s (dry run, nothing removed)\n", path)
		return nil
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	fmt.Fprintf(out, "removed %s\n", path)
	return nil
}

// copilotProject is the project folder for the project scope: the
// folder holding .github/, "" for the user's file and --settings.
func copilotProject(o agent.Request) string {
	if o.Settings != "" || o.Scope == settings.ScopeUser {
		return ""
	}
	wd, err := o.Host.Getwd()
	if err != nil {
		return ""
	}
	return wd
}
