package cmd

import (
	"github.com/spf13/cobra"
)

func init() { register(newCmdCompletion) }

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
              (for every session: add that line to $PROFILE)`,
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
