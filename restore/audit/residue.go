package audit

import (
	"context"

	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Residue is what a compaction's summary kept of its snapshot's facts
// and what the residue gave back (specs/audit.md AU-6 to AU-9).
type Residue struct {
	// Source is the residue record's (compact_summary or transcript);
	// "compared" when no record exists and audit compared the transcript's
	// summary itself (AU-7).
	Source       string `json:"source"`
	SummaryChars int    `json:"summary_chars"`
	// Kinds counts the facts per kind, "" for all of them.
	Kinds map[string]snapshot.ResidueCounts `json:"kinds"`
	// Lost are the facts dropped and not given back, their labels, at most
	// maxLost of them; LostTotal how many there are.
	Lost      []string `json:"lost,omitempty"`
	LostTotal int      `json:"lost_total,omitempty"`
	// Given is the hand-over, nil when none was made (AU-8).
	Given *snapshot.ResidueGiven `json:"given,omitempty"`
}

// maxLost bounds the lost facts listed per compaction.
const maxLost = 20

// readResidue reads the residue record of the compaction's snapshot, or,
// without one, compares the transcript's summary of the compaction with
// the snapshot (RS-3, RS-15, RS-16) as the hand-over would (AU-6, AU-7). nil
// when the compaction has no snapshot.
func readResidue(ctx context.Context, dir string, f *transcript.File, c transcript.Compaction, records []*snapshot.Record, name, sid string) *Residue {
	if name == "" {
		return nil
	}
	var rec *snapshot.Record
	for _, r := range records {
		if r.Name == name {
			rec = r
		}
	}
	if rec == nil || !residue.ForAgent(rec.Agent) {
		return nil
	}
	res, err := snapshot.ReadResidue(dir, name, sid)
	if err != nil || res == nil {
		sum, found, serr := f.CompactSummary(ctx, c.Offset)
		if serr != nil || !found {
			return nil
		}
		text := residue.TranscriptText(sum)
		held := []residue.Held{{Source: residue.SourceSummary, Text: text}}
		for _, ctxText := range c.Contexts {
			if selectsnap.NamedSnapshot(ctxText) == name {
				held = append(held, residue.Held{Source: residue.SourcePointer, Text: ctxText})
			}
		}
		if tail, terr := f.KeptTail(ctx, c.Offset); terr == nil {
			if t, _ := restore.KeptText(tail, name); t != "" {
				held = append(held, residue.Held{Source: residue.SourceTail, Text: t})
			}
		}
		facts := residue.FactsOf(residue.Input{Record: rec})
		res = &snapshot.Residue{Source: "compared", SummaryChars: textcut.UTF16Len(text),
			Facts: residue.ToRecord(residue.Compare(facts, rec, held...), nil)}
	}
	_, counts := res.CountsBy()
	out := &Residue{Source: res.Source, SummaryChars: res.SummaryChars, Kinds: counts, Given: res.Given}
	for _, fact := range res.Facts {
		if fact.Kept == "" && !fact.Given {
			out.LostTotal++
			if len(out.Lost) < maxLost {
				out.Lost = append(out.Lost, fact.Kind+": "+fact.Text)
			}
		}
	}
	return out
}
