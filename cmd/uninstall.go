package cmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func init() {
	register(func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdUninstall(ios, g, nil) })
}

// UninstallOptions are the inputs of "compact-guard uninstall".
type UninstallOptions struct {
	IO       *IO
	Scope    string
	Settings string
	DryRun   bool

	// Executable is the running binary, which also counts as ours under
	// another name.
	Executable func() (string, error)
	Host       hostEnv
	Now        func() time.Time
}

func newCmdUninstall(ios *IO, _ *GlobalOptions, runF func(*UninstallOptions) error) *cobra.Command {
	opts := &UninstallOptions{IO: ios, Executable: selfExecutable, Host: defaultHostEnv(), Now: time.Now}
	c := &cobra.Command{
		Use:   "uninstall [--scope user|project|local] [--settings PATH] [--dry-run]",
		Short: "Remove compact-guard's hooks from Claude Code's settings",
		Long: `Remove compact-guard's hook entries (any event whose command runs
compact-guard precompact or postcompact) from a Claude Code settings file,
and the matcher groups, event lists and "hooks" object that only this left
empty. Everything else stays. The file is first copied to
<file>.bak-<YYYYmmdd-HHMMSS>. The binary and the snapshots are not touched
(see 'compact-guard dir').

` + settingsFlagsHelp + `
Exit status: 0 removed or nothing to remove, 1 the file could not be
read, parsed or written, 2 bad flags.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkScopeFlags(cmd, opts.Scope, opts.Settings); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return uninstallRun(opts)
		},
	}
	addSettingsFlags(c, &opts.Scope, &opts.Settings, &opts.DryRun)
	return c
}

func uninstallRun(opts *UninstallOptions) error {
	self, _ := opts.Executable() // recognition by name still works without it
	path, err := settingsPathFor(opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	res, err := editSettings(settingsEdit{
		Path:      path,
		DryRun:    opts.DryRun,
		Now:       opts.Now,
		MustExist: true,
		Change: func(root *jsonNode) ([]settingsChange, error) {
			return uninstallHooks(root, self), nil
		},
	})
	if err != nil {
		return err
	}
	out := opts.IO.Out
	switch {
	case !res.Existed:
		fmt.Fprintf(out, "no settings file at %s; nothing to remove\n", res.Path)
	case len(res.Changes) == 0:
		fmt.Fprintf(out, "no compact-guard hooks in %s\n", res.Path)
	case opts.DryRun:
		fmt.Fprintf(out, "would change %s (dry run, nothing written):\n%s", res.Path, res.Diff)
	default:
		fmt.Fprintf(out, "updated %s\n  backup  %s\n", res.Path, res.Backup)
		for _, c := range res.Changes {
			fmt.Fprintf(out, "  %s\n", c)
		}
	}
	return nil
}
