package residue

import (
	"fmt"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// BenchmarkCompare compares a record at the bounds of RS-4 (5 prompts, 50
// of 1,000 files, 10 commands, 20 tasks, 30 changes) with a summary of
// 16,000 characters, the length of the longest real one (RS-17).
//
//	go test -run '^$' -bench BenchmarkCompare ./restore/residue/
func BenchmarkCompare(b *testing.B) {
	rec := &snapshot.Record{Cwd: "/home/u/proj", Git: &snapshot.Git{Repo: true, Root: "/home/u/proj"}}
	for i := range 5 {
		rec.Prompts = append(rec.Prompts, transcript.Prompt{Text: fmt.Sprintf("Prompt %d: please refactor the handler of package %d and keep the tests green, then run them", i, i)})
	}
	for i := range 1000 {
		rec.Files = append(rec.Files, transcript.FileEdit{Path: fmt.Sprintf("/home/u/proj/internal/pkg%03d/handler.go", i)})
	}
	for i := range 20 {
		rec.Commands = append(rec.Commands, transcript.Command{Tool: "Bash", Command: fmt.Sprintf("go test -run TestHandler%d ./internal/pkg%03d/", i, i),
			Outcome: transcript.OutcomeError, ErrorLine: fmt.Sprintf("--- FAIL: TestHandler%d (0.00s)", i)})
	}
	for i := range 20 {
		rec.Todos = append(rec.Todos, transcript.Task{Subject: fmt.Sprintf("Refactor package %d", i), Status: "pending"})
	}
	for i := range 30 {
		rec.Git.Changes = append(rec.Git.Changes, snapshot.GitChange{Code: ".M", Path: fmt.Sprintf("internal/pkg%03d/handler.go", i)})
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 16000; i++ {
		fmt.Fprintf(&sb, "- Section %d: refactored `internal/pkg%03d/handler.go`; \"Prompt %d: please refactor the handler\" was the request; ran `go vet ./...`.\n", i, i, i)
	}
	summary := sb.String()
	facts := FactsOf(Input{Record: rec, NextStep: "run the full suite"})
	b.ReportAllocs()
	for b.Loop() {
		Compare(facts, rec, Held{SourceSummary, summary}, Held{SourcePointer, summary[:4000]})
	}
}
