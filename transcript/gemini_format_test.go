package transcript_test

import (
	"context"
	"testing"

	"github.com/compact-guard/compact-guard/transcript"
)

// spec: TR-88
// A chat Gemini CLI wrote opens as FormatGemini (its row of the readers
// table), and the line reader records no fact of it: Read has them.
func TestGeminiChatFormat(t *testing.T) {
	f, err := transcript.Open("../clients/gemini/reader/testdata/gemini0.61.0/two-compressions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if format, known := f.Format(); format != transcript.FormatGemini || !known {
		t.Fatalf("format %q (known %v), want gemini", format, known)
	}
	if b, err := f.LastBoundary(context.Background()); err != nil || b != -1 {
		t.Errorf("LastBoundary = %+v, %v; want none: compressions are Read's", b, err)
	}
	for _, line := range []string{
		`{"sessionId":"s","projectHash":"p","startTime":"2026-12-02T01:29:27.865Z","lastUpdated":"2026-12-02T01:29:27.865Z","kind":"main"}`,
		`{"$set":{"lastUpdated":"2026-12-02T01:29:28.049Z"}}`,
	} {
		if format, ok := transcript.DetectFormat([]byte(line)); format != transcript.FormatGemini || !ok {
			t.Errorf("%s: %q %v", line, format, ok)
		}
	}
	if format, _ := transcript.DetectFormat([]byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`)); format != transcript.FormatClaude {
		t.Errorf("a Claude Code entry with a sessionId is %q", format)
	}
}
