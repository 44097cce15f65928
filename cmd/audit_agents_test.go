package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
)

// auditClientsHome lays out Codex CLI's and Qwen Code's sessions as the
// clients keep them, from the sessions the e2e scenarios recorded, in a
// home of their own; it returns the host that finds them.
func auditClientsHome(t *testing.T) (settings.Host, string) {
	t.Helper()
	home := t.TempDir()
	copyTo := func(src, rel string) {
		t.Helper()
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(home, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyTo("../transcript/testdata/codex0.169.0/three-compactions.jsonl",
		".codex/sessions/2026/12/01/rollout-2026-12-01T06-17-45-01a23040-87b8-7b90-99a6-2bc458a9b36b.jsonl")
	copyTo("../transcript/testdata/qwen0.24.4/two-compactions.jsonl",
		".qwen/projects/-tmp-proj/chats/76ae9434-0dc6-4407-a439-ee84249b66aa.jsonl")
	env := map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude")}
	return settings.Host{Getenv: func(k string) string { return env[k] }, Home: func() (string, error) { return home, nil }}, home
}

// spec: AU-14 AU-19
// audit reads every client's sessions where each keeps them, and says each
// compaction in its client's terms; --agent keeps one client's.
func TestAuditEveryClient(t *testing.T) {
	host, home := auditClientsHome(t)
	run := func(agent settings.Agent, asJSON bool) string {
		t.Helper()
		var out strings.Builder
		opts := &AuditOptions{IO: &IO{Out: &out, ErrOut: os.Stderr}, Dir: filepath.Join(home, "snapshots"), JSON: asJSON, Agent: agent, Host: host,
			Now: func() time.Time { return time.Now().Add(time.Hour) }, Since: 100 * 365 * 24 * time.Hour}
		if err := auditRun(opts); err != nil {
			t.Fatalf("audit: %v\n%s", err, out.String())
		}
		return out.String()
	}
	var rep audit.Report
	if err := json.Unmarshal([]byte(run("", true)), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sources) != 5 || len(rep.Sessions) != 2 || rep.Compactions != 5 { // Claude Code, Codex CLI, Qwen Code, Copilot CLI (AU-21), Gemini CLI (AU-26)
		t.Fatalf("sources %+v, %d sessions, %d compactions", rep.Sources, len(rep.Sessions), rep.Compactions)
	}
	for _, s := range rep.Sessions {
		if s.Agent != "codex" && s.Agent != "qwen" {
			t.Errorf("session %s of agent %q", s.SessionID, s.Agent)
		}
	}
	text := run("", false)
	for _, want := range []string{
		"session 01a23040-87b8-7b90-99a6-2bc458a9b36b, Codex CLI: 3 compaction(s)",
		"no snapshot of it in the folder; Codex CLI recorded 1 hook context(s) of 826 characters, and compact-guard recorded no pointer handed out for this compaction",
		"session 76ae9434-0dc6-4407-a439-ee84249b66aa, Qwen Code 0.24.4: 2 compaction(s)",
		"no snapshot of it in the folder; compact-guard recorded no pointer handed out for it (Qwen Code records no hook context: whether the model saw it is not known)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if text := run(qwen.Name, false); strings.Contains(text, "Codex CLI") || !strings.Contains(text, "Qwen Code") {
		t.Errorf("--agent qwen:\n%s", text)
	}
	if text := run(settings.AgentClaude, false); !strings.Contains(text, "no session transcripts changed") || !strings.Contains(text, filepath.Join(home, ".claude", "projects")) {
		t.Errorf("--agent claude:\n%s", text)
	}
	var stderr bytes.Buffer
	if code := Main([]string{"audit", "--agent", "nope"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != ExitUsage {
		t.Errorf("--agent nope: exit %d, %s", code, stderr.String())
	}
}
