package handover

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript"
)

// The snapshot postcompact takes itself at SessionStart(compact) when no
// snapshot was taken for the compaction that just happened (a precomputed
// swap, whose PreCompact ran turns earlier, or a compaction whose PreCompact
// did not run or failed): specs/postcompact.md PO-18, PO-C10 to PO-C13,
// specs/selectsnap.md SS-21.

// shareTake is when the take at SessionStart must be done: after selection
// (by 3/4 of --timeout, usually within milliseconds) and before the
// delivery record (9/10), PO-C11.
var shareTake = hookio.Share{Num: 17, Den: 20}

// mayTake reports whether this run takes the snapshot itself (PO-C10,
// PO-C13): a SessionStart(compact) the client runs (not a run by hand),
// whose selection ended with no snapshot of this compaction, on a
// transcript that opened, of a client that writes the compaction's
// boundary after this hook (SS-21).
func mayTake(p hookio.Payload, agent string, f *transcript.File, found thisCompaction, selErr error) bool {
	return p.HookEventName == "SessionStart" && p.Source == "compact" && f != nil && selErr == nil &&
		found.choice == nil && selectsnap.TakesAtSessionStart(agent)
}

// takeAtCompaction takes the snapshot of this compaction now, from the
// transcript as it stands (the client has not written the compaction's
// boundary yet, so its last segment is the one compacted), by the same
// gathering precompact uses (PC-35), within ctx: its steps get
// precompact's phases of the time ctx leaves (PO-C11). It saves it without
// pruning the folder (precompact's --keep is precompact's), clears the
// session's failure marker, and notes the compaction for watch's pointer
// check (WA-11), as precompact does. It returns the choice, or nil and why
// not.
func takeAtCompaction(ctx context.Context, opts *Options, p hookio.Payload, client Client, sessionID string, start time.Time, found thisCompaction) (*selectsnap.Choice, []string) {
	var warnings []string
	dl, ok := ctx.Deadline()
	budget := time.Until(dl)
	if !ok || budget <= 0 {
		return nil, []string{"snapshot at the compaction: not taken: the deadline had passed"}
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	pre := &take.Options{
		Dir: opts.Dir, Lang: opts.Lang, Keep: math.MaxInt32, StateFileName: opts.EffectiveStateFileName(),
		Timeout: budget, GitTimeout: take.DefaultGitTimeout, EarlierBudget: take.DefaultEarlierBudget,
		Getenv: opts.Getenv, Now: opts.Now, BeforeStep: opts.BeforeStep,
	}
	rec, gw := take.Gather(ctx, pre, client.take(), p, nil, sessionID, start)
	warnings = append(warnings, gw...)
	if rec == nil {
		return nil, append(warnings, "snapshot at the compaction: nothing to snapshot")
	}
	saveCtx, cancelSave := hookio.Phase(ctx, budget, hookio.ShareSave)
	defer cancelSave()
	// SessionStart carries no trigger; the PreCompact that ran when a
	// precomputed compaction was armed knew it (SS-18).
	if name := selectsnap.PreparedEarlier(found.rejected); name != "" && rec.Trigger == snapshot.Unknown {
		if prepared, err := hookio.Bounded(saveCtx, opts.BeforeStep, "the snapshot taken when the compaction was prepared", func() string {
			r, err := (&snapshot.Store{Dir: opts.Dir}).Load(name)
			if err != nil || r.SessionID != sessionID {
				return ""
			}
			return r.Trigger
		}); err == nil && prepared != "" {
			rec.Trigger = prepared
		}
	}
	if prep, err := hookio.Bounded(saveCtx, opts.BeforeStep, "watch state and handoff", func() take.Preparation {
		return take.ReadPreparation(pre, rec, p, start)
	}); err != nil {
		warnings = append(warnings, err.Error())
	} else {
		rec.Preparation = prep.P
		warnings = append(warnings, prep.Warnings...)
		// The handoff block's heading and next step come after the
		// gathering redacted the record: redact them too before the save,
		// as precompact does (PO-C16, PC-15).
		rec.Redactions += snapshot.RedactPreparation(rec.Preparation)
	}
	store := &snapshot.Store{Dir: opts.Dir, Keep: pre.Keep, Now: opts.Now}
	type saved struct {
		mdPath   string
		warnings []string
		err      error
	}
	sv, berr := hookio.Bounded(saveCtx, opts.BeforeStep, "saving the snapshot", func() saved {
		md, w, err := store.Save(rec, opts.Lang)
		return saved{md, w, err}
	})
	switch {
	case berr != nil:
		return nil, append(warnings, "snapshot at the compaction: "+berr.Error())
	case sv.err != nil:
		return nil, append(warnings, "snapshot at the compaction: "+sv.err.Error())
	}
	warnings = append(warnings, sv.warnings...)
	if _, err := hookio.Bounded(saveCtx, opts.BeforeStep, "clearing the failure marker", func() bool {
		snapshot.ClearFailure(opts.Dir, sessionID)
		return true
	}); err != nil {
		warnings = append(warnings, err.Error())
	}
	nerr, berr := hookio.Bounded(saveCtx, opts.BeforeStep, "noting the compaction for watch", func() error {
		return take.NoteCompaction(pre, rec, sv.mdPath, start)
	})
	if berr != nil {
		nerr = berr
	}
	if nerr != nil {
		warnings = append(warnings, "watch state: "+nerr.Error())
	}
	return &selectsnap.Choice{
		Record: rec, MDPath: sv.mdPath, JSONPath: strings.TrimSuffix(sv.mdPath, ".md") + ".json",
	}, warnings
}

// takeIfNone is the SessionStart path's take (PO-C10): when mayTake, it
// takes the snapshot, and on success makes it the choice, the failure
// marker of this compaction (PO-C5) then saying only why the snapshot was
// taken at the compaction; a take that fails leaves found as it was, so
// that the failure notice still wins (PO-C12). It returns what the pointer
// says of the take, nil when none was taken.
func takeIfNone(ctx context.Context, opts *Options, p hookio.Payload, client Client, sessionID string, start time.Time, f *transcript.File, found *thisCompaction, selErr error, entry *hookio.Entry) *restore.Taken {
	if !mayTake(p, client.agent(f), f, *found, selErr) {
		return nil
	}
	choice, warnings := takeAtCompaction(ctx, opts, p, client, sessionID, start, *found)
	entry.Warnings = append(entry.Warnings, warnings...)
	if choice == nil {
		return nil
	}
	taken := &restore.Taken{}
	if found.failure != nil {
		taken.Failure, taken.LogPath = found.failure.Reason, found.failure.LogPath
	}
	found.choice, found.failure = choice, nil
	// What was turned down is older than the snapshot now taken (DR-13).
	entry.TurnedDown, entry.NewerTurnedDown = turnedDown(found.rejected, choice)
	entry.Detail = "snapshot taken at the compaction (" + filepath.Base(choice.MDPath) + "): none was taken before it"
	return taken
}

// supersededPointer is when the earlier pointer that may still be in the
// context was made (PO-19), zero for none or when the transcript could not
// tell within ctx.
func supersededPointer(ctx context.Context, opts *Options, f *transcript.File, current string, entry *hookio.Entry) time.Time {
	if f == nil {
		return time.Time{}
	}
	type found struct {
		at  time.Time
		err error
	}
	r, berr := hookio.Bounded(ctx, opts.BeforeStep, "looking for an earlier pointer", func() found {
		at, err := selectsnap.EarlierPointer(ctx, f, current)
		return found{at, err}
	})
	switch {
	case berr != nil:
		entry.Warnings = append(entry.Warnings, berr.Error())
	case r.err != nil:
		entry.Warnings = append(entry.Warnings, "earlier pointer: "+r.err.Error())
	}
	return r.at
}
