//go:build e2e

// The end-to-end harness for Codex CLI and Qwen Code (specs/e2e.md, E2E-20
// onward): the real clients from npm, with compact-guard's hooks installed
// by `compact-guard install --agent`, against fakes of the OpenAI Responses
// API (Codex) and Chat Completions API (Qwen Code) on loopback.
package cmd_test

import (
	"bufio"
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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/restore/audit"
)

// The releases the harness runs: e2eCodexNewest beside the pin (E2E-20).
const (
	e2eCodexVersion = "0.169.0"
	e2eCodexNewest  = "0.171.0"
	e2eQwenVersion  = "0.24.4"
)

// e2eCodexCompactPrompt is the compact_prompt the harness configures: a
// provider not named OpenAI compacts locally, with a request whose last
// user message is this text.
const e2eCodexCompactPrompt = "E2E-COMPACT-PROMPT: summarise the session."

// e2eQwenCompactMarker ends Qwen Code's compression request.
const e2eQwenCompactMarker = "produce the <state_snapshot> XML"

// e2eAgentPackages are the npm packages and the script each starts with.
var e2eAgentPackages = map[string]struct{ pkg, version, entry, versionOut string }{
	"codex": {"@openai/codex", e2eCodexVersion, "node_modules/@openai/codex/bin/codex.js", "codex-cli " + e2eCodexVersion},
	"qwen":  {"@qwen-code/qwen-code", e2eQwenVersion, "node_modules/@qwen-code/qwen-code/cli-entry.js", e2eQwenVersion},
}

// e2eRequireAgent returns the client of agent ("codex", "qwen") of release
// version ("": the pinned one), installing it with npm into <user
// cache>/compact-guard-e2e/<agent>-<version> (E2E-20). Outside CI a missing
// npm or registry skips the test; with CI=true it fails.
func e2eRequireAgent(t *testing.T, agent, version string) e2eClient {
	t.Helper()
	if version == "" {
		version = e2eAgentPackages[agent].version
	}
	return e2eRequire(t, agent+" "+version, func() (e2eClient, error) { return e2eInstallAgent(agent, version) })
}

func e2eInstallAgent(agent, version string) (e2eClient, error) {
	p := e2eAgentPackages[agent]
	dir, err := e2eCacheDir(agent + "-" + version)
	if err != nil {
		return e2eClient{}, err
	}
	c := e2eClient{Version: version, Argv: []string{"node", filepath.Join(dir, p.entry)}}
	versionOut := strings.ReplaceAll(p.versionOut, p.version, version)
	works := func(c e2eClient) error {
		return e2eVersionSays(c, func(out string) bool { return strings.Contains(out, versionOut) })
	}
	return e2eNpmInstalled(dir, p.pkg+"@"+version, 10*time.Minute, func() e2eClient { return c }, works, nil)
}

// ---------------------------------------------------------------------------
// The fakes: OpenAI's Responses API (Codex) and Chat Completions (Qwen Code).

// e2eAgentReply is one scripted reply: text, tool calls, and the prompt
// tokens the fake reports for it.
type e2eAgentReply struct {
	Text  string
	Calls []e2eAgentCall
	Usage int
}

// e2eAgentCall is a tool call: Codex's apply_patch (Patch set, a custom
// tool call) or exec_command, Qwen Code's tools by name.
type e2eAgentCall struct {
	Name  string
	Args  map[string]any
	Patch string
}

// e2eAgentRequest is one request a fake received.
type e2eAgentRequest struct {
	Seq  int
	Time time.Time
	// Kind is "main" (answered from the script), "compact" (the compaction
	// request), "side" (no tools offered) or "unknown" (404).
	Kind string
	Body []byte
	// Texts are every text the request carries (instructions, messages,
	// tool outputs), in order.
	Texts []string
}

// e2eAgentFake serves one client's API from a script.
type e2eAgentFake struct {
	t     *testing.T
	agent string
	srv   *httptest.Server

	mu        sync.Mutex
	script    []e2eAgentReply
	next      int
	reqs      []*e2eAgentRequest
	lastUsage int
	// holdAfterCompact, when set, runs before the first main request after
	// a compaction request is answered: Qwen Code's SessionStart(compact)
	// runs in the background, and the scenario waits for it there, so
	// that the request after that one is sure to carry its context.
	holdAfterCompact func(compactions int)
	compactions      int
	justCompacted    bool
	// await, when set, says whether a main request shows the state the
	// scenario waits for; until one does, main requests are answered with
	// a harmless tool call instead of the script's next reply (at most
	// e2eMaxFillers of them), so the scenario goes on only once the client
	// got there, however long that took (E2E-23).
	await   func(r *e2eAgentRequest) bool
	fillers int
	// failCompact, when set, answers every compaction request with HTTP 400
	// (E2E-61): a compaction that fails.
	failCompact bool
}

// e2eMaxFillers bounds the filler replies one await may take.
const e2eMaxFillers = 50

func e2eNewAgentFake(t *testing.T, agent string) *e2eAgentFake {
	f := &e2eAgentFake{t: t, agent: agent}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// Script appends replies to the queue of main-loop replies.
func (f *e2eAgentFake) Script(rs ...e2eAgentReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, rs...)
}

// Requests returns the requests so far.
func (f *e2eAgentFake) Requests() []*e2eAgentRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*e2eAgentRequest(nil), f.reqs...)
}

// Remaining is the number of scripted replies not yet used.
func (f *e2eAgentFake) Remaining() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.script) - f.next
}

// e2eTexts collects every string under "text", "content" (as a string),
// "instructions", "output" and "input" of a JSON value.
func e2eTexts(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := x[k].(string); ok && (k == "text" || k == "content" || k == "instructions" || k == "output") {
				*out = append(*out, s)
				continue
			}
			e2eTexts(x[k], out)
		}
	case []any:
		for _, e := range x {
			e2eTexts(e, out)
		}
	}
}

func (f *e2eAgentFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var parsed map[string]any
	_ = json.Unmarshal(body, &parsed)
	req := &e2eAgentRequest{Time: time.Now(), Body: body}
	e2eTexts(parsed, &req.Texts)
	f.mu.Lock()
	req.Seq = len(f.reqs) + 1
	f.reqs = append(f.reqs, req)
	last := ""
	if n := len(req.Texts); n > 0 {
		last = req.Texts[n-1]
	}
	tools, _ := parsed["tools"].([]any)
	var reply e2eAgentReply
	path := "/v1/responses"
	compactMarker := e2eCodexCompactPrompt
	if f.agent == "qwen" {
		path, compactMarker = "/v1/chat/completions", e2eQwenCompactMarker
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != path:
		req.Kind = "unknown"
	case strings.Contains(last, compactMarker):
		req.Kind = "compact"
		f.compactions++
		f.justCompacted = true
		reply = e2eAgentReply{Text: "<analysis>a</analysis><state_snapshot>E2E-SUMMARY of the session</state_snapshot>", Usage: max(f.lastUsage, 500)}
	case len(tools) == 0:
		req.Kind, reply = "side", e2eAgentReply{Text: "E2E side reply", Usage: 100}
	case f.await != nil && !f.await(req) && f.fillers < e2eMaxFillers:
		f.fillers++
		req.Kind, reply = "main", e2eAgentReply{Calls: []e2eAgentCall{{Name: "run_shell_command",
			Args: map[string]any{"command": "echo waiting", "is_background": false, "description": "e2e"}}}, Usage: 1000}
	case f.next < len(f.script):
		if f.await != nil {
			if f.fillers >= e2eMaxFillers {
				f.t.Errorf("fake %s API: request %d: what the scenario waits for did not come in %d requests", f.agent, req.Seq, e2eMaxFillers)
			}
			f.await, f.fillers = nil, 0
		}
		req.Kind, reply = "main", f.script[f.next]
		f.next++
		f.lastUsage = reply.Usage
	default:
		req.Kind, reply = "main", e2eAgentReply{Text: "E2E: nothing more scripted.", Usage: 500}
		f.t.Logf("fake %s API: request %d: script exhausted", f.agent, req.Seq)
	}
	hold := req.Kind == "main" && f.justCompacted && f.holdAfterCompact != nil
	if req.Kind == "main" {
		f.justCompacted = false
	}
	n := f.compactions
	f.mu.Unlock()
	if hold {
		f.holdAfterCompact(n)
	}
	if req.Kind == "unknown" {
		http.NotFound(w, r)
		return
	}
	if req.Kind == "compact" && f.failCompact {
		http.Error(w, `{"error":{"message":"E2E: the compaction fails","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if f.agent == "codex" {
		e2eWriteResponses(w, req.Seq, reply)
	} else {
		e2eWriteChat(w, req.Seq, reply)
	}
}

// e2eWriteResponses answers a Responses API request with server-sent
// events: response.created, one response.output_item.done per item,
// response.completed with the usage.
func e2eWriteResponses(w io.Writer, seq int, r e2eAgentReply) {
	ev := func(typ string, data map[string]any) {
		data["type"] = typ
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	id := fmt.Sprintf("resp_e2e%d", seq)
	ev("response.created", map[string]any{"response": map[string]any{"id": id}})
	var items []map[string]any
	if r.Text != "" {
		items = append(items, map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_e2e%d", seq),
			"content": []any{map[string]any{"type": "output_text", "text": r.Text}}})
	}
	for i, c := range r.Calls {
		callID := fmt.Sprintf("call_e2e%d_%d", seq, i)
		if c.Patch != "" {
			items = append(items, map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": callID, "input": c.Patch})
			continue
		}
		args, _ := json.Marshal(c.Args)
		items = append(items, map[string]any{"type": "function_call", "name": c.Name, "call_id": callID, "arguments": string(args)})
	}
	for i, it := range items {
		ev("response.output_item.done", map[string]any{"output_index": i, "item": it})
	}
	ev("response.completed", map[string]any{"response": map[string]any{"id": id, "usage": map[string]any{
		"input_tokens": r.Usage, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": r.Usage + 10}}})
}

// e2eWriteChat answers a Chat Completions request with chat.completion.chunk
// events, a usage chunk and [DONE].
func e2eWriteChat(w io.Writer, seq int, r e2eAgentReply) {
	chunk := func(delta map[string]any, finish any, usage map[string]any) {
		c := map[string]any{"id": fmt.Sprintf("chatcmpl-e2e%d", seq), "object": "chat.completion.chunk", "created": 1, "model": "qwen-e2e", "choices": []any{}}
		if delta != nil {
			c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
		}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if r.Text != "" {
		chunk(map[string]any{"content": r.Text}, nil, nil)
	}
	for i, c := range r.Calls {
		args, _ := json.Marshal(c.Args)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_e2e%d_%d", seq, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": string(args)}}}}, nil, nil)
	}
	finish := "stop"
	if len(r.Calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish, nil)
	chunk(nil, nil, map[string]any{"prompt_tokens": r.Usage, "completion_tokens": 10, "total_tokens": r.Usage + 10})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// Log writes the request log to t.Log.
func (f *e2eAgentFake) Log(t *testing.T) {
	var b strings.Builder
	for _, r := range f.Requests() {
		fmt.Fprintf(&b, "#%d %s %s texts=%d\n", r.Seq, r.Time.Format("15:04:05.000"), r.Kind, len(r.Texts))
		for _, s := range r.Texts {
			if strings.Contains(s, "compact-guard") || strings.Contains(s, "snap_") {
				fmt.Fprintf(&b, "    %.600q\n", s)
			}
		}
	}
	t.Logf("fake %s API request log:\n%s", f.agent, b.String())
}

// ---------------------------------------------------------------------------
// A scenario's world for Codex or Qwen Code.

type e2eAgentWorld struct {
	t         *testing.T
	agent     string
	bins      e2eBinaries
	client    e2eClient
	fake      *e2eAgentFake
	Home      string
	Project   string
	SnapDir   string
	Log       string
	RecordDir string
	runs      []string
}

func e2eNewAgentWorld(t *testing.T, bins e2eBinaries, agent string) *e2eAgentWorld {
	t.Helper()
	return e2eNewAgentWorldVersion(t, bins, agent, "")
}

// e2eNewAgentWorldVersion is e2eNewAgentWorld on release version of the
// client ("": the pinned one).
func e2eNewAgentWorldVersion(t *testing.T, bins e2eBinaries, agent, version string) *e2eAgentWorld {
	t.Helper()
	client := e2eRequireAgent(t, agent, version)
	root := t.TempDir()
	w := &e2eAgentWorld{t: t, agent: agent, bins: bins, client: client, fake: e2eNewAgentFake(t, agent),
		Home: filepath.Join(root, "home"), RecordDir: filepath.Join(root, "hook-records")}
	w.SnapDir = filepath.Join(w.Home, ".local", "state", "compact guard данные", "snapshots")
	w.Log = filepath.Join(filepath.Dir(w.SnapDir), "compact-guard.log")
	for _, d := range []string{w.Home, w.RecordDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ew := &e2eWorld{t: t, Home: w.Home}
	w.Project = ew.NewProject("проект " + agent)
	if err := os.WriteFile(filepath.Join(w.Project, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			w.fake.Log(t)
			for _, r := range w.runs {
				t.Logf("client run: %s", r)
			}
			if b, err := os.ReadFile(w.Log); err == nil {
				t.Logf("hook log:\n%s", b)
			}
		}
		if keep := os.Getenv("COMPACT_GUARD_E2E_KEEP"); keep != "" {
			dst := filepath.Join(keep, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
			_ = os.CopyFS(dst, os.DirFS(root))
		}
	})
	return w
}

// env is the environment of the client and of every command the world runs.
func (w *e2eAgentWorld) env() []string {
	env := append(e2eBaseEnv(),
		"HOME="+w.Home, "USERPROFILE="+w.Home,
		"XDG_CONFIG_HOME="+filepath.Join(w.Home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(w.Home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(w.Home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(w.Home, ".local", "state"),
		"COMPACT_GUARD_DIR="+w.SnapDir,
		"E2E_HOOK_RECORD_DIR="+w.RecordDir, "E2E_RECHOOK_SILENT=1",
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"OPENAI_API_KEY=e2e-test",
	)
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "CODEX_") || strings.HasPrefix(k, "QWEN_") || strings.HasPrefix(k, "OPENAI_") && k != "OPENAI_API_KEY" {
			continue
		}
		out = append(out, kv)
	}
	if w.agent == "qwen" {
		out = append(out, "OPENAI_BASE_URL="+w.fake.srv.URL+"/v1", "OPENAI_MODEL=qwen-e2e", "QWEN_CODE_SUPPRESS_YOLO_WARNING=1")
	}
	return out
}

// Guard runs compact-guard with args in the world.
func (w *e2eAgentWorld) Guard(args ...string) string {
	w.t.Helper()
	cmd := exec.Command(w.bins.Guard, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("compact-guard %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Run runs the client in the project with args, its stdin closed.
func (w *e2eAgentWorld) Run(args ...string) string {
	w.t.Helper()
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
	w.runs = append(w.runs, fmt.Sprintf("%s %q in %s: err=%v\nstdout: %.3000s\nstderr: %.3000s", w.agent, args, time.Since(start).Round(time.Millisecond), err, stdout.String(), stderr.String()))
	if err != nil {
		w.t.Fatalf("%s %q: %v\n%s", w.agent, args, err, stderr.String())
	}
	return stdout.String()
}

// AddRecordingHooks registers the recording hook beside compact-guard's,
// after them (so that their places, and Codex's trust keys, stay), for
// PreCompact, PostCompact and SessionStart; it probes the transcript when
// each hook starts (E2E-22, E2E-24).
func (w *e2eAgentWorld) AddRecordingHooks(path string) {
	w.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") { // Qwen Code's settings may hold comments
			lines = append(lines, l)
		}
	}
	var s map[string]any
	if err := json.Unmarshal([]byte(strings.Join(lines, "\n")), &s); err != nil {
		w.t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	h := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": e2eQuote(w.bins.RecHook), "timeout": 15}}}
	for _, ev := range []string{"PreCompact", "PostCompact", "SessionStart"} {
		list, _ := hooks[ev].([]any)
		hooks[ev] = append(list, h)
	}
	out, _ := json.MarshalIndent(s, "", "  ")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// Records are the recording hook's payloads, oldest first.
func (w *e2eAgentWorld) Records() []map[string]any {
	return (&e2eWorld{t: w.t, RecordDir: w.RecordDir}).Records()
}

// e2eAgentTranscript is a transcript's compaction records and where they
// start.
type e2eAgentTranscript struct {
	Path       string
	Data       []byte
	Boundaries []int64
}

// Transcript reads the transcript at path and finds its compaction records
// (Codex: type compacted; Qwen: system/chat_compression).
func (w *e2eAgentWorld) Transcript(path string) e2eAgentTranscript {
	w.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	tr := e2eAgentTranscript{Path: path, Data: data}
	off := int64(0)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var e struct{ Type, Subtype string }
		_ = json.Unmarshal(sc.Bytes(), &e)
		if e.Type == "compacted" || e.Type == "system" && e.Subtype == "chat_compression" {
			tr.Boundaries = append(tr.Boundaries, off)
		}
		off += int64(len(sc.Bytes())) + 1
	}
	return tr
}

// BoundariesBefore counts the compaction records that lie within the first
// size bytes.
func (tr e2eAgentTranscript) BoundariesBefore(size int64) int {
	n := 0
	for _, b := range tr.Boundaries {
		if b < size {
			n++
		}
	}
	return n
}

// e2eAgentPointers are the compact-guard pointers a request carries: the
// snapshot .md each names ("" for a failure notice).
func e2eAgentPointers(r *e2eAgentRequest) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range r.Texts {
		if !strings.Contains(s, "mechanical snapshot") && !strings.Contains(s, "compact-guard") {
			continue
		}
		for rest := s; ; {
			j := strings.Index(rest, "/snap_")
			if j < 0 {
				break
			}
			rest = rest[j+1:]
			k := strings.Index(rest, ".md")
			if k < 0 {
				break
			}
			if name := rest[:k]; !seen[name] && !strings.ContainsAny(name, " \n/") {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out
}

// e2eAgentSnaps returns the session's snapshots, oldest first, with the
// fields the scenarios check and the agent.
func e2eAgentSnaps(t *testing.T, dir, sessionID string) []e2eAgentSnap {
	t.Helper()
	var out []e2eAgentSnap
	for _, s := range e2eSnapshots(t, dir, sessionID) {
		b, err := os.ReadFile(s.JSONPath)
		if err != nil {
			t.Fatal(err)
		}
		var x struct {
			Agent      string          `json:"agent"`
			PromptID   string          `json:"prompt_id"`
			Compaction json.RawMessage `json:"compaction"`
			Context    *struct {
				Tokens int64 `json:"tokens"`
				Window int64 `json:"window"`
			} `json:"context"`
		}
		if err := json.Unmarshal(b, &x); err != nil {
			t.Fatal(err)
		}
		md, _ := os.ReadFile(s.MDPath)
		out = append(out, e2eAgentSnap{e2eSnap: s, Agent: x.Agent, PromptID: x.PromptID, Confirmed: len(x.Compaction) > 0 && string(x.Compaction) != "null",
			ContextWindow: func() int64 {
				if x.Context == nil {
					return 0
				}
				return x.Context.Window
			}(), MD: string(md)})
	}
	return out
}

type e2eAgentSnap struct {
	e2eSnap
	Agent         string
	PromptID      string
	Confirmed     bool
	ContextWindow int64
	MD            string
}

// e2eCompactionRequests returns the indexes of the compaction requests.
func e2eCompactionRequests(reqs []*e2eAgentRequest) []int {
	var out []int
	for i, r := range reqs {
		if r.Kind == "compact" {
			out = append(out, i)
		}
	}
	return out
}

// e2eCheckPointer checks a request carrying the pointer after a
// compaction: it names exactly the own snapshot (and no other of the
// session), and the pointer text holds the last prompt, the edited file and
// the failed command.
func e2eCheckPointer(t *testing.T, what string, r *e2eAgentRequest, own e2eAgentSnap, snaps []e2eAgentSnap, prompt, file, failed string) {
	t.Helper()
	names := e2eAgentPointers(r)
	if len(names) != 1 || names[0] != own.Base {
		t.Errorf("%s: request #%d names %q, want only %s", what, r.Seq, names, own.Base)
		return
	}
	var text string
	for _, s := range r.Texts {
		if strings.Contains(s, own.Base+".md") {
			text = s
		}
	}
	for _, want := range []string{own.MDPath, prompt, file, failed} {
		if !strings.Contains(text, want) {
			t.Errorf("%s: the pointer lacks %q:\n%s", what, want, text)
		}
	}
	// PO-38: as the model gets it, no quote mark of ours is escaped (Qwen
	// Code turns ">" into "&gt;"), and the prompt is quoted.
	if strings.Contains("\n"+text, "\n&gt;") || !strings.Contains(text, "> "+prompt) && !strings.Contains(text, "| "+prompt) {
		t.Errorf("%s: the pointer's quotes reached the model as:\n%s", what, text)
	}
	all := strings.Join(r.Texts, "\n")
	for _, s := range snaps {
		// Whole file names: snapshots taken in the same second are named
		// X and X_1, and X is a prefix of X_1.
		if s.Base != own.Base && (strings.Contains(all, s.Base+".md") || strings.Contains(all, s.Base+".json")) {
			t.Errorf("%s: request #%d names another snapshot %s", what, r.Seq, s.Base)
		}
	}
}

// e2eCopyFixture copies a recorded transcript into
// $COMPACT_GUARD_E2E_RECORD_AGENTS/<dir>/<name> (the fixtures of
// transcript/testdata, TR-37..TR-49).
func e2eCopyFixture(t *testing.T, src, dir, name string) {
	root := os.Getenv("COMPACT_GUARD_E2E_RECORD_AGENTS")
	if root == "" {
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s to %s", src, filepath.Join(root, dir, name))
}

// ---------------------------------------------------------------------------
// Codex's app-server: JSON-RPC over stdio, one message a line.

type e2eAppServer struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	msgs chan map[string]any
	id   int
}

func (w *e2eAgentWorld) AppServer() *e2eAppServer {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*e2eClientTimeout)
	w.t.Cleanup(cancel)
	cmd := w.client.Command(ctx, "app-server")
	cmd.Env, cmd.Dir = w.env(), w.Project
	cmd.WaitDelay = 5 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	a := &e2eAppServer{t: w.t, cmd: cmd, in: in, msgs: make(chan map[string]any, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				a.msgs <- m
			}
		}
		close(a.msgs)
	}()
	w.t.Cleanup(func() {
		in.Close()
		cmd.Wait()
		if w.t.Failed() {
			w.t.Logf("codex app-server stderr:\n%.4000s", stderr.String())
		}
	})
	a.Call("initialize", map[string]any{"clientInfo": map[string]any{"name": "compact-guard-e2e", "version": "0"}})
	a.send(map[string]any{"method": "initialized"})
	return a
}

func (a *e2eAppServer) send(m map[string]any) {
	b, _ := json.Marshal(m)
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		a.t.Fatalf("app-server: %v", err)
	}
}

// Call sends a request and returns its result.
func (a *e2eAppServer) Call(method string, params map[string]any) map[string]any {
	a.t.Helper()
	a.id++
	id := a.id
	a.send(map[string]any{"id": id, "method": method, "params": params})
	m := a.Wait(method, func(m map[string]any) bool { return m["id"] == float64(id) && m["method"] == nil })
	if e, ok := m["error"]; ok {
		a.t.Fatalf("app-server %s: %v", method, e)
	}
	res, _ := m["result"].(map[string]any)
	return res
}

// Wait reads messages until one satisfies cond (a turn ends with the
// turn/completed notification).
func (a *e2eAppServer) Wait(what string, cond func(map[string]any) bool) map[string]any {
	a.t.Helper()
	timeout := time.After(e2eClientTimeout)
	for {
		select {
		case m, ok := <-a.msgs:
			if !ok {
				a.t.Fatalf("app-server ended while waiting for %s", what)
			}
			if cond(m) {
				return m
			}
		case <-timeout:
			a.t.Fatalf("app-server: no %s within %s", what, e2eClientTimeout)
		}
	}
}

// Turn waits for the turn a request started to complete.
func (a *e2eAppServer) TurnDone(what string) {
	a.t.Helper()
	a.Wait(what, func(m map[string]any) bool { return m["method"] == "turn/completed" })
}

// ---------------------------------------------------------------------------
// Scenarios.

func TestE2EAgents(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	t.Run("E2E20_22_Codex", func(t *testing.T) { t.Parallel(); e2eCodexScenario(t, bins, e2eCodexVersion) })
	t.Run("E2E20_22_Codex_"+e2eCodexNewest, func(t *testing.T) { t.Parallel(); e2eCodexScenario(t, bins, e2eCodexNewest) })
	t.Run("E2E23_24_Qwen", func(t *testing.T) { t.Parallel(); e2eQwenScenario(t, bins) })
	t.Run("E2E25_QwenLatePointer", func(t *testing.T) { t.Parallel(); e2eQwenLateScenario(t, bins) })
}

// e2eCodexScenario (E2E-20 to E2E-22): install and trust, two automatic
// compactions (codex exec, codex exec resume), one manual (app-server),
// each pointer its own, the order of records and hooks measured.
func e2eCodexScenario(t *testing.T, bins e2eBinaries, version string) {
	w := e2eNewAgentWorldVersion(t, bins, "codex", version)
	codexHome := filepath.Join(w.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`# written by the e2e harness
model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
compact_prompt = %q
model_auto_compact_token_limit = 20000

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "OPENAI_API_KEY"
wire_api = "responses"
`, e2eCodexCompactPrompt, w.fake.srv.URL)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}

	// E2E-20: install as a user would; Codex reports every hook of ours
	// trusted, with the hash install wrote.
	out := w.Guard("install", "--agent", "codex")
	hooksFile := filepath.Join(codexHome, "hooks.json")
	if !strings.Contains(out, "created "+hooksFile) || !strings.Contains(out, "trusted") {
		t.Fatalf("install --agent codex:\n%s", out)
	}
	w.AddRecordingHooks(hooksFile)
	as := w.AppServer()
	list := as.Call("hooks/list", map[string]any{"cwds": []any{w.Project}})
	data, _ := list["data"].([]any)
	ours, rec := 0, 0
	var trustRec []string
	for _, d := range data {
		hs, _ := d.(map[string]any)["hooks"].([]any)
		for _, h := range hs {
			m := h.(map[string]any)
			cmd, _ := m["command"].(string)
			switch {
			case strings.Contains(cmd, "compact-guard"):
				ours++
				if m["trustStatus"] != "trusted" {
					t.Errorf("hooks/list: %v is %v (hash %v)", m["key"], m["trustStatus"], m["currentHash"])
				}
			case strings.Contains(cmd, "rechook"):
				rec++
				trustRec = append(trustRec, fmt.Sprintf("\n[hooks.state.%q]\ntrusted_hash = %q\n", m["key"], m["currentHash"]))
			}
		}
	}
	if ours != 3 || rec != 3 {
		t.Fatalf("hooks/list: %d of ours, %d recording hooks: %v", ours, rec, list)
	}
	as.in.Close()
	// The recording hook is trusted by hand, as a user accepts it in the
	// TUI; doctor then finds nothing to fix in our hooks.
	f, err := os.OpenFile(filepath.Join(codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(trustRec, ""))
	f.Close()
	if out := w.Guard("doctor", "--agent", "codex", "--no-self-test"); !strings.Contains(out, "trusted") {
		t.Errorf("doctor --agent codex:\n%s", out)
	}

	// E2E-21: the first turn edits hello.txt and runs a failing command,
	// whose reported usage (30,000 > 20,000) makes Codex compact at once.
	const prompt1 = "Привет: fix \"hello.txt\" and run the tests"
	failing1 := "cat hello.txt && ls /nonexistent-e2e-dir"
	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Patch: "*** Begin Patch\n*** Update File: hello.txt\n@@\n-hello\n+hello from codex\n*** End Patch"}}, Usage: 1000},
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "exec_command", Args: map[string]any{"cmd": failing1}}}, Usage: 30000},
		e2eAgentReply{Text: "turn one done", Usage: 1000},
	)
	w.Run("exec", prompt1)
	rollouts, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	rollout := rollouts[0]
	sid := strings.TrimSuffix(filepath.Base(rollout), ".jsonl")
	sid = sid[len(sid)-36:]

	// A second automatic compaction, in a resumed session.
	const prompt2 = "second turn: run the failing test again"
	failing2 := "echo retry && false"
	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "exec_command", Args: map[string]any{"cmd": failing2}}}, Usage: 30000},
		e2eAgentReply{Text: "turn two done", Usage: 1000},
	)
	w.Run("exec", "resume", sid, prompt2)

	// E2E-22: a manual compaction through the app-server; its
	// SessionStart(compact) runs at the next turn.
	const prompt3 = "third turn, after the manual compaction"
	w.fake.Script(e2eAgentReply{Text: "turn three done", Usage: 1000})
	as = w.AppServer()
	as.Call("thread/resume", map[string]any{"threadId": sid})
	as.Call("thread/compact/start", map[string]any{"threadId": sid})
	as.TurnDone("the compaction turn")
	as.Call("turn/start", map[string]any{"threadId": sid, "input": []any{map[string]any{"type": "text", "text": prompt3}}})
	as.TurnDone("the third turn")
	as.in.Close()

	reqs := w.fake.Requests()
	comps := e2eCompactionRequests(reqs)
	snaps := e2eAgentSnaps(t, w.SnapDir, sid)
	if len(comps) != 3 || len(snaps) != 3 {
		t.Fatalf("%d compaction requests, %d snapshots, want 3 each", len(comps), len(snaps))
	}
	want := []struct {
		trigger, prompt, failed string
	}{{"auto", prompt1, failing1}, {"auto", prompt2, failing2}, {"manual", prompt2, failing2}}
	for k, s := range snaps {
		if s.Agent != "codex" || s.Rec.Trigger != want[k].trigger || !s.Confirmed || s.ContextWindow == 0 {
			t.Errorf("snapshot %d: agent %q trigger %q confirmed %v window %d", k+1, s.Agent, s.Rec.Trigger, s.Confirmed, s.ContextWindow)
		}
		if n := len(s.Rec.Prompts); n == 0 || s.Rec.Prompts[n-1].Text != want[k].prompt {
			t.Errorf("snapshot %d prompts %+v", k+1, s.Rec.Prompts)
		}
		if len(s.Rec.Files) != 1 || s.Rec.Files[0].Path != filepath.Join(w.Project, "hello.txt") || s.Rec.Files[0].LastTool != "apply_patch" {
			t.Errorf("snapshot %d files %+v", k+1, s.Rec.Files)
		}
		if n := len(s.Rec.Commands); n == 0 || s.Rec.Commands[n-1].Command != want[k].failed || s.Rec.Commands[n-1].Outcome != "error" {
			t.Errorf("snapshot %d commands %+v", k+1, s.Rec.Commands)
		}
		// The request after the compaction carries the own pointer.
		if comps[k]+1 >= len(reqs) {
			t.Errorf("no request after compaction %d", k+1)
			continue
		}
		e2eCheckPointer(t, fmt.Sprintf("compaction %d", k+1), reqs[comps[k]+1], s, snaps, want[k].prompt, "hello.txt", want[k].failed)
	}
	if c := snaps[0].Rec.Commands[len(snaps[0].Rec.Commands)-1]; c.ExitCode == nil || *c.ExitCode != 2 || c.ErrorLine != "ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("failed command %+v", c)
	}
	if out := w.Guard("list"); !strings.Contains(out, "AGENT") || strings.Count(out, " codex ") != 3 {
		t.Errorf("list:\n%s", out)
	}

	// The measured order (specs/selectsnap.md): for the k-th compaction
	// PreCompact saw k-1 compacted records, PostCompact and
	// SessionStart(compact) k; the manual compaction's SessionStart came
	// at the next turn, after SessionStart(resume).
	tr := w.Transcript(rollout)
	var order []string
	for _, r := range w.Records() {
		ev, _ := r["hook_event_name"].(string)
		src, _ := r["source"].(string)
		probe, _ := r["_probe"].(map[string]any)
		size, _ := probe["size"].(float64)
		order = append(order, fmt.Sprintf("%s(%s)@%d", ev, src, tr.BoundariesBefore(int64(size))))
	}
	wantOrder := "SessionStart(startup)@0 PreCompact()@0 PostCompact()@1 SessionStart(compact)@1 " +
		"SessionStart(resume)@1 PreCompact()@1 PostCompact()@2 SessionStart(compact)@2 " +
		"PreCompact()@2 PostCompact()@3 SessionStart(resume)@3 SessionStart(compact)@3"
	if got := strings.Join(order, " "); got != wantOrder {
		t.Errorf("hook order with compacted records seen:\n got %s\nwant %s", got, wantOrder)
	}
	// AU-15, AU-17: audit reads the rollout as Codex wrote it; each
	// compaction's hook context went into the model's history, and
	// compact-guard's delivery record names the compaction's own snapshot.
	e2eAuditAgent(t, w, "codex", sid, 3, "yes")
	e2eCopyFixture(t, rollout, "codex"+version, "three-compactions.jsonl")
}

// e2eAuditAgent runs 'compact-guard audit --json --agent agent --session
// sid' in w and
// checks that it finds session sid with n compactions, each delivered as
// the client's record allows (delivered) and naming its own snapshot.
func e2eAuditAgent(t *testing.T, w *e2eAgentWorld, agent, sid string, n int, delivered string) {
	t.Helper()
	out := w.Guard("audit", "--json", "--agent", agent, "--session", sid)
	var rep audit.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, out)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].SessionID != sid || string(rep.Sessions[0].Agent) != agent || len(rep.Sessions[0].Compactions) != n {
		t.Fatalf("audit --agent %s:\n%s", agent, out)
	}
	for _, c := range rep.Sessions[0].Compactions {
		t.Logf("audit --agent %s, compaction %d (%s): delivered %s, named %s, handed at %s, %d hook context(s) of %d characters",
			agent, c.Index, c.Trigger, c.Delivered, c.Named, c.HandedEvent, c.Contexts, c.ContextChars)
		if c.Delivered != delivered || c.Snapshot == "" || c.Named != c.Snapshot || !c.Own || c.Handed != c.Snapshot || c.Trigger == "" {
			t.Errorf("audit --agent %s, compaction %d: %+v", agent, c.Index, c)
		}
	}
	if rep.Own != n || rep.Foreign != 0 {
		t.Errorf("audit --agent %s: own %d, foreign %d", agent, rep.Own, rep.Foreign)
	}
}

// e2eQwenInstall writes the user's Qwen Code settings, with a comment
// (Qwen Code strips them) and a small window, so that a reported 9,000
// tokens compacts, and no managed auto-memory: after a turn of a process
// that takes several prompts, its agent sends requests of its own, which
// compact in so small a window and fire PreCompact for the session
// (measured, E2E-25). It installs compact-guard into them as a user would, and the
// recording hook after it (E2E-20). It returns ~/.qwen.
func e2eQwenInstall(t *testing.T, w *e2eAgentWorld) string {
	t.Helper()
	qwenHome := filepath.Join(w.Home, ".qwen")
	settingsFile := filepath.Join(qwenHome, "settings.json")
	if err := os.MkdirAll(qwenHome, 0o700); err != nil {
		t.Fatal(err)
	}
	settingsText := `{
  // written by the e2e harness
  "model": {"generationConfig": {"contextWindowSize": 32000}},
  "context": {"autoCompactThreshold": 0.1},
  "memory": {"enableManagedAutoMemory": false},
  "security": {"auth": {"selectedType": "openai"}}
}
`
	if err := os.WriteFile(settingsFile, []byte(settingsText), 0o600); err != nil {
		t.Fatal(err)
	}
	out := w.Guard("install", "--agent", "qwen")
	if !strings.Contains(out, "updated "+settingsFile) {
		t.Fatalf("install --agent qwen:\n%s", out)
	}
	if b, _ := os.ReadFile(settingsFile); !strings.Contains(string(b), "// written by the e2e harness") {
		t.Fatalf("install dropped the comment:\n%s", b)
	}
	w.AddRecordingHooks(settingsFile)
	return qwenHome
}

// e2eQwenScenario (E2E-23, E2E-24): install, one headless run that compacts
// twice by itself, each pointer its own in the requests that follow, the
// order of records and hooks measured.
func e2eQwenScenario(t *testing.T, bins e2eBinaries) {
	w := e2eNewAgentWorld(t, bins, "qwen")
	qwenHome := e2eQwenInstall(t, w)

	// One run: read, edit, a failing command whose usage compacts; after
	// the compaction two more requests, the second failing again and
	// compacting again; then two more.
	const prompt = "Привет: fix \"hello.txt\" and run the tests"
	hello := filepath.Join(w.Project, "hello.txt")
	failing1 := "cat hello.txt && ls /nonexistent-e2e-dir"
	failing2 := "echo retry && false"
	shell := func(cmd string, usage int) e2eAgentReply {
		return e2eAgentReply{Calls: []e2eAgentCall{{Name: "run_shell_command", Args: map[string]any{"command": cmd, "is_background": false, "description": "e2e"}}}, Usage: usage}
	}
	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "read_file", Args: map[string]any{"file_path": hello}}}, Usage: 1000},
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "edit", Args: map[string]any{"file_path": hello, "old_string": "hello", "new_string": "hello from qwen"}}}, Usage: 1000},
		shell(failing1, 9000),
		shell("echo after the first compaction", 1000),
		shell(failing2, 9000),
		shell("echo after the second compaction", 1000),
		shell("echo once more", 1000),
		shell("echo and once more", 1000),
		e2eAgentReply{Text: "all done", Usage: 1000},
	)
	w.fake.holdAfterCompact = func(n int) {
		// Wait for the n-th SessionStart(compact) to deliver (SF-53).
		var m []string
		if !e2eWaitFor(60*time.Second, func() bool {
			m, _ = filepath.Glob(filepath.Join(w.SnapDir, "*.delivered"))
			return len(m) >= n
		}) {
			t.Errorf("SessionStart(compact) of compaction %d delivered nothing within 60 s", n)
			return
		}
		// When the client puts that context into a request depends on
		// when it notices its background hook run ended: the script goes
		// on once a request carries it.
		var names []string
		for _, p := range m {
			names = append(names, strings.TrimSuffix(filepath.Base(p), ".delivered"))
		}
		sort.Slice(names, func(i, j int) bool { return e2eNameOrder(names[i]) < e2eNameOrder(names[j]) })
		own := names[len(names)-1]
		w.fake.mu.Lock()
		w.fake.await = func(r *e2eAgentRequest) bool {
			names := e2eAgentPointers(r)
			return len(names) == 1 && names[0] == own
		}
		w.fake.mu.Unlock()
	}
	w.Run("--yolo", "-o", "stream-json", prompt)
	if b, _ := os.ReadFile(hello); string(b) != "hello from qwen\n" {
		t.Errorf("hello.txt: %q", b)
	}
	chats, _ := filepath.Glob(filepath.Join(qwenHome, "projects", "*", "chats", "*.jsonl"))
	if len(chats) != 1 {
		t.Fatalf("chat files: %v", chats)
	}
	chat := chats[0]
	sid := strings.TrimSuffix(filepath.Base(chat), ".jsonl")

	reqs := w.fake.Requests()
	comps := e2eCompactionRequests(reqs)
	snaps := e2eAgentSnaps(t, w.SnapDir, sid)
	if len(comps) != 2 || len(snaps) != 2 {
		t.Fatalf("%d compaction requests, %d snapshots, want 2 each", len(comps), len(snaps))
	}
	failed := []string{failing1, failing2}
	for k, s := range snaps {
		if s.Agent != "qwen" || s.Rec.Trigger != "auto" || !s.Confirmed || s.ContextWindow != 32000 {
			t.Errorf("snapshot %d: agent %q trigger %q confirmed %v window %d", k+1, s.Agent, s.Rec.Trigger, s.Confirmed, s.ContextWindow)
		}
		if n := len(s.Rec.Prompts); n != 1 || s.Rec.Prompts[0].Text != prompt {
			t.Errorf("snapshot %d prompts %+v", k+1, s.Rec.Prompts)
		}
		if len(s.Rec.Files) != 1 || s.Rec.Files[0].Path != hello || s.Rec.Files[0].LastTool != "edit" {
			t.Errorf("snapshot %d files %+v", k+1, s.Rec.Files)
		}
		if n := len(s.Rec.Commands); n == 0 || s.Rec.Commands[n-1].Command != failed[k] || s.Rec.Commands[n-1].Outcome != "error" {
			t.Errorf("snapshot %d commands %+v", k+1, s.Rec.Commands)
		}
		// SessionStart(compact) runs in the background (the fake waited for
		// its delivery record before answering the first request after the
		// compaction).
		end := len(reqs)
		if k+1 < len(comps) {
			end = comps[k+1]
		}
		// When the client applies the context depends on when its
		// background hook run is noticed, not on anything the fake can wait
		// for: so the requests after the compaction carry nothing or the
		// previous compaction's pointer until the own one arrives, and the
		// own one from then on; it must arrive before the next compaction.
		own := -1
		for i := comps[k] + 1; i < end; i++ {
			names := e2eAgentPointers(reqs[i])
			if len(names) == 1 && names[0] == s.Base {
				own = i
				break
			}
			if len(names) > 0 && (k == 0 || len(names) > 1 || names[0] != snaps[k-1].Base) {
				t.Errorf("compaction %d: request #%d, before its own pointer arrived, names %q", k+1, reqs[i].Seq, names)
			}
		}
		if own < 0 {
			t.Errorf("compaction %d: no request before the next compaction carries its own pointer %s", k+1, s.Base)
			continue
		}
		for _, r := range reqs[own:end] {
			e2eCheckPointer(t, fmt.Sprintf("compaction %d", k+1), r, s, snaps, prompt, "hello.txt", failed[k])
		}
	}
	if c := snaps[0].Rec.Commands[len(snaps[0].Rec.Commands)-1]; c.ExitCode == nil || *c.ExitCode != 2 || c.ErrorLine != "ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("failed command %+v", c)
	}

	// AU-16, AU-17: Qwen Code's chat records no hook context; audit names
	// the snapshot handed out for each compaction, its own.
	e2eAuditAgent(t, w, "qwen", sid, 2, "unknown")

	// The measured order: PreCompact and PostCompact of the k-th
	// compaction saw k-1 chat_compression records, SessionStart(compact) k.
	tr := w.Transcript(chat)
	var order []string
	for _, r := range w.Records() {
		ev, _ := r["hook_event_name"].(string)
		src, _ := r["source"].(string)
		probe, _ := r["_probe"].(map[string]any)
		size, _ := probe["size"].(float64)
		order = append(order, fmt.Sprintf("%s(%s)@%d", ev, src, tr.BoundariesBefore(int64(size))))
	}
	// SessionStart(compact) may find its chat_compression not written yet
	// (the client writes in the background): k-1 or k.
	got := strings.Join(order, " ")
	for _, want := range []string{
		"SessionStart(startup)@0 PreCompact()@0 PostCompact()@0 SessionStart(compact)@1 PreCompact()@1 PostCompact()@1 SessionStart(compact)@2",
		"SessionStart(startup)@0 PreCompact()@0 PostCompact()@0 SessionStart(compact)@1 PreCompact()@1 PostCompact()@1 SessionStart(compact)@1",
		"SessionStart(startup)@0 PreCompact()@0 PostCompact()@0 SessionStart(compact)@0 PreCompact()@1 PostCompact()@1 SessionStart(compact)@2",
		"SessionStart(startup)@0 PreCompact()@0 PostCompact()@0 SessionStart(compact)@0 PreCompact()@1 PostCompact()@1 SessionStart(compact)@1",
	} {
		if got == want {
			got = ""
			break
		}
	}
	if got != "" {
		t.Errorf("hook order with chat_compression records seen: %s", got)
	}
	t.Logf("hooks and the chat_compression records they saw: %s", strings.Join(order, " "))
	e2eCopyFixture(t, chat, "qwen"+e2eQwenVersion, "two-compactions.jsonl")
}

// RunStream runs the client in the project with args, feeding it prompts
// one at a time as stream-json user messages on stdin: each after the
// client reported the previous one's result, so that every prompt is a new
// turn of the same process; stdin is closed after the last result.
func (w *e2eAgentWorld) RunStream(args []string, prompts ...string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eClientTimeout)
	defer cancel()
	cmd := w.client.Command(ctx, args...)
	cmd.Env, cmd.Dir = w.env(), w.Project
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr, seen bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	send := func(p string) {
		b, _ := json.Marshal(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
			"message": map[string]any{"role": "user", "content": p}})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			w.t.Errorf("writing prompt %q: %v", p, err)
		}
	}
	send(prompts[0])
	results := 0
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		seen.Write(sc.Bytes())
		seen.WriteByte('\n')
		var m struct{ Type string }
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Type != "result" {
			continue
		}
		if results++; results < len(prompts) {
			send(prompts[results])
		} else {
			stdin.Close()
		}
	}
	stdin.Close()
	err = cmd.Wait()
	w.runs = append(w.runs, fmt.Sprintf("%s %q (stream-json, %d prompts) in %s: err=%v\nstdout: %.3000s\nstderr: %.3000s", w.agent, args, len(prompts), time.Since(start).Round(time.Millisecond), err, seen.String(), stderr.String()))
	if err != nil || results != len(prompts) {
		w.t.Fatalf("%s %q: %v, %d of %d results\n%s", w.agent, args, err, results, len(prompts), stderr.String())
	}
}

// e2eLateCount is how many late pointers a request carries (WA-11): each
// UserPromptSubmit context of compact-guard's counts once.
func e2eLateCount(r *e2eAgentRequest) int {
	n := 0
	for _, s := range r.Texts {
		n += strings.Count(s, e2eLateMarker)
	}
	return n
}

// e2eLateText is the text that carries the late pointer naming the
// snapshot base, "" for none.
func e2eLateText(r *e2eAgentRequest, base string) string {
	for _, s := range r.Texts {
		if i := strings.Index(s, e2eLateMarker); i >= 0 && strings.Contains(s[i:], "/"+base+".md") {
			return s[i:]
		}
	}
	return ""
}

// e2eMainAfter returns the main requests from index from on.
func e2eMainAfter(reqs []*e2eAgentRequest, from int) []*e2eAgentRequest {
	var out []*e2eAgentRequest
	for _, r := range reqs[from:] {
		if r.Kind == "main" {
			out = append(out, r)
		}
	}
	return out
}

// e2eQwenLateScenario (E2E-25): Qwen Code keeps SessionStart(compact)
// context in the memory of the process that compacted. A headless
// /compress, then a run whose last request compacted, each lose it with
// their process; the next `qwen -c` prompt carries it, once, through
// UserPromptSubmit. A control: a compaction whose pointer reached the model,
// and the next prompt in the same process, which gets no late pointer.
func e2eQwenLateScenario(t *testing.T, bins e2eBinaries) {
	w := e2eNewAgentWorld(t, bins, "qwen")
	qwenHome := e2eQwenInstall(t, w)
	hello := filepath.Join(w.Project, "hello.txt")
	shell := func(cmd string, usage int) e2eAgentReply {
		return e2eAgentReply{Calls: []e2eAgentCall{{Name: "run_shell_command", Args: map[string]any{"command": cmd, "is_background": false, "description": "e2e"}}}, Usage: usage}
	}
	delivered := func(n int) bool {
		m, _ := filepath.Glob(filepath.Join(w.SnapDir, "*.delivered"))
		return len(m) >= n
	}
	run := func(args ...string) (from int) {
		from = len(w.fake.Requests())
		w.Run(append([]string{"--yolo", "-o", "stream-json"}, args...)...)
		return from
	}

	// Run 1: the work, no compaction.
	const prompt1 = "Привет: fix \"hello.txt\" and run the tests"
	failing1 := "cat hello.txt && ls /nonexistent-e2e-dir"
	w.fake.Script(
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "read_file", Args: map[string]any{"file_path": hello}}}, Usage: 1000},
		e2eAgentReply{Calls: []e2eAgentCall{{Name: "edit", Args: map[string]any{"file_path": hello, "old_string": "hello", "new_string": "hello from qwen"}}}, Usage: 1000},
		shell(failing1, 1000),
		e2eAgentReply{Text: "the tests fail", Usage: 1000},
	)
	run(prompt1)
	chats, _ := filepath.Glob(filepath.Join(qwenHome, "projects", "*", "chats", "*.jsonl"))
	if len(chats) != 1 {
		t.Fatalf("chat files: %v", chats)
	}
	sid := strings.TrimSuffix(filepath.Base(chats[0]), ".jsonl")

	// Run 2: a headless /compress. Its SessionStart(compact) hands the
	// pointer out at once, and the process ends: no request carries it.
	from2 := run("-c", "/compress")
	snaps := e2eAgentSnaps(t, w.SnapDir, sid)
	if len(snaps) != 1 || snaps[0].Rec.Trigger != "manual" || !delivered(1) {
		t.Fatalf("/compress: %d snapshots, delivered %v", len(snaps), delivered(1))
	}
	snap1 := snaps[0]
	reqs := w.fake.Requests()
	if comps := e2eCompactionRequests(reqs[from2:]); len(comps) != 1 {
		t.Fatalf("/compress made %d compaction requests", len(comps))
	}
	if main := e2eMainAfter(reqs, from2); len(main) != 0 {
		t.Errorf("/compress made %d main requests", len(main))
	}

	// Run 3: the next prompt carries the pointer late, once; its work
	// compacts again with the run's last request, whose answer the fake
	// holds until that SessionStart(compact) handed the pointer out.
	const prompt2 = "Шаг 2: retry the failing test"
	failing2 := "echo retry && false"
	w.fake.holdAfterCompact = func(n int) {
		if !e2eWaitFor(60*time.Second, func() bool { return delivered(n) }) {
			t.Errorf("SessionStart(compact) of compaction %d delivered nothing within 60 s", n)
		}
	}
	w.fake.Script(shell("echo retrying", 1000), shell(failing2, 9000), e2eAgentReply{Text: "retried", Usage: 1000})
	from3 := run("-c", prompt2)
	reqs = w.fake.Requests()
	main3 := e2eMainAfter(reqs, from3)
	comps3 := e2eCompactionRequests(reqs[from3:])
	if len(main3) != 3 || len(comps3) != 1 {
		t.Fatalf("run 3: %d main requests, %d compaction requests; want 3 and 1", len(main3), len(comps3))
	}
	late1 := e2eLateText(main3[0], snap1.Base)
	if late1 == "" || e2eLateCount(main3[0]) != 1 {
		t.Errorf("the first request after the /compress (#%d) carries %d late pointers, none naming %s", main3[0].Seq, e2eLateCount(main3[0]), snap1.Base)
	}
	// The client lost the SessionStart pointer with the /compress process:
	// the late one, appended to the prompt as Qwen Code does with a
	// UserPromptSubmit context, is the only text naming the snapshot.
	var naming []string
	for _, s := range main3[0].Texts {
		if strings.Contains(s, "/"+snap1.Base+".md") {
			naming = append(naming, s)
		}
	}
	if len(naming) != 1 || !strings.HasPrefix(naming[0], "<qwen:user-prompt-submit-context>\n"+e2eLateMarker) {
		t.Errorf("request #%d: the texts naming %s: %q", main3[0].Seq, snap1.Base, naming)
	}
	for _, want := range []string{"because the session went on in a new client process (resumed at ", snap1.MDPath, prompt1, "hello.txt", failing1} {
		if !strings.Contains(late1, want) {
			t.Errorf("the late pointer lacks %q:\n%s", want, late1)
		}
	}
	e2eCheckPointer(t, "late pointer 1", main3[0], snap1, snaps, prompt1, "hello.txt", failing1)
	// Later requests repeat the conversation, the prompt with it: one late
	// pointer, not a second.
	if n := e2eLateCount(main3[1]); n != 1 {
		t.Errorf("request #%d carries %d late pointers, want the first prompt's once", main3[1].Seq, n)
	}
	snaps = e2eAgentSnaps(t, w.SnapDir, sid)
	if len(snaps) != 2 || snaps[1].Rec.Trigger != "auto" || !delivered(2) {
		t.Fatalf("run 3: %d snapshots, want 2 with the second auto and delivered", len(snaps))
	}
	snap2 := snaps[1]
	if n := len(snap2.Rec.Prompts); n == 0 || snap2.Rec.Prompts[n-1].Text != prompt2 {
		t.Errorf("snapshot 2 prompts %+v", snap2.Rec.Prompts)
	}
	// The continuation, the run's last request, went before the background
	// SessionStart(compact) ended: the pointer never reached the model.
	for _, r := range reqs[from3+comps3[0]+1:] {
		if names := e2eAgentPointers(r); len(names) > 0 && names[len(names)-1] == snap2.Base {
			t.Errorf("request #%d after the second compaction carries its pointer: the run did not end with it lost", r.Seq)
		}
	}

	// Run 4: the next qwen -c prompt carries the second compaction's
	// pointer late, once; the first one's is not handed over again.
	const prompt3 = "Шаг 3: what is left?"
	w.fake.holdAfterCompact = nil
	w.fake.Script(shell("echo looking", 1000), e2eAgentReply{Text: "nothing", Usage: 1000})
	from4 := run("-c", prompt3)
	main4 := e2eMainAfter(w.fake.Requests(), from4)
	if len(main4) != 2 {
		t.Fatalf("run 4: %d main requests, want 2", len(main4))
	}
	if e2eLateText(main4[0], snap2.Base) == "" || !strings.Contains(e2eLateText(main4[0], snap2.Base), "(resumed at ") {
		t.Errorf("the first request of run 4 (#%d) carries no late pointer naming %s", main4[0].Seq, snap2.Base)
	}
	for _, r := range main4 {
		late := 0
		for _, s := range r.Texts {
			late += strings.Count(s, "/"+snap2.Base+".md")
		}
		if e2eLateText(r, snap2.Base) == "" || late != 1 {
			t.Errorf("request #%d names the second compaction's snapshot %d times, want once, in its late pointer", r.Seq, late)
		}
	}
	if b, _ := os.ReadFile(w.Log); strings.Count(string(b), "pointer handed over late (resumed)") != 2 {
		t.Errorf("the log records %d late pointers, want 2:\n%s", strings.Count(string(b), "pointer handed over late (resumed)"), b)
	}

	// The control: a new session in one stream-json process; its run
	// compacts, and the fake goes on once a request carries the pointer; the
	// next prompt, in the same process, gets no late pointer, and still
	// carries the SessionStart one.
	const promptA, promptB = "Control: run the check", "Control: and now?"
	w.fake.holdAfterCompact = func(n int) {
		if !e2eWaitFor(60*time.Second, func() bool { return delivered(n) }) {
			t.Errorf("SessionStart(compact) of compaction %d delivered nothing within 60 s", n)
			return
		}
		w.fake.mu.Lock()
		w.fake.await = func(r *e2eAgentRequest) bool { return len(e2eAgentPointers(r)) == 1 }
		w.fake.mu.Unlock()
	}
	w.fake.Script(shell("echo control && false", 9000), shell("echo after the compaction", 1000),
		e2eAgentReply{Text: "control done", Usage: 1000}, e2eAgentReply{Text: "nothing to do", Usage: 1000})
	fromC := len(w.fake.Requests())
	w.RunStream([]string{"--yolo", "--input-format", "stream-json", "-o", "stream-json"}, promptA, promptB)
	chats, _ = filepath.Glob(filepath.Join(qwenHome, "projects", "*", "chats", "*.jsonl"))
	var sidC string
	for _, c := range chats {
		if s := strings.TrimSuffix(filepath.Base(c), ".jsonl"); s != sid {
			sidC = s
		}
	}
	snapsC := e2eAgentSnaps(t, w.SnapDir, sidC)
	if len(chats) != 2 || len(snapsC) != 1 {
		t.Fatalf("control: chat files %v, %d snapshots", chats, len(snapsC))
	}
	mainC := e2eMainAfter(w.fake.Requests(), fromC)
	var b []*e2eAgentRequest
	for _, r := range mainC {
		for _, s := range r.Texts {
			if strings.Contains(s, promptB) {
				b = append(b, r)
				break
			}
		}
	}
	if len(b) != 1 {
		t.Fatalf("control: %d requests carry the second prompt, want 1", len(b))
	}
	for _, r := range mainC {
		if n := e2eLateCount(r); n != 0 {
			t.Errorf("control: request #%d carries %d late pointers", r.Seq, n)
		}
	}
	e2eCheckPointer(t, "control, the next prompt", b[0], snapsC[0], snapsC, promptA, "", "echo control && false")
	if lb, _ := os.ReadFile(w.Log); !strings.Contains(string(lb), "watch(UserPromptSubmit) session="+sidC) ||
		!strings.Contains(string(lb), `detail="the latest compaction's pointer reached the model"`) {
		t.Errorf("control: the log does not record the check:\n%s", lb)
	}

	// Qwen Code fired SessionStart with source resume for each qwen -c.
	var sources []string
	for _, r := range w.Records() {
		if ev, _ := r["hook_event_name"].(string); ev == "SessionStart" {
			src, _ := r["source"].(string)
			sources = append(sources, src)
		}
	}
	if got, want := strings.Join(sources, " "), "startup resume compact resume compact resume startup compact"; got != want {
		t.Errorf("SessionStart sources: %s, want %s", got, want)
	}

	// AU-16, AU-17: audit names, for each compaction of either session, the
	// snapshot compact-guard handed out for it, the compaction's own, late
	// or not; whether the model saw it Qwen Code's chat does not say.
	e2eAuditAgent(t, w, "qwen", sid, 2, "unknown")
	e2eAuditAgent(t, w, "qwen", sidC, 1, "unknown")
}
