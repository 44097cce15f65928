package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/hookio/hooktest"
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

// agentWindowLine is the fill each session of hooktest.AgentLines gives the pointer,
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
	for agent, lines := range hooktest.AgentLines {
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
