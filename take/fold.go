package take

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Fold completes rec, a Claude Code snapshot that precompact (or the take at
// SessionStart) wrote from the transcript f as it stood then, with the lines
// the client wrote after it (specs/postcompact.md PO-C18): it reads the
// lines after rec's transcript_size (transcript TR-90), and when they hold
// one of the session's own, reads the segment again up to the compaction's
// boundary (or the last whole line, before the client writes it) as
// precompact reads it, puts those facts in place of the record's, its other
// fields as they were, redacts them (PC-15, PO-C16) and rewrites the
// snapshot under its name (SF-72). event is the hook that folds. It returns
// the new record and the log line's note, nil and "" when nothing was to be
// folded; an error leaves the snapshot as it was (PO-C19).
func Fold(ctx context.Context, dir string, now func() time.Time, event string, f *transcript.File, rec *snapshot.Record, at time.Time) (*snapshot.Record, string, error) {
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
	store := &snapshot.Store{Dir: dir, Now: now}
	plan := transcript.ReadPlan{LastBoundary: last, ChainEnd: -1, EarlierBudget: DefaultEarlierBudget}
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
		Folded: &snapshot.Fold{At: at.UTC(), Event: cmp.Or(event, "SessionStart"), From: from, To: tail.End},
	}
	// The record on disk was redacted when it was taken; the facts read
	// again are redacted before they reach the disk. A secret counted then
	// is not counted again.
	nrec.Redactions = max(rec.Redactions, snapshot.RedactRecord(&nrec))
	if err := store.Rewrite(&nrec); err != nil {
		return nil, "", err
	}
	return &nrec, fmt.Sprintf("completed %s with bytes %d to %d written after it was taken", nrec.Name, from, tail.End), nil
}
