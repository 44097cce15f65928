package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/snapshot"
)

func init() {
	register(func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdInstall(ios, g, nil) })
}

// InstallOptions are the inputs of "compact-guard install".
type InstallOptions struct {
	IO *IO
	// Scope is user, project or local; Settings, when set, names the file
	// directly and wins over Scope.
	Scope    string
	Settings string
	DryRun   bool

	// Executable returns the binary to register (selfExecutable).
	Executable func() (string, error)
	Host       hostEnv
	Now        func() time.Time
}

// settingsScopesHelp lists the files behind --scope; Claude Code reads all
// of them and merges their hooks.
const settingsScopesHelp = `  user     $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
  project  <project>/.claude/settings.json (usually committed)
  local    <project>/.claude/settings.local.json (personal)
where <project> is $CLAUDE_PROJECT_DIR when set, else the current folder:
Claude Code reads .claude/ in the folder it is started in, so run this
there.`

// settingsFlagsHelp is the part of install's and uninstall's help about
// --scope and --settings.
const settingsFlagsHelp = `Settings files (Claude Code reads all of them and merges their hooks):
` + settingsScopesHelp + ` --settings PATH names any file instead.
`

func newCmdInstall(ios *IO, _ *GlobalOptions, runF func(*InstallOptions) error) *cobra.Command {
	opts := &InstallOptions{IO: ios, Executable: selfExecutable, Host: defaultHostEnv(), Now: time.Now}
	c := &cobra.Command{
		Use:   "install [--scope user|project|local] [--settings PATH] [--dry-run]",
		Short: "Register compact-guard's hooks in Claude Code's settings",
		Long: `Merge compact-guard's hooks into a Claude Code settings file:

  PreCompact   matcher "manual|auto"  "<this binary>" precompact   timeout 60 s
  SessionStart matcher "compact"      "<this binary>" postcompact  timeout 15 s
  PostCompact  matcher "manual|auto"  "<this binary>" postcompact  timeout 15 s

The command is this binary's absolute path (symlinks resolved), in double
quotes so that spaces work in sh and in Git Bash, which Claude Code uses for
hooks on Windows. Every other key and every other hook stays as it was.
An entry of compact-guard's (recognised by the program's name,
compact-guard, and its sub-command) is updated in place, never duplicated:
its program becomes this binary, and the flags you added to the command
(precompact --keep 100) stay, as does a timeout of 5-600 s (1-600 s for
postcompact). Running install twice changes nothing. Before changing an existing file
install copies it to <file>.bak-<YYYYmmdd-HHMMSS> (local time), then
replaces it atomically, keeping its permissions (0600 for a new file).
A file holding invalid JSON is left untouched and install fails.

The global --dir and --lang do not go into the hooks: to give a hook a
flag, add it to its command in the settings file, where install keeps it.

` + settingsFlagsHelp + `
Exit status: 0 installed or already installed, 1 the file could not be
read, parsed or written, 2 bad flags.`,
		Example: `  compact-guard install
  compact-guard install --scope local --dry-run
  compact-guard install --settings ./my-settings.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkScopeFlags(cmd, opts.Scope, opts.Settings); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return installRun(opts)
		},
	}
	addSettingsFlags(c, &opts.Scope, &opts.Settings, &opts.DryRun)
	return c
}

func addSettingsFlags(c *cobra.Command, scope, settings *string, dryRun *bool) {
	c.Flags().StringVar(scope, "scope", scopeUser, "settings file to change: user, project or local")
	c.Flags().StringVar(settings, "settings", "", "change this settings file instead of a scope's")
	c.Flags().BoolVar(dryRun, "dry-run", false, "show the change as a diff and write nothing")
}

func checkScopeFlags(cmd *cobra.Command, scope, settings string) error {
	switch scope {
	case scopeUser, scopeProject, scopeLocal:
	default:
		return usageError{fmt.Errorf("invalid --scope %q: want user, project or local", scope)}
	}
	if settings != "" && cmd.Flags().Changed("scope") {
		return usageError{errors.New("--scope and --settings cannot be used together")}
	}
	return nil
}

func installRun(opts *InstallOptions) error {
	exe, err := opts.Executable()
	if err != nil {
		return err
	}
	if isTemporaryBuild(exe) {
		return fmt.Errorf("refusing to register %s: it is a temporary build that disappears when 'go run' ends; build it first with 'go build -o ~/.local/bin/compact-guard .'", exe)
	}
	path, err := settingsPathFor(opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	res, err := editSettings(settingsEdit{
		Path:   path,
		DryRun: opts.DryRun,
		Now:    opts.Now,
		DirPerm: func() os.FileMode {
			if opts.Settings == "" && opts.Scope != scopeUser {
				return 0o755 // a project's .claude/ is shared with the repository
			}
			return 0o700
		}(),
		Change: func(root *jsonNode) ([]settingsChange, error) { return installHooks(root, exe) },
	})
	if err != nil {
		return err
	}
	out := opts.IO.Out
	switch {
	case len(res.Changes) == 0:
		fmt.Fprintf(out, "compact-guard hooks already installed in %s\n", res.Path)
		return nil
	case opts.DryRun:
		fmt.Fprintf(out, "would change %s (dry run, nothing written):\n%s", res.Path, res.Diff)
		return nil
	}
	verb := "updated"
	if !res.Existed {
		verb = "created"
	}
	fmt.Fprintf(out, "%s %s\n", verb, res.Path)
	if res.Backup != "" {
		fmt.Fprintf(out, "  backup  %s\n", res.Backup)
	}
	for _, c := range res.Changes {
		fmt.Fprintf(out, "  %s\n", c)
	}
	if opts.Settings == "" && opts.Scope == scopeProject {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s is usually committed, and the hooks name this machine's path to compact-guard; --scope local keeps them personal\n", filepath.Base(res.Path))
	}
	if opts.Settings == "" && opts.Scope != scopeUser {
		if wd := filepath.Dir(filepath.Dir(res.Path)); gitRootAbove(wd) != "" && gitRootAbove(wd) != wd {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s is inside the git work tree %s; Claude Code reads .claude/ in the folder it is started in\n", wd, gitRootAbove(wd))
		}
	}
	fmt.Fprintln(out, "check the setup with: compact-guard doctor")
	return nil
}

// settingsEdit is one change to one settings file.
type settingsEdit struct {
	Path    string
	DryRun  bool
	Now     func() time.Time
	DirPerm os.FileMode // for a missing parent folder
	// Change edits the tree in place and says what it did; no change
	// means nothing is written.
	Change func(root *jsonNode) ([]settingsChange, error)
	// MustExist makes a missing file "nothing to do" instead of an empty
	// object to fill.
	MustExist bool
}

// settingsEditResult says what editSettings did.
type settingsEditResult struct {
	Path    string // the file written (symlinks resolved)
	Existed bool
	Changes []settingsChange
	Backup  string
	Diff    string // dry run only
}

// editSettings reads, changes and (unless a dry run) writes a settings
// file: backup first, then an atomic replace. On any error the file is
// left as it was.
func editSettings(e settingsEdit) (*settingsEditResult, error) {
	sf, err := readSettings(e.Path)
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	res := &settingsEditResult{Path: sf.Path, Existed: sf.Exists}
	if !sf.Exists && e.MustExist {
		return res, nil
	}
	res.Changes, err = e.Change(sf.Root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; nothing was changed", e.Path, err)
	}
	if len(res.Changes) == 0 {
		return res, nil
	}
	data := sf.render()
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
