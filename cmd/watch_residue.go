package cmd

import (
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// residueDue is the note that the residue of the compaction rec was taken
// for is due (WA-14); nil when there is no snapshot (name "") or the
// session's client gets no residue (RS-1).
func residueDue(rec *snapshot.Record, name string, now time.Time) *watch.ResidueDue {
	if name == "" || !residueAgent(rec.Agent) {
		return nil
	}
	return &watch.ResidueDue{Snapshot: name, Taken: rec.CreatedAt.UTC(), TranscriptSize: rec.Coverage.TranscriptSize, Noted: now.UTC()}
}

// noteResidue is precompact's note (WA-14): a compaction without a
// snapshot, or another client's, replaces an earlier compaction's due
// residue with none, since that one is no longer this compaction's.
func noteResidue(st *watch.State, rec *snapshot.Record, name string, now time.Time) {
	st.Residue = residueDue(rec, name, now)
}
