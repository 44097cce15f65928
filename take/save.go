package take

import (
	"context"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
)

// The save steps of Run, each bounded by the save phase (hookio.ShareSave)
// under the step name tests hook into: functions of their own so that the
// run reads as the order of its steps.

// saved is what the step that saves the snapshot hands back.
type saved struct {
	mdPath   string
	warnings []string
	err      error
}

// addPreparation adds to rec how the compaction was prepared (WA-12), read
// from the watch state and the handoff; a step given up leaves the record
// without it.
func addPreparation(saveCtx context.Context, opts *Options, rec *snapshot.Record, payload hookio.Payload, start time.Time, entry *hookio.Entry) {
	if prep, perr := hookio.Bounded(saveCtx, opts.BeforeStep, "watch state and handoff", func() Preparation {
		return ReadPreparation(opts, rec, payload, start)
	}); perr != nil {
		entry.Warnings = append(entry.Warnings, perr.Error())
	} else {
		rec.Preparation = prep.P
		entry.Warnings = append(entry.Warnings, prep.Warnings...)
		if !opts.NoRedact {
			rec.Redactions += snapshot.RedactPreparation(rec.Preparation)
		}
	}
}

// noteCompactionWithin notes the compaction in the session's watch state
// (WA-11), with its snapshot at mdPath or none; a failure is a warning.
func noteCompactionWithin(saveCtx context.Context, opts *Options, rec *snapshot.Record, mdPath string, start time.Time, entry *hookio.Entry) {
	nerr, nberr := hookio.Bounded(saveCtx, opts.BeforeStep, "noting the compaction for watch", func() error {
		return NoteCompaction(opts, rec, mdPath, start)
	})
	if nberr != nil {
		nerr = nberr
	}
	if nerr != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+nerr.Error())
	}
}

// writeFailureMarker leaves the session's failure marker, which postcompact
// reports (PO-C5), after the save failed with saveErr; a marker that cannot
// be written is said in the log line's detail.
func writeFailureMarker(saveCtx context.Context, opts *Options, rec *snapshot.Record, sessionID string, start time.Time, saveErr error, entry *hookio.Entry) {
	werr, merr := hookio.Bounded(saveCtx, opts.BeforeStep, "failure marker", func() error {
		// The notice names the log as written only when a line can
		// be appended to it now; otherwise it says where it was
		// tried and why it failed (RB-26).
		lp, logErr := hookio.LogPath(opts.Dir), ""
		if err := snapshot.CheckLog(lp); err != nil {
			logErr = err.Error()
		}
		return snapshot.WriteFailure(opts.Dir, snapshot.Failure{
			SessionID: sessionID, Time: start, Reason: saveErr.Error(), LogPath: lp, LogError: logErr,
			TranscriptSize: rec.Coverage.TranscriptSize, PromptID: rec.PromptID,
		})
	})
	if merr == nil {
		merr = werr
	}
	if merr != nil {
		entry.Detail += "; failure marker not written: " + merr.Error()
	}
}

// supersedeWithin removes, for a snapshot that supersedes (Gemini CLI's at
// PreCompress, Client.Supersedes), the session's
// earlier snapshots of the same segment that were never handed out (PC-47,
// SF-71): the client runs the hook before every model request, and only
// the newest can be the next compression's. A step given up, or a file
// that cannot be removed, is a warning.
func supersedeWithin(saveCtx context.Context, opts *Options, supersedes func(agent, event string) bool, store *snapshot.Store, rec *snapshot.Record, entry *hookio.Entry) {
	if supersedes == nil || !supersedes(rec.Agent, rec.HookEvent) {
		return
	}
	w, err := hookio.Bounded(saveCtx, opts.BeforeStep, "removing the snapshots this one supersedes", func() []string {
		return store.Supersede(rec)
	})
	if err != nil {
		w = append(w, err.Error())
	}
	entry.Warnings = append(entry.Warnings, w...)
}
