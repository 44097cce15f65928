//go:build e2e

// The end-to-end harness for GitHub Copilot CLI (specs/e2e.md E2E-43 to
// E2E-50): the real client from npm, BYOK against a fake OpenAI Chat
// Completions API on loopback (COPILOT_PROVIDER_BASE_URL, COPILOT_OFFLINE:
// no GitHub account), with compact-guard's hooks installed by
// `compact-guard install --agent copilot` and compact-guard's Claude Code
// entries beside them.
package cmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// e2eCopilotVersion is the release the harness runs.
const e2eCopilotVersion = "1.0.102"

// e2eCopilotModel is the model the client is told to use: one it knows
// (its tools, create and edit among them, and its prompt limit depend on
// the model's name), served by the fake.
const e2eCopilotModel = "gpt-4.1"

// e2eCopilotWindow is the prompt-token limit Copilot applies to BYOK
// gpt-4.1 (measured: maxPromptTokens 64000); the fake
// reports e2eCopilotFull to make it compact on its own.
const (
	e2eCopilotWindow = 64000
	e2eCopilotFull   = 62000
)

// e2eRequireCopilot returns the client, installing @github/copilot with npm
// into <user cache>/compact-guard-e2e/copilot-<version> (E2E-43). Outside
// CI a missing npm or registry skips the test; with CI=true it fails.
func e2eRequireCopilot(t *testing.T) e2eClient {
	t.Helper()
	return e2eRequire(t, "copilot", func() (e2eClient, error) {
		dir, err := e2eCacheDir("copilot-" + e2eCopilotVersion)
		if err != nil {
			return e2eClient{}, err
		}
		c := e2eClient{Version: e2eCopilotVersion, Argv: []string{"node", filepath.Join(dir, "node_modules", "@github", "copilot", "npm-loader.js")}}
		works := func(c e2eClient) error {
			return e2eVersionSays(c, func(out string) bool { return strings.Contains(out, "GitHub Copilot CLI "+e2eCopilotVersion) })
		}
		return e2eNpmInstalled(dir, "@github/copilot@"+e2eCopilotVersion, 10*time.Minute, func() e2eClient { return c }, works, nil)
	})
}

// e2eCopilotFake serves Chat Completions from a script. A request is
// "compact" when Copilot marks it (X-Interaction-Type:
// conversation-compaction), "side" when it offers no tools.
type e2eCopilotFake struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	script []e2eAgentReply
	next   int
	reqs   []*e2eAgentRequest
	usage  int
	// failCompactions makes the compaction requests fail (HTTP 500).
	failCompactions bool
}

func e2eNewCopilotFake(t *testing.T) *e2eCopilotFake {
	f := &e2eCopilotFake{t: t, usage: 1000}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// Script appends replies.
func (f *e2eCopilotFake) Script(rs ...e2eAgentReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, rs...)
}

// Requests returns the requests so far.
func (f *e2eCopilotFake) Requests() []*e2eAgentRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*e2eAgentRequest(nil), f.reqs...)
}

func (f *e2eCopilotFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var parsed map[string]any
	_ = json.Unmarshal(body, &parsed)
	req := &e2eAgentRequest{Time: time.Now(), Body: body}
	e2eTexts(parsed, &req.Texts)
	tools, _ := parsed["tools"].([]any)
	f.mu.Lock()
	req.Seq = len(f.reqs) + 1
	f.reqs = append(f.reqs, req)
	var reply e2eAgentReply
	fail := false
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		req.Kind = "models"
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		req.Kind = "unknown"
	case r.Header.Get("X-Interaction-Type") == "conversation-compaction":
		req.Kind, fail = "compact", f.failCompactions
		reply = e2eAgentReply{Text: "E2E-SUMMARY of the session", Usage: f.usage}
	case len(tools) == 0:
		req.Kind, reply = "side", e2eAgentReply{Text: "E2E side reply", Usage: 100}
	case f.next < len(f.script):
		req.Kind, reply = "main", f.script[f.next]
		f.next++
		if reply.Usage != 0 {
			f.usage = reply.Usage
		}
	default:
		req.Kind, reply = "main", e2eAgentReply{Text: "E2E: nothing more scripted.", Usage: 1000}
	}
	if reply.Usage == 0 {
		reply.Usage = f.usage
	}
	f.mu.Unlock()
	switch {
	case req.Kind == "models":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"gpt-4.1","object":"model","owned_by":"e2e"}]}`)
	case req.Kind == "unknown":
		http.NotFound(w, r)
	case fail:
		http.Error(w, `{"error":{"message":"E2E compaction failure","type":"server_error"}}`, http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "text/event-stream")
		e2eWriteChat(w, req.Seq, reply)
	}
}

// e2eCopilotWorld is one scenario's HOME, project and client.
type e2eCopilotWorld struct {
	*e2eAgentWorld
	fake *e2eCopilotFake
}

func e2eNewCopilotWorld(t *testing.T, bins e2eBinaries) *e2eCopilotWorld {
	t.Helper()
	client := e2eRequireCopilot(t)
	root := t.TempDir()
	aw := &e2eAgentWorld{t: t, agent: "copilot", bins: bins, client: client, Home: filepath.Join(root, "home"), RecordDir: filepath.Join(root, "hook-records")}
	aw.SnapDir = filepath.Join(aw.Home, ".local", "state", "compact guard данные", "snapshots")
	aw.Log = filepath.Join(filepath.Dir(aw.SnapDir), "compact-guard.log")
	if err := os.MkdirAll(filepath.Join(aw.Home, ".copilot"), 0o700); err != nil {
		t.Fatal(err)
	}
	aw.Project = (&e2eWorld{t: t, Home: aw.Home}).NewProject("проект copilot")
	w := &e2eCopilotWorld{e2eAgentWorld: aw, fake: e2eNewCopilotFake(t)}
	// The folder is trusted as Copilot records it when the user says yes.
	cfg, _ := json.Marshal(map[string]any{"trustedFolders": []string{aw.Project}})
	if err := os.WriteFile(filepath.Join(aw.Home, ".copilot", "config.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, r := range w.fake.Requests() {
			t.Logf("#%d %s %s pointers=%q", r.Seq, r.Time.Format("15:04:05.000"), r.Kind, e2eAgentPointers(r))
		}
		for _, r := range aw.runs {
			t.Logf("client run: %s", r)
		}
		if b, err := os.ReadFile(aw.Log); err == nil {
			t.Logf("hook log:\n%s", b)
		}
	})
	return w
}

// env is the client's environment: BYOK against the fake, offline, no
// update, nothing of the test's own Copilot or Claude Code session.
func (w *e2eCopilotWorld) env() []string {
	pkgCache, _ := e2eCacheDir("copilot-" + e2eCopilotVersion + "-pkg")
	env := []string{}
	for _, kv := range w.e2eAgentWorld.env() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "COPILOT_") || strings.HasPrefix(k, "GITHUB_") || strings.HasPrefix(k, "GH_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "COPILOT_PROVIDER_BASE_URL="+w.fake.srv.URL+"/v1", "COPILOT_MODEL="+e2eCopilotModel,
		"COPILOT_PROVIDER_API_KEY=e2e-test", "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"COPILOT_PKG_CACHE_HOME="+pkgCache, "NO_COLOR=1")
}

// Guard runs compact-guard in the project.
func (w *e2eCopilotWorld) Guard(args ...string) string {
	w.t.Helper()
	cmd := exec.Command(w.bins.Guard, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("compact-guard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Copilot runs copilot -p prompt (resuming session when set) and waits for
// it to end.
func (w *e2eCopilotWorld) Copilot(session, prompt string) {
	w.t.Helper()
	args := []string{"-p", prompt, "--allow-all-tools"}
	if session != "" {
		args = append([]string{"--resume=" + session}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eClientTimeout)
	defer cancel()
	cmd := w.client.Command(ctx, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	w.runs = append(w.runs, fmt.Sprintf("copilot %q in %s: err=%v\nstdout: %.2000s\nstderr: %.2000s", args, time.Since(start).Round(time.Millisecond), err, stdout.String(), stderr.String()))
	if err != nil {
		w.t.Fatalf("copilot %q: %v\n%s", args, err, stderr.String())
	}
}

// Session is the one session Copilot recorded.
func (w *e2eCopilotWorld) Session() string {
	w.t.Helper()
	es, err := os.ReadDir(filepath.Join(w.Home, ".copilot", "session-state"))
	var ids []string
	for _, e := range es {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	if err != nil || len(ids) != 1 {
		w.t.Fatalf("session-state: %v %v", es, err)
	}
	return ids[0]
}

// Events is the session's events.jsonl, its lines' types in order.
func (w *e2eCopilotWorld) Events(session string) []string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.Home, ".copilot", "session-state", session, "events.jsonl"))
	if err != nil {
		w.t.Fatal(err)
	}
	var types []string
	for _, l := range bytes.Split(b, []byte("\n")) {
		var e struct {
			Type string `json:"type"`
			Data struct {
				Success *bool `json:"success"`
			} `json:"data"`
		}
		if json.Unmarshal(l, &e) == nil && e.Type != "" {
			if e.Type == "session.compaction_complete" && e.Data.Success != nil && !*e.Data.Success {
				e.Type += "(failed)"
			}
			types = append(types, e.Type)
		}
	}
	return types
}

func e2eCount(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// e2eCopilotWork is the first prompt's work: a file created, a command
// that fails last; each reply reports tokens prompt tokens.
func e2eCopilotWork(project string, tokens int, fillers int) []e2eAgentReply {
	rs := []e2eAgentReply{
		{Calls: []e2eAgentCall{{Name: "create", Args: map[string]any{"path": filepath.Join(project, "notes.txt"), "file_text": "hello\n"}}}, Usage: tokens},
	}
	for i := 0; i < fillers; i++ {
		rs = append(rs, e2eAgentReply{Calls: []e2eAgentCall{{Name: "bash", Args: map[string]any{"command": fmt.Sprintf("echo step %d", i), "description": "a step"}}}, Usage: tokens})
	}
	return append(rs,
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "bash", Args: map[string]any{"command": "ls /nonexistent-e2e-dir; exit 3", "description": "failing command"}}}, Usage: tokens},
		e2eAgentReply{Text: "done with E2E-PROMPT-ONE", Usage: tokens})
}

func TestE2ECopilot(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	t.Run("E2E44_CopilotManual", func(t *testing.T) { t.Parallel(); e2eCopilotManual(t, bins) })
	t.Run("E2E46_CopilotAuto", func(t *testing.T) { t.Parallel(); e2eCopilotAuto(t, bins) })
	t.Run("E2E48_CopilotFailedCompaction", func(t *testing.T) { t.Parallel(); e2eCopilotFailed(t, bins) })
}

const e2eCopilotPrompt = "E2E-PROMPT-ONE: create notes.txt and run a failing command"

// e2eCopilotManual (E2E-44, E2E-45, E2E-47): install --agent copilot in the
// project beside compact-guard's Claude Code entries; a prompt that
// creates a file and runs a failing command; /compact in the resumed
// session; the next prompt's request carries the one pointer to this
// compaction's own snapshot, with the prompt, the file and the command.
func e2eCopilotManual(t *testing.T, bins e2eBinaries) {
	w := e2eNewCopilotWorld(t, bins)
	w.Guard("install", "--agent", "copilot", "--scope", "project")
	w.Guard("install", "--scope", "project") // Claude Code's entries, which Copilot also runs
	if out := w.Guard("doctor", "--agent", "copilot", "--no-self-test"); !strings.Contains(out, "[ok]   Copilot CLI project hooks") ||
		!strings.Contains(out, "also run under Copilot CLI, where they do nothing") {
		t.Errorf("doctor --agent copilot:\n%s", out)
	}
	w.fake.Script(e2eCopilotWork(w.Project, 1000, 0)...)
	w.Copilot("", e2eCopilotPrompt)
	sid := w.Session()
	w.fake.Script(e2eAgentReply{Text: "E2E reply to the second prompt"})
	before := len(w.fake.Requests())
	w.Copilot(sid, "/compact")
	w.Copilot(sid, "E2E-PROMPT-TWO after the compaction")
	reqs := w.fake.Requests()
	comps := e2eCompactionRequests(reqs)
	if len(comps) != 1 || comps[0] < before {
		t.Fatalf("compaction requests at %v, want one after #%d", comps, before)
	}
	for _, r := range reqs[:comps[0]] {
		if p := e2eAgentPointers(r); len(p) > 0 {
			t.Errorf("request #%d before the compaction carries %q", r.Seq, p)
		}
	}
	snaps := e2eAgentSnaps(t, w.SnapDir, sid)
	if len(snaps) != 1 || snaps[0].Agent != "copilot" {
		t.Fatalf("snapshots %+v: want one, agent copilot (one precompact: Claude Code's entry did nothing)", snaps)
	}
	// E2E-45: the client's own window, not Claude Code's.
	if snaps[0].ContextWindow != e2eCopilotWindow {
		t.Errorf("snapshot window %d, want the client's %d", snaps[0].ContextWindow, e2eCopilotWindow)
	}
	next := e2eCopilotNextMain(reqs, comps[0])
	if next == nil {
		t.Fatal("no request after the compaction")
	}
	e2eCheckPointer(t, "manual", next, snaps[0], snaps, "E2E-PROMPT-ONE", "notes.txt", "ls /nonexistent-e2e-dir; exit 3")
	if n := strings.Count(strings.Join(next.Texts, "\n"), "mechanical snapshot"); n != 1 {
		t.Errorf("request #%d carries %d pointers, want 1", next.Seq, n)
	}
	log, _ := os.ReadFile(w.Log)
	if n := strings.Count(string(log), " precompact "); n != 1 {
		t.Errorf("%d precompact runs logged, want 1:\n%s", n, log)
	}
	// AU-21 to AU-23: audit reads the session and says it in Copilot's terms.
	if out := w.Guard("audit", "--agent", "copilot"); !strings.Contains(out, "snapshot "+snaps[0].Base+"; pointer delivered with UserPromptSubmit, naming it") {
		t.Errorf("audit --agent copilot:\n%s", out)
	}
}

// e2eCopilotNextMain is the first main request after index i.
func e2eCopilotNextMain(reqs []*e2eAgentRequest, i int) *e2eAgentRequest {
	for _, r := range reqs[i+1:] {
		if r.Kind == "main" {
			return r
		}
	}
	return nil
}

// e2eCopilotAuto (E2E-46): the fake reports the window nearly full, so
// Copilot compacts on its own, in the background, while the turn goes on,
// more than once in one prompt. Each compaction's pointer, when it comes,
// names the snapshot taken for it, and the last one comes with the next
// prompt at the latest.
func e2eCopilotAuto(t *testing.T, bins e2eBinaries) {
	w := e2eNewCopilotWorld(t, bins)
	w.Guard("install", "--agent", "copilot")
	// The reply that calls each failing command reports the window nearly
	// full: Copilot compacts at the next turn's start, once that command
	// ran, so it is the session's last; the replies after report it low.
	bash := func(cmd string, usage int) e2eAgentReply {
		return e2eAgentReply{Calls: []e2eAgentCall{{Name: "bash", Args: map[string]any{"command": cmd, "description": "e2e"}}}, Usage: usage}
	}
	failed := []string{"ls /nonexistent-e2e-dir; exit 3", "ls /nonexistent-e2e-dir-2; exit 4"}
	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "create", Args: map[string]any{"path": filepath.Join(w.Project, "notes.txt"), "file_text": "hello\n"}}}, Usage: 1000},
		bash(failed[0], e2eCopilotFull), bash("echo after the first", 1000), bash("echo more", 1000),
		bash(failed[1], e2eCopilotFull), bash("echo after the second", 1000), bash("echo more", 1000),
		e2eAgentReply{Text: "done with E2E-PROMPT-ONE", Usage: 1000})
	w.Copilot("", e2eCopilotPrompt)
	sid := w.Session()
	w.fake.Script(e2eAgentReply{Text: "E2E reply to the second prompt", Usage: 1000})
	w.Copilot(sid, "E2E-PROMPT-TWO after the automatic compactions")
	reqs := w.fake.Requests()
	comps := e2eCompactionRequests(reqs)
	events := w.Events(sid)
	applied := e2eCount(events, "session.compaction_complete")
	if len(comps) < 1 || applied != len(comps) {
		t.Fatalf("%d compaction requests, %d applied compactions: want at least one, all applied", len(comps), applied)
	}
	snaps := e2eAgentSnaps(t, w.SnapDir, sid)
	if len(snaps) != len(comps) {
		t.Fatalf("%d snapshots for %d compactions", len(snaps), len(comps))
	}
	// Snapshot k is the one precompact took before compaction request k.
	for k, s := range snaps {
		if !s.Rec.CreatedAt.Before(reqs[comps[k]].Time.Add(time.Second)) || k > 0 && s.Rec.CreatedAt.Before(reqs[comps[k-1]].Time.Add(-time.Second)) {
			t.Errorf("snapshot %s at %s does not fall before compaction request #%d", s.Base, s.Rec.CreatedAt, reqs[comps[k]].Seq)
		}
	}
	// Every pointer that first appears after compaction k names snapshot k.
	seen := map[string]bool{}
	delivered := 0
	for i, r := range reqs {
		k := -1
		for j, c := range comps {
			if c < i {
				k = j
			}
		}
		for _, name := range e2eAgentPointers(r) {
			if seen[name] {
				continue
			}
			seen[name] = true
			delivered++
			if k < 0 || name != snaps[k].Base {
				t.Errorf("request #%d (after compaction %d) first carries %s", r.Seq, k+1, name)
				continue
			}
			e2eCheckPointer(t, fmt.Sprintf("auto %d", k+1), r, snaps[k], nil, "E2E-PROMPT-ONE", "notes.txt", failed[min(k, 1)])
		}
	}
	last := snaps[len(snaps)-1].Base
	if !seen[last] {
		t.Errorf("the last compaction's pointer (%s) reached no request", last)
	}
	if final := reqs[len(reqs)-1]; final.Kind != "main" || !strings.Contains(strings.Join(final.Texts, "\n"), "E2E-PROMPT-TWO") {
		t.Errorf("last request #%d is %s", final.Seq, final.Kind)
	}
	// A compaction whose boundary Copilot writes at the turn start where
	// the next PreCompact runs has no channel before it: the next one's
	// pointer stands for it (seen in 1 of 4 runs). audit says so of each.
	out := w.Guard("audit", "--agent", "copilot")
	if n := strings.Count(out, ", naming it"); n != delivered || strings.Contains(out, "another compaction's,") {
		t.Errorf("audit names %d own snapshots, %d pointers were delivered:\n%s", n, delivered, out)
	}
	t.Logf("%d automatic compactions, %d pointers delivered", len(comps), delivered)
}

// e2eCopilotFailed (E2E-48): a /compact whose request fails: Copilot
// writes a compaction_complete with success false, and no pointer follows.
func e2eCopilotFailed(t *testing.T, bins e2eBinaries) {
	w := e2eNewCopilotWorld(t, bins)
	w.Guard("install", "--agent", "copilot")
	w.fake.Script(e2eCopilotWork(w.Project, 1000, 0)...)
	w.Copilot("", e2eCopilotPrompt)
	sid := w.Session()
	w.fake.mu.Lock()
	w.fake.failCompactions = true
	w.fake.mu.Unlock()
	w.fake.Script(e2eAgentReply{Text: "E2E reply to the second prompt"})
	ctx, cancel := context.WithTimeout(context.Background(), e2eClientTimeout)
	defer cancel()
	// The failed /compact may end with a non-zero status; what matters is
	// what it wrote and what follows.
	cmd := w.client.Command(ctx, "--resume="+sid, "-p", "/compact", "--allow-all-tools")
	cmd.Env, cmd.Dir, cmd.Stdin = w.env(), w.Project, strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	out, _ := cmd.CombinedOutput()
	w.runs = append(w.runs, fmt.Sprintf("copilot /compact (failing): %.2000s", out))
	w.Copilot(sid, "E2E-PROMPT-TWO after the failed compaction")
	events := w.Events(sid)
	if e2eCount(events, "session.compaction_complete") != 0 {
		t.Fatalf("a compaction was applied: %v", events)
	}
	if len(e2eCompactionRequests(w.fake.Requests())) == 0 {
		t.Fatal("no compaction request was made")
	}
	for _, r := range w.fake.Requests() {
		if p := e2eAgentPointers(r); len(p) > 0 {
			t.Errorf("request #%d carries a pointer %q for a compaction that did not happen", r.Seq, p)
		}
	}
	t.Logf("events of the failed compaction: %d compaction_start, %d complete(failed)", e2eCount(events, "session.compaction_start"), e2eCount(events, "session.compaction_complete(failed)"))
}
