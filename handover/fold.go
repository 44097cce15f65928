package handover

import (
	"context"
	"os"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript"
)

// The fold (specs/postcompact.md PO-C18, PO-C19): precompact reads a Claude
// Code transcript at once (PC-48) and records how far it read; the client
// writes what it queued before the hook started about 100 ms later, while
// the hook runs (E2E-41). SessionStart(compact) and PostCompact run after
// that, so they read the lines past the recorded point, up to the
// compaction's boundary, into the same snapshot file: the pointer already
// handed out, or about to be, names a complete snapshot, and no hook waits
// for a quiet window.

// StepFold is the name the fold goes by for a test's BeforeStep.
const StepFold = "folding the lines written after the snapshot"

// foldLate completes found's choice, this compaction's snapshot, with the
// lines of f the client wrote after it was taken (PO-C18); with a failure
// marker of this compaction there is nothing to complete (PO-C5). It
// changes the choice's record only when the snapshot on disk was
// rewritten; what went wrong is a warning in the log line and leaves the
// snapshot as it was (PO-C19). Only the client's hooks fold: a run by hand
// writes nothing (PO-C13).
func foldLate(ctx context.Context, opts *Options, p hookio.Payload, f *transcript.File, found thisCompaction, at time.Time, entry *hookio.Entry) {
	choice := found.choice
	if f == nil || found.failure != nil || choice == nil || choice.Record == nil ||
		p.HookEventName != "SessionStart" && p.HookEventName != "PostCompact" {
		return
	}
	rec := choice.Record
	if format, _ := f.Format(); format != transcript.FormatClaude || rec.TranscriptPath == "" || !sameFile(rec.TranscriptPath, p.TranscriptPath) {
		return
	}
	if rec.Coverage.TranscriptSize >= f.Size() || rec.Coverage.Incomplete {
		return
	}
	type folded struct {
		note string
		err  error
		rec  *snapshot.Record
	}
	r, berr := hookio.Bounded(ctx, opts.BeforeStep, StepFold, func() folded {
		nrec, note, err := take.Fold(ctx, opts.Dir, opts.Now, p.HookEventName, f, rec, at)
		return folded{note, err, nrec}
	})
	switch {
	case berr != nil:
		entry.Warnings = append(entry.Warnings, "snapshot not completed: "+berr.Error())
	case r.err != nil:
		entry.Warnings = append(entry.Warnings, "snapshot not completed: "+r.err.Error())
	case r.rec != nil:
		choice.Record = r.rec
		appendDetail(entry, r.note)
	}
}

// sameFile reports whether a and b name the same existing file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
