package handover

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// recordResidue is the PostCompact run's second step (specs/watch.md
// WA-14): it compares compact_summary with this compaction's snapshot,
// records what the summary kept and dropped beside the snapshot
// (<name>.residue, SF-63), and notes in the session's watch state that the
// residue is due, for the next prompt or tool call to hand over. Without
// compact_summary it notes the residue due all the same: the hand-over then
// compares the transcript's summary (RS-3).
func recordResidue(ctx context.Context, opts *Options, p hookio.Payload, sessionID string, at time.Time, found thisCompaction, entry *hookio.Entry) {
	if found.choice == nil || found.failure != nil {
		return
	}
	rec := found.choice.Record
	if !residue.ForAgent(rec.Agent) {
		return // RS-1: no residue for another client's session
	}
	detail := ""
	if p.CompactSummary != nil {
		text := residue.ModelText(*p.CompactSummary)
		facts := residue.FactsOf(residue.Input{Record: rec, NextStep: nextStep(rec)})
		vs := residue.Compare(facts, rec, residue.Held{Source: residue.SourceSummary, Text: text})
		r := snapshot.Residue{SessionID: sessionID, Snapshot: rec.Name, At: at, Source: snapshot.ResidueFromHook,
			SummaryChars: textcut.UTF16Len(text), Facts: residue.ToRecord(vs, nil)}
		werr, berr := hookio.Bounded(ctx, opts.BeforeStep, "recording the residue", func() error {
			return snapshot.WriteResidue(opts.Dir, r)
		})
		if berr != nil {
			werr = berr
		}
		switch {
		case errors.Is(werr, snapshot.ErrResidueGiven):
			// This compaction's PostCompact ran again after the hand-over:
			// nothing is due any more.
			appendDetail(entry, "residue: handed over already")
			return
		case werr != nil:
			entry.Warnings = append(entry.Warnings, werr.Error())
		default:
			kept := 0
			for _, v := range vs {
				if v.Kept() {
					kept++
				}
			}
			detail = fmt.Sprintf("residue: the summary kept %d of %d facts", kept, len(vs))
		}
	} else {
		detail = "residue: no compact_summary; the transcript's summary will be compared"
	}
	if err := noteResidueDue(ctx, opts.BeforeStep, opts.Dir, rec, at); err != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+err.Error())
		return
	}
	appendDetail(entry, detail)
}

// noteResidueDue notes in the session's watch state that the residue of
// the compaction rec was taken for is due (WA-14). precompact notes it when
// it writes the snapshot, PostCompact again when it has compared.
func noteResidueDue(ctx context.Context, before func(string), dir string, rec *snapshot.Record, now time.Time) error {
	err, berr := hookio.Bounded(ctx, before, "noting the residue", func() error {
		store := watch.StoreFor(dir)
		if st, err := store.Load(rec.SessionID); err == nil && st != nil && st.Residue != nil &&
			st.Residue.Snapshot == rec.Name && st.Residue.TranscriptSize == rec.Coverage.TranscriptSize {
			// precompact noted it: no lock, no write (PF-22).
			return nil
		}
		_, err := store.Update(rec.SessionID, func(st *watch.State) bool {
			st.Residue = take.ResidueDue(rec, rec.Name, now)
			return true
		})
		return err
	})
	if berr != nil {
		return berr
	}
	return err
}

// nextStep is the NEXT STEP of the handoff block the record names as
// current (WA-12), as precompact recorded and redacted it: "" when there is
// none or the block is not current (it is not this compaction's). The
// residue hands it back when the summary dropped it; the state file is not
// read again, since it may have changed since the compaction.
func nextStep(rec *snapshot.Record) string { return rec.Preparation.CurrentNextStep() }

func appendDetail(e *hookio.Entry, s string) {
	if s == "" {
		return
	}
	if e.Detail != "" {
		e.Detail += "; "
	}
	e.Detail += s
}
