// Package hooktest holds what the tests of the hook packages (hookio,
// take, handover, cmd) share: a short session of each client in the shape
// it writes, and small builders of transcript lines.
package hooktest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// AgentLines is a short session of each client, in the shape it writes.
var AgentLines = map[string][]string{
	"codex": {
		`{"timestamp":"2026-12-01T05:55:32.264Z","ordinal":0,"type":"session_meta","payload":{"id":"S","cwd":"/work/p","git":{"branch":"main"}}}`,
		`{"timestamp":"2026-12-01T05:55:32.312Z","ordinal":1,"type":"turn_context","payload":{"turn_id":"t1","cwd":"/work/p","model":"gpt-5.5"}}`,
		`{"timestamp":"2026-12-01T05:55:32.433Z","ordinal":2,"type":"event_msg","payload":{"type":"item_completed","turn_id":"t1","item":{"type":"UserMessage","id":"u","content":[{"type":"text","text":"edit hello.txt"}]},"started_at_ms":1796104532433}}`,
		`{"timestamp":"2026-12-01T05:55:32.459Z","ordinal":3,"type":"event_msg","payload":{"type":"item_completed","turn_id":"t1","item":{"type":"FileChange","id":"c1","changes":{"/work/p/hello.txt":{"type":"update","unified_diff":"@@","move_path":null}},"status":"completed"},"started_at_ms":1796104532457}}`,
		`{"timestamp":"2026-12-01T05:55:32.542Z","ordinal":4,"type":"event_msg","payload":{"type":"item_completed","turn_id":"t1","item":{"type":"CommandExecution","id":"c2","command":["/bin/bash","-lc","ls /nope"],"status":"failed","aggregated_output":"ls: cannot access '/nope'\n","exit_code":2},"started_at_ms":1796104532542}}`,
		`{"timestamp":"2026-12-01T05:55:32.600Z","ordinal":5,"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":30000,"cached_input_tokens":0,"total_tokens":30100},"model_context_window":258400}}}`,
	},
	"qwen": {
		`{"uuid":"a","parentUuid":null,"sessionId":"S","timestamp":"2026-12-01T05:56:16.443Z","type":"user","provenance":"real_user","cwd":"/work/p","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"edit hello.txt"}]}}`,
		`{"uuid":"b","parentUuid":"a","sessionId":"S","timestamp":"2026-12-01T05:56:16.736Z","type":"assistant","provenance":"assistant_output","cwd":"/work/p","version":"0.24.4","gitBranch":"main","model":"q","message":{"role":"model","parts":[{"functionCall":{"id":"c2","name":"run_shell_command","args":{"command":"ls /nope"}}}]},"usageMetadata":{"promptTokenCount":9000},"contextWindowSize":32000}`,
		`{"uuid":"c","parentUuid":"b","sessionId":"S","timestamp":"2026-12-01T05:56:17.013Z","type":"tool_result","provenance":"tool_result","cwd":"/work/p","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"functionResponse":{"id":"c2","name":"run_shell_command","response":{"error":"x"}}}]},"toolCallResult":{"callId":"c2","status":"error","resultDisplay":{"type":"shell_result","exitCode":2,"output":"ls: cannot access '/nope'"}}}`,
	},
}

// QuoteJSON is s as a JSON string, for building a transcript's lines.
func QuoteJSON(t testing.TB, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ReadLog is the log of the snapshot folder dir, "" when there is none.
func ReadLog(dir string) string {
	b, _ := os.ReadFile(hookio.LogPath(dir))
	return string(b)
}

// NewestTurns are the newest turns of a Claude Code transcript: a prompt,
// a failing command and an edit.
var NewestTurns = []string{
	`{"type":"user","isSidechain":false,"timestamp":"2026-12-01T10:00:00Z","cwd":"/p","message":{"role":"user","content":"the newest prompt"}}`,
	`{"type":"assistant","isSidechain":false,"timestamp":"2026-12-01T10:00:01Z","message":{"role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"nb","name":"Bash","input":{"command":"go test ./..."}}]}}`,
	`{"type":"user","isSidechain":false,"timestamp":"2026-12-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nb","content":"Exit code 1\n--- FAIL: TestNewest","is_error":true}]}}`,
	`{"type":"assistant","isSidechain":false,"timestamp":"2026-12-01T10:00:03Z","message":{"role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"ne","name":"Edit","input":{"file_path":"/p/newest.go"}}]}}`,
	`{"type":"user","isSidechain":false,"timestamp":"2026-12-01T10:00:04Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"ne","content":"ok"}]}}`,
}

// Hang makes the named step's file system never answer: a BeforeStep
// hook that never returns from the step name.
func Hang(name string) func(string) {
	return func(step string) {
		if step == name {
			select {}
		}
	}
}

// SmallTranscript writes a compaction boundary and the newest turns.
func SmallTranscript(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	boundary := `{"type":"system","subtype":"compact_boundary","isSidechain":false,"timestamp":"2026-12-01T09:59:00Z","compactMetadata":{"trigger":"auto","preTokens":1000}}`
	if err := os.WriteFile(path, []byte(boundary+"\n"+strings.Join(NewestTurns, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// PrePayload is precompact's payload for session sid and the transcript at
// path, an automatic compaction.
func PrePayload(sid, path string) []byte {
	b, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": path, "trigger": "auto", "hook_event_name": "PreCompact"})
	return b
}

// PromptTexts are the record's prompts, their text only.
func PromptTexts(r *snapshot.Record) []string {
	var out []string
	for _, p := range r.Prompts {
		out = append(out, p.Text)
	}
	return out
}

// FileSummaries are the record's files: path, last tool and edits.
func FileSummaries(r *snapshot.Record) []string {
	var out []string
	for _, f := range r.Files {
		out = append(out, f.Path+" "+f.LastTool+" "+strconv.Itoa(f.Edits))
	}
	return out
}

// CommandSummaries are the record's commands with their outcomes.
func CommandSummaries(r *snapshot.Record) []string {
	var out []string
	for _, c := range r.Commands {
		out = append(out, c.Command+" "+c.Outcome)
	}
	return out
}

// CheckHintOnly fails unless stdout is empty or exactly one summary hint
// (PC-2, PC-27): plain text, one line and its line end, never JSON, at
// most restore.HintMaxChars, naming a snapshot's .md.
func CheckHintOnly(t testing.TB, stdout string) {
	t.Helper()
	if stdout == "" {
		return
	}
	if msg := HintProblem(stdout); msg != "" {
		t.Errorf("precompact's stdout is not one summary hint (%s): %q", msg, stdout)
	}
}

// HintProblem says what keeps stdout from being one summary hint, "" when
// nothing does.
func HintProblem(stdout string) string {
	text, ok := strings.CutSuffix(stdout, "\n")
	switch {
	case !ok || strings.ContainsAny(text, "\r\n"):
		return "not one line with its line end"
	case strings.HasPrefix(strings.TrimSpace(text), "{") || strings.HasPrefix(strings.TrimSpace(text), "["):
		return "JSON"
	case textcut.UTF16Len(text) > restore.HintMaxChars:
		return "too long"
	case !strings.HasPrefix(text, "compact-guard ") || !strings.Contains(text, `.md"`):
		return "names no snapshot"
	}
	return ""
}

// HintWriter is precompact's stdout in tests that run it in process: it
// accepts one summary hint and fails the test on anything else.
type HintWriter struct {
	t testing.TB
	n *int
}

// Write takes one hint, and fails the test on a second write or on
// anything but a hint.
func (w HintWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	if *w.n++; *w.n > 1 {
		w.t.Errorf("precompact wrote to stdout twice: %q", p)
	}
	CheckHintOnly(w.t, string(p))
	return len(p), nil
}

// NewHintWriter is a HintWriter for the test t.
func NewHintWriter(t testing.TB) HintWriter { return HintWriter{t, new(int)} }
