package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gmWorld is a Gemini CLI session as its chat file shows it, written in
// the layout Gemini CLI 0.61.0 writes (clients/gemini/reader's testdata), with
// the real binary's hooks run on it.
type gmWorld struct {
	*rbWorld
	sid, project, chat string
}

func newGeminiWorld(t *testing.T) *gmWorld {
	t.Helper()
	w := &gmWorld{rbWorld: rbNewWorld(t), sid: "6e0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"}
	w.project = filepath.Join(w.Root, "проект gemini")
	if err := os.MkdirAll(w.project, 0o700); err != nil {
		t.Fatal(err)
	}
	w.chat = filepath.Join(w.Home, ".gemini", "tmp", "proj", "chats", "session-2026-12-02T01-29-6e0c1a2b.jsonl")
	w.add(t, map[string]any{"sessionId": w.sid, "projectHash": "f125", "startTime": gmNow(), "lastUpdated": gmNow(), "kind": "main"})
	return w
}

func gmNow() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// add appends records to the chat file.
func (w *gmWorld) add(t *testing.T, recs ...map[string]any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(w.chat), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(w.chat, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range recs {
		b, _ := json.Marshal(r)
		f.Write(append(b, '\n'))
	}
}

var gmSeq int

// turn appends prompt text, an edit of hello.txt, a failing ls and a
// reply reporting tokens prompt tokens.
func (w *gmWorld) turn(t *testing.T, text string, tokens int) {
	t.Helper()
	gmSeq++
	id := func(s string) string { return fmt.Sprintf("%s-%d", s, gmSeq) }
	resp := func(out string) []any {
		return []any{map[string]any{"functionResponse": map[string]any{"response": map[string]any{"output": out}}}}
	}
	w.add(t,
		map[string]any{"id": id("u"), "timestamp": gmNow(), "type": "user", "content": []any{map[string]any{"text": text}}, "displayContent": []any{map[string]any{"text": text}}},
		map[string]any{"id": id("g1"), "timestamp": gmNow(), "type": "gemini", "content": "", "tokens": map[string]any{"input": 1200}, "model": "gemini-3.8-flash",
			"toolCalls": []any{map[string]any{"id": id("c1"), "name": "replace", "args": map[string]any{"file_path": "hello.txt"}, "status": "success", "timestamp": gmNow(),
				"result": resp("Successfully modified file")}}},
		map[string]any{"id": id("g2"), "timestamp": gmNow(), "type": "gemini", "content": "", "tokens": map[string]any{"input": 1300}, "model": "gemini-3.8-flash",
			"toolCalls": []any{map[string]any{"id": id("c2"), "name": "run_shell_command", "args": map[string]any{"command": "ls /nonexistent-e2e-dir"}, "status": "success", "timestamp": gmNow(),
				"result": resp("Output: ls: cannot access '/nonexistent-e2e-dir': No such file or directory\nExit Code: 2\nProcess Group PGID: 1")}}},
		map[string]any{"id": id("g3"), "timestamp": gmNow(), "type": "gemini", "content": "done", "tokens": map[string]any{"input": tokens}, "model": "gemini-3.8-flash"},
	)
}

// compress appends the history a compression writes: its summary and the
// client's ack.
func (w *gmWorld) compress(t *testing.T) {
	t.Helper()
	gmSeq++
	w.add(t, map[string]any{"$set": map[string]any{"messages": []any{
		map[string]any{"id": "ctx", "timestamp": gmNow(), "type": "user", "content": []any{map[string]any{"text": "<session_context>…</session_context>"}}},
		map[string]any{"id": fmt.Sprintf("sum-%d", gmSeq), "timestamp": gmNow(), "type": "user", "content": []any{map[string]any{"text": "<state_snapshot>the summary</state_snapshot>"}}},
		map[string]any{"id": fmt.Sprintf("ack-%d", gmSeq), "timestamp": gmNow(), "type": "gemini", "content": []any{map[string]any{"text": "Got it. Thanks for the additional context!"}}},
	}}})
}

func (w *gmWorld) hook(t *testing.T, sub, event string, kv ...string) rbResult {
	t.Helper()
	r := w.run(t, rbPayload(append([]string{"session_id", w.sid, "transcript_path", w.chat, "cwd", w.project, "hook_event_name", event}, kv...)...), sub)
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("%s %s: exit %d, stderr %q (Gemini CLI shows stderr to the user)", sub, event, r.Code, r.Stderr)
	}
	return r
}

func (w *gmWorld) snapshots(t *testing.T) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(w.Snaps, "snap_*.json"))
	return m
}

// spec: PC-43, PC-44, WA-36, WA-37, WA-38, SS-40, PO-38
func TestGeminiPointerOnceAfterTheCompression(t *testing.T) {
	w := newGeminiWorld(t)
	w.turn(t, "prompt A: edit hello.txt and run a failing command.", 1400)
	// PC-43: below the threshold an automatic PreCompress takes nothing.
	if r := w.hook(t, "precompact", "PreCompress", "trigger", "auto"); r.Stdout != "" || len(w.snapshots(t)) != 0 {
		t.Fatalf("PC-43 below the threshold: stdout %q, snapshots %v", r.Stdout, w.snapshots(t))
	}
	w.turn(t, "prompt B", 600000)
	// PC-44: at the threshold a snapshot, and nothing on stdout.
	if r := w.hook(t, "precompact", "PreCompress", "trigger", "auto"); r.Stdout != "" || len(w.snapshots(t)) != 1 {
		t.Fatalf("PC-44: stdout %q, snapshots %v", r.Stdout, w.snapshots(t))
	}
	// WA-37: the chat does not show the compression yet: no pointer.
	if r := w.hook(t, "watch", "BeforeAgent", "prompt", "early"); r.Stdout != "" {
		t.Fatalf("WA-37 before the compression: %q", r.Stdout)
	}
	w.compress(t)
	r := w.hook(t, "watch", "BeforeAgent", "prompt", "prompt C")
	ctx := wtContext(t, r.Stdout, "BeforeAgent")
	name := strings.TrimSuffix(filepath.Base(w.snapshots(t)[0]), ".json")
	for _, want := range []string{name + ".md", "prompt B", "hello.txt", "ls /nonexistent-e2e-dir", "No such file or directory"} {
		if !strings.Contains(ctx, want) {
			t.Errorf("WA-36 pointer lacks %q:\n%s", want, ctx)
		}
	}
	// PO-38: Gemini CLI escapes ">" in a hook's context; the quotes carry "|".
	if !strings.Contains(ctx, "\n| prompt B") || strings.Contains("\n"+ctx, "\n>") {
		t.Errorf("PO-38: the pointer's quotes are not Gemini CLI's:\n%s", ctx)
	}
	// WA-38: once.
	if r := w.hook(t, "watch", "BeforeAgent", "prompt", "prompt D"); r.Stdout != "" {
		t.Errorf("WA-38 second pointer: %q", r.Stdout)
	}
	// WA-37, SS-40: a manual PreCompress that compressed nothing: a snapshot,
	// and no pointer, neither its own nor the last compression's again.
	w.hook(t, "precompact", "PreCompress", "trigger", "manual")
	if len(w.snapshots(t)) != 2 {
		t.Fatalf("manual PreCompress: snapshots %v", w.snapshots(t))
	}
	if r := w.hook(t, "watch", "BeforeAgent", "prompt", "prompt E"); r.Stdout != "" {
		t.Errorf("SS-40 pointer for a PreCompress that compressed nothing: %q", r.Stdout)
	}
	// The second compression gets its own snapshot's pointer (SS-40).
	w.compress(t)
	ctx = wtContext(t, w.hook(t, "watch", "BeforeAgent", "prompt", "prompt F").Stdout, "BeforeAgent")
	snaps := w.snapshots(t)
	if second := strings.TrimSuffix(filepath.Base(snaps[len(snaps)-1]), ".json"); !strings.Contains(ctx, second+".md") {
		t.Errorf("SS-40 second compression's pointer names another snapshot than %s:\n%s", second, ctx)
	}
}

// spec: SS-41
// A compression with no snapshot of its own (the hook did not run) gets no
// pointer, not the previous compression's.
func TestGeminiNoSnapshotNoPointer(t *testing.T) {
	w := newGeminiWorld(t)
	w.turn(t, "prompt A", 600000)
	w.hook(t, "precompact", "PreCompress", "trigger", "auto")
	w.compress(t)
	if r := w.hook(t, "watch", "BeforeAgent", "prompt", "p"); r.Stdout == "" {
		t.Fatal("no first pointer")
	}
	w.turn(t, "prompt B", 1400)
	w.compress(t) // compressed without a PreCompress run of ours
	if r := w.hook(t, "watch", "BeforeAgent", "prompt", "q"); r.Stdout != "" {
		t.Errorf("SS-41: a pointer to another compression's snapshot: %q", r.Stdout)
	}
}

// spec: AU-26, AU-27, AU-28
// audit reads Gemini CLI's chats: a compression with its snapshot and the
// pointer the next prompt carried, in the chat's own record of it; one
// with no prompt after it yet is unknown.
func TestGeminiAudit(t *testing.T) {
	w := newGeminiWorld(t)
	w.turn(t, "prompt A", 600000)
	w.hook(t, "precompact", "PreCompress", "trigger", "auto")
	w.compress(t)
	ctx := wtContext(t, w.hook(t, "watch", "BeforeAgent", "prompt", "prompt C").Stdout, "BeforeAgent")
	// The client adds the context to the prompt's content, not to what it
	// shows (TR-87).
	w.add(t, map[string]any{"id": "uc", "timestamp": gmNow(), "type": "user",
		"content":        []any{map[string]any{"text": "prompt C"}, map[string]any{"text": "<hook_context>" + ctx + "</hook_context>"}},
		"displayContent": []any{map[string]any{"text": "prompt C"}}})
	w.turn(t, "prompt D", 600000)
	w.hook(t, "precompact", "PreCompress", "trigger", "auto")
	w.compress(t)
	r := w.run(t, nil, "audit", "--agent", "gemini", "--json")
	if r.Code != 0 {
		t.Fatalf("audit: exit %d %s", r.Code, r.Stderr)
	}
	var rep struct {
		Sessions []struct {
			Agent       string `json:"agent"`
			SessionID   string `json:"session_id"`
			Compactions []struct {
				Snapshot, Delivered, Named, Trigger string
				Own                                 bool
			} `json:"compactions"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || len(rep.Sessions) != 1 {
		t.Fatalf("audit --json: %v\n%s", err, r.Stdout)
	}
	s := rep.Sessions[0]
	snaps := w.snapshots(t)
	if s.Agent != "gemini" || s.SessionID != w.sid || len(s.Compactions) != 2 || len(snaps) != 2 {
		t.Fatalf("AU-26: %+v, snapshots %v", s, snaps)
	}
	first, second := s.Compactions[0], s.Compactions[1]
	if name := strings.TrimSuffix(filepath.Base(snaps[0]), ".json"); first.Snapshot != name || first.Delivered != "yes" || first.Named != name || !first.Own || first.Trigger != "auto" {
		t.Errorf("AU-27 first compression: %+v", first)
	}
	if second.Delivered != "unknown" || second.Snapshot == "" || second.Own {
		t.Errorf("AU-27 second compression, no prompt after it: %+v", second)
	}
	r = w.run(t, nil, "audit", "--agent", "gemini")
	if !strings.Contains(r.Stdout, "Gemini CLI") || !strings.Contains(r.Stdout, "pointer delivered with the first prompt after it, naming it") || !strings.Contains(r.Stdout, "no prompt after it yet") {
		t.Errorf("AU-28 audit's words:\n%s", r.Stdout)
	}
}
