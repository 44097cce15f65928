package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
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

// Defaults of the postcompact flags.
const (
	defaultMaxAge          = 30 * time.Minute
	defaultMaxChars        = 4000
	defaultPostcompactTime = 5 * time.Second
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
	f.Duration("settle", 0, settleRetired) // PO-C14
	_ = f.MarkHidden("settle")
	return c
}

// postcompactRun never returns an error: the worst outcome is no pointer.
func postcompactRun(opts *PostcompactOptions) (err error) {
	start := opts.now()
	// Every step runs under the deadline, in its phase (PO-C9); the log
	// line is the last.
	total := opts.timeout()
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	entry := logEntry{At: start, Command: "postcompact", Outcome: outcomeSkipped}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = outcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v", r)
		}
		entry.Duration = opts.now().Sub(start)
		if entry.Outcome != outcomeSkipped {
			writeLogBounded(ctx, opts.beforeStep, opts.Dir, entry)
		}
		err = nil
	}()

	payloadCtx, cancelPayload := phase(ctx, total, sharePayload)
	p, perr := readPayload(payloadCtx, opts.IO.In, opts.CodePage)
	cancelPayload()
	sessionID := p.SessionID
	if sessionID == "" {
		sessionID = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	entry.Session = sessionID
	entry.Warnings = append(entry.Warnings, opts.IO.hookWarnings...)
	if perr != nil || sessionID == "" {
		return nil
	}
	if why := pluginStandsDown(p, "postcompact", opts.Getenv); why != "" {
		entry.Outcome, entry.Detail = outcomeNone, why // PL-26
		return nil
	}
	confirm := false
	switch p.HookEventName {
	case "PostCompact":
		confirm = true
		entry.Command = "postcompact(PostCompact)"
	case "SessionStart", "":
		if p.Source != "compact" {
			return nil
		}
	default:
		return nil
	}

	checkCtx, cancelCheck := phase(ctx, total, shareRead)
	defer cancelCheck()
	gatherCtx, cancelGather := phase(ctx, total, shareGather)
	defer cancelGather()
	saveCtx, cancelSave := phase(ctx, total, shareSave)
	defer cancelSave()

	f := openTranscriptWithin(checkCtx, opts, p, &entry)
	if f != nil {
		defer f.Close()
	}
	found, serr := selectWithin(checkCtx, gatherCtx, opts, p, sessionID, start, f, &entry)
	var size int64
	if f != nil {
		size = f.Size()
	}
	takeCtx, cancelTake := phase(ctx, total, shareTake)
	defer cancelTake()
	if confirm {
		foldLate(takeCtx, opts, p, f, found, start, &entry) // PO-C17
		confirmCompaction(saveCtx, opts, p, sessionID, start, size, found, &entry)
		recordResidue(saveCtx, opts, p, sessionID, start, found, &entry)
		return nil
	}
	// PO-C10, PO-C11: no snapshot of this compaction, so it is taken now.
	taken := takeIfNone(takeCtx, opts, p, sessionID, start, f, &found, serr, &entry)
	foldLate(takeCtx, opts, p, f, found, start, &entry) // PO-C17: a snapshot just taken has nothing to fold

	var text, message string
	switch {
	case found.failure != nil:
		text = restore.FailureNotice(*found.failure, opts.Lang)
		if sessionAgent(p, f) == string(transcript.FormatClaude) { // PO-16: the user is told too
			message = restore.FailureMessage(*found.failure, opts.Lang)
		}
		entry.Outcome, entry.Detail = outcomeWarn, "failure notice: "+found.failure.Reason
	case found.choice != nil:
		text = pointerText(gatherCtx, takeCtx, opts, p, f, found.choice, taken, &entry)
		entry.Outcome, entry.Snapshot = outcomeOK, found.choice.Record.Name
	default:
		entry.Outcome, entry.Detail = outcomeNone, "no snapshot of this session taken for this compaction"
		return nil
	}
	if !writeNotice(opts, sessionAgent(p, f), text, message, &entry) {
		return nil
	}
	if found.choice != nil {
		recordDelivery(saveCtx, opts, sessionID, start, size, found.choice.Record.Name, &entry)
	}
	return nil
}

// thisCompaction is what postcompact found for the compaction that just
// happened: the session's snapshot taken for it, or precompact's failure
// marker for it (which wins, PO-C5), or neither.
type thisCompaction struct {
	choice  *selectsnap.Choice
	failure *snapshot.Failure
	// rejected are the session's snapshots selection turned down.
	rejected []selectsnap.Rejection
}

// findThisCompaction runs selection (specs/selectsnap.md) and the failure
// marker check, and notes in the log entry what was turned down and why.
// The compaction check ends with checkCtx, the rest with ctx.
func findThisCompaction(checkCtx, ctx context.Context, opts *PostcompactOptions, p Payload, sessionID string, now time.Time, f *transcript.File, entry *logEntry) thisCompaction {
	sel := selectsnap.Options{
		Dir: opts.Dir, SessionID: sessionID, Now: now, MaxAge: opts.maxAge(),
		TranscriptPath: p.TranscriptPath, PromptID: promptID(p),
		Agent: sessionAgent(p, f), Event: "SessionStart",
	}
	if p.HookEventName == "PostCompact" {
		sel.Event = "PostCompact"
	}
	if f != nil {
		sel.Transcript = f
	}
	var warning string
	if sel.WentOn, warning = wentOnRecorded(opts.Dir, sessionID); warning != "" { // PO-C15
		entry.Warnings = append(entry.Warnings, warning)
	}
	// The compaction check reads the transcript backwards; it gets the
	// first half of the deadline, and when it cannot finish the choice is
	// made without it (as when the transcript is unreadable) rather than
	// not at all.
	// Without a transcript there is no check, and the time is the rest's.
	if f == nil {
		checkCtx = ctx
	}
	choice, rejected, serr := selectsnap.Select(checkCtx, sel)
	if serr != nil && sel.Transcript != nil && errors.Is(serr, context.DeadlineExceeded) && ctx.Err() == nil {
		entry.Warnings = append(entry.Warnings, "compaction check skipped: the transcript was not read in time")
		sel.Transcript = nil
		choice, rejected, serr = selectsnap.Select(ctx, sel)
	}
	if serr != nil {
		entry.Warnings = append(entry.Warnings, "selecting snapshot: "+serr.Error())
	}
	if choice != nil && choice.Unverified != "" {
		entry.Warnings = append(entry.Warnings, "compaction check skipped: "+choice.Unverified)
	}
	entry.TurnedDown, entry.NewerTurnedDown = turnedDown(rejected, choice)

	var failure *snapshot.Failure
	fl, ferr := snapshot.ReadFailure(opts.Dir, sessionID)
	if ferr != nil {
		// Another user's marker, or one others could write, never reaches
		// the session (SEC-16).
		entry.Warnings = append(entry.Warnings, "failure marker ignored: "+ferr.Error())
	}
	if fl != nil && fl.SessionID == sessionID {
		age := now.Sub(fl.Time)
		reason, _, cerr := selectsnap.CheckFailure(ctx, sel, fl)
		switch {
		case age > opts.maxAge() || age < -time.Minute, cerr != nil:
		case reason != "":
			entry.Warnings = append(entry.Warnings, "failure marker of "+fl.Time.UTC().Format(time.RFC3339)+" not used: "+reason)
		case choice == nil || fl.Time.After(choice.Record.CreatedAt):
			failure = fl
		}
	}
	return thisCompaction{choice: choice, failure: failure, rejected: rejected}
}

// turnedDown lists the session's snapshots selection turned down, for the
// log, and counts those that are newer than the one chosen (than none, when
// none was): a turned-down snapshot of the session that is not merely too
// old or another session's is worth a doctor warning (DR-13).
func turnedDown(rejected []selectsnap.Rejection, choice *selectsnap.Choice) (list string, newer int) {
	var chosen time.Time
	if choice != nil {
		if n, ok := snapshot.ParseName(choice.Record.Name); ok {
			chosen = n.Time
		}
	}
	var parts []string
	for _, r := range rejected {
		parts = append(parts, r.Name+": "+r.Reason)
		// Too old for a pointer, older than a condemned one, or another
		// session's: nothing of this session's was lost.
		if strings.HasPrefix(r.Reason, "older than") || strings.Contains(r.Reason, "another session") {
			continue
		}
		if n, ok := snapshot.ParseName(r.Name); ok && (choice == nil || n.Time.After(chosen)) {
			newer++
		}
	}
	return strings.Join(parts, "; "), newer
}

// confirmCompaction is the PostCompact run: it records in the snapshot
// selection finds for this compaction that the compaction completed
// (PO-C6).
func confirmCompaction(ctx context.Context, opts *PostcompactOptions, p Payload, sessionID string, at time.Time, size int64, found thisCompaction, entry *logEntry) {
	summary := 0
	if p.CompactSummary != nil {
		summary = len([]rune(*p.CompactSummary))
	}
	if found.failure != nil {
		entry.Outcome, entry.Detail = outcomeNone, "precompact failed for this compaction ("+found.failure.Reason+"); nothing to confirm"
		return
	}
	if found.choice == nil {
		entry.Outcome, entry.Detail = outcomeNone, snapshot.ErrNoSnapshot.Error()
		return
	}
	name := found.choice.Record.Name
	store := &snapshot.Store{Dir: opts.Dir, Now: opts.Now}
	cerr, berr := bounded(ctx, opts.beforeStep, "confirming the compaction", func() error {
		return store.Confirm(name, sessionID, snapshot.CompactionConfirmation{At: at, SummaryChars: summary, TranscriptSize: size})
	})
	if berr != nil {
		cerr = berr
	}
	switch {
	case errors.Is(cerr, snapshot.ErrNoSnapshot) || errors.Is(cerr, snapshot.ErrAlreadyConfirmed):
		// Nothing to confirm is no failure: doctor reports failed lines.
		entry.Outcome, entry.Snapshot, entry.Detail = outcomeNone, name, cerr.Error()
	case cerr != nil:
		entry.Outcome, entry.Detail = outcomeFailed, "confirming compaction: "+cerr.Error()
	default:
		entry.Outcome, entry.Snapshot = outcomeOK, name
	}
}

func (o *PostcompactOptions) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *PostcompactOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return defaultPostcompactTime
	}
	return o.Timeout
}

func (o *PostcompactOptions) maxAge() time.Duration {
	if o.MaxAge <= 0 {
		return defaultMaxAge
	}
	return o.MaxAge
}

// Bounds of --max-chars: below 300 not even the snapshot's path fits, and
// Claude Code spills context over 10,000 characters to a file.
const (
	minMaxChars = 300
	maxMaxChars = 9000
)

func (o *PostcompactOptions) maxChars() int {
	switch {
	case o.MaxChars <= 0:
		return defaultMaxChars
	case o.MaxChars < minMaxChars:
		return minMaxChars
	case o.MaxChars > maxMaxChars:
		return maxMaxChars
	}
	return o.MaxChars
}

func (o *PostcompactOptions) stateFileName() string {
	if o.StateFileName == "" {
		return defaultStateFileName
	}
	return o.StateFileName
}
