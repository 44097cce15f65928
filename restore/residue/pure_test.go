package residue

import (
	"reflect"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// FactsOf and Compare are pure: the same record and texts give the same
// verdicts, the record is left as it was, and each verdict names the text
// that holds its fact and the clause that found it, or neither when the
// fact is dropped. Only Claude Code's records get a residue.
// spec: RS-1
func TestFactsAndVerdictsArePure(t *testing.T) {
	rec := &snapshot.Record{
		Prompts:  []transcript.Prompt{{Text: "add a cache to the parser"}, {Text: "make the cache safe for concurrent use"}},
		Commands: []transcript.Command{{Tool: "Bash", Command: "go test -race ./parser/", Outcome: transcript.OutcomeOK}},
	}
	before := *rec
	facts := FactsOf(Input{Record: rec})
	if len(facts) == 0 {
		t.Fatal("no facts")
	}
	summary := Held{Source: SourceSummary, Text: `The user asked "add a cache to the parser".`}
	first := Compare(facts, rec, summary)
	again := Compare(FactsOf(Input{Record: rec}), rec, summary)
	if !reflect.DeepEqual(first, again) {
		t.Errorf("two runs differ:\n%+v\n%+v", first, again)
	}
	if !reflect.DeepEqual(*rec, before) {
		t.Error("the record was changed")
	}
	kept, dropped := 0, 0
	for _, v := range first {
		switch {
		case v.Source == SourceSummary && v.Rule != "":
			kept++
			if v.Text != "add a cache to the parser" {
				t.Errorf("%q is said to be held by the summary", v.Text)
			}
		case v.Source == "" && v.Rule == "":
			dropped++
		default:
			t.Errorf("verdict %+v names a text without a clause, or a clause without a text", v)
		}
	}
	if kept != 1 || dropped != len(first)-1 {
		t.Errorf("%d kept, %d dropped of %d: %+v", kept, dropped, len(first), first)
	}

	for agent, want := range map[string]bool{"": true, "claude": true, "codex": false, "qwen": false, "copilot": false, "gemini": false} {
		if got := ForAgent(agent); got != want {
			t.Errorf("ForAgent(%q) = %v, want %v", agent, got, want)
		}
	}
}
