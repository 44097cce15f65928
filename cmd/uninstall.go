package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
)

func init() {
	register("uninstall", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdUninstall(ios, g, nil) })
}

// UninstallOptions are the inputs of "compact-guard uninstall".
type UninstallOptions = SettingsOptions

func newCmdUninstall(ios *IO, _ *GlobalOptions, runF func(*UninstallOptions) error) *cobra.Command {
	run := uninstallRun
	if runF != nil {
		run = runF
	}
	return newSettingsCmd(ios, &cobra.Command{
		Use:   "uninstall [--scope user|project|local] [--settings PATH] [--dry-run]",
		Short: "Remove compact-guard's hooks from Claude Code's settings",
		Long: `Remove the hook entries install writes ("<compact-guard>" precompact,
postcompact or watch, with their flags) from a Claude Code settings file,
and the matcher groups, event lists and "hooks" object that only this left
empty. An entry that runs more than compact-guard (compact-guard precompact
&& notify, VAR=value compact-guard ...) is yours: it stays, and uninstall
names it. Everything else stays byte for byte. The file is first copied to
<XDG state home>/compact-guard/backups/<file>-<hash>/<file>.bak-<time> (0600);
the newest 5 backups are kept. A file that then holds nothing but the
empty object install starts a new file with is removed instead, so a file
install created goes again. The binary and the snapshots are not touched
(see 'compact-guard dir').

` + settingsFlagsHelp + `
Exit status: 0 removed or nothing to remove, 1 the file could not be
read, parsed or written, 2 bad flags.`,
	}, run)
}

func uninstallRun(opts *UninstallOptions) error {
	if opts.Agent == settings.AgentCopilot {
		return copilotUninstall(opts) // IN-46
	}
	self, _ := opts.Executable() // recognition by name still works without it
	path, err := settings.AgentPathFor(opts.Agent, opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	if err := checkCodexConfig(opts); err != nil {
		return err
	}
	var plan settings.TrustPlan
	var foreign []settings.Entry
	res, err := settings.Edit{
		Agent:     opts.Agent,
		Path:      path,
		DryRun:    opts.DryRun,
		Now:       opts.Now,
		MustExist: true,
		Within:    opts.projectOf(path),
		Backups:   opts.Backups,
		Change: func(d *settings.Document) ([]settings.Change, error) {
			before := d.Handlers(self)
			changes := d.Uninstall(self)
			if opts.Agent == settings.AgentCodex {
				plan = settings.PlanTrust(path, before, d.Handlers(self))
			}
			foreign = d.Entries(self)
			return changes, nil
		},
	}.Apply()
	if err != nil {
		return err
	}
	noteForeign(opts, res.Path, foreign, "uninstall")
	switch {
	case !res.Existed:
		fmt.Fprintf(opts.IO.Out, "no settings file at %s; nothing to remove\n", res.Path)
	case len(res.Changes) == 0:
		fmt.Fprintf(opts.IO.Out, "no compact-guard hooks in %s\n", res.Path)
	case res.Removed:
		printEdit(opts.IO.Out, "removed "+res.Path+" (it held nothing but compact-guard's hooks)", res, opts.DryRun)
	default:
		printEdit(opts.IO.Out, "updated "+res.Path, res, opts.DryRun)
	}
	if opts.Agent == settings.AgentCodex && !plan.Empty() {
		if _, err := trustCodexHooks(opts, plan); err != nil {
			return err
		}
	}
	return nil
}
