package snapshot

import (
	"strings"
	"testing"
)

// spec: RS-25
//
// show's residue section never says "nothing dropped" under a kind the
// summary kept none of: with nothing given back it says that the summary,
// the pointer and the kept messages hold every fact, or that nothing was
// given back when facts were dropped.
func TestRS25ResidueSectionWords(t *testing.T) {
	rec := fullRecord()
	res := &Residue{SessionID: rec.SessionID, Snapshot: rec.Name, At: t0, Source: ResidueFromHook, SummaryChars: 900,
		Facts: []ResidueFact{{Kind: "prompt", Key: "prompt:0", Text: "run the tests", Kept: "pointer", Rule: "RS-6"}},
		Given: &ResidueGiven{At: t0, Event: "UserPromptSubmit"}}
	out := string(RenderMarkdownWithResidue(rec, English, false, res))
	for _, want := range []string{"- Prompts: 1 of 1 kept (summary 0, pointer 1, kept messages 0), 0 dropped, 0 given back",
		"- Residue: none needed, the summary, the pointer and the kept messages hold every fact (UserPromptSubmit)"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "nothing dropped") {
		t.Errorf("show says nothing dropped:\n%s", out)
	}
	res.Facts[0].Kept, res.Facts[0].Rule = "", ""
	out = string(RenderMarkdownWithResidue(rec, English, false, res))
	if !strings.Contains(out, "- Residue: nothing given back (UserPromptSubmit)") || strings.Contains(out, "none needed") {
		t.Errorf("a dropped fact not given back:\n%s", out)
	}
}
