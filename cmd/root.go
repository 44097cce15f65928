// Package cmd holds compact-guard's cobra commands and the hook I/O: reading
// payloads from stdin and writing hook output. Parsing and behaviour live in
// the transcript, snapshot, selectsnap and restore packages.
package cmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes, documented in the root command's help.
const (
	ExitOK      = 0
	ExitFailure = 1 // a command failed (doctor: a check failed)
	ExitUsage   = 2 // bad flags or arguments
)

// Version is set at build time with -ldflags "-X .../cmd.Version=...".
var Version = "dev"

// IO is where a command reads and writes; tests substitute buffers.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// GlobalOptions are the flags every command shares.
type GlobalOptions struct {
	Dir  string
	Lang string
}

// usageError marks an error caused by how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// exitError carries an exit code chosen by the command (doctor's exit 1)
// without an extra message.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

const exitHelp = `
Exit status:
  0  success; precompact and postcompact exit 0 on every input, so that a
     compaction is never blocked
  1  a command failed (doctor: at least one check failed)
  2  bad flags or arguments
`

// NewRootCmd builds the command tree.
func NewRootCmd(ios *IO) *cobra.Command {
	g := &GlobalOptions{}
	root := &cobra.Command{
		Use:   "compact-guard",
		Short: "Keep a Claude Code session's working state across context compaction",
		Long: `compact-guard runs as two Claude Code hooks. Before a compaction (PreCompact)
"compact-guard precompact" writes a snapshot of the session's mechanical state:
typed prompts, edited files, commands, tasks and git state. After it
(SessionStart with source "compact") "compact-guard postcompact" hands the
session a short pointer to its own snapshot.` + "\n" + exitHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       Version,
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.PersistentFlags().StringVar(&g.Dir, "dir", "", "snapshot folder (default $COMPACT_GUARD_DIR, else <XDG state home>/compact-guard/snapshots)")
	root.PersistentFlags().StringVar(&g.Lang, "lang", "", `language of the pointer and snapshot headings: "en" or "ru" (default from LC_ALL, LC_MESSAGES, LANG)`)

	for _, add := range commandBuilders {
		root.AddCommand(add(ios, g))
	}
	return root
}

// commandBuilders lists the sub-commands; each file registers its own in
// init so that commands can be added without touching this file.
var commandBuilders []func(*IO, *GlobalOptions) *cobra.Command

func register(b func(*IO, *GlobalOptions) *cobra.Command) {
	commandBuilders = append(commandBuilders, b)
}

// Main runs compact-guard with args and returns the process exit code. It is
// the one place that maps errors to exit codes.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	ios := &IO{In: in, Out: out, ErrOut: errOut}
	root := NewRootCmd(ios)
	root.SetArgs(args)
	c, err := root.ExecuteC()
	if err != nil && c != nil && c.Annotations[hookAnnotation] != "" {
		// A hook never fails the client: exit 2 would block a compaction.
		fmt.Fprintln(errOut, "compact-guard: "+err.Error())
		return ExitOK
	}
	return exitCode(err, errOut)
}

func exitCode(err error, errOut io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintln(errOut, "compact-guard: "+err.Error())
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		fmt.Fprintln(errOut, "compact-guard: run 'compact-guard --help' for usage")
		return ExitUsage
	}
	return ExitFailure
}
