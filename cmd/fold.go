package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// The fold (specs/postcompact.md PO-C17, PO-C18): precompact reads a Claude
// Code transcript at once (PC-48) and records how far it read; the client
// writes what it queued before the hook started about 100 ms later, while
// the hook runs (E2E-41). SessionStart(compact) and PostCompact run after
// that, so they read the lines past the recorded point, up to the
// compaction's boundary, into the same snapshot file: the pointer already
// handed out, or about to be, names a complete snapshot, and no hook waits
// for a quiet window.

// stepFold is the name the fold goes by for a test's beforeStep.
const stepFold = "folding the lines written after the snapshot"

// foldLate completes found's choice, this compaction's snapshot, with the
// lines of f the client wrote after it was taken (PO-C17); with a failure
// marker of this compaction there is nothing to complete (PO-C5). It
// changes the choice's record only when the snapshot on disk was
// rewritten; what went wrong is a warning in the log line and leaves the
// snapshot as it was (PO-C18). Only the client's hooks fold: a run by
// hand writes nothing (PO-C13).
func foldLate(ctx context.Context, opts *PostcompactOptions, p Payload, f *transcript.File, found thisCompaction, at time.Time, entry *logEntry) {
	choice := found.choice
	if f == nil || found.failure != nil || choice == nil || choice.Record == nil ||
		p.HookEventName != "SessionStart" && p.HookEventName != "PostCompact" {
		return
	}
	rec := choice.Record
	if format, _ := f.Format(); format != transcript.FormatClaude || rec.TranscriptPath == "" || !sameFile(rec.TranscriptPath, p.TranscriptPath) {
		return
	}
	from := rec.Coverage.TranscriptSize
	if from >= f.Size() || rec.Coverage.Incomplete {
		return
	}
	type folded struct {
		rec  *snapshot.Record
		note string
		err  error
	}
	r, berr := bounded(ctx, opts.beforeStep, stepFold, func() folded {
		nrec, note, err := foldInto(ctx, opts, p, f, rec, at)
		return folded{nrec, note, err}
	})
	switch {
	case berr != nil:
		entry.Warnings = append(entry.Warnings, "snapshot not completed: "+berr.Error())
	case r.err != nil:
		entry.Warnings = append(entry.Warnings, "snapshot not completed: "+r.err.Error())
	case r.rec != nil:
		choice.Record = r.rec
		entry.Detail = joinDetail(entry.Detail, r.note)
	}
}

// foldInto reads the lines after rec's transcript_size; when they hold one
// of the session's own, it reads the segment again up to the compaction's
// boundary (or the last whole line, before the boundary is written) as
// precompact reads it, and rewrites the snapshot with those facts, its
// other fields as they were. It returns the new record, nil when nothing
// was to be folded.
func foldInto(ctx context.Context, opts *PostcompactOptions, p Payload, f *transcript.File, rec *snapshot.Record, at time.Time) (*snapshot.Record, string, error) {
	from := rec.Coverage.TranscriptSize
	tail, err := f.TailFrom(ctx, from)
	if err != nil {
		return nil, "", fmt.Errorf("reading the lines after byte %d: %w", from, err)
	}
	if !tail.Own || tail.End <= from {
		return nil, "", nil
	}
	view := f.Upto(tail.End)
	last, err := view.LastBoundary(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("finding the last compaction: %w", err)
	}
	store := &snapshot.Store{Dir: opts.Dir, Now: opts.Now}
	plan := transcript.ReadPlan{LastBoundary: last, ChainEnd: -1, EarlierBudget: defaultEarlierBudget}
	var prev *snapshot.Record
	if last >= 0 {
		if prev, err = store.FindChain(rec.SessionID, rec.TranscriptPath, last); err == nil && prev != nil {
			plan.ChainEnd, plan.Seed = prev.Coverage.TranscriptSize, factsFromRecord(prev)
		}
	}
	res, err := view.Read(ctx, plan)
	if err != nil {
		return nil, "", err
	}
	if res.Interrupted || res.ReadTo < tail.End || len(res.Unread) > 0 {
		return nil, "", fmt.Errorf("the transcript was not read to byte %d by the deadline", tail.End)
	}
	nrec := *rec
	fillFromFacts(&nrec, res.Facts)
	var out transcriptOutcome
	out.layout.segmentStart = last
	out.noteRead(res, prev, tail.End)
	nrec.Coverage = snapshot.Coverage{
		TranscriptSize: tail.End, SegmentStart: last, ReadFrom: out.layout.readFrom, ReadTo: out.layout.readTo,
		Previous: out.layout.previous, Partial: out.layout.partial,
		Folded: &snapshot.Fold{At: at.UTC(), Event: valueOr(p.HookEventName, "SessionStart"), From: from, To: tail.End},
	}
	// The record on disk was redacted when it was taken; the facts read
	// again are redacted before they reach the disk (PC-15, PO-C16). A
	// secret counted then is not counted again.
	nrec.Redactions = max(rec.Redactions, snapshot.RedactRecord(&nrec))
	if err := store.Rewrite(&nrec); err != nil {
		return nil, "", err
	}
	return &nrec, fmt.Sprintf("completed %s with bytes %d to %d written after it was taken", nrec.Name, from, tail.End), nil
}

// joinDetail adds note to a log line's detail.
func joinDetail(detail, note string) string {
	if detail == "" {
		return note
	}
	return detail + "; " + note
}
