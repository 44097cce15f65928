package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// wtWorld is a session watched by the real binary (rbWorld): a project, its
// transcript, and helpers to grow the context and run hooks.
type wtWorld struct {
	*rbWorld
	sid, project, transcript string
	n                        int
}

func newWatchWorld(t *testing.T) *wtWorld {
	t.Helper()
	w := &wtWorld{rbWorld: rbNewWorld(t), sid: "c0ffee00-1111-4222-8333-444455556666"}
	w.project = filepath.Join(w.Root, "проект демо")
	w.transcript = rbWriteFile(t, filepath.Join(w.Claude, "projects", "p", w.sid+".jsonl"),
		rbTranscript(w.sid, "Шаг 1: edit the parser", filepath.Join(w.project, "parse.go"), w.project, false))
	if err := os.MkdirAll(w.project, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

// append writes lines to the transcript.
func (w *wtWorld) append(t *testing.T, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(w.transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// fill appends a model response reporting tokens of context.
func (w *wtWorld) fill(t *testing.T, tokens int) {
	t.Helper()
	w.n++
	w.append(t, fmt.Sprintf(`{"type":"assistant","message":{"model":"claude-opus-5-5","id":"m%d","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}},"uuid":"w%d","isSidechain":false,"timestamp":%q,"sessionId":%q,"cwd":%q}`,
		w.n, tokens, w.n, time.Now().UTC().Format(time.RFC3339Nano), w.sid, w.project))
}

// boundary appends a compaction as a client release writes it.
func (w *wtWorld) boundary(t *testing.T, version string, contexts ...string) {
	t.Helper()
	q := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	w.append(t, fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","isSidechain":false,"content":"Conversation compacted","timestamp":%q,"version":%q,"compactMetadata":{"trigger":"manual","preTokens":612000,"postTokens":3000},"sessionId":%q}`,
		time.Now().UTC().Format(time.RFC3339Nano), version, w.sid))
	w.append(t, `{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation."},"isSidechain":false,"timestamp":`+q(time.Now().UTC().Format(time.RFC3339Nano))+`}`)
	if contexts != nil {
		w.append(t, `{"type":"attachment","attachment":{"type":"hook_success","hookEvent":"SessionStart","hookName":"SessionStart:compact","content":""}}`,
			`{"type":"attachment","attachment":{"type":"hook_additional_context","hookEvent":"SessionStart","content":`+q(contexts)+`}}`)
	}
}

// hook runs compact-guard watch for event with the session's payload.
func (w *wtWorld) hook(t *testing.T, event, promptID string, args []string, extra ...string) rbResult {
	t.Helper()
	kv := append([]string{"session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
		"hook_event_name", event, "prompt_id", promptID}, extra...)
	payload := rbPayload(kv...)
	if event == watch.Stop {
		var m map[string]any
		json.Unmarshal(payload, &m)
		m["stop_hook_active"] = strings.Contains(strings.Join(extra, " "), "active")
		payload, _ = json.Marshal(m)
	}
	r := w.run(t, payload, append([]string{"watch"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("watch %s: exit %d (stderr %q)", event, r.Code, r.Stderr)
	}
	return r
}

// wtContext returns the additionalContext of a watch output for event, ""
// for no output.
func wtContext(t *testing.T, out, event string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var ho struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if strings.Count(out, "\n") != 1 || json.Unmarshal([]byte(out), &ho) != nil || ho.HookSpecificOutput.HookEventName != event {
		t.Fatalf("watch output is not one %s object: %q", event, out)
	}
	return ho.HookSpecificOutput.AdditionalContext
}

// spec: WA-1
func TestWA1EveryInputExitsZero(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 612000)
	for name, in := range map[string]struct {
		payload []byte
		args    []string
	}{
		"empty stdin":         {nil, nil},
		"not JSON":            {[]byte("{nope"), nil},
		"no session":          {rbPayload("hook_event_name", "PostToolUse", "transcript_path", w.transcript), nil},
		"another event":       {rbPayload("session_id", w.sid, "hook_event_name", "Notification", "transcript_path", w.transcript), nil},
		"no transcript":       {rbPayload("session_id", w.sid, "hook_event_name", "PostToolUse", "transcript_path", filepath.Join(w.Root, "gone.jsonl")), nil},
		"a folder":            {rbPayload("session_id", w.sid, "hook_event_name", "PostToolUse", "transcript_path", w.Root), nil},
		"bad thresholds":      {rbPayload("session_id", w.sid, "hook_event_name", "Stop", "transcript_path", w.transcript), []string{"--thresholds", "lots"}},
		"bad window":          {rbPayload("session_id", w.sid, "hook_event_name", "Stop", "transcript_path", w.transcript), []string{"--window", "50%"}},
		"an unknown flag":     {rbPayload("session_id", w.sid, "hook_event_name", "Stop", "transcript_path", w.transcript), []string{"--bogus"}},
		"resume, no state":    {rbPayload("session_id", w.sid, "hook_event_name", "SessionStart", "source", "resume"), nil},
		"startup":             {rbPayload("session_id", w.sid, "hook_event_name", "SessionStart", "source", "startup"), nil},
		"UTF-16 with a BOM":   {append([]byte{0xff, 0xfe}, utf16le(`{"session_id":"x","hook_event_name":"Stop"}`)...), nil},
		"help goes to stderr": {nil, []string{"--help"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := w.run(t, in.payload, append([]string{"watch"}, in.args...)...)
			if r.Code != 0 || r.Stdout != "" {
				t.Errorf("exit %d, stdout %q, want 0 and nothing (stderr %q)", r.Code, r.Stdout, r.Stderr)
			}
		})
	}
	// A bad flag costs the flag, not the notice: the defaults run.
	r := w.hook(t, watch.PostToolUse, "p1", []string{"--thresholds", "lots"})
	if !strings.Contains(wtContext(t, r.Stdout, watch.PostToolUse), "Thresholds crossed: 500,000") {
		t.Errorf("with a bad --thresholds the defaults did not run: %q", r.Stdout)
	}
	if lines := rbLogLines(t, w.Log()); !strings.Contains(strings.Join(lines, "\n"), "flags not used") {
		t.Errorf("the log does not say which flags were not used: %q", lines)
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

// spec: WA-4
func TestWA4BelowTheFloorNothingWritten(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 40000) // under half the smallest auto-compact window
	before := rbTree(t, w.Root)
	for _, ev := range []string{watch.UserPromptSubmit, watch.PostToolUse, watch.Stop} {
		if r := w.hook(t, ev, "p1", []string{"--stop-gate"}); r.Stdout != "" {
			t.Errorf("%s printed %q", ev, r.Stdout)
		}
	}
	if diff := rbTreeDiff(before, rbTree(t, w.Root)); len(diff) != 0 {
		t.Errorf("runs below the floor wrote %q", diff)
	}
	// Above the floor, below the first threshold: still silent, nothing
	// written (no state: nothing crossed).
	w.fill(t, 300000)
	before = rbTree(t, w.Root)
	if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
		t.Errorf("below the first threshold: %q", r.Stdout)
	}
	if diff := rbTreeDiff(before, rbTree(t, w.Root)); len(diff) != 0 {
		t.Errorf("a run below the first threshold wrote %q", diff)
	}
}

// spec: WA-5, WA-6
func TestWA6NoticeThroughTheHook(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 512340)
	got := wtContext(t, w.hook(t, watch.PostToolUse, "p1", nil).Stdout, watch.PostToolUse)
	for _, want := range []string{"the context holds 512,340 tokens, 51% of the 1,000,000-token window (model claude-opus-5-5)",
		"Thresholds crossed: 500,000 at", "Automatic compaction comes at about 967,000 tokens.", "Handoff: no SESSION-STATE.md in the project."} {
		if !strings.Contains(got, want) {
			t.Errorf("notice lacks %q:\n%s", want, got)
		}
	}
	// The same crossing again, and a second crossing in the same turn: nothing.
	if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
		t.Errorf("the crossing was told twice: %q", r.Stdout)
	}
	w.fill(t, 605000)
	if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
		t.Errorf("a second notice in one turn: %q", r.Stdout)
	}
	if r := w.hook(t, watch.Stop, "p1", nil); r.Stdout != "" {
		t.Errorf("Stop without the gate printed %q", r.Stdout)
	}
	// The next prompt tells of it, in Russian with --lang ru.
	got = wtContext(t, w.hook(t, watch.UserPromptSubmit, "p2", []string{"--lang", "ru"}).Stdout, watch.UserPromptSubmit)
	if !strings.Contains(got, "Пройдены пороги: 600\u00a0000 в ") || strings.Contains(got, "500\u00a0000 в") {
		t.Errorf("second notice:\n%s", got)
	}
	st, err := watch.StoreFor(w.Snaps).Load(w.sid)
	if err != nil || len(st.Crossings) != 2 || st.NoticeTurn != "p2" {
		t.Fatalf("state %+v %v", st, err)
	}
	lines := strings.Join(rbLogLines(t, w.Log()), "\n")
	if strings.Count(lines, "watch(PostToolUse) session="+w.sid+" outcome=ok") != 1 || !strings.Contains(lines, `detail="notice: 600000"`) {
		t.Errorf("log:\n%s", lines)
	}
	// A compaction (the fill from a boundary) starts a new episode.
	w.boundary(t, "2.1.328")
	if r := w.hook(t, watch.UserPromptSubmit, "p3", nil); r.Stdout != "" {
		t.Errorf("after the compaction: %q", r.Stdout)
	}
	if st, _ := watch.StoreFor(w.Snaps).Load(w.sid); len(st.Crossings) != 0 {
		t.Errorf("crossings kept across a compaction: %+v", st.Crossings)
	}
	w.fill(t, 520000)
	if got := wtContext(t, w.hook(t, watch.PostToolUse, "p3", nil).Stdout, watch.PostToolUse); !strings.Contains(got, "Thresholds crossed: 500,000") {
		t.Errorf("no notice in the new episode:\n%s", got)
	}
}

// spec: WA-2, WA-3
func TestWAWindowFromSettingsAndFlags(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 52000)
	// autoCompactWindow 100000 in the user's settings: thresholds 50k, 60k, 65k.
	rbWriteFile(t, filepath.Join(w.Claude, "settings.json"), []byte(`{"autoCompactWindow": 100000}`))
	got := wtContext(t, w.hook(t, watch.PostToolUse, "p1", nil).Stdout, watch.PostToolUse)
	if !strings.Contains(got, "52% of the 100,000-token window (autoCompactWindow in ") || !strings.Contains(got, "about 67,000 tokens") {
		t.Errorf("notice:\n%s", got)
	}
	// Tokens as thresholds, and --window.
	w2 := newWatchWorld(t)
	w2.fill(t, 455000)
	got = wtContext(t, w2.hook(t, watch.PostToolUse, "p1", []string{"--thresholds", "450k,500k,600k", "--window", "2M"}).Stdout, watch.PostToolUse)
	if !strings.Contains(got, "22% of the 2,000,000-token window (--window)") || !strings.Contains(got, "450,000 at") {
		t.Errorf("notice:\n%s", got)
	}
}

// spec: WA-10
func TestWA10StopGateThroughTheHook(t *testing.T) {
	w := newWatchWorld(t)
	gate := []string{"--stop-gate"}
	w.fill(t, 712000)
	w.hook(t, watch.PostToolUse, "p1", gate)
	r := w.hook(t, watch.Stop, "p1", gate)
	var block struct{ Decision, Reason string }
	if err := json.Unmarshal([]byte(r.Stdout), &block); err != nil || block.Decision != "block" ||
		!strings.Contains(block.Reason, "compact-guard holds this stop once") {
		t.Fatalf("Stop at the last threshold: %q", r.Stdout)
	}
	for _, extra := range [][]string{{"x", "active"}, nil} {
		if r := w.hook(t, watch.Stop, "p1", gate, extra...); r.Stdout != "" {
			t.Errorf("Stop blocked again (%v): %q", extra, r.Stdout)
		}
	}
	// A new episode with a current handoff in the state file: no block.
	w.boundary(t, "2.1.328")
	w.hook(t, watch.UserPromptSubmit, "p2", gate)
	w.fill(t, 705000)
	w.hook(t, watch.PostToolUse, "p2", gate)
	tpl := handoff.TemplateFor(snapshot.English, time.Now().Add(time.Second), w.sid)
	rbWriteFile(t, filepath.Join(w.project, "SESSION-STATE.md"), []byte("# State\n\n"+fillBlock(tpl)))
	if r := w.hook(t, watch.Stop, "p2", gate); r.Stdout != "" {
		t.Errorf("Stop blocked with a current handoff: %q", r.Stdout)
	}
	st, _ := watch.StoreFor(w.Snaps).Load(w.sid)
	if st.Handoff == nil || !st.Handoff.Current || st.Handoff.Line != 3 {
		t.Errorf("handoff seen: %+v", st.Handoff)
	}
}

// spec: WA-9
func TestWA9ParallelHooksTellOnce(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 612000)
	const n = 6
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = w.hook(t, watch.PostToolUse, "p1", nil).Stdout
		}()
	}
	wg.Wait()
	told := 0
	for _, o := range outs {
		if o != "" {
			told++
		}
	}
	if told != 1 {
		t.Errorf("%d of %d parallel hooks told of the crossing, want 1", told, n)
	}
}

// spec: WA-11, WA-13, PC-26
func TestWA11PointerHandedOverOnce(t *testing.T) {
	cases := []struct {
		name    string
		version string
		resume  bool
		record  bool // the client records the SessionStart context
		want    string
	}{
		{"2.1.119 resumed in a new process", "2.1.119", true, false, "resumed at"},
		{"2.1.119 in the same process", "2.1.119", false, false, ""},
		{"2.1.119 recorded it, then resumed", "2.1.119", true, true, "resumed at"},
		{"2.1.328 recorded it", "2.1.328", true, true, ""},
		{"2.1.328 recorded nothing", "2.1.328", false, false, "the client recorded no SessionStart context after the compaction"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWatchWorld(t)
			w.fill(t, 2000)
			w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
				"hook_event_name", "PreCompact", "trigger", "manual"))
			pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
			name := strings.TrimSuffix(filepath.Base(strings.Fields(strings.SplitN(pointer, "\n", 2)[0])[len(strings.Fields(strings.SplitN(pointer, "\n", 2)[0]))-1]), ".md")
			if _, ok := snapshot.ParseName(name); !ok {
				t.Fatalf("postcompact pointer names no snapshot:\n%s", pointer)
			}
			var recorded []string
			if tc.record {
				recorded = []string{pointer}
			}
			w.boundary(t, tc.version, recorded...)
			if tc.resume {
				w.run(t, rbPayload("session_id", w.sid, "hook_event_name", "SessionStart", "source", "resume"), "watch")
			}
			got := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p9", nil).Stdout, watch.UserPromptSubmit)
			if tc.want == "" {
				if got != "" {
					t.Fatalf("the pointer reached the model, yet it was handed over again:\n%s", got)
				}
				// WA-13: the check is logged.
				if b, _ := os.ReadFile(filepath.Join(filepath.Dir(w.Snaps), "compact-guard.log")); !strings.Contains(string(b), `outcome=none`) ||
					!strings.Contains(string(b), `detail="the latest compaction's pointer reached the model`) {
					t.Errorf("log:\n%s", b)
				}
			} else {
				if !strings.HasPrefix(got, "compact-guard: this pointer comes with the first prompt after the compaction, because ") ||
					!strings.Contains(got, tc.want) || !strings.Contains(got, filepath.Join(w.Snaps, name+".md")) || !strings.Contains(got, "Шаг 1: edit the parser") {
					t.Fatalf("pointer handed over:\n%s", got)
				}
				d, err := snapshot.ReadDelivery(w.Snaps, name, w.sid)
				if err != nil || d == nil || d.Event != watch.UserPromptSubmit {
					t.Errorf("delivery record %+v %v", d, err)
				}
			}
			// Never twice.
			if r := w.hook(t, watch.UserPromptSubmit, "p10", nil); r.Stdout != "" {
				t.Errorf("handed over twice: %q", r.Stdout)
			}
			st, _ := watch.StoreFor(w.Snaps).Load(w.sid)
			if st.Pending != nil || (tc.want != "") != (len(st.Fallbacks) == 1) {
				t.Errorf("state after the check: pending %+v, fallbacks %+v", st.Pending, st.Fallbacks)
			}
		})
	}
}

// qwenRecord is one record of a Qwen Code chat file (TR-44).
func (w *wtWorld) qwenRecord(t *testing.T, typ string, extra map[string]any) {
	t.Helper()
	w.n++
	v := map[string]any{"uuid": fmt.Sprint("q", w.n), "sessionId": w.sid, "timestamp": time.Now().UTC().Format(time.RFC3339Nano),
		"type": typ, "provenance": "system", "cwd": w.project, "version": "0.24.4", "gitBranch": "main"}
	for k, x := range extra {
		v[k] = x
	}
	b, _ := json.Marshal(v)
	w.append(t, string(b))
}

// newQwenWatchWorld is a Qwen Code session: its chat file under
// ~/.qwen/projects/…/chats/ holds a prompt and a response that fills 90% of
// a 100,000-token window.
func newQwenWatchWorld(t *testing.T) *wtWorld {
	t.Helper()
	w := &wtWorld{rbWorld: rbNewWorld(t), sid: "9e7a1c00-1111-4222-8333-444455556666"}
	w.project = filepath.Join(w.Root, "проект qwen")
	w.transcript = rbWriteFile(t, filepath.Join(w.Home, ".qwen", "projects", "-p", "chats", w.sid+".jsonl"), nil)
	if err := os.MkdirAll(w.project, 0o700); err != nil {
		t.Fatal(err)
	}
	w.qwenRecord(t, "user", map[string]any{"provenance": "real_user", "message": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "Шаг 1: fix the parser"}}}})
	w.qwenRecord(t, "assistant", map[string]any{"provenance": "assistant_output", "model": "qwen-e2e",
		"message":       map[string]any{"role": "model", "parts": []any{map[string]any{"text": "ok"}}},
		"usageMetadata": map[string]any{"promptTokenCount": 90000}, "contextWindowSize": 100000})
	return w
}

// spec: WA-1, WA-11, SS-17 (Qwen Code: the late pointer only; no notice, no
// Stop gate, whatever the fill)
func TestWA11QwenLatePointerOnly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		resume bool
	}{{"continued in a new process", true}, {"the same process", false}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newQwenWatchWorld(t)
			for _, ev := range []string{watch.UserPromptSubmit, watch.PostToolUse, watch.Stop} {
				if r := w.hook(t, ev, "p1", []string{"--stop-gate", "--thresholds", "10%"}); r.Stdout != "" {
					t.Errorf("%s on a Qwen Code session at 90%%: %q", ev, r.Stdout)
				}
			}
			w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
				"hook_event_name", "PreCompact", "trigger", "manual"))
			w.qwenRecord(t, "system", map[string]any{"subtype": "chat_compression",
				"systemPayload": map[string]any{"info": map[string]any{"originalTokenCount": 90000, "newTokenCount": 600, "compressionStatus": 1}}})
			pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
			first := strings.Fields(strings.SplitN(pointer, "\n", 2)[0])
			name := strings.TrimSuffix(filepath.Base(first[len(first)-1]), ".md")
			if _, ok := snapshot.ParseName(name); !ok {
				t.Fatalf("postcompact pointer names no snapshot:\n%s", pointer)
			}
			if tc.resume {
				w.run(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "hook_event_name", "SessionStart", "source", "resume"), "watch")
			}
			got := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p2", nil).Stdout, watch.UserPromptSubmit)
			if !tc.resume {
				if got != "" {
					t.Fatalf("the pointer is in the process's system instruction, yet it was handed over again:\n%s", got)
				}
				return
			}
			if !strings.HasPrefix(got, "compact-guard: this pointer comes with the first prompt after the compaction, because the session went on in a new client process (resumed at ") ||
				!strings.Contains(got, "client 0.24.4") || !strings.Contains(got, filepath.Join(w.Snaps, name+".md")) || !strings.Contains(got, "Шаг 1: fix the parser") {
				t.Fatalf("pointer handed over:\n%s", got)
			}
			if d, err := snapshot.ReadDelivery(w.Snaps, name, w.sid); err != nil || d == nil || d.Event != watch.UserPromptSubmit {
				t.Errorf("delivery record %+v %v", d, err)
			}
			if r := w.hook(t, watch.UserPromptSubmit, "p3", nil); r.Stdout != "" {
				t.Errorf("handed over twice: %q", r.Stdout)
			}
		})
	}
}

// spec: WA-11, PC-26, SS-17
func TestWA11NoEarlierSnapshotHandedOver(t *testing.T) {
	pre := func(w *wtWorld) []byte {
		return rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project, "hook_event_name", "PreCompact", "trigger", "manual")
	}
	t.Run("the compaction's precompact failed", func(t *testing.T) {
		w := newWatchWorld(t)
		w.fill(t, 2000)
		w.precompact(t, pre(w)) // a compaction the client then abandoned
		w.append(t, `{"type":"user","message":{"role":"user","content":"go on"},"isSidechain":false,"timestamp":"2026-11-30T09:10:00.000Z"}`)
		// This compaction's precompact cannot write its snapshot (the
		// folder is a file): its note keeps the earlier snapshot out.
		aside := w.Snaps + ".aside"
		if err := os.Rename(w.Snaps, aside); err != nil {
			t.Fatal(err)
		}
		rbWriteFile(t, w.Snaps, []byte("not a folder"))
		w.precompact(t, pre(w))
		os.Remove(w.Snaps)
		if err := os.Rename(aside, w.Snaps); err != nil {
			t.Fatal(err)
		}
		w.boundary(t, "2.1.119")
		if r := w.hook(t, watch.UserPromptSubmit, "p2", nil); r.Stdout != "" {
			t.Errorf("an abandoned compaction's snapshot was handed over for this one: %q", r.Stdout)
		}
	})
	t.Run("the session went on after the snapshot", func(t *testing.T) {
		w := newWatchWorld(t)
		w.fill(t, 2000)
		w.precompact(t, pre(w))
		w.fill(t, 3000) // a response after the snapshot: that compaction did not happen
		w.boundary(t, "2.1.119")
		if r := w.hook(t, watch.UserPromptSubmit, "p2", nil); r.Stdout != "" {
			t.Errorf("the snapshot of a compaction that did not happen was handed over: %q", r.Stdout)
		}
	})
}

// spec: WA-12, PC-26
func TestWA12PlannedOrEmergencyInRecordAndPointer(t *testing.T) {
	for _, planned := range []bool{true, false} {
		t.Run(fmt.Sprint("planned=", planned), func(t *testing.T) {
			w := newWatchWorld(t)
			w.fill(t, 612000)
			w.hook(t, watch.PostToolUse, "p1", nil) // crosses 500k and 600k
			tpl := handoff.TemplateFor(snapshot.English, time.Now().Add(time.Second), w.sid)
			if planned {
				tpl = fillBlock(tpl)
			}
			rbWriteFile(t, filepath.Join(w.project, "SESSION-STATE.md"), []byte(tpl))
			trigger := map[bool]string{true: "manual", false: "auto"}[planned]
			w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
				"hook_event_name", "PreCompact", "trigger", trigger))
			records := rbCheckFolder(t, w.Snaps)
			_, rec := rbSessionSnapshot(t, records, w.sid)
			p := rec.Preparation
			if p == nil || !p.Watched || len(p.Crossings) != 2 || p.Window != 1000000 || p.Fill != 612000 || p.Handoff == nil || p.Handoff.Line != 1 {
				t.Fatalf("preparation %+v", p)
			}
			pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
			second := strings.SplitN(pointer, "\n", 3)[1]
			if planned {
				if p.Kind != snapshot.Planned || !strings.HasPrefix(second, `This compaction was planned: handoff block "HANDOFF `) {
					t.Errorf("kind %s, pointer line %q", p.Kind, second)
				}
			} else if p.Kind != snapshot.Emergency || !strings.HasPrefix(second, "This compaction was an emergency: automatic, context at 61% of the window (612,000 of 1,000,000 tokens), the newest handoff block (line 1) is incomplete.") {
				t.Errorf("kind %s, pointer line %q", p.Kind, second)
			}
		})
	}
}
