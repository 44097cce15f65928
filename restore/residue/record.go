package residue

import (
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// ToRecord turns verdicts into the residue record's facts (snapshot-format.md
// SF-66): each fact's label cut at snapshot.ResidueLabelChars, where the
// model holds it and by which rule; given marks those the residue handed
// back (by key).
func ToRecord(vs []Verdict, given map[string]bool) []snapshot.ResidueFact {
	out := make([]snapshot.ResidueFact, 0, len(vs))
	for _, v := range vs {
		label, _ := textcut.Runes(v.Text, snapshot.ResidueLabelChars)
		out = append(out, snapshot.ResidueFact{Kind: v.Kind, Key: v.Key, Text: label, Kept: v.Source, Rule: v.Rule, Given: given[v.Key]})
	}
	return out
}

// FromRecord pairs the facts of a record with the verdicts a residue record
// stored for them (made at PostCompact, against the summary alone): ok is
// false when the two do not list the same facts, the same key with the same
// label in the same order, and the stored verdicts then cannot be used.
func FromRecord(facts []Fact, stored []snapshot.ResidueFact) (vs []Verdict, ok bool) {
	if len(facts) != len(stored) {
		return nil, false
	}
	vs = make([]Verdict, len(facts))
	for i, f := range facts {
		s := stored[i]
		label, _ := textcut.Runes(f.Text, snapshot.ResidueLabelChars)
		if s.Key != f.Key || s.Kind != f.Kind || s.Text != label {
			return nil, false
		}
		vs[i] = Verdict{Fact: f, Source: s.Kept, Rule: s.Rule}
	}
	return vs, true
}

// CompareRest decides, for the facts the verdicts leave dropped, whether
// one of the other held texts keeps them (RS-15): a comparison made at
// PostCompact against the summary is completed at the hand-over with the
// pointer and the kept tail.
func CompareRest(vs []Verdict, rec *snapshot.Record, held ...Held) []Verdict {
	var rest []Fact
	var at []int
	for i, v := range vs {
		if !v.Kept() {
			rest = append(rest, v.Fact)
			at = append(at, i)
		}
	}
	out := append([]Verdict(nil), vs...)
	for j, v := range Compare(rest, rec, held...) {
		out[at[j]] = v
	}
	return out
}
