package cmd

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/take"
)

func init() { register("precompact", newCmdPrecompactDefault) }

// PrecompactOptions configures one run of the PreCompact hook.
type PrecompactOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	Keep          int
	StateFileName string
	Timeout       time.Duration
	GitTimeout    time.Duration
	EarlierBudget int64
	NoRedact      bool
	// NoHint keeps stdout empty: no summary hint (PC-31).
	NoHint bool
	// GitPath is passed to gitstate.Read ("" = git from PATH).
	GitPath  string
	CodePage int
	Getenv   func(string) string
	Now      func() time.Time
	// ReadClock is the clock the transcript read paces itself by against
	// its deadline (nil: time.Now; transcript TR-50); tests inject one.
	ReadClock func() time.Time

	// beforeStep, when set, is called as each step bounded by the deadline
	// begins, with the step's name: tests make a step hang with it.
	beforeStep func(string)
}

// Defaults of the precompact flags: the take's own.
const (
	defaultKeep          = take.DefaultKeep
	defaultStateFileName = take.DefaultStateFileName
	defaultTimeout       = take.DefaultTimeout
	defaultGitTimeout    = take.DefaultGitTimeout
	defaultEarlierBudget = take.DefaultEarlierBudget
)

func newCmdPrecompactDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdPrecompact(ios, g, unlessCopilot(precompactRun)) // PO-28
}

func newCmdPrecompact(ios *IO, g *GlobalOptions, runF func(*PrecompactOptions) error) *cobra.Command {
	opts := &PrecompactOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	var budgetMiB int64
	c := &cobra.Command{
		Use:   "precompact",
		Short: "PreCompact hook (Gemini CLI: PreCompress): write a snapshot of the session before it is compacted",
		Long: `Reads the PreCompact hook payload from stdin, reads the session transcript and
git state, and writes snap_<time>_<sid8>.md and .json into the snapshot folder.
Claude Code, Codex CLI and Qwen Code run it at PreCompact, Gemini CLI at
PreCompress (a snapshot only when a compression is due); GitHub Copilot CLI's
hook is "compact-guard copilot", which does the same.

For a Claude Code session it then prints one paragraph of plain text on
stdout, the summary hint: where the snapshot is, the last request, the files
in work, the last failing command, which Claude Code hands its summarizer
(--no-hint, or COMPACT_GUARD_HINT=off in the environment or in the "env" of
settings.json, turn it off). It prints nothing else, nothing at all when the
snapshot could not be written, and exits 0 on every input, so that it can
never block a compaction; problems go to compact-guard.log in the folder
above the snapshot folder and to a failure marker that postcompact reports.

Try it by hand:
  echo '{"session_id":"demo","transcript_path":"/path/to/session.jsonl","trigger":"manual"}' | compact-guard precompact`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			opts.EarlierBudget = budgetMiB << 20
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.IntVar(&opts.Keep, "keep", defaultKeep, "number of snapshots to keep in the folder (at least 1)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.DurationVar(&opts.Timeout, "timeout", defaultTimeout, "total deadline; after it the snapshot holds what was gathered")
	f.DurationVar(&opts.GitTimeout, "git-timeout", defaultGitTimeout, "deadline for reading git state")
	f.Duration("settle", 0, take.SettleRetired) // PC-36
	_ = f.MarkHidden("settle")
	f.Int64Var(&budgetMiB, "earlier-budget", defaultEarlierBudget>>20, "MiB of earlier transcript segments to read when no earlier snapshot covers them")
	f.BoolVar(&opts.NoRedact, "no-redact", false, "write prompts and commands verbatim, without redacting secrets")
	f.BoolVar(&opts.NoHint, "no-hint", false, "print no summary hint on stdout (as COMPACT_GUARD_HINT=off does)")
	return c
}

// precompactRun is the take (package take) with this command's options; it
// never returns an error.
func precompactRun(opts *PrecompactOptions) error {
	return take.Run(&take.Options{
		In: opts.IO.In, Out: opts.IO.Out, HookWarnings: opts.IO.hookWarnings, FlagsDropped: opts.IO.flagsDropped,
		Dir: opts.Dir, Lang: opts.Lang, Keep: opts.Keep, StateFileName: opts.StateFileName,
		Timeout: opts.Timeout, GitTimeout: opts.GitTimeout, EarlierBudget: opts.EarlierBudget,
		NoRedact: opts.NoRedact, NoHint: opts.NoHint, GitPath: opts.GitPath,
		CodePage: opts.CodePage, Getenv: opts.Getenv, Now: opts.Now, ReadClock: opts.ReadClock,
		BeforeStep: opts.beforeStep, ClientOf: opts.clientOf,
	})
}

// clientOf is what the take needs to know of the client whose PreCompact
// this is: its name as the payload shows it, whether it takes no snapshot
// this time (a plugin's hook standing down, PL-26; a Gemini CLI
// compression that compresses nothing, PC-43), and the window of a chat
// file that names none.
func (o *PrecompactOptions) clientOf(p hookio.Payload) take.Client {
	c := take.Client{Name: sessionAgent(p, nil), ChatWindow: agent.ChatWindow, WritesLate: agent.WritesLate, Supersedes: agent.Supersedes}
	if why := pluginStandsDown(p, "precompact", o.Getenv); why != "" {
		c.SkipOutcome, c.Skip = hookio.OutcomeNone, why // PL-26: no snapshot, no hint
	} else if why, skip := agent.SkipPreCompact(p, o.Getenv); skip { // PC-43
		c.SkipOutcome, c.Skip = hookio.OutcomeSkipped, why
	}
	return c
}
