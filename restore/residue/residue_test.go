package residue

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// TestClauses runs one synthetic case per clause (testdata/rs*.txtar): a
// record, the texts the model holds (a summary as PostCompact gives it,
// "compact_summary", or as the transcript holds it, "transcript_summary", or
// as the model reads it, "summary"; then "pointer" and "tail"), and the
// verdict wanted for every fact, "<key> <source> <rule>" or "<key> dropped".
func TestClauses(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rs*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sections := map[string]string{}
			for _, f := range a.Files {
				sections[f.Name] = string(f.Data)
			}
			var rec snapshot.Record
			if err := json.Unmarshal([]byte(sections["record.json"]), &rec); err != nil {
				t.Fatalf("record.json: %v", err)
			}
			var held []Held
			switch {
			case sections["compact_summary"] != "":
				held = append(held, Held{SourceSummary, ModelText(sections["compact_summary"])})
			case sections["transcript_summary"] != "":
				held = append(held, Held{SourceSummary, TranscriptText(sections["transcript_summary"])})
			default:
				held = append(held, Held{SourceSummary, sections["summary"]})
			}
			if s := sections["pointer"]; s != "" {
				held = append(held, Held{SourcePointer, s})
			}
			if s := sections["tail"]; s != "" {
				held = append(held, Held{SourceTail, s})
			}
			got := map[string]string{}
			var order []string
			for _, v := range Compare(FactsOf(Input{Record: &rec, NextStep: sections["next_step"]}), &rec, held...) {
				verdict := "dropped"
				if v.Kept() {
					verdict = v.Source + " " + v.Rule
				}
				got[v.Key] = verdict
				order = append(order, v.Key)
			}
			want := strings.Split(strings.TrimSpace(sections["want"]), "\n")
			if len(want) != len(got) {
				t.Errorf("%d facts, the case lists %d: %v", len(got), len(want), order)
			}
			for _, w := range want {
				key, verdict, _ := strings.Cut(strings.TrimSpace(w), " ")
				if got[key] != verdict {
					t.Errorf("%s: %q, want %q\n%s", key, got[key], verdict, a.Comment)
				}
			}
		})
	}
}

// spec: RS-4
func TestFactsOfOrderAndBounds(t *testing.T) {
	rec := &snapshot.Record{Git: &snapshot.Git{Repo: true, Root: "/p"}}
	for i := range 7 {
		rec.Prompts = append(rec.Prompts, transcript.Prompt{Text: fmt.Sprint("prompt ", i)})
	}
	for i := range 60 {
		rec.Files = append(rec.Files, transcript.FileEdit{Path: fmt.Sprintf("/p/f%02d.go", i)})
	}
	for i := range 14 {
		c := transcript.Command{Tool: "Bash", Command: fmt.Sprint("cmd ", i), Outcome: transcript.OutcomeOK}
		if i == 12 {
			c.Outcome, c.ErrorLine = transcript.OutcomeError, "boom"
		}
		if i == 13 {
			c.Outcome = transcript.OutcomeError // no error line: no failure fact
		}
		rec.Commands = append(rec.Commands, c)
	}
	rec.Todos = []transcript.Task{{Subject: "done", Status: "completed"}, {Subject: "todo", Status: "pending"}}
	rec.Tasks = []transcript.Task{{Subject: "doing", Status: "in_progress"}}
	for i := range 35 {
		rec.Git.Changes = append(rec.Git.Changes, snapshot.GitChange{Code: ".M", Path: fmt.Sprintf("c%02d", i)})
	}
	facts := FactsOf(Input{Record: rec, NextStep: "run the migration"})
	count := map[string]int{}
	var keys []string
	for _, f := range facts {
		count[f.Kind]++
		keys = append(keys, f.Key)
	}
	want := map[string]int{KindPrompt: 5, KindFile: Files, KindCommand: Commands, KindFailure: 1, KindTask: 2, KindChange: Changes, KindNextStep: 1}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d facts of kind %s, want %d", count[k], k, n)
		}
	}
	all := strings.Join(keys, " ")
	for _, sub := range []string{"prompt:2 prompt:3", "prompt:6 file:0", "file:49 command:4", "command:12 failure:12 command:13 task:0", "task:0 task:1 change:0", "change:29 next_step"} {
		if !strings.Contains(all, sub) {
			t.Errorf("order: %q not in %s", sub, all)
		}
	}
	for _, f := range facts {
		if f.Kind == KindTask && f.Index == 0 && f.Text != "doing" {
			t.Errorf("first open task %q, want the one in progress (PO-4's order)", f.Text)
		}
	}
}
