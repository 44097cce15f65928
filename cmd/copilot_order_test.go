package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// Copilot's pointer hook runs after the boundary: the snapshot precompact
// noted is handed out when exactly one boundary follows the note, not when
// two do (the snapshot is then an earlier compaction's); and responses
// written after the snapshot do not condemn it, since an automatic
// compaction runs while the turn goes on. Once handed out it is not again.
// spec: SS-30, SS-31, SS-32
func TestCopilotBoundariesAfterTheNote(t *testing.T) {
	data, err := os.ReadFile(copilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	end := copilotBoundary + bytes.IndexByte(data[copilotBoundary:], '\n') + 1
	boundary := data[copilotBoundary:end]
	// An assistant message of the fixture's, stamped after precompact ran.
	msgAt := bytes.Index(data, []byte(`{"type":"assistant.message"`))
	msg := data[msgAt : msgAt+bytes.IndexByte(data[msgAt:], '\n')+1]
	stamp := regexp.MustCompile(`"timestamp":"[^"]*"`)
	later := func(line []byte, at string) []byte {
		return stamp.ReplaceAll(bytes.Clone(line), []byte(`"timestamp":"`+at+`"`))
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	// A second compaction's boundary: its own entry and attempt ids.
	ids := regexp.MustCompile(`"(id|compactionAttemptId)":"[^"]*"`)
	second := ids.ReplaceAll(later(boundary, "2026-12-02T01:27:40.500Z"), []byte(`"$1":"00000000-0000-4000-8000-000000000002"`))
	head := data[:copilotBoundary]
	for _, c := range []struct {
		name    string
		after   []byte // what the client wrote after the note
		pointer bool
	}{
		{"one boundary", boundary, true},
		{"a response before the boundary", cat(later(msg, "2026-12-02T01:27:39.500Z"), boundary), true},
		{"a response after the boundary", cat(boundary, later(msg, "2026-12-02T01:27:40.000Z")), true},
		{"two boundaries", cat(boundary, second), false},
		{"none yet", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			tr := filepath.Join(tmp, "events.jsonl")
			if err := os.WriteFile(tr, head, 0o600); err != nil {
				t.Fatal(err)
			}
			clock := time.Date(2026, 12, 2, 1, 27, 39, 109e6, time.UTC)
			opts := CopilotOptions{Dir: filepath.Join(tmp, "snaps"), Getenv: func(string) string { return "" }, Now: func() time.Time { return clock }}
			runCopilotHook(t, opts, map[string]any{"hook_event_name": "PreCompact", "session_id": copilotFixtureID,
				"transcript_path": tr, "trigger": "auto", "custom_instructions": "", "cwd": tmp})
			if err := os.WriteFile(tr, cat(head, c.after), 0o600); err != nil {
				t.Fatal(err)
			}
			clock = clock.Add(3 * time.Second)
			prompt := map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": copilotFixtureID, "prompt": "next", "cwd": tmp}
			out := runCopilotHook(t, opts, prompt)
			if got := out != ""; got != c.pointer {
				t.Fatalf("pointer %q, want one: %v", out, c.pointer)
			}
			if c.pointer {
				if again := runCopilotHook(t, opts, prompt); again != "" {
					t.Errorf("handed out again: %q", again)
				}
			}
		})
	}
}

// With nothing noted, a prompt's or a tool call's hook decides by the state
// file alone: a snapshot of the session and a boundary after it are there,
// yet nothing is printed, nothing delivered and not even a log line written.
// spec: PO-27
func TestCopilotNothingNotedReadsOnlyTheState(t *testing.T) {
	data, err := os.ReadFile(copilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "events.jsonl")
	if err := os.WriteFile(tr, data[:copilotBoundary], 0o600); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 2, 1, 27, 39, 109e6, time.UTC)
	dir := filepath.Join(tmp, "snaps")
	opts := CopilotOptions{Dir: dir, Getenv: func(string) string { return "" }, Now: func() time.Time { return clock }}
	runCopilotHook(t, opts, map[string]any{"hook_event_name": "PreCompact", "session_id": copilotFixtureID,
		"transcript_path": tr, "trigger": "auto", "custom_instructions": "", "cwd": tmp})
	if err := os.WriteFile(tr, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// The note is gone (handled by an earlier run); the snapshot stays.
	st, err := watch.StoreFor(dir).Update(copilotFixtureID, func(st *watch.State) bool { st.Pending = nil; return true })
	if err != nil || st.Pending != nil {
		t.Fatalf("clearing the note: %v", err)
	}
	logBefore := hooktest.ReadLog(dir)
	clock = clock.Add(3 * time.Second)
	for _, ev := range []string{"UserPromptSubmit", "PostToolUse"} {
		if out := runCopilotHook(t, opts, map[string]any{"hook_event_name": ev, "session_id": copilotFixtureID, "prompt": "next", "cwd": tmp}); out != "" {
			t.Errorf("%s with nothing noted printed %q", ev, out)
		}
	}
	if log := hooktest.ReadLog(dir); log != logBefore {
		t.Errorf("runs with nothing noted wrote to the log:\n%s", strings.TrimPrefix(log, logBefore))
	}
	names, _ := filepath.Glob(filepath.Join(dir, "snap_*.json"))
	for _, n := range names {
		base := strings.TrimSuffix(filepath.Base(n), ".json")
		if _, ok := snapshot.ParseName(base); !ok {
			continue
		}
		if d, _ := snapshot.ReadDelivery(dir, base, copilotFixtureID); d != nil {
			t.Errorf("%s delivered with nothing noted", base)
		}
	}
	if len(names) == 0 {
		t.Fatal("precompact wrote no snapshot")
	}
}
