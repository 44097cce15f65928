package cmd

import (
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/handover"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/take"
)

func init() { register("postcompact", newCmdPostcompactDefault) }

// PostcompactOptions configures one run of the SessionStart(compact) and
// PostCompact hook.
type PostcompactOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	MaxAge        time.Duration
	MaxChars      int
	StateFileName string
	Timeout       time.Duration
	CodePage      int
	Getenv        func(string) string
	Now           func() time.Time

	// beforeStep, when set, is called as each step bounded by the deadline
	// begins, with the step's name: tests make a step hang with it.
	beforeStep func(string)
}

// Defaults of the postcompact flags: the hand-over's own.
const (
	defaultMaxAge          = handover.DefaultMaxAge
	defaultMaxChars        = handover.DefaultMaxChars
	defaultPostcompactTime = handover.DefaultTimeout
)

func newCmdPostcompactDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdPostcompact(ios, g, unlessCopilot(postcompactRun)) // PO-28
}

func newCmdPostcompact(ios *IO, g *GlobalOptions, runF func(*PostcompactOptions) error) *cobra.Command {
	opts := &PostcompactOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	c := &cobra.Command{
		Use:   "postcompact",
		Short: "SessionStart(compact) hook: point the compacted session at its own snapshot",
		Long: `For Claude Code, Codex CLI and Qwen Code, which start the compacted
session with SessionStart (GitHub Copilot CLI and Gemini CLI have no such
event: their pointer comes with the next prompt, through "compact-guard
copilot" and "compact-guard watch").

As a SessionStart hook (matcher "compact"), prints
{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"..."}}
with a short pointer to this session's own snapshot, when one no older than
--max-age exists; nothing otherwise. As a PostCompact hook, records in the
session's newest snapshot that the compaction completed, and prints nothing.

It exits 0 on every input.

Try it by hand:
  echo '{"session_id":"demo","source":"compact"}' | compact-guard postcompact`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(*cobra.Command, []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.DurationVar(&opts.MaxAge, "max-age", defaultMaxAge, "ignore snapshots older than this")
	f.IntVar(&opts.MaxChars, "max-chars", defaultMaxChars, "hard cap on the pointer's length in characters (300 to 9000)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.DurationVar(&opts.Timeout, "timeout", defaultPostcompactTime, "total deadline; each step has its share of it")
	f.Duration("settle", 0, take.SettleRetired) // PO-C14
	_ = f.MarkHidden("settle")
	return c
}

// postcompactRun is the hand-over after a compaction (package handover)
// with this command's options; it never returns an error.
func postcompactRun(opts *PostcompactOptions) error {
	return handover.Postcompact(&handover.Options{
		In: opts.IO.In, Out: opts.IO.Out, HookWarnings: opts.IO.hookWarnings,
		Dir: opts.Dir, Lang: opts.Lang, MaxAge: opts.MaxAge, MaxChars: opts.MaxChars, StateFileName: opts.StateFileName,
		Timeout: opts.Timeout, CodePage: opts.CodePage, Getenv: opts.Getenv, Now: opts.Now,
		BeforeStep: opts.beforeStep, ClientOf: handoverClient("postcompact", opts.Getenv),
	})
}

// handoverClient tells the hand-over what it needs to know of the client
// whose hook sub runs for: its name as the payload shows it, whether a
// plugin's hook stands down (PL-26), and the window of a chat file that
// names none, for a snapshot taken at the compaction.
func handoverClient(sub string, getenv func(string) string) func(hookio.Payload) handover.Client {
	return func(p hookio.Payload) handover.Client {
		return handover.Client{Name: sessionAgent(p, nil), StandsDown: pluginStandsDown(p, sub, getenv), ChatWindow: agent.ChatWindow, WritesLate: agent.WritesLate, Supersedes: agent.Supersedes}
	}
}
