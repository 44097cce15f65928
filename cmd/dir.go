package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func init() {
	register("dir", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdDir(ios, g, nil) })
}

// DirOptions are the inputs of "compact-guard dir".
type DirOptions struct {
	IO     *IO
	Global *GlobalOptions
}

func newCmdDir(ios *IO, g *GlobalOptions, runF func(*DirOptions) error) *cobra.Command {
	opts := &DirOptions{IO: ios, Global: g}
	return &cobra.Command{
		Use:   "dir",
		Short: "Print the snapshot folder",
		Long: `Print the folder snapshots are written to: --dir, else $COMPACT_GUARD_DIR,
else <XDG state home>/compact-guard/snapshots (on Linux
~/.local/state/compact-guard/snapshots). The log, compact-guard.log, is in
the folder above it. The hooks resolve the folder in Claude Code's
environment, which may differ from your shell's.`,
		Example: `  cd "$(compact-guard dir)"
  ls -t "$(compact-guard dir)" | head`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return dirRun(opts)
		},
	}
}

func dirRun(opts *DirOptions) error {
	_, err := fmt.Fprintln(opts.IO.Out, snapshotDir(opts.Global))
	return err
}
