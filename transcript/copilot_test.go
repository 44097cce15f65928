package transcript

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// spec: TR-65, TR-66, TR-67, TR-68, TR-69, TR-70, TR-71
func TestCopilotRecordedSession(t *testing.T) {
	f, fx := openFixture(t, "testdata/copilot1.0.102/manual-compaction.jsonl")
	if format, known := f.Format(); format != FormatCopilot || !known {
		t.Fatalf("format %s %v", format, known)
	}
	ctx := context.Background()
	lb, err := f.LastBoundary(ctx)
	if err != nil || lb != fx.off(57868) {
		t.Fatalf("last boundary %d %v, want %d", lb, err, fx.off(57868))
	}
	// Before the compaction: what precompact reads.
	data, err := os.ReadFile(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	ex := NewExtractorFor(FormatCopilot, nil)
	for _, l := range bytes.Split(data[:lb], []byte("\n")) {
		ex.Feed(l)
	}
	x := ex.Facts()
	if len(x.Prompts) != 1 || x.Prompts[0].Text != "PROMPT-ONE: create notes.txt, edit README, run a failing command" {
		t.Errorf("prompts %+v", x.Prompts)
	}
	var files []string
	for _, e := range x.Files {
		files = append(files, e.Path[strings.LastIndex(e.Path, "/")+1:]+"="+e.LastTool)
	}
	if got := strings.Join(files, "|"); got != "notes.txt=create|README=edit" && got != "README=edit|notes.txt=create" {
		t.Errorf("files %s", got)
	}
	if len(x.Commands) != 1 {
		t.Fatalf("commands %+v", x.Commands)
	}
	c := x.Commands[0]
	if c.Command != "ls /nonexistent-xyz; exit 3" || c.Outcome != OutcomeError || c.ExitCode == nil || *c.ExitCode != 3 ||
		c.ErrorLine != "ls: cannot access '/nonexistent-xyz': No such file or directory" || c.Description != "failing command" {
		t.Errorf("command %+v (exit %v)", c, c.ExitCode)
	}
	if len(x.Failures) != 1 || !strings.HasPrefix(x.Failures[0].Error, "Exit code 3: ls: cannot access") {
		t.Errorf("failures %+v", x.Failures)
	}
	if x.Usage == nil || x.Usage.Tokens != 1000 || x.Usage.Model != "gpt-4.1" || x.Usage.Window != 64000 {
		t.Errorf("usage %+v", x.Usage)
	}
	if x.Cwd == "" || !strings.HasSuffix(x.Cwd, "/proj") || x.GitBranch != "master" {
		t.Errorf("cwd %q branch %q", x.Cwd, x.GitBranch)
	}
	// The whole file: the compaction is counted, the fill is the client's
	// after it, and the prompt after it is the last.
	all, err := f.Read(ctx, ReadPlan{LastBoundary: lb, ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all.Facts.Prompts); n == 0 || all.Facts.Prompts[n-1].Text != "PROMPT-TWO after compact" {
		t.Errorf("prompts after %+v", all.Facts.Prompts)
	}
	// Responses: the assistant.message lines.
	if _, ok, err := f.NewestResponseIn(ctx, 0, f.Size(), time.Time{}); err != nil || !ok {
		t.Errorf("no response found: %v", err)
	}
}

// spec: TR-65, TR-67
func TestCopilotLines(t *testing.T) {
	start := `{"type":"session.start","data":{"sessionId":"s","copilotVersion":"1.0.102","selectedModel":"gpt-4.1","context":{"cwd":"/p","branch":"main"}},"id":"a","timestamp":"2026-12-02T01:00:00.000Z","parentId":null}`
	if f, ok := DetectFormat([]byte(start + "\n")); f != FormatCopilot || !ok {
		t.Errorf("detect %s %v", f, ok)
	}
	// Claude Code's progress entries have data too, but no dot in the type.
	if f, _ := DetectFormat([]byte(`{"type":"progress","data":{},"parentUuid":"x"}` + "\n")); f != FormatClaude {
		t.Errorf("claude progress detected as %s", f)
	}
	applied := `{"type":"session.compaction_complete","data":{"success":true,"outcome":"applied","postCompactionTokens":500},"id":"c","timestamp":"2026-12-02T01:00:05.000Z","parentId":"b"}`
	failed := `{"type":"session.compaction_complete","data":{"success":false,"error":"boom"},"id":"d","timestamp":"2026-12-02T01:00:05.000Z","parentId":"b"}`
	if !IsBoundaryLineOf(FormatCopilot, []byte(applied)) || IsBoundaryLineOf(FormatCopilot, []byte(failed)) {
		t.Error("only an applied compaction is a boundary")
	}
	x := NewExtractorFor(FormatCopilot, nil)
	for _, l := range []string{start,
		`{"type":"model.messages_snapshot","data":{"messages":[{"role":"user","content":"` + strings.Repeat("y", 5000) + `"}]},"id":"m","timestamp":"2026-12-02T01:00:01.000Z","parentId":"a"}`,
		`{"type":"session.compaction_start","data":{"tokenLimit":64000,"currentTokens":60000,"trigger":"auto"},"id":"b","timestamp":"2026-12-02T01:00:02.000Z","parentId":"a"}`,
		failed} {
		x.Feed([]byte(l))
	}
	if fx := x.Facts(); fx.Compactions != 0 {
		t.Errorf("a failed compaction counted: %d", fx.Compactions)
	}
	x.Feed([]byte(applied))
	fx := x.Facts()
	if fx.Compactions != 1 || fx.Usage == nil || fx.Usage.Tokens != 500 || !fx.Usage.FromBoundary || fx.Usage.Window != 64000 {
		t.Errorf("after the compaction: %d %+v", fx.Compactions, fx.Usage)
	}
}
