package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/snapshot"
)

func init() { register("completion", newCmdCompletion) }

// newCmdCompletion replaces cobra's default completion command, which
// exits 0 with its help for an unknown shell; this one is a usage error
// (exit 2) instead.
func newCmdCompletion(ios *IO, _ *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script for a shell. To load it:

  bash        source <(compact-guard completion bash)
              (for every session: compact-guard completion bash >
              ~/.local/share/bash-completion/completions/compact-guard)
  zsh         compact-guard completion zsh > "${fpath[1]}/_compact-guard"
              (needs "autoload -U compinit; compinit" in ~/.zshrc)
  fish        compact-guard completion fish > ~/.config/fish/completions/compact-guard.fish
  powershell  compact-guard completion powershell | Out-String | Invoke-Expression
              (for every session: add that line to $PROFILE)

Besides commands and flags, it completes snapshot names after 'show'
(newest first), session ids after --session, and the values of --scope
and --lang.`,
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		Args:                  cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(ios.Out, true)
			case "zsh":
				return root.GenZshCompletion(ios.Out)
			case "fish":
				return root.GenFishCompletion(ios.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(ios.Out)
			}
		},
	}
}

// addCompletions completes what users type after the commands: snapshot
// names after show, session ids after --session (list, show) and the
// languages of --lang. It runs when the tree is built, since it reaches
// into commands that other files build; install's and uninstall's --scope
// is completed where those are built (newSettingsCmd).
func addCompletions(root *cobra.Command, g *GlobalOptions) {
	_ = root.RegisterFlagCompletionFunc("lang", cobra.FixedCompletions(
		[]cobra.Completion{"en\tEnglish", "ru\tRussian"}, cobra.ShellCompDirectiveNoFileComp))
	for _, c := range root.Commands() {
		switch c.Name() {
		case "show":
			c.ValidArgsFunction = completeSnapshotNames(g)
			_ = c.RegisterFlagCompletionFunc("session", completeSessions(g))
		case "list":
			_ = c.RegisterFlagCompletionFunc("session", completeSessions(g))
		}
	}
}

// completionEntries lists the snapshots for a completion: one listing of
// the folder (--dir given on the line counts), no record read.
func completionEntries(g *GlobalOptions) []snapshot.Entry {
	es, _ := (&snapshot.Store{Dir: snapshotDir(g)}).Entries()
	return es
}

// completeSnapshotNames offers show's one argument: the snapshot names,
// newest first, each with its local time and session. A word holding a
// path separator is left to the shell's file completion, since show takes
// a path too.
func completeSnapshotNames(g *GlobalOptions) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if strings.ContainsAny(toComplete, `/\`) {
			return nil, cobra.ShellCompDirectiveDefault
		}
		var out []cobra.Completion
		for _, e := range completionEntries(g) {
			if strings.HasPrefix(e.Name, toComplete) {
				out = append(out, cobra.CompletionWithDesc(e.Name, e.Time.Local().Format("2006-01-02 15:04:05")+", session "+e.SID8))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// completeSessions offers --session's value: the short session ids in the
// snapshot names (--session takes a prefix of the id), the session with
// the newest snapshot first.
func completeSessions(g *GlobalOptions) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		count := map[string]int{}
		var order []snapshot.Entry
		for _, e := range completionEntries(g) {
			if count[e.SID8] == 0 {
				order = append(order, e)
			}
			count[e.SID8]++
		}
		var out []cobra.Completion
		for _, e := range order {
			if strings.HasPrefix(e.SID8, toComplete) {
				out = append(out, cobra.CompletionWithDesc(e.SID8, fmt.Sprintf("%d snapshot(s), newest %s", count[e.SID8], e.Time.Local().Format("2006-01-02 15:04:05"))))
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}
