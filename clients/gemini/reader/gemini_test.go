package reader

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

const recorded = "testdata/gemini0.61.0/two-compressions.jsonl"

// TR-81 to TR-86 on a chat the real client wrote (testdata README).
func TestReadRecorded(t *testing.T) {
	chat, err := Read(context.Background(), recorded, Options{Cwd: "/home/user/proj"})
	if err != nil {
		t.Fatal(err)
	}
	f := chat.Facts
	if chat.SessionID != "fc4ac0c6-3c20-4b97-9613-ae0596ba58a2" {
		t.Errorf("TR-81 session id %q", chat.SessionID)
	}
	// TR-82: two compressions, each counted once though resumes write them again,
	// each dated by its summary's first appearance (SS-42), not by a resume's copy.
	if len(chat.Compressions) != 2 || f.Compactions != 2 {
		t.Fatalf("TR-82 compressions %+v", chat.Compressions)
	}
	if c := chat.Compressions[0]; c.ID != "19bcd9be-827c-481a-a575-a6f5ddce93ae" || c.Time.Format("15:04:05.000") != "01:29:37.299" {
		t.Errorf("TR-82 first compression %+v", c)
	}
	// TR-83: the prompts as typed, without the hooks' <hook_context> parts.
	var prompts []string
	for _, p := range f.Prompts {
		prompts = append(prompts, p.Text)
	}
	want := "prompt A: edit hello.txt and run a failing command.|prompt B|prompt C|/compress|prompt E"
	if got := strings.Join(prompts, "|"); got != want {
		t.Errorf("TR-83 prompts %q, want %q", got, want)
	}
	// TR-87: each prompt's record with the BeforeAgent context added to it.
	if len(chat.Turns) != 5 || len(chat.Turns[1].Contexts) != 1 || chat.Turns[1].Contexts[0] != "<hook_context>REC-CTX BeforeAgent #16</hook_context>" {
		t.Errorf("TR-87 turns %+v", chat.Turns)
	}
	// TR-84: the edit, made absolute against the session's folder.
	if len(f.Files) != 1 || f.Files[0].Path != "/home/user/proj/hello.txt" || f.Files[0].LastTool != "replace" || f.Files[0].Edits != 1 {
		t.Errorf("TR-84 files %+v", f.Files)
	}
	// TR-85: the failing command with its exit code and error line, the
	// passing one with 0.
	if len(f.Commands) != 2 {
		t.Fatalf("TR-85 commands %+v", f.Commands)
	}
	c := f.Commands[0]
	if c.Command != "ls /nonexistent-e2e-dir" || c.Outcome != facts.OutcomeError || c.ExitCode == nil || *c.ExitCode != 2 ||
		c.ErrorLine != "ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("TR-85 failed command %+v", c)
	}
	if c := f.Commands[1]; c.Command != "echo B-ran" || c.Outcome != facts.OutcomeOK || c.ExitCode == nil || *c.ExitCode != 0 {
		t.Errorf("TR-85 passing command %+v", c)
	}
	if len(f.Failures) != 1 || !strings.HasPrefix(f.Failures[0].Error, "Exit code 2: ls: cannot access") {
		t.Errorf("TR-85 failures %+v", f.Failures)
	}
	// TR-86: the last response's prompt tokens and model.
	if f.Usage == nil || f.Usage.Tokens != 1800 || f.Usage.Model != "gemini-3.8-flash" {
		t.Errorf("TR-86 usage %+v", f.Usage)
	}
	if fi, _ := os.Stat(recorded); chat.Size != fi.Size() || f.Stats.Corrupt != 0 || f.Stats.Decoded != f.Stats.Lines {
		t.Errorf("TR-81 stats %+v size %d", f.Stats, chat.Size)
	}
	if tok, model, ok := LastFill(recorded); !ok || tok != 1800 || model != "gemini-3.8-flash" {
		t.Errorf("TR-86 LastFill %d %q %v", tok, model, ok)
	}
	// A resumed run: the history the client wrote again, counted at four
	// characters a token, not the response before it.
	data, _ := os.ReadFile(recorded)
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(t.TempDir(), "session.jsonl")
	os.WriteFile(cut, []byte(strings.Join(lines[:35], "")), 0o600)
	if tok, _, ok := LastFill(cut); !ok || tok != int64(len(strings.TrimSpace(lines[34])))/4 {
		t.Errorf("TR-86 LastFill after a resume: %d %v", tok, ok)
	}
}

// TR-82: a chat cut right after its compression is read as compressed
// with no fill (the count predates it), and LastFill counts the history
// the client wrote.
func TestCompressionMakesFillStale(t *testing.T) {
	data, err := os.ReadFile(recorded)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	cut := filepath.Join(t.TempDir(), "session-2026-12-02T01-29-fc4ac0c6.jsonl")
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:27], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	chat, err := Read(context.Background(), cut, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(chat.Compressions) != 1 || chat.Facts.Usage != nil {
		t.Errorf("compressions %+v usage %+v", chat.Compressions, chat.Facts.Usage)
	}
	if tok, _, ok := LastFill(cut); !ok || tok != int64(len(strings.TrimSpace(lines[26])))/4 {
		t.Errorf("LastFill after a compression: %d %v", tok, ok)
	}
	// Cut before it: the 600,000 tokens the threshold is checked against.
	if err := os.WriteFile(cut, []byte(strings.Join(lines[:25], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, _, ok := LastFill(cut); !ok || tok != 600000 {
		t.Errorf("LastFill before the compression: %d %v", tok, ok)
	}
}

// TR-81: torn, corrupt and over-long lines are counted, not fatal.
func TestBrokenLines(t *testing.T) {
	in := `{"sessionId":"s1","projectHash":"h","startTime":"2026-12-02T01:29:27.865Z","kind":"main"}
not json
{"id":"u1","timestamp":"2026-12-02T01:29:28.040Z","type":"user","content":[{"text":"hi"}]}
{"id":"g1","type":"gem`
	chat, err := ReadFrom(context.Background(), strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := chat.Facts.Stats
	if st.Corrupt != 1 || !st.TornLastLine || st.Lines != 4 || len(chat.Facts.Prompts) != 1 || chat.Facts.Prompts[0].Text != "hi" {
		t.Errorf("stats %+v prompts %+v", st, chat.Facts.Prompts)
	}
	if !IsChatStart([]byte(in)) || IsChatStart([]byte(`{"type":"user","sessionId":"x","projectHash":"y"}`)) {
		t.Error("IsChatStart")
	}
	if !IsChatPath("/home/u/.gemini/tmp/proj/chats/session-2026-12-02T01-29-fc4ac0c6.jsonl") || IsChatPath("/home/u/.qwen/projects/p/chats/x.jsonl") {
		t.Error("IsChatPath")
	}
}
