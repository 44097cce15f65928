package cmd

import (
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/snapshot"
)

// spec: AU-9
//
// audit's residue line counts in words that agree with the numbers ("1
// prompt", "1 fact") and, when nothing was given back, says where the facts
// the summary left out are instead of "nothing dropped" under "kept 0 of 1".
func TestAU9ResidueLineWords(t *testing.T) {
	given := func(facts int) *snapshot.ResidueGiven {
		return &snapshot.ResidueGiven{Event: "UserPromptSubmit", Facts: facts, Chars: 120 * facts}
	}
	for _, c := range []struct {
		name       string
		r          audit.Residue
		want, bans []string
	}{
		{"pointer holds the rest", audit.Residue{Source: snapshot.ResidueFromHook, Given: given(0), Kinds: map[string]snapshot.ResidueCounts{
			"prompt": {Facts: 1, Pointer: 1}, "file": {Facts: 2, Summary: 1, Tail: 1}, "": {Facts: 3, Summary: 1, Pointer: 1, Tail: 1}}},
			[]string{"summary kept 0 of 1 prompt, 1 of 2 files; no residue needed: the pointer and the kept messages hold the 2 facts the summary left out"},
			[]string{"nothing dropped", "1 prompts"}},
		{"summary kept all", audit.Residue{Source: snapshot.ResidueFromHook, Given: given(0), Kinds: map[string]snapshot.ResidueCounts{
			"command": {Facts: 1, Summary: 1}, "": {Facts: 1, Summary: 1}}},
			[]string{"summary kept 1 of 1 command; no residue needed: the summary kept every fact"}, []string{"commands"}},
		{"one fact given back", audit.Residue{Source: snapshot.ResidueFromHook, Given: given(1), Kinds: map[string]snapshot.ResidueCounts{
			"prompt": {Facts: 5, Summary: 4, Dropped: 1, Given: 1}, "": {Facts: 5, Summary: 4, Dropped: 1, Given: 1}}},
			[]string{"summary kept 4 of 5 prompts; residue gave back 1 fact with UserPromptSubmit (120 characters)"}, []string{"1 facts"}},
		{"compared, one lost", audit.Residue{Source: "compared", LostTotal: 1, Kinds: map[string]snapshot.ResidueCounts{
			"prompt": {Facts: 1, Dropped: 1}, "": {Facts: 1, Dropped: 1}}},
			[]string{"(compared now with the transcript's summary: 1 fact lost)"}, []string{"1 facts"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := auditResidueLine(&c.r)
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			for _, b := range c.bans {
				if strings.Contains(line, b) {
					t.Errorf("line %q says %q", line, b)
				}
			}
		})
	}
	rep := audit.Report{Sessions: []audit.Session{{Compactions: []audit.Compaction{
		{Residue: &audit.Residue{Source: snapshot.ResidueFromHook, Given: given(1)}},
		{Residue: &audit.Residue{Source: snapshot.ResidueFromHook, Given: given(0)}},
	}}}}
	if got, want := auditResidueSum(rep), "residues: 1 given back (1 fact), 1 not needed, 0 not handed over yet, 0 without a record"; got != want {
		t.Errorf("sum line %q, want %q", got, want)
	}
}
