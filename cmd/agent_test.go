package cmd

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
)

// spec: SF-5 (agent), SS-16
func TestSessionAgentFromPayload(t *testing.T) {
	for _, c := range []struct {
		p    hookio.Payload
		want string
	}{
		{hookio.Payload{TranscriptPath: "/h/.codex/sessions/2026/12/01/rollout-2026-12-01T05-55-32-0193.jsonl"}, "codex"},
		{hookio.Payload{TranscriptPath: "/h/.qwen/projects/-work-p/chats/2f6f.jsonl"}, "qwen"},
		{hookio.Payload{TurnID: "t1"}, "codex"},
		{hookio.Payload{TranscriptPath: "/h/.claude/projects/-work-p/abc.jsonl", PromptID: "p"}, "claude"},
		{hookio.Payload{}, "claude"},
	} {
		if got := sessionAgent(c.p, nil); got != c.want {
			t.Errorf("%+v: %s, want %s", c.p, got, c.want)
		}
	}
	if (hookio.Payload{TurnID: "t"}).Prompt() != "t" || (hookio.Payload{PromptID: "p", TurnID: "t"}).Prompt() != "p" {
		t.Error("Payload.Prompt")
	}
}

// agentLines is a short session of each client, in the shape it writes.
var agentLines = map[string][]string{
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

// agentWindowLine is the fill each session of agentLines gives the pointer,
// against the window the client recorded (WA-41).
var agentWindowLine = map[string]string{
	"codex": "context at 11% of the window (30,000 of 258,400 tokens)",
	"qwen":  "context at 28% of the window (9,000 of 32,000 tokens)",
}

// spec: SF-5 (agent), SS-16, TR-37, WA-41, PO-38
// A Codex or Qwen Code session's precompact records its agent, prompt id
// and facts; postcompact of that client points at it, and postcompact of
// a session of another client with the same id does not.
func TestAgentSessionsThroughTheHooks(t *testing.T) {
	for agent, lines := range agentLines {
		t.Run(agent, func(t *testing.T) {
			tmp := t.TempDir()
			const sid = "0193aaaa-1111-7222-8333-444455556666"
			tr := filepath.Join(tmp, "t.jsonl")
			if err := os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(tmp, "snaps")
			pre := `{"session_id":"` + sid + `","transcript_path":"` + tr + `","hook_event_name":"PreCompact","trigger":"auto","turn_id":"t1"}`
			var out strings.Builder
			if err := precompactRun(&PrecompactOptions{IO: &IO{In: strings.NewReader(pre), Out: &out, ErrOut: os.Stderr}, Dir: dir,
				Getenv: func(string) string { return "" }, Now: time.Now, Keep: 40}); err != nil || out.Len() != 0 {
				t.Fatalf("precompact: %v %q", err, out.String())
			}
			st := &snapshot.Store{Dir: dir}
			es, _ := st.Entries()
			if len(es) != 1 {
				t.Fatalf("snapshots %v", es)
			}
			rec, err := st.Load(es[0].Name)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Agent != agent || rec.PromptID != "t1" || len(rec.Prompts) != 1 || rec.Prompts[0].Text != "edit hello.txt" ||
				len(rec.Commands) != 1 || rec.Commands[0].ExitCode == nil || *rec.Commands[0].ExitCode != 2 {
				b, _ := json.MarshalIndent(rec, "", " ")
				t.Fatalf("record:\n%s", b)
			}
			start := `{"session_id":"` + sid + `","transcript_path":"` + tr + `","hook_event_name":"SessionStart","source":"compact"}`
			out.Reset()
			postcompactRun(&PostcompactOptions{IO: &IO{In: strings.NewReader(start), Out: &out, ErrOut: os.Stderr}, Dir: dir,
				Getenv: func(string) string { return "" }, Now: time.Now})
			if !strings.Contains(out.String(), es[0].Name+".md") {
				t.Errorf("pointer: %q", out.String())
			}
			// WA-41: the window is the one the client recorded, not Claude
			// Code's inferred 200,000.
			if want := agentWindowLine[agent]; !strings.Contains(out.String(), want) {
				t.Errorf("pointer lacks %q: %q", want, out.String())
			}
			// PO-38: Qwen Code shows ">" as "&gt;"; its quotes carry "|".
			var hook struct {
				Out struct {
					Text string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(out.String()), &hook); err != nil {
				t.Fatal(err)
			}
			mark := map[string]string{"codex": "\n> edit hello.txt\n", "qwen": "\n| edit hello.txt\n"}[agent]
			if !strings.Contains(hook.Out.Text, mark) || agent == "qwen" && strings.Contains(hook.Out.Text, "\n>") {
				t.Errorf("the prompt's quote for %s is not %q:\n%s", agent, mark, hook.Out.Text)
			}

			// The same session id and path, now a transcript of Claude Code.
			claude := `{"type":"user","message":{"role":"user","content":"hi"},"timestamp":"2026-12-01T05:56:16.443Z"}` + "\n"
			if err := os.WriteFile(tr, []byte(strings.Repeat(claude, 100)), 0o600); err != nil {
				t.Fatal(err)
			}
			out.Reset()
			postcompactRun(&PostcompactOptions{IO: &IO{In: strings.NewReader(start), Out: &out, ErrOut: os.Stderr}, Dir: dir,
				Getenv: func(string) string { return "" }, Now: time.Now})
			// The Claude Code session gets no codex or qwen snapshot: its
			// pointer, if any, names one taken for it at the compaction
			// (PO-C10), recorded for Claude Code.
			if strings.Contains(out.String(), es[0].Name+".md") {
				t.Errorf("a Claude Code session got a %s snapshot: %q", agent, out.String())
			}
			if named := selectsnap.NamedSnapshot(out.String()); named != "" {
				if r, err := st.Load(named); err != nil || r.Agent != "claude" || r.HookEvent != "SessionStart" {
					t.Errorf("the Claude Code session's pointer names %s (%+v, %v)", named, r, err)
				}
			}
			if log, _ := os.ReadFile(hookio.LogPath(dir)); !strings.Contains(string(log), "recorded for a "+agent+" session, this is a claude session") {
				t.Errorf("log lacks the rejection:\n%s", log)
			}
		})
	}
}

// spec: PC-24
// precompact waits for a Qwen Code transcript to stop growing: it returns
// only once no write came for 300 ms, and never later than 3 s.
func TestSettleTranscript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(p, []byte(agentLines["qwen"][0]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var writes []time.Time
	go func() {
		for _, l := range agentLines["qwen"][1:] {
			time.Sleep(50 * time.Millisecond)
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteString(l + "\n")
			f.Close()
			mu.Lock()
			writes = append(writes, time.Now())
			mu.Unlock()
		}
	}()
	start := time.Now()
	settleTranscript(context.Background(), p)
	done := time.Now()
	mu.Lock()
	defer mu.Unlock()
	for _, w := range writes {
		if w.Before(done) && done.Sub(w) < settleQuiet-30*time.Millisecond {
			t.Errorf("returned %s after a write", done.Sub(w))
		}
	}
	if d := done.Sub(start); d < settleQuiet || d > settleMax+time.Second {
		t.Errorf("waited %s", d)
	}
}
