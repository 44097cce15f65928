package selectsnap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// spec: SS-17
func TestPointerFate(t *testing.T) {
	own := snapshot.BaseName(now, ownID, 0)
	other := snapshot.BaseName(now.Add(-time.Hour), ownID, 0)
	pointer := func(name string) []string {
		return []string{"The context was compacted; a snapshot is at /s/" + name + ".md"}
	}
	delivered := &snapshot.Delivery{SessionID: ownID, At: now, Event: "SessionStart"}
	late := &snapshot.Delivery{SessionID: ownID, At: now, Event: "UserPromptSubmit"}
	cases := []struct {
		name     string
		c        transcript.Compaction
		delivery *snapshot.Delivery
		resumed  time.Time
		reached  bool
		why      string
	}{
		{"recorded in the transcript", transcript.Compaction{Version: "2.1.328", Contexts: pointer(own), HookRecords: 2}, nil, time.Time{}, true, ""},
		{"2.1.119 records it but does not give it back after a resume", transcript.Compaction{Version: "2.1.119", Time: now, Contexts: pointer(own)}, nil, now.Add(time.Hour), false, Resumed},
		{"2.1.119 recorded it, same process", transcript.Compaction{Version: "2.1.119", Time: now, Contexts: pointer(own)}, nil, time.Time{}, true, ""},
		{"another snapshot's pointer recorded", transcript.Compaction{Version: "2.1.328", Contexts: pointer(other), HookRecords: 2}, delivered, time.Time{}, false, NotRecorded},
		{"a recording client, nothing recorded", transcript.Compaction{Version: "2.1.120"}, delivered, time.Time{}, false, NotRecorded},
		{"no version, hook records seen", transcript.Compaction{HookRecords: 1}, delivered, time.Time{}, false, NotRecorded},
		{"2.1.119 in the same process", transcript.Compaction{Version: "2.1.119", HookRecords: 1}, delivered, now.Add(-time.Minute), true, ""},
		{"2.1.119 resumed after the delivery", transcript.Compaction{Version: "2.1.119", HookRecords: 1}, delivered, now.Add(time.Second), false, Resumed},
		{"2.0.76 resumed", transcript.Compaction{Version: "2.0.76"}, delivered, now.Add(time.Hour), false, Resumed},
		{"2.1.119, nothing handed out", transcript.Compaction{Version: "2.1.119"}, nil, time.Time{}, false, NotDelivered},
		{"2.1.119, handed out late already", transcript.Compaction{Version: "2.1.119"}, late, time.Time{}, false, NotDelivered},
		{"1.0.98", transcript.Compaction{Version: "1.0.98"}, delivered, time.Time{}, false, OldClient},
		// Qwen Code's releases are its own, and it records no context.
		{"qwen, handed out, same process", transcript.Compaction{Format: transcript.FormatQwen, Version: "0.24.4"}, delivered, now.Add(-time.Minute), true, ""},
		{"qwen, handed out, then continued in a new process", transcript.Compaction{Format: transcript.FormatQwen, Version: "0.24.4"}, delivered, now.Add(time.Second), false, Resumed},
		{"qwen, nothing handed out", transcript.Compaction{Format: transcript.FormatQwen, Version: "0.24.4"}, nil, time.Time{}, false, NotDelivered},
		{"qwen, handed out late already", transcript.Compaction{Format: transcript.FormatQwen, Version: "0.24.4"}, late, time.Time{}, false, NotDelivered},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reached, why := PointerFate(tc.c, own, tc.delivery, tc.resumed)
			if reached != tc.reached || why != tc.why {
				t.Errorf("got %v %q, want %v %q", reached, why, tc.reached, tc.why)
			}
		})
	}
}

// spec: SS-17
func TestLatestPointer(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	size := int64(4000)
	own := writeSnap(t, dir, snap{at: -2 * time.Minute, size: size})
	writeSnap(t, dir, snap{at: -20 * time.Minute, size: 1000}) // the compaction before
	d := snapshot.Delivery{SessionID: ownID, At: now.Add(-time.Minute), Event: "SessionStart", TranscriptSize: size}
	if err := snapshot.WriteDelivery(dir, own, d); err != nil {
		t.Fatal(err)
	}
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	head := strings.Repeat(line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "x"}}), 80)
	head = head[:size-1] + "\n"
	boundary := line(map[string]any{"type": "system", "subtype": "compact_boundary", "isSidechain": false,
		"timestamp": now.Add(-90 * time.Second).Format(time.RFC3339Nano), "version": "2.1.119",
		"compactMetadata": map[string]any{"trigger": "manual", "preTokens": 5000}})
	hook := line(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_success", "hookEvent": "SessionStart", "content": ""}})
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(head+boundary+hook), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := transcript.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := LatestOptions{Dir: dir, SessionID: ownID, TranscriptPath: tpath, Transcript: f, From: size}
	l, err := LatestPointer(context.Background(), o)
	if err != nil || l == nil || l.Record == nil || l.Record.Name != own || l.MDPath != filepath.Join(dir, own+".md") {
		t.Fatalf("LatestPointer: %+v %v", l, err)
	}
	if !l.Reached || l.Delivery == nil || l.Compaction.Offset != size {
		t.Errorf("in the same process: reached %v, delivery %+v, boundary at %d", l.Reached, l.Delivery, l.Compaction.Offset)
	}
	o.Resumed = now
	if l, _ = LatestPointer(context.Background(), o); l.Reached || l.Why != Resumed {
		t.Errorf("resumed: %v %q", l.Reached, l.Why)
	}
	// Created by an earlier precompact than the one noted: not this
	// compaction's; created by that one (its start, to the nanosecond): it is.
	o.After = now.Add(-2*time.Minute + time.Second)
	if l, _ = LatestPointer(context.Background(), o); l == nil || l.Record != nil {
		t.Errorf("a snapshot older than the noted precompact was taken for the compaction: %+v", l)
	}
	o.After = now.Add(-2 * time.Minute)
	if l, _ = LatestPointer(context.Background(), o); l == nil || l.Record == nil || l.Record.Name != own {
		t.Errorf("the noted precompact's own snapshot was not taken: %+v", l)
	}
	o.After = time.Time{}
	// Older than MaxAge at the boundary: not this compaction's.
	o.MaxAge = 10 * time.Second
	if l, _ = LatestPointer(context.Background(), o); l == nil || l.Record != nil {
		t.Errorf("a snapshot older than MaxAge was taken for the compaction: %+v", l)
	}
	o.MaxAge = 0
	o.From = size + 1
	if l, err = LatestPointer(context.Background(), o); l != nil || err != nil {
		t.Errorf("no boundary after From: %+v %v", l, err)
	}
	if _, err = LatestPointer(context.Background(), LatestOptions{Transcript: f}); err != ErrNoSessionID {
		t.Errorf("no session: %v", err)
	}

	// The session went on after the snapshot, before the boundary (a
	// compaction abandoned, then one whose PreCompact did not run): not
	// this compaction's.
	resp := line(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": now.Add(-100 * time.Second).Format(time.RFC3339Nano),
		"message": map[string]any{"model": "claude-opus-5-5", "role": "assistant", "content": []any{}}})
	if err := os.WriteFile(path, []byte(head+resp+boundary+hook), 0o600); err != nil {
		t.Fatal(err)
	}
	f2, _ := transcript.Open(path)
	defer f2.Close()
	l, err = LatestPointer(context.Background(), LatestOptions{Dir: dir, SessionID: ownID, TranscriptPath: tpath, Transcript: f2, From: size})
	if err != nil || l == nil || l.Record != nil {
		t.Errorf("after a response later than the snapshot: %+v %v", l, err)
	}
}

// spec: SS-17 (Qwen Code: the boundary is a chat_compression record, and
// only the delivery record and a resume tell the pointer's fate)
func TestLatestPointerQwen(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	rec := func(typ string, at time.Duration, extra map[string]any) string {
		v := map[string]any{"uuid": fmt.Sprint("u", at), "sessionId": ownID, "timestamp": now.Add(at).Format(time.RFC3339Nano),
			"type": typ, "provenance": "system", "cwd": "/work/q", "version": "0.24.4"}
		for k, x := range extra {
			v[k] = x
		}
		return line(v)
	}
	head := rec("user", -5*time.Minute, map[string]any{"provenance": "real_user", "message": map[string]any{"role": "user", "parts": []any{map[string]any{"text": "fix it"}}}}) +
		rec("assistant", -4*time.Minute, map[string]any{"model": "qwen-e2e", "message": map[string]any{"role": "model", "parts": []any{map[string]any{"text": "ok"}}}})
	size := int64(len(head))
	own := writeSnap(t, dir, snap{at: -2 * time.Minute, size: size, edit: withAgent(AgentQwen)})
	boundary := rec("system", -90*time.Second, map[string]any{"subtype": "chat_compression",
		"systemPayload": map[string]any{"info": map[string]any{"originalTokenCount": 9000, "newTokenCount": 600}}})
	path := filepath.Join(dir, "chat.jsonl")
	if err := os.WriteFile(path, []byte(head+boundary), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := transcript.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o := LatestOptions{Dir: dir, SessionID: ownID, TranscriptPath: tpath, Transcript: f, From: size, After: now.Add(-2 * time.Minute)}
	l, err := LatestPointer(context.Background(), o)
	if err != nil || l == nil || l.Record == nil || l.Record.Name != own || l.Compaction.Offset != size || l.Compaction.Format != transcript.FormatQwen {
		t.Fatalf("LatestPointer: %+v %v", l, err)
	}
	if l.Reached || l.Why != NotDelivered {
		t.Errorf("nothing handed out: %v %q", l.Reached, l.Why)
	}
	// A headless /compress: SessionStart(compact) handed it out, and the
	// process ended; the next qwen -c resumed the session.
	d := snapshot.Delivery{SessionID: ownID, At: now.Add(-80 * time.Second), Event: "SessionStart", TranscriptSize: size}
	if err := snapshot.WriteDelivery(dir, own, d); err != nil {
		t.Fatal(err)
	}
	if l, _ = LatestPointer(context.Background(), o); l == nil || !l.Reached || l.Delivery == nil {
		t.Errorf("handed out, same process: %+v", l)
	}
	o.Resumed = now.Add(-time.Minute)
	if l, _ = LatestPointer(context.Background(), o); l == nil || l.Reached || l.Why != Resumed {
		t.Errorf("resumed after the delivery: %+v", l)
	}
}
