package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/clients/copilot"
	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// copilotFixture is the events.jsonl the real Copilot CLI 1.0.102 wrote
// (transcript/testdata/copilot1.0.102/README.md) and where its compaction's
// boundary starts.
const (
	copilotFixture   = "../transcript/testdata/copilot1.0.102/manual-compaction.jsonl"
	copilotFixtureID = "78095ab7-85ab-4ad8-aadf-55dd6303d151"
	copilotBoundary  = 57868
)

func runCopilotHook(t *testing.T, opts CopilotOptions, payload map[string]any) string {
	t.Helper()
	in, _ := json.Marshal(payload)
	var out bytes.Buffer
	opts.IO = &IO{In: bytes.NewReader(in), Out: &out, ErrOut: &bytes.Buffer{}}
	opts.precompact = precompactRun
	if opts.waitLimit == 0 {
		opts.waitLimit = time.Millisecond // the fixture's hooks have all ended
	}
	if err := copilotRun(&opts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// spec: PO-22, PO-23, PO-24, PO-25, PO-26
func TestCopilotPointerOnceAfterTheBoundary(t *testing.T) {
	data, err := os.ReadFile(copilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	tr := filepath.Join(tmp, ".copilot", "session-state", copilotFixtureID, "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(tr), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, data[:copilotBoundary], 0o600); err != nil {
		t.Fatal(err)
	}
	// The client's own clock: precompact ran at 01:27:39.109, the boundary
	// is stamped 01:27:39.839.
	clock := time.Date(2026, 12, 2, 1, 27, 39, 109e6, time.UTC)
	opts := CopilotOptions{Dir: filepath.Join(tmp, "snaps"), Getenv: func(k string) string {
		if k == "COPILOT_HOME" {
			return filepath.Join(tmp, ".copilot")
		}
		return ""
	}, Now: func() time.Time { return clock }}
	if out := runCopilotHook(t, opts, map[string]any{"hook_event_name": "PreCompact", "session_id": copilotFixtureID,
		"transcript_path": tr, "trigger": "manual", "custom_instructions": "", "cwd": tmp}); out != "" {
		t.Errorf("PreCompact printed %q: Copilot ignores it, and precompact prints nothing but its hint", out)
	}
	prompt := map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": copilotFixtureID, "prompt": "next", "cwd": tmp}
	clock = clock.Add(100 * time.Millisecond)
	if out := runCopilotHook(t, opts, prompt); out != "" {
		t.Errorf("before the boundary the hook gave %q", out)
	}
	if err := os.WriteFile(tr, data, 0o600); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(2 * time.Second)
	out := runCopilotHook(t, opts, prompt)
	var got struct {
		AdditionalContext string `json:"additionalContext"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.AdditionalContext == "" {
		t.Fatalf("no flat additionalContext after the boundary: %q (%v)", out, err)
	}
	for _, want := range []string{"PROMPT-ONE", "notes.txt", "ls /nonexistent-xyz; exit 3", "snap_20261202-012739_78095ab7", "of 64,000 tokens"} {
		if !strings.Contains(got.AdditionalContext, want) {
			t.Errorf("pointer lacks %q:\n%s", want, got.AdditionalContext)
		}
	}
	t.Logf("pointer:\n%s", got.AdditionalContext)
	post := map[string]any{"hook_event_name": "PostToolUse", "session_id": copilotFixtureID, "tool_name": "Bash", "cwd": tmp}
	if out := runCopilotHook(t, opts, post); out != "" {
		t.Errorf("handed over twice: %q", out)
	}
	if out := runCopilotHook(t, opts, prompt); out != "" {
		t.Errorf("handed over twice: %q", out)
	}
}

// spec: PO-24
// A compaction Copilot started but did not apply gets no pointer, now or
// later.
func TestCopilotNoPointerForACompactionThatFailed(t *testing.T) {
	data, err := os.ReadFile(copilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "events.jsonl")
	failed := `{"type":"session.compaction_complete","data":{"success":false,"error":"model error"},"id":"f1","timestamp":"2026-12-02T01:27:39.839Z","parentId":"x"}` + "\n"
	if err := os.WriteFile(tr, data[:copilotBoundary], 0o600); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 12, 2, 1, 27, 39, 109e6, time.UTC)
	opts := CopilotOptions{Dir: filepath.Join(tmp, "snaps"), Getenv: func(string) string { return "" }, Now: func() time.Time { return clock }}
	runCopilotHook(t, opts, map[string]any{"hook_event_name": "PreCompact", "session_id": copilotFixtureID, "transcript_path": tr, "trigger": "auto", "cwd": tmp})
	if err := os.WriteFile(tr, append(data[:copilotBoundary:copilotBoundary], failed...), 0o600); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(2 * time.Second)
	for _, ev := range []string{"PostToolUse", "UserPromptSubmit"} {
		if out := runCopilotHook(t, opts, map[string]any{"hook_event_name": ev, "session_id": copilotFixtureID, "cwd": tmp}); out != "" {
			t.Errorf("%s gave a pointer for a compaction that did not happen: %q", ev, out)
		}
	}
}

// spec: PO-28, IN-47
// Copilot CLI runs the entries compact-guard install wrote for Claude Code
// in .claude/settings.json: under Copilot they do nothing.
func TestClaudeEntriesDoNothingUnderCopilot(t *testing.T) {
	ran := 0
	run := unlessCopilot(func(*PrecompactOptions) error { ran++; return nil })
	t.Setenv("COPILOT_CLI", "1")
	t.Setenv("CLAUDECODE", "")
	_ = run(&PrecompactOptions{})
	if ran != 0 {
		t.Error("a Claude Code entry ran under Copilot CLI")
	}
	t.Setenv("CLAUDECODE", "1") // Claude Code started from a Copilot shell
	_ = run(&PrecompactOptions{})
	t.Setenv("COPILOT_CLI", "")
	_ = run(&PrecompactOptions{})
	if ran != 2 {
		t.Errorf("ran %d times, want 2 (under Claude Code)", ran)
	}
}

// spec: PO-29
func TestWaitForOwnHook(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "events.jsonl")
	before := `{"type":"hook.start","data":{"hookInvocationId":"11111111-1111-1111-1111-111111111111","hookType":"postToolUse","input":{}},"id":"a","timestamp":"2026-12-02T01:00:00.000Z","parentId":null}` + "\n" +
		`{"type":"hook.end","data":{"hookInvocationId":"11111111-1111-1111-1111-111111111111","hookType":"postToolUse","success":true},"id":"b","timestamp":"2026-12-02T01:00:00.100Z","parentId":"a"}` + "\n"
	if err := os.WriteFile(tr, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if copilot.WaitForOwnHook(context.Background(), tr, "postToolUse", 30*time.Millisecond) {
		t.Error("an earlier, ended invocation taken for this one")
	}
	own := `{"type":"hook.start","data":{"hookInvocationId":"22222222-2222-2222-2222-222222222222","hookType":"postToolUse","input":{"toolName":"bash"}},"id":"c","timestamp":"2026-12-02T01:00:01.000Z","parentId":"b"}` + "\n"
	done := make(chan bool)
	go func() { done <- copilot.WaitForOwnHook(context.Background(), tr, "postToolUse", 10*time.Second) }()
	f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(own); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !<-done {
		t.Error("the invocation's own hook.start was not seen")
	}
	if copilot.WaitForOwnHook(context.Background(), tr, "preCompact", 30*time.Millisecond) {
		t.Error("a postToolUse start taken for preCompact")
	}
}

// spec: PL-10
func TestCopilotPluginArgs(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	plugin := env("COPILOT_CLI", "1", "COPILOT_PLUGIN_ROOT", "/p")
	pipe := strings.NewReader("{}")
	for _, c := range []struct {
		args   []string
		getenv func(string) string
		want   string
	}{
		{nil, plugin, "copilot"},                                        // Copilot 1.0.102 drops the exec form's args
		{[]string{"precompact"}, plugin, "copilot"},                     // a release that passes them
		{[]string{"watch"}, plugin, "copilot"},                          //
		{[]string{"postcompact"}, plugin, "copilot"},                    //
		{[]string{"list"}, plugin, "list"},                              // not a hook
		{[]string{"precompact"}, env("COPILOT_CLI", "1"), "precompact"}, // .claude/settings.json: PO-28 says nothing happens
		{nil, env("COPILOT_PLUGIN_ROOT", "/p"), ""},                     // not under Copilot
		{nil, env("COPILOT_CLI", "1", "COPILOT_PLUGIN_ROOT", "/p", "CLAUDECODE", "1"), ""},
	} {
		got := strings.Join(copilotPluginArgs(c.args, c.getenv, pipe), " ")
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.args, got, c.want)
		}
	}
}

// spec: PO-22
// A panic on the PreCompact path outside precompact's own guard (here the
// step that runs it) is logged, and the hook exits 0 with nothing on
// stdout.
func TestCopilotHookSurvivesAPanic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	var out bytes.Buffer
	opts := &CopilotOptions{IO: &IO{In: strings.NewReader(`{"hook_event_name":"PreCompact","session_id":"s1","trigger":"auto"}`), Out: &out, ErrOut: &bytes.Buffer{}},
		Dir: dir, Getenv: func(string) string { return "" }, Now: time.Now,
		precompact: func(*PrecompactOptions) error { panic("boom") }}
	if err := copilotRun(opts); err != nil || out.Len() != 0 {
		t.Fatalf("copilotRun = %v, stdout %q", err, out.String())
	}
	if log := hooktest.ReadLog(dir); !strings.Contains(log, "copilot") || !strings.Contains(log, "panic: boom") {
		t.Errorf("the panic is not logged:\n%s", log)
	}
}

// spec: PL-33 PL-14
// Copilot CLI with both the plugin and install's hooks file (issue 28,
// item 10): the plugin's run (COPILOT_PLUGIN_ROOT holds the running binary)
// gives way to the user's hooks file when that file is, byte for byte, what
// install writes for a program that can run: one snapshot per compaction.
// A project's .github/hooks file (a repository commits it), a file edited
// by hand (a matcher added), or one whose program is gone does not make it
// stand down; the hooks file's own run never stands down.
func TestCopilotPluginGivesWayToTheHooksFile(t *testing.T) {
	data, err := os.ReadFile(copilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	installedBinary := filepath.Join(t.TempDir(), "compact-guard")
	if err := os.WriteFile(installedBinary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	installed := string(copilot.CopilotFile(installedBinary))
	for _, tc := range []struct {
		name      string
		file      string // user, project
		content   string
		plugin    bool
		standDown bool
	}{
		{"plugin, the user's hooks file: stands down", "user", installed, true, true},
		{"the user's hooks file's own run: runs", "user", installed, false, false},
		{"plugin alone: runs", "", "", true, false},
		{"plugin, a project's hooks file: runs", "project", installed, true, false},
		{"plugin, the user's file with a matcher added by hand: runs", "user",
			strings.Replace(installed, `"type":"command",`, `"type":"command","matcher":"manual",`, 1), true, false},
		{"plugin, the user's file whose program is gone: runs", "user",
			string(copilot.CopilotFile(filepath.Join(t.TempDir(), "compact-guard"))), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			home, proj := filepath.Join(tmp, ".copilot"), filepath.Join(tmp, "proj")
			tr := filepath.Join(home, "session-state", copilotFixtureID, "events.jsonl")
			if err := os.MkdirAll(filepath.Dir(tr), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tr, data[:copilotBoundary], 0o600); err != nil {
				t.Fatal(err)
			}
			paths := map[string]string{"user": filepath.Join(home, "hooks", "compact-guard.json"),
				"project": filepath.Join(proj, ".github", "hooks", "compact-guard.json")}
			if tc.file != "" {
				if err := os.MkdirAll(filepath.Dir(paths[tc.file]), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(paths[tc.file], []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			} else if err := os.MkdirAll(proj, 0o700); err != nil {
				t.Fatal(err)
			}
			clock := time.Date(2026, 12, 2, 1, 27, 39, 109e6, time.UTC)
			dir := filepath.Join(tmp, "snaps")
			opts := CopilotOptions{Dir: dir, Getenv: func(k string) string {
				switch k {
				case "COPILOT_HOME":
					return home
				case "COPILOT_CLI":
					return "1"
				case "COPILOT_PLUGIN_ROOT", "CLAUDE_PLUGIN_ROOT":
					if tc.plugin {
						return filepath.Dir(exe)
					}
				}
				return ""
			}, Now: func() time.Time { return clock }}
			runCopilotHook(t, opts, map[string]any{"hook_event_name": "PreCompact", "session_id": copilotFixtureID,
				"transcript_path": tr, "trigger": "manual", "custom_instructions": "", "cwd": proj})
			snaps, _ := filepath.Glob(filepath.Join(dir, "snap_*.md"))
			log := hooktest.ReadLog(dir)
			stood := strings.Contains(log, "stood down: "+paths["user"]+" registers compact-guard for PreCompact")
			if (len(snaps) == 0) != tc.standDown || stood != tc.standDown {
				t.Errorf("snapshots %v, stood down %v; want stand-down %v\nlog:\n%s", snaps, stood, tc.standDown, log)
			}
		})
	}
}

// spec: SS-44
// A compaction Copilot started and never applied (its PreCompact noted
// snapshot A; no compaction_complete, or a failed one) — the session went
// on — then a later compaction with no PreCompact of ours: its boundary is
// the only one after the note, yet A is not that compaction's. Before
// issue 28 (item 2) its pointer named A as "taken just before"; a failed
// complete in another JSON layout was not seen either.
func TestCopilotStaleNoteNotHandedOn(t *testing.T) {
	data, err := os.ReadFile(copilotFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	pick := func(typ string) map[string]any {
		for _, l := range lines {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["type"] == typ {
				return m
			}
		}
		t.Fatalf("no %s in the fixture", typ)
		return nil
	}
	base := time.Date(2026, 12, 2, 1, 27, 39, 109e6, time.UTC)
	event := func(m map[string]any, id string, at time.Duration) string {
		m["id"], m["timestamp"] = id, base.Add(at).Format("2006-01-02T15:04:05.000Z")
		b, _ := json.Marshal(m)
		return string(b)
	}
	for _, tc := range []struct {
		name     string
		failed   bool
		relayout bool
	}{
		{"never completed", false, false},
		{"never completed, another layout", false, true},
		{"failed, another layout", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			tr := filepath.Join(tmp, "events.jsonl")
			if err := os.WriteFile(tr, data[:copilotBoundary], 0o600); err != nil {
				t.Fatal(err)
			}
			clock := base
			opts := CopilotOptions{Dir: filepath.Join(tmp, "snaps"), Getenv: func(string) string { return "" }, Now: func() time.Time { return clock }}
			runCopilotHook(t, opts, map[string]any{"hook_event_name": "PreCompact", "session_id": copilotFixtureID, "transcript_path": tr, "trigger": "auto", "cwd": tmp})
			var after []string
			if tc.failed {
				after = append(after, event(map[string]any{"type": "session.compaction_complete", "data": map[string]any{"success": false, "error": "model error"}, "parentId": "x"}, "f1", time.Second))
			}
			after = append(after,
				event(pick("assistant.message"), "went-on", 5*time.Second), // the session goes on
				event(pick("session.compaction_start"), "start-2", 10*time.Second),
				event(pick("session.compaction_complete"), "complete-2", 12*time.Second))
			write := func(n int) {
				text := string(data[:copilotBoundary])
				for _, l := range after[:n] {
					if tc.relayout {
						l = string(transcripttest.Relayout([]byte(l), 56))
					}
					text += l + "\n"
				}
				if err := os.WriteFile(tr, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			write(len(after) - 2) // up to the response after it
			clock = base.Add(6 * time.Second)
			post := map[string]any{"hook_event_name": "PostToolUse", "session_id": copilotFixtureID, "tool_name": "bash", "cwd": tmp}
			if out := runCopilotHook(t, opts, post); out != "" {
				t.Fatalf("a pointer before any compaction completed: %q", out)
			}
			write(len(after)) // the later compaction, applied
			clock = base.Add(13 * time.Second)
			prompt := map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": copilotFixtureID, "prompt": "next", "cwd": tmp}
			if out := runCopilotHook(t, opts, prompt); out != "" {
				t.Errorf("the later compaction was handed the abandoned one's snapshot:\n%s", out)
			}
		})
	}
}
