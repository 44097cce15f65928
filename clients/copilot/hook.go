package copilot

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
)

// HookOptions configures one run of the Copilot CLI hook (PO-22 to
// PO-29); cmd's copilot command fills it in.
type HookOptions struct {
	In          io.Reader
	Out, ErrOut io.Writer
	Dir         string
	Lang        snapshot.Lang
	CodePage    int
	Getenv      func(string) string
	Now         func() time.Time
	// Timeout is the hook's deadline; StateFileName and MaxChars the
	// pointer's, as postcompact's defaults.
	Timeout       time.Duration
	StateFileName string
	MaxChars      int
	// WaitLimit bounds the wait for the events file (PO-29).
	WaitLimit time.Duration
	// PreCompact takes the snapshot from the payload raw, as precompact
	// does, with no hint.
	PreCompact func(raw []byte) error
}

// Hook is the run of the Copilot CLI hook at any event it is registered
// for; it never returns an error: what goes wrong is logged.
func Hook(opts *HookOptions) (err error) {
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
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	raw, rerr := hookio.ReadStdin(ctx, opts.In, opts.CodePage)
	if rerr != nil {
		return nil
	}
	p, perr := hookio.ReadPayload(ctx, bytes.NewReader(raw), opts.CodePage)
	if perr != nil {
		return nil
	}
	if stoodDown(opts, p, start) {
		return nil
	}
	switch p.HookEventName {
	case "PreCompact":
		return preCompact(ctx, opts, p, raw)
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
	if tp := eventsPath(opts.Getenv, p.SessionID); tp != "" && !WaitForOwnHook(ctx, tp, hookType(p.HookEventName), opts.WaitLimit) {
		entry.Warnings = append(entry.Warnings, "the events file did not show this hook's start within "+opts.WaitLimit.String()+": read as it was")
	}
	var text, snap string
	_, uerr := store.Update(p.SessionID, func(st *watch.State) bool {
		if st.Pending == nil {
			return false // another hook of this session took it
		}
		var done bool
		text, snap, done, entry.Detail = pointerNow(ctx, opts, p, st.Pending, start)
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
		_, jerr = opts.Out.Write(append(out, '\n'))
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

// stoodDown reports whether this run, the plugin's, gives way to
// the user's hooks file, which runs the event (PL-33); as watch does, only
// the compaction's run says so in the log.
func stoodDown(opts *HookOptions, p hookio.Payload, start time.Time) bool {
	why := pluginStandsDown(p, opts.Getenv)
	if why != "" && p.HookEventName == "PreCompact" {
		hookio.WriteLog(opts.Dir, hookio.Entry{At: start, Command: "copilot", Session: p.SessionID, Outcome: hookio.OutcomeNone, Detail: why, Duration: opts.Now().Sub(start)})
	}
	return why != ""
}

// pointerNow decides what the pending compaction gets now (PO-23 to
// PO-26): nothing yet while the client has not written its boundary (done
// false: the next hook looks again); its snapshot's pointer, or
// precompact's failure notice, once the boundary after the snapshot is
// there; nothing, for good, when the snapshot is gone, is not the
// session's own fresh one, or two compactions came since.
func pointerNow(ctx context.Context, opts *HookOptions, p hookio.Payload, pend *watch.Pending, now time.Time) (text, snap string, done bool, why string) {
	var choice *selectsnap.Choice
	if pend.Snapshot != "" {
		c, _, err := selectsnap.Select(ctx, selectsnap.Options{Dir: opts.Dir, SessionID: p.SessionID, Now: now,
			Agent: string(Name)})
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
		path = eventsPath(opts.Getenv, p.SessionID)
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
	case len(bs) == 0 && len(events(path, pend.TranscriptSize, f.Size(), "session.compaction_complete")) > 0:
		return "", "", true, "the compaction precompact noted did not complete"
	case len(bs) == 0:
		return "", "", false, "" // PO-24: not compacted (yet)
	case len(bs) > 1:
		return "", "", true, "two compactions since the one precompact noted: its snapshot is no longer this compaction's"
	}
	// SS-44: a compaction that started after the session went on past the
	// note (a model response after it) is another one than the note's. The
	// note's own compaction may log its start after the note too (measured
	// with the real client, E2E-46), so a start alone proves nothing.
	responses := events(path, pend.TranscriptSize, bs[0], "assistant.message")
	for _, at := range events(path, pend.TranscriptSize, bs[0], "session.compaction_start") {
		for _, r := range responses {
			if r.After(pend.At) && at.After(r) {
				return "", "", true, "a later compaction started at " + at.UTC().Format(time.RFC3339) + ", after the session went on past the one precompact noted: its snapshot is not that compaction's"
			}
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
	sf := snapshot.FindStateFile(ctx, opts.StateFileName, []string{project, gitRoot, rec.Cwd, p.Cwd})
	text = restore.Pointer(restore.PointerInput{Record: rec, MDPath: choice.MDPath, ProjectDir: project,
		StateFile: sf, Lang: opts.Lang, MaxChars: opts.MaxChars})
	return text, rec.Name, true, "pointer handed over at " + p.HookEventName
}

// hookType is the hookType Copilot writes in events.jsonl for a
// hook registered as event.
func hookType(event string) string {
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

// events returns the timestamps of the events of type typ that
// start in [from, to), reading at most the 4 MiB after from: a needle finds
// the lines that may be one (the type as a whole JSON string, in any
// spacing or key order, TR-56), and parsing decides.
func events(path string, from, to int64, typ string) []time.Time {
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

// eventsPath is where Copilot CLI keeps a session's events:
// $COPILOT_HOME/session-state/<id>/events.jsonl, ~/.copilot by default.
func eventsPath(getenv func(string) string, sessionID string) string {
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

// preCompact is the hook at PreCompact (PO-22): the snapshot as
// precompact writes it, with no hint (the output reaches neither the
// summarizer nor the model), once the file holds what came before the
// hook (PO-29).
func preCompact(ctx context.Context, opts *HookOptions, p hookio.Payload, raw []byte) error {
	if p.TranscriptPath != "" {
		WaitForOwnHook(ctx, p.TranscriptPath, "preCompact", opts.WaitLimit)
	}
	return opts.PreCompact(raw)
}

// pluginStandsDown says why this run of the Copilot hook, the
// plugin's under Copilot CLI (PL-10), gives way to the user's Copilot
// hooks file, which registers compact-guard for the same event (PL-33); ""
// when it runs. Only a plugin's run pays for the look.
func pluginStandsDown(p hookio.Payload, getenv func(string) string) string {
	root := getenv("COPILOT_PLUGIN_ROOT")
	if root == "" || p.HookEventName == "" {
		return ""
	}
	exe, err := os.Executable()
	if err != nil || !settings.RunsInPlugin(root, exe) {
		return ""
	}
	project := cmp.Or(getenv("COPILOT_PROJECT_DIR"), p.Cwd)
	if project == "" {
		if project, err = os.Getwd(); err != nil {
			return ""
		}
	}
	host := settings.Host{Getenv: getenv, Home: os.UserHomeDir, Getwd: func() (string, error) { return project, nil }}
	if path := CopilotFileRegistration(host, project, p.HookEventName); path != "" {
		return "stood down: " + path + " registers compact-guard for " + p.HookEventName + ", and the plugin's hook gives way to it (PL-33)"
	}
	return ""
}
