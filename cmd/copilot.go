package cmd

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
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
	// copilotWaitLimit.
	waitLimit time.Duration
}

func (o *CopilotOptions) wait() time.Duration {
	if o.waitLimit > 0 {
		return o.waitLimit
	}
	return copilotWaitLimit
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

// copilotRun never returns an error: what goes wrong is logged.
func copilotRun(opts *CopilotOptions) (err error) {
	start := opts.Now()
	// A hook exits 0 on every input (PO-22): a panic before the steps
	// below set up their own log line (reading stdin, the wait for the
	// events file) is logged here, and the hook still exits 0.
	defer func() {
		if r := recover(); r != nil {
			hookio.WriteLog(opts.Dir, hookio.Entry{At: start, Command: "copilot", Outcome: hookio.OutcomeFailed, Detail: fmt.Sprintf("panic: %v", r), Duration: opts.Now().Sub(start)})
		}
		err = nil
	}()
	ctx, cancel := context.WithTimeout(context.Background(), defaultTimeout)
	defer cancel()
	raw, rerr := hookio.ReadStdin(ctx, opts.IO.In, opts.CodePage)
	if rerr != nil {
		return nil
	}
	p, perr := hookio.ReadPayload(ctx, bytes.NewReader(raw), opts.CodePage)
	if perr != nil {
		return nil
	}
	if copilotStoodDown(opts, p, start) {
		return nil
	}
	switch p.HookEventName {
	case "PreCompact":
		return copilotPreCompact(ctx, opts, p, raw)
	case "UserPromptSubmit", "PostToolUse", "PostToolUseFailure":
	default:
		return nil
	}
	if p.SessionID == "" {
		return nil
	}
	entry := hookio.Entry{At: start, Command: "copilot(" + p.HookEventName + ")", Session: p.SessionID, Outcome: hookio.OutcomeSkipped}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome, entry.Detail = hookio.OutcomeFailed, fmt.Sprintf("panic: %v", r)
		}
		entry.Duration = opts.Now().Sub(start)
		if entry.Outcome != hookio.OutcomeSkipped {
			hookio.WriteLog(opts.Dir, entry)
		}
		err = nil
	}()
	store := watch.StoreFor(opts.Dir)
	store.Now = opts.Now
	// Most calls come with nothing pending: one small read decides that.
	if st, lerr := store.Load(p.SessionID); lerr != nil || st == nil || st.Pending == nil {
		return nil
	}
	if tp := copilotTranscript(opts.Getenv, p.SessionID); tp != "" && !waitForOwnHook(ctx, tp, copilotHookType(p.HookEventName), opts.wait()) {
		entry.Warnings = append(entry.Warnings, "the events file did not show this hook's start within "+opts.wait().String()+": read as it was")
	}
	var text, snap string
	_, uerr := store.Update(p.SessionID, func(st *watch.State) bool {
		if st.Pending == nil {
			return false // another hook of this session took it
		}
		var done bool
		text, snap, done, entry.Detail = copilotPointer(ctx, opts, p, st.Pending, start)
		if done {
			st.Pending = nil
		}
		return done
	})
	if uerr != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "watch state: "+uerr.Error()
		return nil
	}
	if text == "" {
		if entry.Detail != "" {
			entry.Outcome = hookio.OutcomeNone
		}
		return nil
	}
	out, jerr := json.Marshal(struct {
		AdditionalContext string `json:"additionalContext"`
	}{text})
	if jerr == nil {
		_, jerr = opts.IO.Out.Write(append(out, '\n'))
	}
	if jerr != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "writing hook output: "+jerr.Error()
		return nil
	}
	entry.Outcome = hookio.OutcomeOK
	if snap != "" {
		entry.Snapshot = snap
		// SF-53: what was handed out, so that nothing hands it out again.
		d := snapshot.Delivery{SessionID: p.SessionID, At: start, Event: p.HookEventName}
		if derr := snapshot.WriteDelivery(opts.Dir, snap, d); derr != nil {
			entry.Warnings = append(entry.Warnings, derr.Error())
		}
	}
	return nil
}

// copilotStoodDown reports whether this run, the plugin's, gives way to
// the user's hooks file, which runs the event (PL-33); as watch does, only
// the compaction's run says so in the log.
func copilotStoodDown(opts *CopilotOptions, p hookio.Payload, start time.Time) bool {
	why := copilotPluginStandsDown(p, opts.Getenv)
	if why != "" && p.HookEventName == "PreCompact" {
		hookio.WriteLog(opts.Dir, hookio.Entry{At: start, Command: "copilot", Session: p.SessionID, Outcome: hookio.OutcomeNone, Detail: why, Duration: opts.Now().Sub(start)})
	}
	return why != ""
}

// copilotPointer decides what the pending compaction gets now (PO-23 to
// PO-26): nothing yet while the client has not written its boundary (done
// false: the next hook looks again); its snapshot's pointer, or
// precompact's failure notice, once the boundary after the snapshot is
// there; nothing, for good, when the snapshot is gone, is not the
// session's own fresh one, or two compactions came since.
func copilotPointer(ctx context.Context, opts *CopilotOptions, p hookio.Payload, pend *watch.Pending, now time.Time) (text, snap string, done bool, why string) {
	var choice *selectsnap.Choice
	if pend.Snapshot != "" {
		c, _, err := selectsnap.Select(ctx, selectsnap.Options{Dir: opts.Dir, SessionID: p.SessionID, Now: now,
			Agent: string(transcript.FormatCopilot)})
		if err != nil || c == nil || c.Record.Name != pend.Snapshot {
			return "", "", true, "the snapshot precompact wrote (" + pend.Snapshot + ") is not the session's newest valid one"
		}
		if c.Delivery != nil {
			return "", "", true, "the snapshot " + pend.Snapshot + " was handed out already"
		}
		choice = c
	}
	var failure *snapshot.Failure
	if choice == nil {
		f, err := snapshot.ReadFailure(opts.Dir, p.SessionID)
		if err != nil || f == nil {
			return "", "", true, "no snapshot and no failure marker for the compaction precompact noted"
		}
		failure = f
	}
	path := ""
	if choice != nil {
		path = choice.Record.TranscriptPath
	}
	if path == "" {
		path = copilotTranscript(opts.Getenv, p.SessionID)
	}
	f, err := transcript.Open(path)
	if err != nil {
		return "", "", false, ""
	}
	defer f.Close()
	bs, err := f.BoundariesAfter(ctx, pend.TranscriptSize, f.Size(), pend.At, 2)
	switch {
	case err != nil:
		return "", "", false, ""
	case len(bs) == 0 && len(copilotEvents(path, pend.TranscriptSize, f.Size(), "session.compaction_complete")) > 0:
		return "", "", true, "the compaction precompact noted did not complete"
	case len(bs) == 0:
		return "", "", false, "" // PO-24: not compacted (yet)
	case len(bs) > 1:
		return "", "", true, "two compactions since the one precompact noted: its snapshot is no longer this compaction's"
	}
	// SS-44: a compaction that started after the note is another one than
	// the note's, which PreCompact ran within: the boundary is that one's.
	for _, at := range copilotEvents(path, pend.TranscriptSize, bs[0], "session.compaction_start") {
		if at.After(pend.At) {
			return "", "", true, "a later compaction started at " + at.UTC().Format(time.RFC3339) + ", after the one precompact noted: its snapshot is not that compaction's"
		}
	}
	if failure != nil {
		return restore.FailureNotice(*failure, opts.Lang), "", true, "failure notice: " + failure.Reason
	}
	rec := choice.Record
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	project := cmp.Or(opts.Getenv("COPILOT_PROJECT_DIR"), gitRoot, rec.Cwd)
	sf := snapshot.FindStateFile(ctx, defaultStateFileName, []string{project, gitRoot, rec.Cwd, p.Cwd})
	text = restore.Pointer(restore.PointerInput{Record: rec, MDPath: choice.MDPath, ProjectDir: project,
		StateFile: sf, Lang: opts.Lang, MaxChars: defaultMaxChars})
	return text, rec.Name, true, "pointer handed over at " + p.HookEventName
}

// copilotHookType is the hookType Copilot writes in events.jsonl for a
// hook registered as event.
func copilotHookType(event string) string {
	switch event {
	case "UserPromptSubmit":
		return "userPromptSubmitted"
	case "PostToolUse":
		return "postToolUse"
	case "PostToolUseFailure":
		return "postToolUseFailure"
	}
	return "preCompact"
}

// copilotEvents returns the timestamps of the events of type typ that
// start in [from, to), reading at most the 4 MiB after from: a needle finds
// the lines that may be one (the type as a whole JSON string, in any
// spacing or key order, TR-56), and parsing decides.
func copilotEvents(path string, from, to int64, typ string) []time.Time {
	f, err := trust.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, min(max(to-from, 0), 4<<20))
	n, _ := f.ReadAt(buf, from)
	needle := []byte(`"` + typ + `"`)
	var out []time.Time
	for _, line := range bytes.Split(buf[:n], []byte("\n")) {
		if !bytes.Contains(line, needle) {
			continue
		}
		var ev struct {
			Type      string    `json:"type"`
			Timestamp time.Time `json:"timestamp"`
		}
		if json.Unmarshal(line, &ev) == nil && ev.Type == typ {
			out = append(out, ev.Timestamp)
		}
	}
	return out
}

// copilotTranscript is where Copilot CLI keeps a session's events:
// $COPILOT_HOME/session-state/<id>/events.jsonl, ~/.copilot by default.
func copilotTranscript(getenv func(string) string, sessionID string) string {
	home := getenv("COPILOT_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h + string(os.PathSeparator) + ".copilot"
	}
	if !hookio.SafeSessionID(sessionID) {
		return ""
	}
	return home + string(os.PathSeparator) + "session-state" + string(os.PathSeparator) + sessionID + string(os.PathSeparator) + "events.jsonl"
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

// copilotPreCompact is the hook at PreCompact (PO-22): the snapshot as
// precompact writes it, with no hint (the output reaches neither the
// summarizer nor the model), once the file holds what came before the
// hook (PO-29).
func copilotPreCompact(ctx context.Context, opts *CopilotOptions, p hookio.Payload, raw []byte) error {
	if p.TranscriptPath != "" {
		waitForOwnHook(ctx, p.TranscriptPath, "preCompact", opts.wait())
	}
	return opts.precompact(&PrecompactOptions{
		IO: &IO{In: bytes.NewReader(raw), Out: io.Discard, ErrOut: opts.IO.ErrOut}, Dir: opts.Dir, Lang: opts.Lang,
		Keep: defaultKeep, StateFileName: defaultStateFileName, Timeout: defaultTimeout, GitTimeout: defaultGitTimeout,
		EarlierBudget: defaultEarlierBudget, NoHint: true, CodePage: opts.CodePage, Getenv: opts.Getenv, Now: opts.Now,
	})
}
