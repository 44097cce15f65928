package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Gemini CLI's chat file is the transcript: precompact reads it whole into
// a record of agent gemini and event PreCompress, covering the file's size,
// its segment starting at the last compression's $set line, its edits made
// absolute against the payload's cwd; and it prints no hint, since the
// client has no channel to its summarizer.
// spec: PC-45, PC-46
func TestGeminiPrecompressRecord(t *testing.T) {
	w := newGeminiWorld(t)
	w.turn(t, "prompt A: edit hello.txt and run a failing command.", 1400)
	w.compress(t)
	w.turn(t, "prompt B", 600000)
	if r := w.hook(t, "precompact", "PreCompress", "trigger", "auto"); r.Stdout != "" {
		t.Errorf("PreCompress printed %q; Gemini CLI's summarizer gets no hint", r.Stdout)
	}
	snaps := w.snapshots(t)
	if len(snaps) != 1 {
		t.Fatalf("snapshots %v", snaps)
	}
	b, err := os.ReadFile(snaps[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Agent     string `json:"agent"`
		HookEvent string `json:"hook_event"`
		Coverage  struct {
			TranscriptSize int64 `json:"transcript_size"`
			SegmentStart   int64 `json:"segment_start"`
		} `json:"coverage"`
		Prompts []struct{ Text string } `json:"prompts"`
		Files   []struct{ Path string } `json:"files"`
		Context *struct {
			Tokens int64 `json:"tokens"`
			Window int64 `json:"window"`
		} `json:"context"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	chat, err := os.ReadFile(w.chat)
	if err != nil {
		t.Fatal(err)
	}
	set := int64(bytes.LastIndex(chat, []byte("\n{\"$set\"")) + 1)
	if set <= 0 {
		t.Fatal("the chat has no compression")
	}
	if rec.Agent != "gemini" || rec.HookEvent != "PreCompress" {
		t.Errorf("agent %q, event %q", rec.Agent, rec.HookEvent)
	}
	if rec.Coverage.TranscriptSize != int64(len(chat)) || rec.Coverage.SegmentStart != set {
		t.Errorf("coverage %+v, want the size %d and the segment from the $set line at %d", rec.Coverage, len(chat), set)
	}
	if n := len(rec.Prompts); n == 0 || rec.Prompts[n-1].Text != "prompt B" {
		t.Errorf("prompts %+v", rec.Prompts)
	}
	if len(rec.Files) == 0 || rec.Files[0].Path != filepath.Join(w.project, "hello.txt") {
		t.Errorf("files %+v, want %s", rec.Files, filepath.Join(w.project, "hello.txt"))
	}
	if rec.Context == nil || rec.Context.Tokens != 600000 || rec.Context.Window <= 0 {
		t.Errorf("context %+v: want the reply's tokens against the client's window for the model", rec.Context)
	}
}
