package handover

import (
	"fmt"
	"strings"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// The steps of Watch once the fill is read: the dry decision without the
// lock, the step under it, and what the run then says. Methods of the run's
// watchTurn so that Watch reads as the order of its steps.

// watchSaid is what a run's step under the lock decided to say: texts for
// the agent, or the reason a Stop is held.
type watchSaid struct {
	texts []string
	block string
}

// input is what watch.Step decides on for st: this run's event, fill and
// thresholds.
func (r *watchTurn) input(st *watch.State) watch.Input {
	return watch.Input{
		Event: watchEvent(r.p.HookEventName), Now: r.now, Fill: r.fill.Tokens, FromBoundary: r.fill.FromBoundary,
		Thresholds: r.thresholds, Turn: r.p.PromptID, StopGate: r.opts.StopGate, StopHookActive: r.p.StopHookActive,
		Handoff: func() bool { return r.handoff(st).Current },
		Read:    watch.Read{Offset: max(r.fill.Offset, r.fill.Boundary), At: r.fill.At},
	}
}

// changesNothing decides on a copy of the state read without the lock
// whether this run changes nothing (WA-9); a state it cannot read, a late
// pointer or a residue due, or a session that went on leave it to the step
// under the lock. ok is whether the fill is known.
func (r *watchTurn) changesNothing(store *watch.Store, ok bool) bool {
	p, start := r.p, r.now
	st, lerr := store.Load(r.sid)
	if lerr != nil || p.HookEventName == watch.UserPromptSubmit && st != nil && st.Pending != nil || residueWanted(p, st) || st.WentOnDue(p.HookEventName, start) {
		return false
	}
	dry := watch.State{}
	if st != nil {
		dry = *st
		dry.Crossings = append([]watch.Crossing(nil), st.Crossings...)
	}
	return !ok || !watch.Step(&dry, r.input(&dry)).Changed && !r.newHandoff(st)
}

// step is the run's change of the state under its lock: the session noted
// as gone on (SS-27), the late pointer, the residue, the threshold's notice
// or the held Stop, the handoff seen. It reports whether st changed; what
// is to be said goes into said, why into the log line's detail.
func (r *watchTurn) step(st *watch.State, ok bool, said *watchSaid, entry *hookio.Entry) bool {
	p, ctx := r.p, r.ctx
	changed := st.NoteWentOn(p.HookEventName, r.now) // SS-27
	if p.HookEventName == watch.UserPromptSubmit && st.Pending != nil {
		text, why := r.fallback(ctx, st)
		entry.Detail = why
		if text != "" {
			said.texts = append(said.texts, text)
		}
		changed = true
	}
	if text, why, did := r.handResidue(ctx, st); did {
		if text != "" {
			said.texts = append(said.texts, text)
		}
		entry.Detail = strings.TrimPrefix(entry.Detail+"; "+why, "; ")
		changed = true
	}
	if !ok {
		return changed
	}
	a := watch.Step(st, r.input(st))
	switch {
	case a.Notice:
		said.texts = append(said.texts, restore.WatchNotice(r.noticeInput(st, a.Told)))
		entry.Detail = strings.TrimPrefix(entry.Detail+"; notice: "+crossedList(a.Told), "; ")
	case a.Block:
		said.block = restore.StopReason(r.noticeInput(st, a.Told))
		entry.Detail = strings.TrimPrefix(entry.Detail+"; stop held at "+fmt.Sprint(r.thresholds[len(r.thresholds)-1]), "; ")
	}
	if r.newHandoff(st) {
		st.Handoff, changed = r.seen, true
	}
	if (changed || a.Changed) && st.Started.IsZero() {
		st.Started = r.started() // HO-11, once per session
	}
	return changed || a.Changed
}

// finish says what the step decided, once the state holds it (recorded
// tells whether the update left a state; uerr is its error), and records a
// late pointer's delivery.
func (r *watchTurn) finish(recorded bool, uerr error, said watchSaid, entry *hookio.Entry) {
	if uerr != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+uerr.Error())
	}
	entry.Warnings = append(entry.Warnings, r.warnings...)
	if !recorded {
		// WA-25: what the state cannot record is not said, and the log
		// says so rather than what would have been; WA-42: but a prompt
		// still gets the notice of what the previous turn crossed.
		if uerr != nil && r.noticeWithoutState(uerr, entry) {
			return
		}
		if (len(said.texts) > 0 || said.block != "") && uerr != nil {
			entry.Outcome = hookio.OutcomeFailed
			entry.Detail = "not said, for the watch state could not be written: " + entry.Detail
		}
		return
	}

	var out []byte
	var oerr2 error
	switch {
	case said.block != "":
		out, oerr2 = hookio.BlockOutput(said.block)
	case len(said.texts) > 0:
		out, oerr2 = hookio.EventOutput(r.p.HookEventName, restore.ForClient(r.agent, strings.Join(said.texts, "\n\n"))) // PO-38
	default:
		if entry.Detail != "" {
			entry.Outcome = hookio.OutcomeNone
		}
		return
	}
	if oerr2 == nil {
		_, oerr2 = r.opts.Out.Write(out)
	}
	if oerr2 != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "recorded as given but not given ("+entry.Detail+"): writing hook output: "+oerr2.Error()
		return
	}
	entry.Outcome = hookio.OutcomeOK
	if r.delivered != "" {
		entry.Snapshot = r.delivered
		d := snapshot.Delivery{SessionID: r.sid, At: r.now, Event: watch.UserPromptSubmit, TranscriptSize: r.f.Size()}
		if derr := snapshot.WriteDelivery(r.opts.Dir, r.delivered, d); derr != nil {
			entry.Warnings = append(entry.Warnings, derr.Error())
		}
	}
}

// noticeWithoutState tells, when the state cannot be written, the
// thresholds the previous turn's fill crossed (WA-42): at UserPromptSubmit
// only, so at most once per prompt, and only of a crossing the transcript
// shows in the turn before it — the newest response's fill at or over a
// threshold that the fill when that turn began was under — so each
// crossing is told once with no state to remember it. A crossing a
// readable state records as told is not told again. It reports whether it
// told.
func (r *watchTurn) noticeWithoutState(uerr error, entry *hookio.Entry) bool {
	if r.p.HookEventName != watch.UserPromptSubmit || !r.fillOK || r.fill.FromBoundary {
		return false
	}
	prev, ok, err := r.f.FillBeforeTurn(r.ctx, r.fill)
	if err != nil || !ok {
		return false
	}
	st, _ := watch.StoreFor(r.opts.Dir).Load(r.sid) // nil when unreadable too
	var told []watch.Crossing
	for _, t := range r.thresholds {
		if prev.Tokens < t && t <= r.fill.Tokens && !toldIn(st, t) {
			told = append(told, watch.Crossing{Tokens: t, At: r.fill.At, Fill: r.fill.Tokens})
		}
	}
	if len(told) == 0 {
		return false
	}
	text := restore.WatchNotice(r.noticeInput(st, told))
	out, err := hookio.EventOutput(r.p.HookEventName, restore.ForClient(r.agent, text)) // PO-38
	if err == nil {
		_, err = r.opts.Out.Write(out)
	}
	detail := fmt.Sprintf("notice without the watch state (crossed in the previous turn, from %d): %s; watch state: %s",
		prev.Tokens, crossedList(told), uerr)
	if err != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, detail+"; writing hook output: "+err.Error()
		return true
	}
	entry.Outcome, entry.Detail = hookio.OutcomeOK, detail
	return true
}

// toldIn reports whether st records threshold t's crossing as told.
func toldIn(st *watch.State, t int64) bool {
	if st == nil {
		return false
	}
	for _, c := range st.Crossings {
		if c.Tokens == t && !c.Told.IsZero() {
			return true
		}
	}
	return false
}
