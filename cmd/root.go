// Package cmd holds compact-guard's cobra commands: their flags, help,
// output and exit codes. A hook command builds the options of its flow and
// calls it: precompact the take (package take), postcompact and watch the
// hand-over (package handover); hookio reads their payloads and writes
// their output. Parsing and behaviour live in those packages and in
// transcript, snapshot, selectsnap and restore.
package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

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
	// hookWarnings carries problems met before a hook ran (flags that did
	// not parse) into its log line.
	hookWarnings []string
	// flagsDropped says the hook runs without the flags it was given
	// (rerunHook): precompact then prints no hint, since those flags may
	// have turned it off (PC-27).
	flagsDropped bool
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
	return newRootCmd(ios, "")
}

// newRootCmd builds the root command with only the sub-command only names,
// or with all of them when only is "": a process runs one command, and
// building the others costs every hook (PF-17).
func newRootCmd(ios *IO, only string) *cobra.Command {
	g := &GlobalOptions{}
	root := &cobra.Command{
		Use:   "compact-guard",
		Short: "Keep a coding agent's working state across context compaction",
		Long: `compact-guard runs as hooks of five coding agents: Claude Code, Codex CLI,
Qwen Code, GitHub Copilot CLI and Gemini CLI. Before a compaction
(PreCompact; Gemini CLI's PreCompress) "compact-guard precompact" writes a
snapshot of the session's mechanical state: typed prompts, edited files,
commands, tasks and git state. After it (SessionStart with source
"compact"; where a client has no such event, its next prompt or tool call)
the session gets a short pointer to its own snapshot; registered for
PostCompact too, "compact-guard postcompact" records that the compaction
completed and what its summary dropped, which "compact-guard watch" hands
over once with the next prompt or tool call (the residue). watch, on every
prompt, tool call and stop, also says when a planned compaction is due,
with a handoff block that "compact-guard handoff" prints and checks.
"compact-guard install" registers the hooks (Claude Code's; --agent codex,
qwen, copilot or gemini for the others); "compact-guard doctor" checks the
setup; "compact-guard audit" says per compaction whether the pointer reached
the model.` + "\n" + exitHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Version:       version(),
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetVersionTemplate("compact-guard {{.Version}} (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// completion is our own command; without this, a root built with only
	// the command being run would get cobra's default one built for it.
	root.CompletionOptions.DisableDefaultCmd = true
	root.PersistentFlags().StringVar(&g.Dir, "dir", "", "snapshot folder (default $COMPACT_GUARD_DIR, else <XDG state home>/compact-guard/snapshots)")
	root.PersistentFlags().StringVar(&g.Lang, "lang", "", `language of the pointer and snapshot headings: "en" or "ru" (default from LC_ALL, LC_MESSAGES, LANG)`)

	for name, add := range commandBuilders {
		if only == "" || name == only {
			root.AddCommand(add(ios, g))
		}
	}
	addCompletions(root, g)
	return root
}

// commandBuilders maps each sub-command's name to its builder; each file
// registers its own in init so that commands can be added without touching
// this file. (cobra lists commands by name, so the map's order is not seen.)
var commandBuilders = map[string]func(*IO, *GlobalOptions) *cobra.Command{}

func register(name string, b func(*IO, *GlobalOptions) *cobra.Command) {
	commandBuilders[name] = b
}

// commandName is the registered sub-command args run when nothing before it
// needs the whole tree: only --dir and --lang (with their values) may come
// first. Otherwise ("help", --help, --version, a typo, none) it is "".
func commandName(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--dir" || a == "--lang":
			i++
		case strings.HasPrefix(a, "--dir=") || strings.HasPrefix(a, "--lang="):
		case strings.HasPrefix(a, "-"):
			return ""
		default:
			if commandBuilders[a] == nil {
				return ""
			}
			return a
		}
	}
	return ""
}

// Main runs compact-guard with args and returns the process exit code. It is
// the one place that maps errors to exit codes.
func Main(args []string, in io.Reader, out, errOut io.Writer) int {
	ios := &IO{In: in, Out: out, ErrOut: errOut}
	args = copilotPluginArgs(args, os.Getenv, in) // PL-10
	root := newRootCmd(ios, commandName(args))
	root.SetArgs(args)
	if c, _, err := root.Find(args); err == nil && c.Annotations[hookAnnotation] != "" {
		// A hook exits 0 even when the client closed its stdout or stderr;
		// other commands keep the usual death by SIGPIPE (`list | head`).
		ignoreBrokenPipe()
	}
	c, err := root.ExecuteC()
	if err != nil && c != nil && c.Annotations[hookAnnotation] != "" {
		return rerunHook(ios, c.Name(), args, err)
	}
	if err == nil && c != nil && c.Annotations[hookAnnotation] != "" && helpAsked(c) && !interactive(in) {
		return runHookDespiteHelp(ios, c)
	}
	return exitCode(err, errOut)
}

// helpAsked reports whether -h or --help was given to c: cobra then printed
// the help and ran nothing.
func helpAsked(c *cobra.Command) bool {
	f := c.Flags().Lookup("help")
	return f != nil && f.Changed && f.Value.String() == "true"
}

// interactive reports a stdin that is a character device: a terminal (or
// /dev/null), where a person typed the command. Claude Code hands a hook its
// payload through a pipe.
func interactive(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// runHookDespiteHelp runs a hook whose command line asked for help (-h in
// settings.json) as if the flag were absent: cobra printed the help on
// stderr (PC-21) and ran nothing, which would cost the compaction its
// snapshot or pointer. The log line says the flag was not used (RB-24).
func runHookDespiteHelp(ios *IO, c *cobra.Command) int {
	ios.hookWarnings = append(ios.hookWarnings, "flags not used: --help (a hook runs as if it were absent; the help went to stderr)")
	_ = c.Flags().Set("help", "false")
	if err := c.RunE(c, c.Flags().Args()); err != nil {
		fmt.Fprintln(ios.ErrOut, "compact-guard: "+err.Error())
	}
	return ExitOK
}

// rerunHook runs a hook whose flags did not parse with fewer of them, so
// that a typo in settings.json costs the flags, not the snapshot: first with
// only the global flags (--dir, --lang), then with none. A hook never fails
// the client: exit 2 would block a compaction.
func rerunHook(ios *IO, name string, args []string, err error) int {
	fmt.Fprintln(ios.ErrOut, "compact-guard: "+err.Error())
	ios.hookWarnings = append(ios.hookWarnings, "flags not used: "+err.Error())
	ios.flagsDropped = true
	for _, retry := range [][]string{append([]string{name}, globalFlags(args)...), {name}} {
		root := newRootCmd(ios, name)
		root.SetArgs(retry)
		if _, err = root.ExecuteC(); err == nil {
			return ExitOK
		}
		ios.hookWarnings = append(ios.hookWarnings, "flags not used: "+err.Error())
	}
	fmt.Fprintln(ios.ErrOut, "compact-guard: "+err.Error())
	return ExitOK
}

// globalFlags picks --dir and --lang (with their values) out of args.
func globalFlags(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--dir" || a == "--lang":
			if i+1 < len(args) {
				out = append(out, a, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--dir=") || strings.HasPrefix(a, "--lang="):
			out = append(out, a)
		}
	}
	return out
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
