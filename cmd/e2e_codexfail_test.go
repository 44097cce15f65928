//go:build e2e

package cmd_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spec: E2E-61 PO-C17
//
// TestE2ECodexFailedCompaction: Codex CLI 0.171.0 (the newest) with the fake
// answering the compaction request with HTTP 400. The turn's reported usage
// (30,000, over the 20,000 limit) makes Codex compact; the compaction fails.
// compact-guard took its snapshot at PreCompact; Codex runs no PostCompact
// or SessionStart(compact) for it, and no request to the model — of that
// run or of the next, resumed one — carries a pointer or any compact-guard
// text: there was no compaction to point to. (0.171.0 sends no PostCompact
// status, so PO-C17's path is proven by its unit test.)
func TestE2ECodexFailedCompaction(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	w := e2eNewAgentWorldVersion(t, bins, "codex", e2eCodexNewest)
	codexHome := filepath.Join(w.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf("model = \"gpt-5.5\"\nmodel_provider = \"fake\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n"+
		"compact_prompt = %q\nmodel_auto_compact_token_limit = 20000\n\n[model_providers.fake]\nname = \"fake\"\nbase_url = \"%s/v1\"\n"+
		"env_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n",
		e2eCodexCompactPrompt, w.fake.srv.URL)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Guard("install", "--agent", "codex")
	w.fake.failCompact = true
	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "exec_command", Args: map[string]any{"cmd": "echo one"}}}, Usage: 30000},
		e2eAgentReply{Text: "turn one done", Usage: 1000},
		e2eAgentReply{Text: "turn two done", Usage: 1000},
	)
	out, err := e2eTryRun(w, "exec", "first prompt: compaction will fail")
	t.Logf("codex exec: err=%v\n%s", err, out)
	if len(e2eCompactionRequests(w.fake.Requests())) == 0 {
		t.Fatalf("Codex sent no compaction request")
	}
	rollouts, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	sid := strings.TrimSuffix(filepath.Base(rollouts[0]), ".jsonl")
	sid = sid[len(sid)-36:]
	out, err = e2eTryRun(w, "exec", "resume", sid, "second prompt, after the failed compaction")
	t.Logf("codex exec resume: err=%v\n%s", err, out)

	log, _ := os.ReadFile(w.Log)
	t.Logf("compact-guard log:\n%s", log)
	if !strings.Contains(string(log), "precompact session="+sid) {
		t.Errorf("no precompact run for the failed compaction")
	}
	// Measured on 0.171.0: no PostCompact and no SessionStart(compact) for a
	// compaction that failed (its PostCompact has no status yet), so no
	// postcompact run; the session stays over its limit and the resumed run
	// fails its compaction again, before any request of the turn.
	if strings.Contains(string(log), "postcompact") {
		t.Errorf("postcompact ran for a failed compaction on 0.171.0")
	}
	for _, r := range w.fake.Requests() {
		t.Logf("request %d: %s", r.Seq, r.Kind)
		for _, s := range r.Texts {
			if strings.Contains(s, "compact-guard") || strings.Contains(s, "mechanical snapshot") {
				t.Errorf("request %d (%s) carries compact-guard's text after a failed compaction: %.300q", r.Seq, r.Kind, s)
			}
		}
	}
}

// e2eTryRun runs the client as w.Run does, returning the error instead of
// failing the test: a run whose compaction failed may end in an error.
func e2eTryRun(w *e2eAgentWorld, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e2eClientTimeout)
	defer cancel()
	cmd := w.client.Command(ctx, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return string(out), err
}
