package cmd

import (
	"bytes"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/clients/copilot"
	"github.com/compact-guard/compact-guard/snapshot"
)

// GitHub Copilot CLI's hooks (specs/postcompact.md PO-22 to PO-27). Copilot
// has a preCompact but no event after a compaction and no compact source
// for sessionStart; a hook's flat {"additionalContext": …} reaches the model
// from userPromptSubmitted, sessionStart, preToolUse and postToolUse
// (measured, 1.0.102). So "compact-guard copilot" writes the snapshot at
// PreCompact, as precompact does, and hands its pointer over on the first
// UserPromptSubmit or PostToolUse after the client wrote that compaction's
// boundary (TR-67), once.

func init() { register("copilot", newCmdCopilotDefault) }

// envCopilot is set to "1" by Copilot CLI in every hook's environment.
const envCopilot = "COPILOT_CLI"

// underCopilot reports whether the hook runs for Copilot CLI: its
// COPILOT_CLI=1, unless Claude Code runs the hook (a claude started from
// a Copilot shell inherits COPILOT_CLI, and sets CLAUDECODE=1).
func underCopilot(getenv func(string) string) bool {
	return getenv(envCopilot) == "1" && getenv("CLAUDECODE") != "1"
}

// unlessCopilot wraps a Claude Code hook command: Copilot CLI also runs the
// entries of .claude/settings.json, with its own payloads, and those are
// not its guard, so there they do nothing (PO-28): the Copilot entries
// (install --agent copilot) are, and one compaction gets one pointer.
func unlessCopilot[O any](run func(*O) error) func(*O) error {
	return func(o *O) error {
		if underCopilot(os.Getenv) {
			return nil
		}
		return run(o)
	}
}

// CopilotOptions configures one run of the Copilot CLI hook.
type CopilotOptions struct {
	IO       *IO
	Dir      string
	Lang     snapshot.Lang
	CodePage int
	Getenv   func(string) string
	Now      func() time.Time
	// precompact runs the PreCompact part (tests swap it).
	precompact func(*PrecompactOptions) error
	// waitLimit bounds the wait for the events file (PO-29); 0 is
	// copilot.WaitLimit.
	waitLimit time.Duration
}

func (o *CopilotOptions) wait() time.Duration {
	if o.waitLimit > 0 {
		return o.waitLimit
	}
	return copilot.WaitLimit
}

func newCmdCopilotDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdCopilot(ios, g, copilotRun)
}

func newCmdCopilot(ios *IO, g *GlobalOptions, runF func(*CopilotOptions) error) *cobra.Command {
	opts := &CopilotOptions{IO: ios, Getenv: os.Getenv, Now: time.Now, precompact: precompactRun}
	c := &cobra.Command{
		Use:   "copilot",
		Short: "GitHub Copilot CLI hook: snapshot at PreCompact, pointer on the next prompt or tool result",
		Long: `The hook "compact-guard install --agent copilot" registers for GitHub Copilot CLI,
for PreCompact, UserPromptSubmit and PostToolUse (PascalCase names, so that
Copilot passes Claude Code's payload fields). At PreCompact it writes the
session's snapshot as precompact does, and prints nothing: Copilot ignores
preCompact's output. On the first UserPromptSubmit or PostToolUse after
Copilot wrote that compaction's session.compaction_complete, it prints
{"additionalContext": "<pointer>"}, once; before that, or for a compaction
that did not complete, it prints nothing. It exits 0 on every input.`,
		Hidden:      true,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			return runF(opts)
		},
	}
	c.SetOut(ios.ErrOut)
	return c
}

// copilotPluginArgs maps a hook run of the Claude Code plugin under Copilot
// CLI to the Copilot hook (PL-10). Copilot loads the plugin's
// hooks/hooks.json (Claude Code's format) and runs its entries with
// COPILOT_PLUGIN_ROOT set, but drops the exec form's args (measured,
// 1.0.102: the program ran without them), so compact-guard starts with no
// sub-command, or, should a later release pass them, with precompact,
// postcompact or watch: either way it is "compact-guard copilot", which
// does what each event needs once. By hand (stdin a terminal) nothing
// changes.
func copilotPluginArgs(args []string, getenv func(string) string, in io.Reader) []string {
	if !underCopilot(getenv) || getenv("COPILOT_PLUGIN_ROOT") == "" || interactive(in) {
		return args
	}
	switch {
	case len(args) == 0:
		return []string{"copilot"}
	case len(args) == 1 && (args[0] == "precompact" || args[0] == "postcompact" || args[0] == "watch"):
		return []string{"copilot"}
	}
	return args
}

// copilotRun is the Copilot CLI hook (clients/copilot) with this command's
// options; it never returns an error.
func copilotRun(opts *CopilotOptions) error {
	return copilot.Hook(&copilot.HookOptions{
		In: opts.IO.In, Out: opts.IO.Out, ErrOut: opts.IO.ErrOut, Dir: opts.Dir, Lang: opts.Lang,
		CodePage: opts.CodePage, Getenv: opts.Getenv, Now: opts.Now, Timeout: defaultTimeout,
		StateFileName: defaultStateFileName, MaxChars: defaultMaxChars, WaitLimit: opts.wait(),
		PreCompact: func(raw []byte) error {
			return opts.precompact(&PrecompactOptions{
				IO: &IO{In: bytes.NewReader(raw), Out: io.Discard, ErrOut: opts.IO.ErrOut}, Dir: opts.Dir, Lang: opts.Lang,
				Keep: defaultKeep, StateFileName: defaultStateFileName, Timeout: defaultTimeout, GitTimeout: defaultGitTimeout,
				EarlierBudget: defaultEarlierBudget, NoHint: true, CodePage: opts.CodePage, Getenv: opts.Getenv, Now: opts.Now,
			})
		},
	})
}
