package handover

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/redact"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript"
)

// Postcompact is one run of the SessionStart(compact) and PostCompact
// hook. It never returns an error: the worst outcome is no pointer.
func Postcompact(opts *Options) (err error) {
	start := opts.now()
	// Every step runs under the deadline, in its phase (PO-C9); the log
	// line is the last.
	total := opts.EffectiveTimeout()
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	entry := hookio.Entry{At: start, Command: "postcompact", Outcome: hookio.OutcomeSkipped}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = hookio.OutcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v", r)
		}
		entry.Duration = opts.now().Sub(start)
		if entry.Outcome != hookio.OutcomeSkipped {
			hookio.WriteLogBounded(ctx, opts.BeforeStep, opts.Dir, entry)
		}
		err = nil
	}()

	p, perr := hookio.ReadPayloadWithin(ctx, total, opts.In, opts.CodePage)
	sessionID := p.Session(opts.Getenv)
	entry.Session = sessionID
	entry.Warnings = append(entry.Warnings, opts.HookWarnings...)
	if perr != nil || sessionID == "" {
		return nil
	}
	client := opts.client(p)
	if why := client.StandsDown; why != "" {
		entry.Outcome, entry.Detail = hookio.OutcomeNone, why // PL-26
		return nil
	}
	confirm, ok := postcompactFor(p)
	if !ok {
		return nil
	}
	if confirm {
		entry.Command = "postcompact(PostCompact)"
		if forgetIfFailed(ctx, total, opts, p, sessionID, &entry) {
			return nil
		}
	}

	checkCtx, cancelCheck := hookio.Phase(ctx, total, hookio.ShareRead)
	defer cancelCheck()
	gatherCtx, cancelGather := hookio.Phase(ctx, total, hookio.ShareGather)
	defer cancelGather()
	saveCtx, cancelSave := hookio.Phase(ctx, total, hookio.ShareSave)
	defer cancelSave()

	f := openTranscriptWithin(checkCtx, opts, p, &entry)
	if f != nil {
		defer f.Close()
	}
	found, serr := selectWithin(checkCtx, gatherCtx, opts, p, client.agent(f), sessionID, start, f, &entry)
	var size int64
	if f != nil {
		size = f.Size()
	}
	takeCtx, cancelTake := hookio.Phase(ctx, total, shareTake)
	defer cancelTake()
	if confirm {
		foldLate(takeCtx, opts, p, f, found, start, &entry) // PO-C18
		confirmCompaction(saveCtx, opts, p, sessionID, start, size, found, &entry)
		recordResidue(saveCtx, opts, p, sessionID, start, found, &entry)
		return nil
	}
	// PO-C10, PO-C11: no snapshot of this compaction, so it is taken now.
	taken := takeIfNone(takeCtx, opts, p, client, sessionID, start, f, &found, serr, &entry)
	foldLate(takeCtx, opts, p, f, found, start, &entry) // PO-C18: a snapshot just taken has nothing to fold

	var text, message string
	switch {
	case found.failure != nil:
		text = restore.FailureNotice(*found.failure, opts.Lang)
		if client.agent(f) == string(transcript.FormatClaude) { // PO-16: the user is told too
			message = restore.FailureMessage(*found.failure, opts.Lang)
		}
		entry.Outcome, entry.Detail = hookio.OutcomeWarn, "failure notice: "+found.failure.Reason
	case found.choice != nil:
		text = pointerText(gatherCtx, takeCtx, opts, p, f, found.choice, taken, &entry)
		entry.Outcome, entry.Snapshot = hookio.OutcomeOK, found.choice.Record.Name
	default:
		entry.Outcome, entry.Detail = hookio.OutcomeNone, "no snapshot of this session taken for this compaction"
		return nil
	}
	if !writeNotice(opts, client.agent(f), text, message, &entry) {
		return nil
	}
	if found.choice != nil {
		recordDelivery(saveCtx, opts, sessionID, start, size, found.choice.Record.Name, &entry)
	}
	return nil
}

// forgetIfFailed runs forgetFailedCompaction, in the save phase, when the
// PostCompact payload says its compaction failed, and reports whether it
// did (PO-C17).
func forgetIfFailed(ctx context.Context, total time.Duration, opts *Options, p hookio.Payload, sessionID string, entry *hookio.Entry) bool {
	failed, why := p.CompactionFailed()
	if failed {
		saveCtx, cancelSave := hookio.Phase(ctx, total, hookio.ShareSave)
		defer cancelSave()
		forgetFailedCompaction(saveCtx, opts, p, sessionID, why, entry)
	}
	return failed
}

// forgetFailedCompaction is the PostCompact run for a compaction that did
// not complete (PO-C17): there is no summary to complete and no compaction
// to point to, so nothing is confirmed or compared, and the watch notes
// precompact made for it — the pointer's check (WA-11) and the residue due
// (WA-14) — are dropped, so that no later prompt hands either over. The
// snapshot stays: it is what the session held, for list and show.
func forgetFailedCompaction(ctx context.Context, opts *Options, p hookio.Payload, sessionID, why string, entry *hookio.Entry) {
	detail, _ := redact.Text(why)
	if r := []rune(detail); len(r) > 200 {
		detail = string(r[:200]) + "…"
	}
	entry.Outcome, entry.Detail = hookio.OutcomeNone, "the compaction failed ("+detail+"); no pointer, no residue"
	if p.Reason != "" || p.Phase != "" {
		entry.Detail += fmt.Sprintf(" (reason %q, phase %q)", p.Reason, p.Phase)
	}
	err, berr := hookio.Bounded(ctx, opts.BeforeStep, "dropping the failed compaction's notes", func() error {
		store := watch.StoreFor(opts.Dir)
		if st, err := store.Load(sessionID); err != nil || st == nil || (st.Pending == nil && st.Residue == nil) {
			return err // nothing noted: no lock, no write
		}
		_, err := store.Update(sessionID, func(st *watch.State) bool {
			changed := st.Pending != nil || st.Residue != nil
			st.Pending, st.Residue = nil, nil
			return changed
		})
		return err
	})
	if berr != nil {
		err = berr
	}
	if err != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+err.Error())
	}
}

// postcompactFor tells what a run is for: confirm at PostCompact, the
// pointer at SessionStart(compact) or for a payload that names no event (a
// run by hand); ok is false for any other event or source.
func postcompactFor(p hookio.Payload) (confirm, ok bool) {
	switch p.HookEventName {
	case "PostCompact":
		return true, true
	case "SessionStart", "":
		return false, p.Source == "compact"
	}
	return false, false
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
// The compaction check ends with checkCtx, the rest with ctx. agent is
// the client the hook runs for.
func findThisCompaction(checkCtx, ctx context.Context, opts *Options, p hookio.Payload, agent, sessionID string, now time.Time, f *transcript.File, entry *hookio.Entry) thisCompaction {
	sel := selectsnap.Options{
		Dir: opts.Dir, SessionID: sessionID, Now: now, MaxAge: opts.maxAge(),
		TranscriptPath: p.TranscriptPath, PromptID: p.Prompt(),
		Agent: agent, Event: "SessionStart",
	}
	if p.HookEventName == "PostCompact" {
		sel.Event = "PostCompact"
	}
	if f != nil {
		sel.Transcript = f
	}
	var warning string
	if sel.WentOn, warning = take.WentOnRecorded(opts.Dir, sessionID); warning != "" { // PO-C15
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
func confirmCompaction(ctx context.Context, opts *Options, p hookio.Payload, sessionID string, at time.Time, size int64, found thisCompaction, entry *hookio.Entry) {
	summary := 0
	if p.CompactSummary != nil {
		summary = len([]rune(*p.CompactSummary))
	}
	if found.failure != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeNone, "precompact failed for this compaction ("+found.failure.Reason+"); nothing to confirm"
		return
	}
	if found.choice == nil {
		entry.Outcome, entry.Detail = hookio.OutcomeNone, snapshot.ErrNoSnapshot.Error()
		return
	}
	name := found.choice.Record.Name
	store := &snapshot.Store{Dir: opts.Dir, Now: opts.Now}
	cerr, berr := hookio.Bounded(ctx, opts.BeforeStep, "confirming the compaction", func() error {
		return store.Confirm(name, sessionID, snapshot.CompactionConfirmation{At: at, SummaryChars: summary, TranscriptSize: size})
	})
	if berr != nil {
		cerr = berr
	}
	switch {
	case errors.Is(cerr, snapshot.ErrNoSnapshot) || errors.Is(cerr, snapshot.ErrAlreadyConfirmed):
		// Nothing to confirm is no failure: doctor reports failed lines.
		entry.Outcome, entry.Snapshot, entry.Detail = hookio.OutcomeNone, name, cerr.Error()
	case cerr != nil:
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "confirming compaction: "+cerr.Error()
	default:
		entry.Outcome, entry.Snapshot = hookio.OutcomeOK, name
	}
}
