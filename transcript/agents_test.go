package transcript

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Lines in the shape Codex CLI 0.169.0 and Qwen Code 0.24.4 write them
// (shared/reference/codex.md); the recorded sessions are in
// testdata/codex0.169.0 and testdata/qwen0.24.4 (fixtures_agents_test.go).

func cxLine(n int, typ string, payload obj, extra obj) string {
	return mustJSON(with(obj{"timestamp": ts(n), "ordinal": n, "type": typ, "payload": payload}, extra))
}

func cxItem(n int, item obj) string {
	return cxLine(n, "event_msg", obj{"type": "item_completed", "turn_id": "t1", "item": item,
		"started_at_ms": tsTime(n).UnixMilli(), "completed_at_ms": tsTime(n).UnixMilli()}, nil)
}

func cxTokens(n int, in, cached, total int) string {
	return cxLine(n, "event_msg", obj{"type": "token_count", "info": obj{
		"last_token_usage":     obj{"input_tokens": in, "cached_input_tokens": cached, "total_tokens": total},
		"model_context_window": 258400}}, nil)
}

func codexSession() []string {
	return []string{
		cxLine(0, "session_meta", obj{"id": "s1", "cwd": "/work/p", "base_instructions": obj{"text": strings.Repeat("x", 30000)},
			"git": obj{"commit_hash": "abc", "branch": "main"}}, nil),
		cxLine(1, "turn_context", obj{"turn_id": "t1", "cwd": "/work/p", "model": "gpt-5.5"}, nil),
		cxLine(2, "response_item", obj{"type": "message", "role": "user", "content": []any{obj{"type": "input_text", "text": "<environment_context>x</environment_context>"}}}, nil),
		cxItem(3, obj{"type": "UserMessage", "id": "u1", "content": []any{obj{"type": "text", "text": "fix the **bug**\nplease"}, obj{"type": "local_image", "path": "/a.png"}}}),
		cxLine(4, "response_item", obj{"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "*** Begin Patch"}, nil),
		cxItem(5, obj{"type": "FileChange", "id": "c1", "status": "completed", "changes": obj{
			"/work/p/a.go": obj{"type": "update", "unified_diff": "@@", "move_path": nil},
			"/work/p/b.go": obj{"type": "update", "unified_diff": "@@", "move_path": "/work/p/c.go"}}}),
		cxTokens(6, 9000, 1000, 9010),
		cxItem(7, obj{"type": "CommandExecution", "id": "c2", "command": []any{"/bin/bash", "-lc", "cat a && ls /nope"}, "cwd": "file:///work/p",
			"status": "failed", "exit_code": 2, "aggregated_output": "a\nls: cannot access '/nope': No such file or directory\n"}),
		cxItem(8, obj{"type": "CommandExecution", "id": "c3", "command": []any{"git", "status"}, "status": "completed", "exit_code": 0, "aggregated_output": ""}),
		cxLine(9, "response_item", obj{"type": "message", "role": "assistant", "content": []any{obj{"type": "output_text", "text": "SUMMARY"}}},
			obj{"metadata": obj{"compaction_output": true}}),
		cxLine(10, "compacted", obj{"message": "summary", "replacement_history": []any{obj{"type": "message", "role": "user"}}}, nil),
		cxTokens(11, 0, 0, 6864),
		cxItem(12, obj{"type": "ContextCompaction", "id": "x"}),
	}
}

// spec: TR-37
func TestDetectFormat(t *testing.T) {
	for _, c := range []struct {
		head string
		want Format
		ok   bool
	}{
		{`{"timestamp":"2026-12-01T05:55:32.264Z","ordinal":0,"type":"session_meta","payload":{"base_instructions":"You are`, FormatCodex, true}, // cut inside the payload
		{cxLine(0, "event_msg", obj{"type": "x"}, nil), FormatCodex, true},
		{`{"uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user","provenance":"real_user","message":{"role":"user","parts":[`, FormatQwen, true},
		{`{"type":"system","subtype":"x","systemPayload":{}}`, FormatQwen, true},
		{prompt(1, "hi", nil), FormatClaude, true},
		{`{"type":"summary","summary":"s","leafUuid":"l"}`, FormatClaude, true},
		{"\n\nnot json\n" + cxLine(0, "session_meta", obj{}, nil), FormatCodex, true},
		{"", FormatClaude, false},
		{"garbage", FormatClaude, false},
	} {
		f, ok := DetectFormat([]byte(c.head))
		if f != c.want || ok != c.ok {
			t.Errorf("%.50q: %s %v, want %s %v", c.head, f, ok, c.want, c.ok)
		}
	}
}

// spec: TR-38, TR-41, TR-42, TR-43
func TestCodexFacts(t *testing.T) {
	x := NewExtractorFor(FormatCodex, nil)
	for _, l := range codexSession() {
		x.Feed([]byte(l))
	}
	f := x.Facts()
	if len(f.Prompts) != 1 || f.Prompts[0].Text != "fix the **bug**\nplease\n[image]" || !f.Prompts[0].Time.Equal(tsTime(3)) {
		t.Errorf("prompts %+v", f.Prompts)
	}
	if len(f.Files) != 3 || f.Files[0].LastTool != "apply_patch" {
		t.Errorf("files %+v", f.Files)
	}
	if len(f.Commands) != 2 {
		t.Fatalf("commands %+v", f.Commands)
	}
	c := f.Commands[0]
	if c.Tool != "exec_command" || c.Command != "cat a && ls /nope" || c.Outcome != OutcomeError || c.ExitCode == nil || *c.ExitCode != 2 ||
		c.ErrorLine != "ls: cannot access '/nope': No such file or directory" {
		t.Errorf("failed command %+v", c)
	}
	if f.Commands[1].Command != "git status" || f.Commands[1].Outcome != OutcomeOK {
		t.Errorf("ok command %+v", f.Commands[1])
	}
	if len(f.Failures) != 1 || f.Failures[0].Error != "Exit code 2: ls: cannot access '/nope': No such file or directory" {
		t.Errorf("failures %+v", f.Failures)
	}
	if f.Cwd != "/work/p" || f.GitBranch != "main" || f.Compactions != 1 {
		t.Errorf("cwd %q branch %q compactions %d", f.Cwd, f.GitBranch, f.Compactions)
	}
	if u := f.Usage; u == nil || u.Tokens != 6864 || !u.FromBoundary || u.Window != 258400 || u.Model != "gpt-5.5" {
		t.Errorf("usage after compaction %+v", u)
	}
	y := NewExtractorFor(FormatCodex, nil)
	for _, l := range codexSession()[:8] {
		y.Feed([]byte(l))
	}
	if u := y.Facts().Usage; u == nil || u.Tokens != 9000 || u.CacheRead != 1000 || u.InputTokens != 8000 || u.FromBoundary {
		t.Errorf("usage %+v", u)
	}
	if st := f.Stats; st.Lines != 13 || st.Decoded != 10 || st.Corrupt != 0 {
		t.Errorf("stats %+v", st)
	}
}

// spec: TR-39, TR-40 (the compaction's summary is no response), TR-4, TR-34
func TestCodexScans(t *testing.T) {
	lines := codexSession()
	p := writeLines(t, lines...)
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, known := f.Format(); got != FormatCodex || !known {
		t.Fatalf("format %s %v", got, known)
	}
	off := int64(0)
	for _, l := range lines[:10] {
		off += int64(len(l)) + 1
	}
	ctx := context.Background()
	if lb, err := f.LastBoundary(ctx); err != nil || lb != off {
		t.Errorf("boundary at %d %v, want %d", lb, err, off)
	}
	if rt, ok, _ := f.NewestResponseAfter(ctx, 0, time.Time{}); !ok || !rt.Equal(tsTime(4)) {
		t.Errorf("newest response %v %v, want the tool call at 4", rt, ok)
	}
	if _, ok, _ := f.NewestResponseAfter(ctx, 0, tsTime(4)); ok {
		t.Error("the compaction's summary counted as a response")
	}
	more := append(lines, cxLine(20, "response_item", obj{"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c9"}, nil))
	f2, _ := Open(writeLines(t, more...))
	defer f2.Close()
	if rt, ok, _ := f2.NewestResponseAfter(ctx, 0, tsTime(12)); !ok || !rt.Equal(tsTime(20)) {
		t.Errorf("function call response: %v %v", rt, ok)
	}
	res, err := f2.Read(ctx, ReadPlan{LastBoundary: off, ChainEnd: -1})
	if err != nil || res.Facts.Compactions != 1 || len(res.Facts.Commands) != 2 {
		t.Errorf("read: %v %+v", err, res.Facts)
	}
}

func qwRec(n int, typ string, extra obj) string {
	return mustJSON(with(obj{"uuid": "u" + itoa2(n), "parentUuid": nil, "sessionId": "s1", "timestamp": ts(n), "type": typ,
		"provenance": map[string]string{"user": "real_user", "assistant": "assistant_output", "tool_result": "tool_result"}[typ],
		"cwd":        "/work/q", "version": "0.24.4", "gitBranch": "main"}, extra))
}

func itoa2(n int) string { return string(rune('a'+n/26)) + string(rune('a'+n%26)) }

func qwCall(n int, id, name string, args obj, prompt int) string {
	return qwRec(n, "assistant", obj{"model": "qwen-x", "message": obj{"role": "model", "parts": []any{obj{"functionCall": obj{"id": id, "name": name, "args": args}}}},
		"usageMetadata": obj{"promptTokenCount": prompt, "cachedContentTokenCount": 100}, "contextWindowSize": 32000})
}

func qwResult(n int, id, name, status string, display any, resp obj) string {
	return qwRec(n, "tool_result", obj{"message": obj{"role": "user", "parts": []any{obj{"functionResponse": obj{"id": id, "name": name, "response": resp}}}},
		"toolCallResult": obj{"callId": id, "status": status, "resultDisplay": display}})
}

func qwenSession() []string {
	return []string{
		qwRec(0, "system", obj{"provenance": "system", "subtype": "attribution_snapshot", "systemPayload": obj{}}),
		qwRec(1, "user", obj{"message": obj{"role": "user", "parts": []any{obj{"text": "edit it\nnow"},
			obj{"text": "<qwen:user-prompt-submit-context>\nctx\n</qwen:user-prompt-submit-context>"}}},
			"systemPayload": obj{"displayText": "edit it\nnow", "hookContext": "ctx"}}),
		qwCall(2, "c1", "edit", obj{"file_path": "/work/q/a.txt", "old_string": "a", "new_string": "b"}, 1000),
		qwResult(3, "c1", "edit", "success", obj{"fileDiff": "@@", "filePath": "/work/q/a.txt"}, obj{"output": "ok"}),
		qwCall(4, "c2", "run_shell_command", obj{"command": "cat a && ls /nope", "is_background": false, "description": "show"}, 9000),
		qwResult(5, "c2", "run_shell_command", "error", obj{"type": "shell_result", "exitCode": 2, "output": "b\nls: cannot access '/nope'"},
			obj{"error": "Command: cat a && ls /nope\nExit Code: 2"}),
		qwCall(6, "c3", "write_file", obj{"file_path": "/work/q/c.txt", "content": "x"}, 9000),
		qwResult(7, "c3", "write_file", "cancelled", "Tool call cancelled by user", obj{"error": "cancelled"}),
		qwRec(8, "user", obj{"subtype": "cron", "message": obj{"role": "user", "parts": []any{obj{"text": "cron job"}}}}),
		qwRec(9, "system", obj{"provenance": "system", "subtype": "chat_compression", "systemPayload": obj{"info": obj{"originalTokenCount": 9079, "newTokenCount": 6690}}}),
		qwRec(10, "assistant", obj{"model": "qwen-x", "message": obj{"role": "model", "parts": []any{obj{"text": "done"}}}}),
	}
}

// spec: TR-44, TR-47, TR-48, TR-49
func TestQwenFacts(t *testing.T) {
	x := NewExtractorFor(FormatQwen, nil)
	for _, l := range qwenSession() {
		x.Feed([]byte(l))
	}
	f := x.Facts()
	if len(f.Prompts) != 1 || f.Prompts[0].Text != "edit it\nnow" {
		t.Errorf("prompts %+v", f.Prompts)
	}
	if len(f.Files) != 1 || f.Files[0].Path != "/work/q/a.txt" || f.Files[0].LastTool != "edit" {
		t.Errorf("files %+v", f.Files)
	}
	if len(f.Commands) != 1 || f.Commands[0].Outcome != OutcomeError || *f.Commands[0].ExitCode != 2 ||
		f.Commands[0].ErrorLine != "ls: cannot access '/nope'" || f.Commands[0].Description != "show" {
		t.Errorf("commands %+v", f.Commands)
	}
	if len(f.Failures) != 2 || f.Failures[0].Error != "Exit code 2: ls: cannot access '/nope'" || !f.Failures[1].Rejected || f.Failures[1].Tool != "write_file" {
		t.Errorf("failures %+v", f.Failures)
	}
	if u := f.Usage; u == nil || u.Tokens != 6690 || !u.FromBoundary || u.Model != "qwen-x" || u.Window != 32000 {
		t.Errorf("usage %+v", u)
	}
	if f.Compactions != 1 || f.Cwd != "/work/q" || f.GitBranch != "main" {
		t.Errorf("compactions %d cwd %q", f.Compactions, f.Cwd)
	}
	// Without the displayText, the client's <qwen:…> part is left out.
	y := NewExtractorFor(FormatQwen, nil)
	y.Feed([]byte(qwRec(1, "user", obj{"message": obj{"role": "user", "parts": []any{obj{"text": "typed"}, obj{"text": "<qwen:user-prompt-submit-context>x</qwen:user-prompt-submit-context>"}}}})))
	if p := y.Facts().Prompts; len(p) != 1 || p[0].Text != "typed" {
		t.Errorf("prompt without displayText: %+v", p)
	}
}

// spec: TR-45, TR-46
func TestQwenScans(t *testing.T) {
	lines := qwenSession()
	f, err := Open(writeLines(t, lines...))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, _ := f.Format(); got != FormatQwen {
		t.Fatalf("format %s", got)
	}
	off := int64(0)
	for _, l := range lines[:9] {
		off += int64(len(l)) + 1
	}
	ctx := context.Background()
	if lb, _ := f.LastBoundary(ctx); lb != off {
		t.Errorf("boundary %d, want %d", lb, off)
	}
	if rt, ok, _ := f.NewestResponseAfter(ctx, off, tsTime(5)); !ok || !rt.Equal(tsTime(10)) {
		t.Errorf("response after the boundary: %v %v", rt, ok)
	}
	if _, ok, _ := f.NewestResponseIn(ctx, 0, off, tsTime(6)); ok {
		t.Error("a response before the boundary, after 6")
	}
}
