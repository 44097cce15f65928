package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/settings"
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
		Short: "Register compact-guard's hooks with a client: Claude Code, or --agent codex, qwen, copilot or gemini",
		Long: `Merge compact-guard's hooks into a Claude Code settings file (the other
clients' files, with --agent, are listed at the end):

  PreCompact   matcher "manual|auto"  "<this binary>" precompact   timeout 60 s
  SessionStart matcher "compact"      "<this binary>" postcompact  timeout 15 s
  PostCompact  matcher "manual|auto"  "<this binary>" postcompact  timeout 15 s
               (left out for Claude Code before 2.1.76, which loads no hook
               from a file naming it: the release is --claude-version, else
               the one the claude program on PATH reports)
  UserPromptSubmit, PostToolUse, PostToolUseFailure (2.0.56 and later),
  Stop, SessionStart "resume"     "<this binary>" watch        timeout 10 s

The command is this binary's absolute path (symlinks resolved), in double
quotes so that spaces work in sh and in Git Bash, which Claude Code uses for
hooks on Windows. Every other key and every other hook stays as it was,
byte for byte; what install adds follows the file's layout (indentation,
line endings, one line or several).
An entry of compact-guard's (the program compact-guard, its sub-command
and that sub-command's flags, nothing more) is updated in place, never
duplicated: its program becomes this binary, and the flags you added to
the command (precompact --keep 100) stay, as does a timeout of 5-600 s
(1-600 s for postcompact); in a Codex hooks file other than your own
~/.codex/hooks.json only when config.toml already trusts that exact
handler, else install writes its own handler there and says what it
left out. An entry that runs more than that
(compact-guard precompact && notify, VAR=value compact-guard ...) is
yours: install leaves it as it is and says so. Running install twice
changes nothing. Before changing an existing file install copies it (0600)
to <XDG state home>/compact-guard/backups/<file>-<hash>/<file>.bak-<time>
and keeps the newest 5 such backups, then replaces the file atomically,
keeping its permissions (0600 for a new file). Beside the backups it
records what the file was and what it created (install-trace.json), so
that uninstall gives the file back byte for byte. A file that is not strict
JSON (Claude Code reads no comments), not a regular file, or larger than
4 MiB is left untouched and install fails.

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
	if own := agent.Of(opts.Agent).Own; own != nil {
		return own.Install(opts.request(exe)) // IN-41
	}
	path, err := settings.AgentPathFor(opts.Agent, opts.Scope, opts.Settings, opts.Host)
	if err != nil {
		return err
	}
	client, from := opts.ClaudeVersion, "--claude-version"
	if client == "" && opts.FindClaude != nil && opts.Agent.IsClaude() {
		client, from = opts.FindClaude()
	}
	for _, h := range settings.Hooks {
		if !h.KnownTo(client) {
			fmt.Fprintf(opts.IO.ErrOut, "note: Claude Code %s (%s) does not know %s, which came in %s; it is left out, since that release loads no hook from a settings file that names it\n",
				client, from, h.Event, h.Since)
		}
	}
	if err := checkTrustConfig(opts); err != nil {
		return err
	}
	carry, cfgPath, err := carryFor(opts, path)
	if err != nil {
		return err
	}
	var plan settings.TrustPlan
	var foreign []settings.Entry
	var notes []settings.CarryNote
	res, err := settings.Edit{
		Agent:   opts.Agent,
		Path:    path,
		DryRun:  opts.DryRun,
		Now:     opts.Now,
		Within:  opts.projectOf(path),
		Backups: opts.Backups,
		Trace:   settings.TraceInstall,
		Self:    exe,
		DirPerm: func() os.FileMode {
			if opts.Settings == "" && opts.Scope != settings.ScopeUser {
				return 0o755 // a project's .claude/ is shared with the repository
			}
			return 0o700
		}(),
		Change: func(d *settings.Document) ([]settings.Change, error) {
			before := d.Handlers(exe)
			changes, err := d.Install(exe, client, carry)
			notes = d.CarryNotes()
			if err == nil && agent.Of(opts.Agent).Trust != nil {
				plan = settings.PlanTrust(path, before, d.Handlers(exe))
			}
			foreign = unmanagedEntries(d, exe)
			return changes, err
		},
	}.Apply()
	if err != nil {
		return err
	}
	noteForeign(opts, res.Path, foreign, "install")
	noteCarried(opts, res.Path, cfgPath, notes)
	out := opts.IO.Out
	if len(res.Changes) == 0 {
		fmt.Fprintf(out, "compact-guard hooks already installed in %s\n", res.Path)
	} else {
		verb := "updated"
		if !res.Existed {
			verb = "created"
		}
		printEdit(out, verb+" "+res.Path, res, opts.DryRun)
	}
	trusted, err := installTrust(opts, plan, path)
	if err != nil {
		return err
	}
	if opts.DryRun || len(res.Changes) == 0 && !trusted {
		return nil
	}
	if opts.Settings == "" && opts.Scope == settings.ScopeProject {
		personal := "--scope local keeps them personal"
		if !opts.Agent.HasScope(settings.ScopeLocal) {
			personal = "--scope user keeps them personal" // a client with no local file
		}
		fmt.Fprintf(opts.IO.ErrOut, "note: %s is usually committed, and the hooks name this machine's path to compact-guard; %s\n", filepath.Base(res.Path), personal)
	}
	if opts.Settings == "" && opts.Scope != settings.ScopeUser && opts.Agent.IsClaude() {
		if wd := filepath.Dir(filepath.Dir(res.Path)); settings.GitRootAbove(wd) != "" && settings.GitRootAbove(wd) != wd {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s is inside the git work tree %s; Claude Code reads .claude/ in the folder it is started in\n", wd, settings.GitRootAbove(wd))
		}
	}
	notePluginsStandDown(opts, res.Path)
	fmt.Fprintf(out, "check the setup with: compact-guard doctor%s\n", opts.Agent.Flag())
	return nil
}

// request is what the client's own install or uninstall is asked (a
// hooks file of its own, agent.OwnFile), exe the binary to register or
// the running one.
func (o *SettingsOptions) request(exe string) agent.Request {
	return agent.Request{Exe: exe, Scope: o.Scope, Settings: o.Settings, Host: o.Host, DryRun: o.DryRun, Out: o.IO.Out, ErrOut: o.IO.ErrOut}
}

// installTrust records, for a client that runs only the hooks its config
// file trusts (Codex CLI), the trust of the handlers install wrote
// (IN-20), and notes a project the client does not trust; it reports
// whether the trust changed. Other clients run their hooks as the file
// says.
func installTrust(opts *InstallOptions, plan settings.TrustPlan, path string) (bool, error) {
	t := agent.Of(opts.Agent).Trust
	if t == nil {
		return false, nil
	}
	tr, err := trustHooks(opts, t, plan, settings.TraceInstall)
	if err != nil {
		return false, err
	}
	trusted := tr.Changed()
	if !trusted {
		fmt.Fprintf(opts.IO.Out, "trust already recorded in %s\n", tr.Path)
	}
	if opts.Settings == "" && opts.Scope == settings.ScopeProject && !opts.DryRun {
		if note := t.ProjectNote(tr.Path, path); note != "" {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", note)
		}
	}
	return trusted, nil
}

// trustHooks carries out plan in the config file of t's client (IN-20) and
// prints what changed.
func trustHooks(opts *SettingsOptions, t *agent.Trust, plan settings.TrustPlan, mode settings.TraceMode) (*settings.TrustResult, error) {
	config, err := t.Config(opts.Host)
	if err != nil {
		return nil, err
	}
	res, err := settings.TrustEdit{Path: config, Plan: plan, DryRun: opts.DryRun, Now: opts.Now, Backups: opts.Backups, Trace: mode, Agent: opts.Agent}.Apply()
	if err != nil {
		return nil, err
	}
	printTrust(opts.IO.Out, res, t.Who, opts.DryRun)
	return res, nil
}

// printTrust says what a trust edit of who's config did (or, in a dry run,
// would do).
func printTrust(out io.Writer, res *settings.TrustResult, who string, dryRun bool) {
	switch {
	case !res.Changed():
		return
	case dryRun:
		fmt.Fprintf(out, "would change %s (dry run, nothing written):\n%s", res.Path, res.Diff)
		return
	}
	switch {
	case res.Removed:
		fmt.Fprintf(out, "removed %s (install created it for the trust of its hooks alone)\n", res.Path)
	case res.Trace != nil && res.Trace.Restored:
		fmt.Fprintf(out, "restored %s (byte for byte as install found it)\n", res.Path)
	case !res.Existed:
		fmt.Fprintf(out, "created %s (%s runs only the hooks it trusts there)\n", res.Path, who)
	default:
		fmt.Fprintf(out, "updated %s (%s runs only the hooks it trusts there)\n", res.Path, who)
	}
	if res.Backup != "" {
		fmt.Fprintf(out, "  backup  %s (%s)\n", res.Backup, backupCount(res.BackupsKept, res.BackupsRemoved))
	}
	for _, k := range res.Trusted {
		fmt.Fprintf(out, "  trusted   %s\n", k)
	}
	for _, k := range res.Moved {
		fmt.Fprintf(out, "  moved     %s\n", k)
	}
	for _, k := range res.Untrusted {
		fmt.Fprintf(out, "  removed   %s\n", k)
	}
	for _, k := range res.Distrusted {
		fmt.Fprintf(out, "  untrusted %s (not a handler install writes)\n", k)
	}
	printTrace(out, res.Trace)
}

// unmanagedEntries are the entries naming compact-guard that install
// leaves as they are (IN-21): they run more than compact-guard and its
// flags.
func unmanagedEntries(d *settings.Document, exe string) []settings.Entry {
	var out []settings.Entry
	for _, e := range d.Entries(exe) {
		if !e.Installed() && e.Unmanaged != "" {
			out = append(out, e)
		}
	}
	return out
}

// noteForeign says on stderr which entries naming compact-guard install or
// uninstall (verb) left as they are, and why: they are the user's.
func noteForeign(opts *SettingsOptions, path string, entries []settings.Entry, verb string) {
	for _, e := range entries {
		why := e.Unmanaged
		if why == "" {
			why = e.Foreign
		}
		fmt.Fprintf(opts.IO.ErrOut, "note: %s: %s entry %s is not one install writes (%s); %s leaves it as it is\n",
			path, e.Event, strconv.Quote(e.Command), why, verb)
	}
}

// checkTrustConfig refuses, before the hooks file is changed, a config
// file of a client that runs only the hooks it trusts (Codex's
// config.toml) that the trust edit could not read or parse (IN-22).
func checkTrustConfig(opts *SettingsOptions) error {
	t := agent.Of(opts.Agent).Trust
	if t == nil {
		return nil
	}
	config, err := t.Config(opts.Host)
	if err != nil {
		return err
	}
	return settings.CheckConfig(config)
}

// carryFor says whose flags install carries over in the file at path
// (IN-31): every entry's in the user's own file; for a client that runs
// only the hooks its config file (cfgPath) trusts (Codex), elsewhere only
// those of a handler that file already trusts as it stands; for a client
// that runs a project's hooks as the file says, every entry's, named on
// stderr.
func carryFor(opts *SettingsOptions, path string) (settings.Carry, string, error) {
	carry := settings.Carry{Own: opts.Settings == "" && opts.Scope == settings.ScopeUser}
	t := agent.Of(opts.Agent).Trust
	if t == nil {
		return carry, "", nil
	}
	cfgPath, err := t.Config(opts.Host)
	if err != nil {
		return carry, "", err
	}
	if !carry.Own {
		trusts, err := t.Trusts(cfgPath, path)
		if err != nil {
			return carry, "", err
		}
		carry.Trusts = trusts
	}
	return carry, cfgPath, nil
}

// noteCarried says on stderr which flags install carried over from a file
// that is not the user's own, and what it left out of an entry it
// replaced by its own handler (IN-31).
func noteCarried(opts *SettingsOptions, path, cfgPath string, notes []settings.CarryNote) {
	for _, n := range notes {
		words := strings.Join(n.Words, ", ")
		switch {
		case !n.Kept:
			fmt.Fprintf(opts.IO.ErrOut, "note: %s: %s entry %s is not trusted as it stands in %s, and a hooks file that is not your own may come from anyone: install writes its own handler in its place, without %s (it carries such a file's flags only from a handler config.toml already trusts)\n",
				path, n.Event, strconv.Quote(n.Command), cfgPath, words)
		case agent.Of(opts.Agent).Trust != nil:
			fmt.Fprintf(opts.IO.ErrOut, "note: %s: %s entry keeps %s: %s trusts that exact handler, so check that they are yours (compact-guard doctor%s)\n",
				path, n.Event, words, cfgPath, opts.Agent.Flag())
		default:
			fmt.Fprintf(opts.IO.ErrOut, "note: %s: %s entry keeps %s from the file: %s runs a project's hooks as the file says, so check that they are yours\n",
				path, n.Event, words, opts.Agent.Title())
		}
	}
}

// notePluginsStandDown names each enabled plugin whose hooks will stand
// down for the file install wrote (PL-28). Only for a scope: --settings
// consults neither the home folder nor the current one (IN-1).
func notePluginsStandDown(opts *InstallOptions, path string) {
	if !opts.Agent.IsClaude() || opts.Settings != "" {
		return
	}
	for _, id := range settings.RunningPlugins(opts.Host) {
		if opts.Scope != settings.ScopeUser {
			// PL-32: a project's file never makes the plugin stand down.
			fmt.Fprintf(opts.IO.ErrOut, "note: plugin %s registers compact-guard too, and its hooks do not give way to %s, a file a repository can commit: both run (two snapshots per compaction); --scope user keeps one registration\n", id, path)
			continue
		}
		fmt.Fprintf(opts.IO.ErrOut, "note: plugin %s registers compact-guard too; while %s registers these hooks, the plugin's hooks stand down (one registration wins: no second snapshot or pointer)\n", id, path)
	}
}
