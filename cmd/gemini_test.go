package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// gmWorld is a Gemini CLI session as its chat file shows it, written in
// the layout Gemini CLI 0.61.0 writes (clients/gemini/reader's testdata), with
// the real binary's hooks run on it.
type gmWorld struct {
	*rbWorld
	sid, project, chat string
	// relayout writes every record in another valid JSON layout
	// (transcripttest.Relayout: Python's spacing, keys in another order),
	// so that a test shows nothing decides by Gemini CLI's bytes (TR-56).
	relayout bool
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
		if w.relayout {
			b = transcripttest.Relayout(b, 56)
		}
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
	// A compression comes seconds after the response before it; the
	// records carry milliseconds: wait for the clock's next one, so that
	// the summary is not timestamped with the turn's last response.
	for before := gmNow(); gmNow() == before; {
		runtime.Gosched()
	}
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

// spec: SS-43
// A PreCompress that compressed nothing took a snapshot; the session went
// on (model responses after it); a later compression had no PreCompress
// snapshot of its own (the hook did not run, or judged it not due). Its
// pointer must not name the stale snapshot as "taken just before" it: no
// pointer at all, in Gemini CLI's layout and in another (issue 28, item 2).
func TestGeminiStaleSnapshotNotHandedOn(t *testing.T) {
	for _, relayout := range []bool{false, true} {
		t.Run(fmt.Sprint("relayout=", relayout), func(t *testing.T) {
			w := newGeminiWorld(t)
			w.relayout = relayout
			w.turn(t, "prompt A", 600000)
			w.hook(t, "precompact", "PreCompress", "trigger", "auto")
			w.compress(t)
			if r := w.hook(t, "watch", "BeforeAgent", "prompt", "p1"); r.Stdout == "" {
				t.Fatal("no pointer for the first compression")
			}
			// A /compress that compressed nothing: its snapshot stays.
			w.hook(t, "precompact", "PreCompress", "trigger", "manual")
			if n := len(w.snapshots(t)); n != 2 {
				t.Fatalf("%d snapshots after the manual PreCompress, want 2", n)
			}
			w.turn(t, "prompt B: the session goes on", 1400)
			w.compress(t) // no PreCompress snapshot of its own
			if r := w.hook(t, "watch", "BeforeAgent", "prompt", "p2"); r.Stdout != "" {
				t.Errorf("SS-43: the compression was handed the snapshot of a PreCompress the session went on after:\n%s", wtContext(t, r.Stdout, "BeforeAgent"))
			}
			// With its own snapshot, taken after the session went on, a
			// compression gets it.
			w.turn(t, "prompt C", 600000)
			w.hook(t, "precompact", "PreCompress", "trigger", "auto")
			w.compress(t)
			ctx := wtContext(t, w.hook(t, "watch", "BeforeAgent", "prompt", "p3").Stdout, "BeforeAgent")
			snaps := w.snapshots(t)
			if own := strings.TrimSuffix(filepath.Base(snaps[len(snaps)-1]), ".json"); !strings.Contains(ctx, own+".md") {
				t.Errorf("the third compression's pointer does not name its own snapshot %s:\n%s", own, ctx)
			}
		})
	}
}

// spec: PC-47, SF-70, SF-71
// Gemini CLI awaits PreCompress before every model request: a session that
// stays over the compression threshold with nothing to compress runs it a
// hundred times. It keeps one snapshot for the compression to come, not a
// hundred, and a folder of 40 snapshots of other sessions loses none of
// them to it (issue 28, item 9).
func TestGeminiHundredRequestsOverTheThreshold(t *testing.T) {
	w := newGeminiWorld(t)
	// Forty other sessions, each with a snapshot of the last twenty
	// minutes: compactions that may still want them (SF-70).
	store := &snapshot.Store{Dir: w.Snaps, Keep: 40}
	var others []string
	for i := 0; i < 40; i++ {
		r := &snapshot.Record{SessionID: fmt.Sprintf("01d%05d-0000-4000-8000-%012d", i, i), Trigger: "auto",
			CreatedAt: time.Now().Add(-time.Duration(40-i) * 30 * time.Second)}
		if _, _, err := store.Save(r, snapshot.English); err != nil {
			t.Fatal(err)
		}
		others = append(others, r.Name)
	}
	w.turn(t, "prompt A", 600000)
	for i := 0; i < 100; i++ {
		// PreCompress, then the request it compressed nothing for.
		w.hook(t, "precompact", "PreCompress", "trigger", "auto")
		w.add(t, map[string]any{"id": fmt.Sprintf("r-%d", i), "timestamp": gmNow(), "type": "gemini", "content": "more",
			"tokens": map[string]any{"input": 600000 + i}, "model": "gemini-3.8-flash"})
	}
	// The request that compresses: its PreCompress, then the compression.
	w.hook(t, "precompact", "PreCompress", "trigger", "auto")
	for _, n := range others {
		if _, err := os.Stat(filepath.Join(w.Snaps, n+".json")); err != nil {
			t.Errorf("another session's snapshot %s is gone: %v", n, err)
		}
	}
	var own []string
	for _, p := range w.snapshots(t) {
		if strings.Contains(filepath.Base(p), "_6e0c1a2b") {
			own = append(own, p)
		}
	}
	if len(own) != 1 {
		t.Fatalf("the Gemini session keeps %d snapshots, want 1: %v", len(own), own)
	}
	// The one kept is the newest: the compression gets it.
	w.compress(t)
	ctx := wtContext(t, w.hook(t, "watch", "BeforeAgent", "prompt", "p").Stdout, "BeforeAgent")
	if name := strings.TrimSuffix(filepath.Base(own[0]), ".json"); !strings.Contains(ctx, name+".md") {
		t.Errorf("the compression's pointer does not name %s:\n%s", name, ctx)
	}
}
