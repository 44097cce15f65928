package handover

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/transcript/textcut"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// residueEvent reports whether a hook event's context can carry the
// residue to the model (WA-15): a prompt's, or a tool call's, failed or not.
func residueEvent(event string) bool {
	switch event {
	case watch.UserPromptSubmit, watch.PostToolUse, watch.PostToolUseFailure:
		return true
	}
	return false
}

// residueWanted reports whether this run must look at a due residue, so
// that it cannot end on the unlocked copy of the state (WA-9).
func residueWanted(p hookio.Payload, st *watch.State) bool {
	return st != nil && st.Residue != nil && residueEvent(p.HookEventName)
}

// handResidue hands the due residue over, once (WA-15 to WA-19): it runs
// under the session's lock, clears the note once it is take.Settled, and
// records the hand-over beside the snapshot before the text is printed.
// did is false when no residue is due for this event, or when the note
// waits for the compaction's boundary; why says for the log what was done.
func (r *watchTurn) handResidue(ctx context.Context, st *watch.State) (text, why string, did bool) {
	due := st.Residue
	if due == nil || !residueEvent(r.p.HookEventName) {
		return "", "", false
	}
	st.Residue = nil
	if !residue.ForAgent(r.agent) {
		return "", "residue: not given on this client", true
	}
	tg, wait, why := r.residueTarget(ctx, st, due)
	if tg == nil {
		if wait {
			st.Residue = due
			return "", "", false
		}
		return "", why, true
	}
	rec := tg.rec
	name := rec.Name
	old, rerr := snapshot.ReadResidue(r.opts.Dir, name, r.sid)
	if rerr != nil {
		r.warn("residue record ignored: " + rerr.Error())
		old = nil
	}
	if old != nil && old.Given != nil {
		return "", "residue: handed over already", true
	}
	facts := residue.FactsOf(residue.Input{Record: rec, NextStep: nextStep(rec)})
	var vs []residue.Verdict
	res := snapshot.Residue{SessionID: r.sid, Snapshot: name, At: r.now}
	if old != nil {
		if stored, ok := residue.FromRecord(facts, old.Facts); ok {
			vs, res.At, res.Source, res.SummaryChars = stored, old.At, old.Source, old.SummaryChars
		}
	}
	if vs == nil {
		// RS-3: no PostCompact ran, or its record does not fit the
		// snapshot: the transcript's summary of this compaction.
		if tg.boundary < 0 {
			st.Residue = due
			return "", "", false
		}
		sum, found, err := r.f.CompactSummary(ctx, tg.boundary)
		if err != nil || !found {
			return "", "residue: no summary after the compaction's boundary", true
		}
		text := residue.TranscriptText(sum)
		vs = residue.Compare(facts, rec, residue.Held{Source: residue.SourceSummary, Text: text})
		res.Source, res.SummaryChars = snapshot.ResidueFromTranscript, textcut.UTF16Len(text)
	}
	var held []residue.Held
	if tg.pointer != "" {
		held = append(held, residue.Held{Source: residue.SourcePointer, Text: tg.pointer})
	}
	var supersedes time.Time
	if tg.boundary >= 0 {
		tail, err := r.f.KeptTail(ctx, tg.boundary)
		if err != nil {
			r.warn("kept tail: " + err.Error())
		}
		var tailText string
		tailText, supersedes = restore.KeptText(tail, name)
		if tailText != "" {
			held = append(held, residue.Held{Source: residue.SourceTail, Text: tailText})
		}
	}
	vs = residue.CompareRest(vs, rec, held...)
	// A pointer handed over late in the same context (up to --max-chars,
	// 9,000) leaves the residue what keeps the whole under the client's
	// 10,000 with a notice (600) beside them (RS-22).
	limit := restore.ResidueMaxChars
	if r.late != "" {
		limit = max(300, min(limit, 9000-textcut.UTF16Len(r.late)))
	}
	out := restore.Residue(restore.ResidueInput{Record: rec, Verdicts: vs, ProjectDir: r.projectDir(rec),
		Compacted: tg.compacted, Now: r.now, Supersedes: supersedes, Lang: r.opts.Lang, MaxChars: limit})
	res.Facts = residue.ToRecord(vs, out.Given)
	res.Given = &snapshot.ResidueGiven{At: r.now, Event: r.p.HookEventName, Chars: textcut.UTF16Len(out.Text),
		Facts: len(out.Given), Omitted: out.Omitted, TranscriptSize: r.f.Size(), Boundary: tg.boundary, Supersedes: supersedes}
	if err := snapshot.WriteResidue(r.opts.Dir, res); err != nil {
		// Without the record the hand-over could be made twice: it is not
		// made (WA-16).
		return "", "residue not handed over: " + err.Error(), true
	}
	dropped := 0
	for _, v := range vs {
		if !v.Kept() {
			dropped++
		}
	}
	if out.Text == "" {
		return "", fmt.Sprintf("residue: the summary, the pointer and the kept tail hold all %d facts", len(vs)), true
	}
	return out.Text, fmt.Sprintf("residue: %d of %d facts dropped, %d given (%d characters)", dropped, len(vs), len(out.Given), textcut.UTF16Len(out.Text)), true
}

// residueTarget is the compaction a due residue is for, as the hand-over
// found it: its own snapshot, when it happened, its boundary's offset (-1
// when the client has not written it yet) and the pointer text the model
// holds of it.
type residueTarget struct {
	rec       *snapshot.Record
	compacted time.Time
	boundary  int64
	pointer   string
}

// Bounds of the wait for a compaction's boundary (WA-17): the client
// writes it after the compaction's hooks, and a hook of the next tool call
// may run before; a note older than this, or followed by this much
// transcript with no boundary, was an abandoned compaction's.
const (
	residueWait      = 30 * time.Minute
	residueWaitBytes = 4 << 20
)

// residueTarget finds the compaction of the note (WA-17): the newest
// boundary after the snapshot and that compaction's own snapshot, as
// selection takes it; or, while the client has not written the boundary,
// the snapshot PostCompact confirmed and compared (its record confirmed,
// its residue record made from compact_summary). wait is set when neither
// is there yet but the note may still be the compaction's.
func (r *watchTurn) residueTarget(ctx context.Context, st *watch.State, due *watch.ResidueDue) (tg *residueTarget, wait bool, why string) {
	l, err := r.latestPointer(ctx, due.TranscriptSize, due.Taken, st.Resumed)
	switch {
	case err != nil:
		return nil, false, "residue: " + err.Error()
	case l == nil:
		if tg := r.confirmedTarget(due); tg != nil {
			return tg, false, ""
		}
		if r.now.Sub(due.Noted) < residueWait && r.f.Size()-due.TranscriptSize < residueWaitBytes {
			return nil, true, ""
		}
		return nil, false, "residue: no compaction after the snapshot noted (abandoned)"
	case l.Record == nil:
		return nil, false, "residue: the latest compaction has no snapshot of its own"
	}
	return &residueTarget{rec: l.Record, compacted: l.Compaction.Time, boundary: l.Compaction.Offset, pointer: r.pointerHeld(l)}, false, ""
}

// confirmedTarget is the note's snapshot when PostCompact confirmed it and
// compared its compact_summary (PO-C6: PostCompact runs after the
// compaction, as selection finds its snapshot), nil otherwise. The pointer
// the model holds is the one handed out for it at SessionStart (its
// delivery record) or late in this run.
func (r *watchTurn) confirmedTarget(due *watch.ResidueDue) *residueTarget {
	rec, err := (&snapshot.Store{Dir: r.opts.Dir}).Load(due.Snapshot)
	if err != nil || rec.SessionID != r.sid || rec.Compaction == nil {
		return nil
	}
	if old, err := snapshot.ReadResidue(r.opts.Dir, rec.Name, r.sid); err != nil || old == nil || old.Given != nil || old.Source != snapshot.ResidueFromHook {
		return nil
	}
	tg := &residueTarget{rec: rec, compacted: rec.Compaction.At, boundary: -1}
	switch d, _ := snapshot.ReadDelivery(r.opts.Dir, rec.Name, r.sid); {
	case r.delivered == rec.Name:
		tg.pointer = r.late
	case d != nil && d.Event == watch.SessionStart:
		tg.pointer = r.renderPointer(rec, filepath.Join(r.opts.Dir, rec.Name+".md"))
	}
	return tg
}

// latestAnswer is a LatestPointer answer and what it was asked.
type latestAnswer struct {
	from  int64
	after time.Time
	l     *selectsnap.Latest
	err   error
}

// latestPointer is selectsnap.LatestPointer for this run's session, asked
// once per question: the late pointer (WA-11) and the residue (WA-17) ask
// it of the same compaction, and each answer lists the snapshot folder.
func (r *watchTurn) latestPointer(ctx context.Context, from int64, after, resumed time.Time) (*selectsnap.Latest, error) {
	if a := r.latest; a != nil && a.from == from && a.after.Equal(after) {
		return a.l, a.err
	}
	l, err := selectsnap.LatestPointer(ctx, selectsnap.LatestOptions{
		Dir: r.opts.Dir, SessionID: r.sid, TranscriptPath: r.p.TranscriptPath, Transcript: r.f,
		From: from, After: after, Resumed: resumed,
	})
	r.latest = &latestAnswer{from: from, after: after, l: l, err: err}
	return l, err
}

// pointerHeld is the pointer text the model holds for compaction l (RS-15):
// what the client recorded as given, else the pointer handed over late in
// this run, else, when it reached the model, the pointer rendered again;
// "" when none reached it.
func (r *watchTurn) pointerHeld(l *selectsnap.Latest) string {
	name := l.Record.Name
	for _, c := range l.Compaction.Contexts {
		if selectsnap.NamedSnapshot(c) == name {
			return c
		}
	}
	if r.delivered == name {
		return r.late
	}
	if !l.Reached {
		return ""
	}
	return r.renderPointer(l.Record, l.MDPath)
}

// renderPointer is the pointer postcompact gives for rec, rendered again.
func (r *watchTurn) renderPointer(rec *snapshot.Record, mdPath string) string {
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	sf := snapshot.FindStateFile(r.ctx, r.opts.EffectiveStateFileName(), []string{r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd, r.p.Cwd})
	return restore.Pointer(restore.PointerInput{Record: rec, MDPath: mdPath, ProjectDir: r.projectDir(rec),
		StateFile: sf, Lang: r.opts.Lang, MaxChars: r.opts.EffectiveMaxChars()})
}

// projectDir is the folder files are shown relative to, as the pointer's
// (PO-C4).
func (r *watchTurn) projectDir(rec *snapshot.Record) string {
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	return cmp.Or(r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd)
}

func (r *watchTurn) warn(s string) { r.warnings = append(r.warnings, s) }
