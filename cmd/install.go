package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
)

func init() {
	register("install", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdInstall(ios, g, nil) })
}

// InstallOptions are the inputs of "compact-guard install".
type InstallOptions = SettingsOptions

func newCmdInstall(ios *IO, _ *GlobalOptions, runF func(*InstallOptions) error) *cobra.Command {
	run := installRun
	if runF != nil {
		run = runF
	}
	return newSettingsCmd(ios, &cobra.Command{
		Use:   "install [--scope user|project|local] [--settings PATH] [--dry-run]",
		Short: "Register compact-guard's hooks in Claude Code's settings",
		Long: `Merge compact-guard's hooks into a Claude Code settings file:

  PreCompact   matcher "manual|auto"  "<this binary>" precompact   timeout 60 s
  SessionStart matcher "compact"      "<this binary>" postcompact  timeout 15 s
  PostCompact  matcher "manual|auto"  "<this binary>" postcompact  timeout 15 s
               (left out for Claude Code before 2.1.76, which loads no hook
               from a file naming it: the release is --claude-version, else
               the one the claude program on PATH reports)

The command is this binary's absolute path (symlinks resolved), in double
quotes so that spaces work in sh and in Git Bash, which Claude Code uses for
hooks on Windows. Every other key and every other hook stays as it was,
byte for byte; what install adds follows the file's layout (indentation,
line endings, one line or several).
An entry of compact-guard's (recognised by the program's name,
compact-guard, and its sub-command) is updated in place, never duplicated:
its program becomes this binary, and the flags you added to the command
(precompact --keep 100) stay, as does a timeout of 5-600 s (1-600 s for
postcompact). Running install twice changes nothing. Before changing an
existing file install copies it to <file>.bak-<YYYYmmdd-HHMMSS> (local
time) and keeps the newest 5 such backups, then replaces the file
atomically, keeping its permissions (0600 for a new file). A file that is
not strict JSON (Claude Code reads no comments) is left untouched and
install fails.

The global --dir and --lang do not go into the hooks: to give a hook a
flag, add it to its command in the settings file, where install keeps it.

` + settingsFlagsHelp + `
Exit status: 0 installed or already installed, 1 the file could not be
read, parsed or written, 2 bad flags.`,
		Example: `  compact-guard install
  compact-guard install --scope local --dry-run
  compact-guard install --settings ./my-settings.json`,
	}, run, func(c *cobra.Command, opts *SettingsOptions) {
		c.Flags().StringVar(&opts.ClaudeVersion, "claude-version", "", "the Claude Code release the hooks are for (default: the one the claude program on PATH reports)")
	})
}

func installRun(opts *InstallOptions) error {
	exe, err := opts.Executable()
	if err != nil {
		return err
	}
	if isTemporaryBuild(exe) {
		return fmt.Errorf("refusing to register %s: it is a temporary build that disappears when 'go run' ends; build it first with 'go build -o ~/.local/bin/compact-guard .'", exe)
	}
	path, err := settings.PathFor(opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	client, from := opts.ClaudeVersion, "--claude-version"
	if client == "" && opts.FindClaude != nil {
		client, from = opts.FindClaude()
	}
	for _, h := range settings.Hooks {
		if !h.KnownTo(client) {
			fmt.Fprintf(opts.IO.ErrOut, "note: Claude Code %s (%s) does not know %s, which came in %s; it is left out, since that release loads no hook from a settings file that names it\n",
				client, from, h.Event, h.Since)
		}
	}
	res, err := settings.Edit{
		Path:   path,
		DryRun: opts.DryRun,
		Now:    opts.Now,
		DirPerm: func() os.FileMode {
			if opts.Settings == "" && opts.Scope != settings.ScopeUser {
				return 0o755 // a project's .claude/ is shared with the repository
			}
			return 0o700
		}(),
		Change: func(d *settings.Document) ([]settings.Change, error) { return d.Install(exe, client) },
	}.Apply()
	if err != nil {
		return err
	}
	out := opts.IO.Out
	if len(res.Changes) == 0 {
		fmt.Fprintf(out, "compact-guard hooks already installed in %s\n", res.Path)
		return nil
	}
	verb := "updated"
	if !res.Existed {
		verb = "created"
	}
	printEdit(out, verb+" "+res.Path, res, opts.DryRun)
	if opts.DryRun {
		return nil
	}
	if opts.Settings == "" && opts.Scope == settings.ScopeProject {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s is usually committed, and the hooks name this machine's path to compact-guard; --scope local keeps them personal\n", filepath.Base(res.Path))
	}
	if opts.Settings == "" && opts.Scope != settings.ScopeUser {
		if wd := filepath.Dir(filepath.Dir(res.Path)); settings.GitRootAbove(wd) != "" && settings.GitRootAbove(wd) != wd {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s is inside the git work tree %s; Claude Code reads .claude/ in the folder it is started in\n", wd, settings.GitRootAbove(wd))
		}
	}
	fmt.Fprintln(out, "check the setup with: compact-guard doctor")
	return nil
}
