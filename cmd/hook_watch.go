package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/handover"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

func init() { register("watch", newCmdWatchDefault) }

// WatchOptions configures one run of the watch hook (specs/watch.md).
type WatchOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	Thresholds    []watch.Threshold
	Window        int64
	StopGate      bool
	StateFileName string
	MaxChars      int
	Timeout       time.Duration
	CodePage      int
	Getenv        func(string) string
	Now           func() time.Time

	// afterRead, when set, is called once the fill has been read and
	// before the state is: tests run another hook there, to interleave two
	// runs deterministically (WA-26).
	afterRead func()
}

// defaultWatchTimeout bounds a watch run: it reads the transcript backwards
// only as far as the newest response, so this is reached only on a stuck
// file system.
const defaultWatchTimeout = handover.DefaultTimeout

func newCmdWatchDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdWatch(ios, g, unlessCopilot(watchRun)) // PO-28
}

func newCmdWatch(ios *IO, g *GlobalOptions, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	thresholds := watchThresholds{s: watch.DefaultThresholds}
	opts.Thresholds, _ = watch.ParseThresholds(watch.DefaultThresholds)
	var window watchWindow
	c := &cobra.Command{
		Use:   "watch",
		Short: "Prompt, tool-call and stop hook: the residue, late pointers, and when a planned compaction is due",
		Long: `Reads how full the context is (the newest model response's usage) and, once
per threshold crossing, tells the agent that a planned compaction is due: a
handoff block in the state file ("compact-guard handoff --template"), checked
with "compact-guard handoff --check", then /compact from the user. Below the
first threshold it prints nothing. With --stop-gate, the Stop hook holds the
end of a turn once at the last threshold while no handoff is current. After a
compaction whose pointer did not reach the model (a session resumed on
Claude Code up to 2.1.119, or on Qwen Code), the next prompt carries it.
Registered for SessionStart (matcher "resume") it notes that the session
was resumed. After a Claude Code compaction, the first prompt or tool call
hands the model, once, what the summary dropped of the snapshot's facts (the
residue). On Qwen Code sessions the late pointer is all it does; on Gemini
CLI (BeforeAgent) it hands over the pointer of the compression that just
happened. Codex CLI and GitHub Copilot CLI do not run it.

Thresholds are tokens (450k,500k,600k) or percentages of the window
(50%,60%,70%, the default). The window comes from --window, else the model,
lowered to CLAUDE_CODE_AUTO_COMPACT_WINDOW or the autoCompactWindow setting.

It exits 0 on every input.

Try it by hand:
  echo '{"session_id":"demo","hook_event_name":"PostToolUse","transcript_path":"/path/to/session.jsonl"}' | compact-guard watch`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(*cobra.Command, []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			opts.Thresholds, opts.Window = thresholds.t, window.n
			if thresholds.t == nil {
				opts.Thresholds, _ = watch.ParseThresholds(watch.DefaultThresholds)
			}
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.Var(&thresholds, "thresholds", "context fills at which a planned compaction is due: tokens (450k,500k,600k) or percentages of the window (50%,60%,70%)")
	f.Var(&window, "window", "context window in tokens (200k, 1M); default from the model and Claude Code's settings")
	f.BoolVar(&opts.StopGate, "stop-gate", false, "at the last threshold, hold the end of a turn once while no handoff is current")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.IntVar(&opts.MaxChars, "max-chars", defaultMaxChars, "hard cap on a pointer handed over late, in characters (300 to 9000)")
	f.DurationVar(&opts.Timeout, "timeout", defaultWatchTimeout, "deadline for reading the transcript")
	return c
}

// watchThresholds is --thresholds: parsed when set, so that a bad value is
// a flag error (the hook then runs with the defaults, as any hook does).
type watchThresholds struct {
	s string
	t []watch.Threshold
}

func (v *watchThresholds) String() string { return v.s }
func (v *watchThresholds) Type() string   { return "list" }
func (v *watchThresholds) Set(s string) error {
	t, err := watch.ParseThresholds(s)
	if err != nil {
		return err
	}
	v.s, v.t = s, t
	return nil
}

// watchWindow is --window.
type watchWindow struct{ n int64 }

func (v *watchWindow) String() string {
	if v.n == 0 {
		return ""
	}
	return fmt.Sprint(v.n)
}
func (v *watchWindow) Type() string { return "tokens" }
func (v *watchWindow) Set(s string) error {
	n, err := watch.ParseTokens(s)
	v.n = n
	return err
}

// watchRun is watch's run (package handover) with this command's options;
// it never returns an error.
func watchRun(opts *WatchOptions) error {
	w := &handover.WatchOptions{
		Options: handover.Options{
			In: opts.IO.In, Out: opts.IO.Out, HookWarnings: opts.IO.hookWarnings,
			Dir: opts.Dir, Lang: opts.Lang, MaxChars: opts.MaxChars, StateFileName: opts.StateFileName,
			Timeout: opts.Timeout, CodePage: opts.CodePage, Getenv: opts.Getenv, Now: opts.Now,
			ClientOf: handoverClient("watch", opts.Getenv),
		},
		Thresholds: opts.Thresholds, Window: opts.Window, StopGate: opts.StopGate, AfterRead: opts.afterRead,
	}
	w.OwnEvent = func(p hookio.Payload, sid string, start time.Time, entry *hookio.Entry) {
		if run := agent.WatchEvent(p.HookEventName); run != nil { // an event only one client sends (WA-36)
			run(w, p, sid, start, entry)
		}
	}
	return handover.Watch(w)
}
