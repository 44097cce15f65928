package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

func init() {
	register("uninstall", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdUninstall(ios, g, nil) })
}

// UninstallOptions are the inputs of "compact-guard uninstall".
type UninstallOptions = SettingsOptions

func newCmdUninstall(ios *IO, g *GlobalOptions, runF func(*UninstallOptions) error) *cobra.Command {
	run := func(o *UninstallOptions) error {
		// watch keeps its state beside the snapshot folder (IN-83), which
		// --dir and COMPACT_GUARD_DIR move; flags are parsed by now.
		o.WatchDir = watch.StoreFor(snapshotDir(g)).Dir
		return uninstallRun(o)
	}
	if runF != nil {
		run = runF
	}
	return newSettingsCmd(ios, &cobra.Command{
		Use:   "uninstall [--scope user|project|local] [--settings PATH] [--dry-run]",
		Short: "Remove compact-guard's hooks from a client's settings (Claude Code, or --agent as for install)",
		Long: `Remove the hook entries install writes ("<compact-guard>" precompact,
postcompact or watch, with their flags) from a Claude Code settings file
(or, with --agent, another client's file, listed at the end),
and the matcher groups, event lists and "hooks" object that only this left
empty. An entry that runs more than compact-guard (compact-guard precompact
&& notify, VAR=value compact-guard ...) is yours: it stays, and uninstall
names it. Everything else stays byte for byte. The file is first copied to
<XDG state home>/compact-guard/backups/<file>-<hash>/<file>.bak-<time> (0600);
the newest 5 backups are kept. A file that then holds nothing but the
empty object install starts a new file with is removed instead, so a file
install created goes again. What install recorded beside the backups (an
install trace) lets uninstall give a file back byte for byte: the empty
"hooks" or event list you had stays, the folders install created go when
empty again, and a file that is exactly as install found it gets no new
backup, and the backups install made of it go. watch's state (watch/)
goes once no file install knows registers compact-guard. The binary, the
snapshots and their log are not touched (see 'compact-guard dir').

` + settingsFlagsHelp + `
Exit status: 0 removed or nothing to remove, 1 the file could not be
read, parsed or written, 2 bad flags.`,
	}, run)
}

func uninstallRun(opts *UninstallOptions) error {
	self, _ := opts.Executable() // recognition by name still works without it
	if own := agent.Of(opts.Agent).Own; own != nil {
		return own.Uninstall(opts.request(self)) // IN-46
	}
	path, err := settings.AgentPathFor(opts.Agent, opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	if err := checkTrustConfig(opts); err != nil {
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
		Trace:     settings.TraceUninstall,
		Self:      self,
		Change: func(d *settings.Document) ([]settings.Change, error) {
			before := d.Handlers(self)
			changes := d.Uninstall(self)
			if agent.Of(opts.Agent).Trust != nil {
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
	out := opts.IO.Out
	switch {
	case !res.Existed:
		fmt.Fprintf(out, "no settings file at %s; nothing to remove\n", res.Path)
	case len(res.Changes) == 0:
		fmt.Fprintf(out, "no compact-guard hooks in %s\n", res.Path)
	case res.Removed:
		printEdit(out, "removed "+res.Path+" (it held nothing but compact-guard's hooks)", res, opts.DryRun)
	case res.KeptVacant:
		// IN-88: no trace proves install created the file; the user's own
		// "{}" looks the same, so it stays.
		printEdit(out, "updated "+res.Path, res, opts.DryRun)
		verb := "kept   "
		if opts.DryRun {
			verb = "keeps  "
		}
		fmt.Fprintf(out, "%s %s (it holds nothing but {} now; without install's trace, whether install created it is not known)\n", verb, res.Path)
	case res.Trace != nil && res.Trace.Restored:
		printEdit(out, "restored "+res.Path+" (byte for byte as install found it)", res, opts.DryRun)
	default:
		printEdit(out, "updated "+res.Path, res, opts.DryRun)
	}
	printTrace(out, res.Trace)
	files := []string{res.Path}
	if t := agent.Of(opts.Agent).Trust; t != nil && !plan.Empty() {
		tr, err := trustHooks(opts, t, plan, settings.TraceUninstall)
		if err != nil {
			return err
		}
		files = append(files, tr.Path)
	}
	if opts.DryRun {
		// IN-87: what a run does after the file's change depends on that
		// change being made; the dry run says so instead of guessing.
		fmt.Fprintf(out, "dry run: a real run then removes the folders install created that are empty again, and watch's state when no file registers compact-guard any more, and says which\n")
		return nil
	}
	removed, kept := settings.RemoveCreatedDirs(opts.Backups, files...)
	for _, d := range removed {
		fmt.Fprintf(out, "removed %s (install created the folder; it is empty again)\n", d)
	}
	for _, d := range kept {
		fmt.Fprintf(out, "kept    %s (install created the folder, but it holds other files now)\n", d)
	}
	uninstallWatchState(opts, self)
	return nil
}

// printTrace says what uninstall did with install's trace of a file
// (IN-79 to IN-81): the backups that went with a file given back byte for
// byte, or why they stay.
func printTrace(out io.Writer, t *settings.TraceOutcome) {
	switch {
	case t == nil:
	case t.Ignored != "":
		fmt.Fprintf(out, "  note    install's trace not used (%s): empty containers it may have created are removed, folders kept\n", t.Ignored)
	case t.Restored && len(t.BackupsRemoved) > 0:
		fmt.Fprintf(out, "  backups removed: the %d install made (the file is as install found it)\n", len(t.BackupsRemoved))
	case t.BackupsKept != "":
		fmt.Fprintf(out, "  backups kept in %s (the file differs from the one install found)\n", t.BackupsKept)
	}
}

// uninstallWatchState removes watch's state folder once no file install
// knows registers compact-guard any more (IN-83), and otherwise says which
// files keep it.
func uninstallWatchState(opts *UninstallOptions, self string) {
	if opts.WatchDir == "" {
		return
	}
	if _, err := os.Lstat(opts.WatchDir); err != nil {
		return
	}
	var extra []string
	if opts.Settings != "" {
		if p, err := filepath.Abs(opts.Settings); err == nil {
			extra = append(extra, p)
		}
	}
	if left := settings.Registered(opts.Host, self, extra...); len(left) > 0 {
		fmt.Fprintf(opts.IO.Out, "kept    %s (watch's state: compact-guard is still registered in %s)\n", opts.WatchDir, strings.Join(left, ", "))
		return
	}
	if ok, err := settings.RemoveWatchState(opts.WatchDir); ok && err == nil {
		fmt.Fprintf(opts.IO.Out, "removed %s (watch's state: no file install knows registers compact-guard any more)\n", opts.WatchDir)
	} else if err != nil {
		fmt.Fprintf(opts.IO.Out, "kept    %s (watch's state: %v)\n", opts.WatchDir, err)
	}
}
