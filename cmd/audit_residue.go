package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// AuditResidue is what a compaction's summary kept of its snapshot's facts
// and what the residue gave back (specs/audit.md AU-6 to AU-9).
type AuditResidue struct {
	// Source is the residue record's (compact_summary or transcript);
	// "compared" when no record exists and audit compared the transcript's
	// summary itself (AU-7).
	Source       string `json:"source"`
	SummaryChars int    `json:"summary_chars"`
	// Kinds counts the facts per kind, "" for all of them.
	Kinds map[string]snapshot.ResidueCounts `json:"kinds"`
	// Lost are the facts dropped and not given back, their labels, at most
	// auditLost of them; LostTotal how many there are.
	Lost      []string `json:"lost,omitempty"`
	LostTotal int      `json:"lost_total,omitempty"`
	// Given is the hand-over, nil when none was made (AU-8).
	Given *snapshot.ResidueGiven `json:"given,omitempty"`
}

// auditLost bounds the lost facts listed per compaction.
const auditLost = 20

// auditResidue reads the residue record of the compaction's snapshot, or,
// without one, compares the transcript's summary of the compaction with
// the snapshot (RS-3, RS-15, RS-16) as the hand-over would (AU-6, AU-7). nil
// when the compaction has no snapshot.
func auditResidue(ctx context.Context, dir string, f *transcript.File, c transcript.Compaction, records []*snapshot.Record, name, sid string) *AuditResidue {
	if name == "" {
		return nil
	}
	var rec *snapshot.Record
	for _, r := range records {
		if r.Name == name {
			rec = r
		}
	}
	if rec == nil || !residueAgent(rec.Agent) {
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
			if t, _ := keptText(tail, name); t != "" {
				held = append(held, residue.Held{Source: residue.SourceTail, Text: t})
			}
		}
		facts := residue.FactsOf(residue.Input{Record: rec})
		res = &snapshot.Residue{Source: "compared", SummaryChars: textcut.UTF16Len(text),
			Facts: residue.ToRecord(residue.Compare(facts, rec, held...), nil)}
	}
	_, counts := res.CountsBy()
	out := &AuditResidue{Source: res.Source, SummaryChars: res.SummaryChars, Kinds: counts, Given: res.Given}
	for _, fact := range res.Facts {
		if fact.Kept == "" && !fact.Given {
			out.LostTotal++
			if len(out.Lost) < auditLost {
				out.Lost = append(out.Lost, fact.Kind+": "+fact.Text)
			}
		}
	}
	return out
}

// auditResidueLine says in one line what the summary kept of the prompts,
// files and commands, and what the residue gave back (AU-9).
func auditResidueLine(r *AuditResidue) string {
	var kept []string
	for _, k := range []struct{ kind, word string }{{residue.KindPrompt, "prompts"}, {residue.KindFile, "files"}, {residue.KindCommand, "commands"}} {
		if c, ok := r.Kinds[k.kind]; ok {
			kept = append(kept, fmt.Sprintf("%d of %d %s", c.Summary, c.Facts, k.word))
		}
	}
	line := "summary kept " + strings.Join(kept, ", ")
	if len(kept) == 0 {
		line = "no prompts, files or commands in the snapshot"
	}
	switch g := r.Given; {
	case r.Source == "compared":
		line += fmt.Sprintf("; no residue record (compared now with the transcript's summary: %d facts lost)", r.LostTotal)
	case g == nil:
		line += "; residue not handed over yet"
	case g.Facts == 0:
		line += "; residue: nothing dropped, nothing said"
	default:
		line += fmt.Sprintf("; residue gave back %d facts with %s (%d characters)", g.Facts, g.Event, g.Chars)
		if g.Omitted > 0 {
			line += fmt.Sprintf(", %d did not fit", g.Omitted)
		}
	}
	return line
}

// auditResidueSum is the sum line of the residues, "" when no compaction
// had one (AU-9).
func auditResidueSum(rep AuditReport) string {
	var n, given, facts, nothing, pending int
	for _, s := range rep.Sessions {
		for _, c := range s.Compactions {
			r := c.Residue
			if r == nil {
				continue
			}
			n++
			switch g := r.Given; {
			case r.Source == "compared":
			case g == nil:
				pending++
			case g.Facts == 0:
				nothing++
			default:
				given++
				facts += g.Facts
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("residues: %d given back (%d facts), %d with nothing dropped, %d not handed over yet, %d without a record", given, facts, nothing, pending, n-given-nothing-pending)
}
