package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/settings"
)

// SettingsOptions are the inputs of install and uninstall, which take the
// same flags and differ only in the change they make.
type SettingsOptions struct {
	IO *IO
	// Scope is user, project or local; Settings, when set, names the file
	// directly and wins over Scope.
	Scope    string
	Settings string
	DryRun   bool
	// Agent is the client whose hooks file is changed (IN-19): claude
	// (the default), codex or qwen.
	Agent settings.Agent

	// Executable returns the running binary (selfExecutable): install
	// registers it, uninstall also counts it as compact-guard under
	// another name.
	Executable func() (string, error)
	Host       settings.Host
	Now        func() time.Time
	// ClaudeVersion is the Claude Code release install writes for (flag
	// --claude-version); "" asks FindClaude (IN-18).
	ClaudeVersion string
	// FindClaude asks the Claude Code on PATH for its release
	// (claudeVersion); tests substitute it.
	FindClaude func() (version, from string)
	// Backups is where the backups of changed files go (IN-8):
	// <XDG state home>/compact-guard/backups.
	Backups string
	// WatchDir is watch's state folder, which uninstall removes once
	// nothing registers compact-guard (IN-83); "" leaves it alone.
	WatchDir string
}

// backupsDir is compact-guard's folder for the backups install and
// uninstall make (IN-8), beside the default snapshot folder and never
// moved by --dir: a backup is of the user's settings, not of snapshots.
func backupsDir() string { return filepath.Join(xdg.StateHome, "compact-guard", "backups") }

// projectOf is the project folder a change of path must stay inside
// (IN-22): the folder holding .claude/, .codex/ or .qwen/ for the project
// and local scopes, "" for the user's files and --settings.
func (o *SettingsOptions) projectOf(path string) string {
	if o.Settings != "" || o.Scope == settings.ScopeUser {
		return ""
	}
	return filepath.Dir(filepath.Dir(path))
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

The other clients, with --agent (the user's file; --scope project for the
project's):
  codex    Codex CLI: ~/.codex/hooks.json (or $CODEX_HOME's), and the
           hooks' trust in Codex's config.toml
  qwen     Qwen Code: ~/.qwen/settings.json (its comments stay)
  copilot  GitHub Copilot CLI: ~/.copilot/hooks/compact-guard.json, a file
           of compact-guard's own (project: .github/hooks/)
  gemini   Gemini CLI: ~/.gemini/settings.json (PreCompress, BeforeAgent)
`

// newSettingsCmd completes install's or uninstall's command c with what the
// two share: no arguments, --scope, --settings and --dry-run, their checks,
// and the options; run does the command's own work, and more adds a
// command's own flags.
func newSettingsCmd(ios *IO, c *cobra.Command, run func(*SettingsOptions) error, more ...func(*cobra.Command, *SettingsOptions)) *cobra.Command {
	opts := &SettingsOptions{IO: ios, Executable: selfExecutable, Host: settings.DefaultHost(), Now: time.Now, FindClaude: claudeVersion, Backups: backupsDir()}
	for _, m := range more {
		m(c, opts)
	}
	var agent string
	c.Args = cobra.NoArgs
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		a, err := settings.ParseAgent(agent)
		if err != nil {
			return usageError{err}
		}
		opts.Agent = a
		switch {
		case a.HasScope(opts.Scope):
		case a.IsClaude():
			return usageError{fmt.Errorf("invalid --scope %q: want user, project or local", opts.Scope)}
		default:
			return usageError{fmt.Errorf("invalid --scope %q for %s: want user or project", opts.Scope, a.Title())}
		}
		if opts.Settings != "" && cmd.Flags().Changed("scope") {
			return usageError{errors.New("--scope and --settings cannot be used together")}
		}
		return run(opts)
	}
	c.Flags().StringVar(&opts.Scope, "scope", settings.ScopeUser, "settings file to change: user, project or local")
	c.Flags().StringVar(&opts.Settings, "settings", "", "change this settings file instead of a scope's")
	c.Flags().BoolVar(&opts.DryRun, "dry-run", false, "show the change as a diff and write nothing")
	c.Flags().StringVar(&agent, "agent", string(settings.AgentClaude), "the client: "+settings.AgentNames(true))
	_ = c.RegisterFlagCompletionFunc("agent", agentCompletions)
	_ = c.RegisterFlagCompletionFunc("scope", cobra.FixedCompletions([]cobra.Completion{
		settings.ScopeUser + "\t~/.claude/settings.json",
		settings.ScopeProject + "\t.claude/settings.json (usually committed)",
		settings.ScopeLocal + "\t.claude/settings.local.json (personal)",
	}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// agentCompletions completes --agent with the clients' names and titles.
func agentCompletions(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, a := range settings.Agents {
		out = append(out, cobra.Completion(string(a)+"\t"+a.Title()))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// printEdit prints what an edit that changed something did: the diff of a
// dry run, else what happened to the file (done), its backup and one line
// per change.
func printEdit(out io.Writer, done string, res *settings.Result, dryRun bool) {
	if dryRun {
		fmt.Fprintf(out, "would change %s (dry run, nothing written):\n%s", res.Path, res.Diff)
		return
	}
	fmt.Fprintln(out, done)
	if res.Backup != "" {
		fmt.Fprintf(out, "  backup  %s (%s)\n", res.Backup, backupCount(res.BackupsKept, res.BackupsRemoved))
	}
	for _, c := range res.Changes {
		fmt.Fprintf(out, "  %s\n", c)
	}
}

// selfExecutable is the running binary's absolute path with symlinks
// resolved, so that the hook keeps working when a symlink moves.
func selfExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the running binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Abs(exe)
}

// isTemporaryBuild reports a binary built by "go run" or "go test", which
// disappears when the command ends.
func isTemporaryBuild(exe string) bool {
	return strings.Contains(filepath.ToSlash(exe), "/go-build")
}

// backupCount says how many backups of a file are kept (IN-8).
func backupCount(kept, removed int) string {
	if removed > 0 {
		return fmt.Sprintf("%d backups kept, %d older removed", kept, removed)
	}
	return fmt.Sprintf("%d backups kept, at most %d", kept, settings.KeepBackups)
}
