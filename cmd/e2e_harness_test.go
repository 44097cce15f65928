//go:build e2e

// The end-to-end harness (specs/e2e.md): the real Claude Code CLI, pinned to
// e2eClaudeVersion, runs headless with hooks registered in a temporary HOME
// against a scripted fake of the Anthropic Messages API on loopback. Run with
//
//	go test -tags e2e ./cmd/ -run E2E
//
// Every identifier here starts with e2e so that it cannot collide with the
// other test files of package cmd_test.
package cmd_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/transcript"
)

// e2eClaudeVersion is the Claude Code release the harness runs.
const e2eClaudeVersion = "2.1.328"

// e2eClientTimeout bounds one run of the client; the model answers
// instantly, so a run that takes longer is stuck.
const e2eClientTimeout = 90 * time.Second

// e2eSummaryMarker is what the client's compaction request asks for.
const e2eSummaryMarker = "create a detailed summary of the conversation"

// e2eSummaryText is the fake model's fixed compaction summary.
const e2eSummaryText = "<summary>\nE2E-SUMMARY: the user asked for hello.txt and a failing test run.\n</summary>"

// e2eAdditionalContext is the prefix the client gives SessionStart context
// in the request it sends to the model.
const e2eAdditionalContext = "SessionStart hook additional context:"

// ---------------------------------------------------------------------------
// The client: each release installed once per machine, found once per test
// process.

// e2eClient is one installed Claude Code release and how to start it:
// releases up to 2.1.76 ship cli.js, run with node; later ones a native
// bin/claude.exe.
type e2eClient struct {
	Version string
	Argv    []string // the program and the arguments that come before the client's own
}

// Command is the client started with args.
func (c e2eClient) Command(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, c.Argv[0], append(append([]string(nil), c.Argv[1:]...), args...)...)
}

type e2eInstall struct {
	once   sync.Once
	client e2eClient
	err    error
}

// e2eInstalls holds one install per client and release, made once per test
// process.
var e2eInstalls sync.Map // key -> *e2eInstall

// e2eRequire returns the client key names, installing it with install the
// first time it is asked for. Outside CI a missing npm or registry skips the
// test; with CI=true it fails.
func e2eRequire(t *testing.T, key string, install func() (e2eClient, error)) e2eClient {
	t.Helper()
	v, _ := e2eInstalls.LoadOrStore(key, &e2eInstall{})
	in := v.(*e2eInstall)
	in.once.Do(func() { in.client, in.err = install() })
	if in.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s unavailable (CI=true, so not skipping): %v", key, in.err)
		}
		t.Skipf("skipping end-to-end test: %s unavailable: %v", key, in.err)
	}
	return in.client
}

// e2eRequireClaude returns the pinned release (e2eClaudeVersion).
func e2eRequireClaude(t *testing.T) e2eClient {
	t.Helper()
	return e2eRequireClaudeVersion(t, e2eClaudeVersion)
}

// e2eRequireClaudeVersion returns the client of the given release,
// installing it with npm into the user cache when it is not there yet.
func e2eRequireClaudeVersion(t *testing.T, version string) e2eClient {
	t.Helper()
	return e2eRequire(t, "claude code "+version, func() (e2eClient, error) { return e2eInstallClaude(version) })
}

// e2eCacheDir is where a client is installed: outside the repository,
// shared by every checkout and test run on the machine.
func e2eCacheDir(name string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no user cache folder: %w", err)
	}
	return filepath.Join(base, "compact-guard-e2e", name), nil
}

// e2eFindClient returns how to start the release installed under pkg.
func e2eFindClient(pkg, version string) e2eClient {
	if cli := filepath.Join(pkg, "cli.js"); e2eIsFile(cli) && !e2eIsFile(filepath.Join(pkg, "install.cjs")) {
		return e2eClient{Version: version, Argv: []string{"node", cli}}
	}
	return e2eClient{Version: version, Argv: []string{filepath.Join(pkg, "bin", "claude.exe")}}
}

func e2eIsFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func e2eInstallClaude(version string) (e2eClient, error) {
	dir, err := e2eCacheDir("claude-code-" + version)
	if err != nil {
		return e2eClient{}, err
	}
	pkg := filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code")
	find := func() e2eClient { return e2eFindClient(pkg, version) }
	works := func(c e2eClient) error {
		return e2eVersionSays(c, func(out string) bool { return strings.HasPrefix(out, version+" ") })
	}
	// The package ships a placeholder that its postinstall replaces with the
	// platform binary; npm may have been told not to run scripts.
	fix := func(ctx context.Context) error {
		if !e2eIsFile(filepath.Join(pkg, "install.cjs")) || works(find()) == nil {
			return nil
		}
		cmd := exec.CommandContext(ctx, "node", "install.cjs")
		cmd.Dir = pkg
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("node install.cjs: %v\n%s", err, out)
		}
		return nil
	}
	return e2eNpmInstalled(dir, "@anthropic-ai/claude-code@"+version, 5*time.Minute, find, works, fix)
}

// e2eNpmInstalled returns the client find gives in dir once works accepts
// it, installing spec into dir with npm first when it does not: under a lock
// file, so that parallel test processes do not install at once, and looking
// again once the lock is held, since another process may have installed it
// meanwhile. fix, when set, runs after npm for what npm left undone.
func e2eNpmInstalled(dir, spec string, timeout time.Duration, find func() e2eClient, works func(e2eClient) error, fix func(context.Context) error) (e2eClient, error) {
	if c := find(); works(c) == nil {
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return e2eClient{}, err
	}
	unlock, err := e2eLock(filepath.Join(dir, ".install.lock"), 5*time.Minute)
	if err != nil {
		return e2eClient{}, err
	}
	defer unlock()
	if c := find(); works(c) == nil {
		return c, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return e2eClient{}, fmt.Errorf("npm not found: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund",
		"--no-save", "--loglevel=error", "--fetch-timeout=30000", "--fetch-retries=1", spec)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return e2eClient{}, fmt.Errorf("npm install %s: %v\n%s", spec, err, out)
	}
	if fix != nil {
		if err := fix(ctx); err != nil {
			return e2eClient{}, err
		}
	}
	c := find()
	if err := works(c); err != nil {
		return e2eClient{}, err
	}
	return c, nil
}

// e2eVersionSays runs c --version in an empty HOME and checks its output
// (trimmed) with ok.
func e2eVersionSays(c e2eClient, ok func(out string) bool) error {
	if _, err := os.Stat(c.Argv[len(c.Argv)-1]); err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "compact-guard-e2e-home")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := c.Command(ctx, "--version")
	cmd.Env = append(e2eBaseEnv(), "HOME="+home, "USERPROFILE="+home)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s --version: %w", c.Argv, err)
	}
	if s := strings.TrimSpace(string(out)); !ok(s) {
		return fmt.Errorf("%s --version says %q, want %s", c.Argv, s, c.Version)
	}
	return nil
}

// e2eLock takes an exclusive lock file so that parallel test processes do
// not install into the same folder at once. A lock older than stale is left
// over from a killed run and is taken over.
func e2eLock(path string, stale time.Duration) (func(), error) {
	deadline := time.Now().Add(stale + time.Minute)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Stat(path); serr == nil && time.Since(fi.ModTime()) > stale {
			os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s still held", path)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------
// Binaries under test, built once per test process.

// e2eBinaries are the programs the hooks run.
type e2eBinaries struct {
	Guard   string // compact-guard
	RecHook string // testdata/e2e/rechook, the recording hook
}

func e2eExe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// e2eBuild builds compact-guard and the recording hook into dir.
func e2eBuild(t *testing.T, dir string) e2eBinaries {
	t.Helper()
	b := e2eBinaries{
		Guard:   filepath.Join(dir, e2eExe("compact-guard")),
		RecHook: filepath.Join(dir, e2eExe("rechook")),
	}
	for _, c := range [][]string{
		{"go", "build", "-o", b.Guard, ".."},
		{"go", "build", "-o", b.RecHook, "./testdata/e2e/rechook"},
	} {
		cmd := exec.Command(c[0], c[1:]...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	return b
}

// ---------------------------------------------------------------------------
// The fake Messages API.

// e2eBlock is one content block of a scripted reply: text, or a tool call
// when Tool is set.
type e2eBlock struct {
	Text  string
	Tool  string
	Input map[string]any
	// InputFn, when set, makes Input when the reply is sent: a tool call
	// whose input depends on the moment (a dated handoff block, E2E-16).
	InputFn func() map[string]any
}

// e2eReply is one scripted model reply.
type e2eReply []e2eBlock

func e2eText(s string) e2eBlock { return e2eBlock{Text: s} }

func e2eWrite(path, content string) e2eBlock {
	return e2eBlock{Tool: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

func e2eEdit(path, old, new string) e2eBlock {
	return e2eBlock{Tool: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

func e2eBash(command, description string) e2eBlock {
	return e2eBlock{Tool: "Bash", Input: map[string]any{"command": command, "description": description}}
}

// e2eRequest is one request the fake received.
type e2eRequest struct {
	Seq    int
	Time   time.Time
	Method string
	Path   string
	Header http.Header
	Body   []byte
	// Kind is "tools" (a main-loop request, answered from the script),
	// "summary" (the compaction request), "too_long" (answered 400,
	// tooLong), "plain" (no tools offered), "count_tokens", "hello" (the
	// client's reachability check) or "unknown" (answered 404).
	Kind string
	// Reply is a short description of what was answered.
	Reply string

	parsed e2eAPIRequest
}

type e2eAPIRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	System   json.RawMessage   `json:"system"`
	Messages []e2eAPIMessage   `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

type e2eAPIMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// SessionID is the session the client names in the request's
// metadata.user_id (a JSON object in 2.1.328), or "".
func (r *e2eRequest) SessionID() string {
	var m struct {
		Metadata struct {
			UserID string `json:"user_id"`
		} `json:"metadata"`
	}
	if json.Unmarshal(r.Body, &m) != nil {
		return ""
	}
	var u struct {
		SessionID string `json:"session_id"`
	}
	if json.Unmarshal([]byte(m.Metadata.UserID), &u) != nil {
		return ""
	}
	return u.SessionID
}

// e2eFake is a scripted fake of the Anthropic Messages API.
type e2eFake struct {
	t   *testing.T
	srv *httptest.Server

	mu     sync.Mutex
	script []e2eReply
	next   int
	reqs   []*e2eRequest
	// tokens is the input_tokens the fake reports; after the first summary
	// request it reports tokensAfterSummary instead (when non-zero), so that
	// an automatic compaction does not repeat forever.
	tokens             int
	tokensAfterSummary int
	summarized         bool
	// lowAfterSummary, when set, is reported for the first main-loop
	// request after each compaction request, tokens for every other: each
	// turn then fills the context again, and the client compacts by itself
	// again and again (E2E-13).
	lowAfterSummary int
	justSummarized  bool
	// onSummary runs when a compaction request arrives, before it is
	// answered: PreCompact hooks have run by then, SessionStart hooks not yet.
	onSummary func()
	// tokensFor, when set, gives the input_tokens of the n-th main-loop
	// request (from 0): a context that grows request by request (E2E-15).
	tokensFor func(n int) int
	mainLoop  int
	// tokensOf, when set, gives the input_tokens of a main-loop or
	// compaction request from the request itself (its messages): a context
	// that a compaction really shrinks (E2E-31 to E2E-34).
	tokensOf func(r *e2eRequest) int
	// tooLong, when above 0, is the largest prompt the fake accepts: a
	// main-loop request whose tokensOf is above it is answered 400 "prompt
	// is too long", as the Messages API answers, and uses no scripted reply
	// (reactive compaction, E2E-33).
	tooLong int
	// summary, when set, is the compaction summary instead of
	// e2eSummaryText (E2E-28: one that keeps some facts and drops others).
	summary string
}

// e2eNewFake starts a fake on 127.0.0.1:0 reporting inputTokens.
func e2eNewFake(t *testing.T, inputTokens int) *e2eFake {
	f := &e2eFake{t: t, tokens: inputTokens}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the ANTHROPIC_BASE_URL of the fake.
func (f *e2eFake) URL() string { return f.srv.URL }

// Script appends replies to the queue of main-loop replies.
func (f *e2eFake) Script(replies ...e2eReply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.script = append(f.script, replies...)
}

// Remaining is the number of scripted replies not yet used.
func (f *e2eFake) Remaining() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.script) - f.next
}

// Summaries is the number of compaction requests received so far.
func (f *e2eFake) Summaries() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.reqs {
		if r.Kind == "summary" {
			n++
		}
	}
	return n
}

// Requests returns the requests received so far.
func (f *e2eFake) Requests() []*e2eRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*e2eRequest(nil), f.reqs...)
}

func (f *e2eFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	req := &e2eRequest{Seq: len(f.reqs) + 1, Time: time.Now(), Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if dir := os.Getenv("COMPACT_GUARD_E2E_DUMP"); dir != "" {
		name := fmt.Sprintf("%s-%03d%s.json", strings.NewReplacer("/", "_", " ", "_").Replace(f.t.Name()), req.Seq,
			strings.ReplaceAll(r.URL.Path, "/", "_"))
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, name), body, 0o644)
	}

	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		f.mu.Lock()
		req.Kind, req.Reply = "count_tokens", fmt.Sprint(f.currentTokens())
		n := f.currentTokens()
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"input_tokens":%d}`, n)
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	case r.Method == http.MethodHead && (r.URL.Path == "/api/hello" || r.URL.Path == "/"):
		// The client's reachability check, made when non-essential traffic
		// is allowed (E2E-31: the cached flags are read only then).
		f.mu.Lock()
		req.Kind, req.Reply = "hello", "200"
		f.mu.Unlock()
		return
	default:
		f.mu.Lock()
		req.Kind, req.Reply = "unknown", "404"
		f.mu.Unlock()
		f.t.Logf("fake API: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, `{"type":"error","error":{"type":"not_found_error","message":"not found"}}`, http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(body, &req.parsed); err != nil {
		f.t.Logf("fake API: request %d: %v", req.Seq, err)
	}
	var reply e2eReply
	isSummary := strings.Contains(e2eLastUserText(req), e2eSummaryMarker)
	f.mu.Lock()
	tokens := f.currentTokens()
	if f.tokensOf != nil && len(req.parsed.Tools) > 0 {
		tokens = f.tokensOf(req)
		if f.tooLong > 0 && !isSummary && tokens > f.tooLong {
			req.Kind, req.Reply = "too_long", fmt.Sprintf("400 prompt is too long: %d tokens > %d maximum", tokens, f.tooLong)
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: %d tokens > %d maximum"}}`, tokens, f.tooLong)
			return
		}
	}
	if f.lowAfterSummary > 0 && f.justSummarized && !isSummary && len(req.parsed.Tools) > 0 {
		tokens, f.justSummarized = f.lowAfterSummary, false
	}
	switch {
	case isSummary:
		req.Kind, reply = "summary", e2eReply{e2eText(cmp.Or(f.summary, e2eSummaryText))}
		f.justSummarized = true
	case len(req.parsed.Tools) == 0:
		req.Kind, reply = "plain", e2eReply{e2eText("E2E plain reply")}
	case f.next < len(f.script):
		req.Kind, reply = "tools", f.script[f.next]
		f.next++
		for i, b := range reply {
			if b.InputFn != nil {
				reply = append(e2eReply(nil), reply...)
				reply[i].Input = b.InputFn()
			}
		}
	default:
		req.Kind, reply = "tools", e2eReply{e2eText("E2E: nothing more scripted.")}
		f.t.Logf("fake API: request %d: script exhausted", req.Seq)
	}
	if req.Kind == "tools" {
		if f.tokensFor != nil && f.tokensOf == nil {
			tokens = f.tokensFor(f.mainLoop)
		}
		f.mainLoop++
	}
	req.Reply = e2eDescribe(reply)
	hook := f.onSummary
	if isSummary {
		f.onSummary = nil
		f.summarized = true
	}
	f.mu.Unlock()
	if isSummary && hook != nil {
		hook()
	}
	model := req.parsed.Model
	if model == "" {
		model = "claude-e2e"
	}
	if req.parsed.Stream {
		e2eWriteSSE(w, req.Seq, model, tokens, reply)
	} else {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(e2eMessage(req.Seq, model, tokens, reply))
	}
}

// currentTokens must be called with f.mu held.
func (f *e2eFake) currentTokens() int {
	if f.summarized && f.tokensAfterSummary > 0 {
		return f.tokensAfterSummary
	}
	return f.tokens
}

func e2eDescribe(r e2eReply) string {
	var parts []string
	for _, b := range r {
		if b.Tool != "" {
			in, _ := json.Marshal(b.Input)
			parts = append(parts, b.Tool+string(in))
		} else {
			parts = append(parts, fmt.Sprintf("text %.60q", b.Text))
		}
	}
	return strings.Join(parts, ", ")
}

func e2eStopReason(r e2eReply) string {
	for _, b := range r {
		if b.Tool != "" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func e2eToolID(seq, i int) string { return fmt.Sprintf("toolu_e2e%04d%02d", seq, i) }

func e2eUsage(tokens, output int) map[string]any {
	return map[string]any{
		"input_tokens": tokens, "output_tokens": output,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
	}
}

func e2eContent(seq int, r e2eReply) []map[string]any {
	var out []map[string]any
	for i, b := range r {
		if b.Tool != "" {
			out = append(out, map[string]any{"type": "tool_use", "id": e2eToolID(seq, i), "name": b.Tool, "input": b.Input})
		} else {
			out = append(out, map[string]any{"type": "text", "text": b.Text})
		}
	}
	return out
}

func e2eMessage(seq int, model string, tokens int, r e2eReply) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("msg_e2e%04d", seq), "type": "message", "role": "assistant", "model": model,
		"content": e2eContent(seq, r), "stop_reason": e2eStopReason(r), "stop_sequence": nil,
		"usage": e2eUsage(tokens, 20),
	}
}

// e2eWriteSSE streams a reply the way the Messages API does: message_start,
// per block content_block_start / _delta / _stop, message_delta with the
// stop reason and usage, message_stop.
func e2eWriteSSE(w http.ResponseWriter, seq int, model string, tokens int, r e2eReply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_e2e%04d", seq), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": e2eUsage(tokens, 1),
	}})
	ev("ping", map[string]any{"type": "ping"})
	for i, b := range r {
		if b.Tool != "" {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": e2eToolID(seq, i), "name": b.Tool, "input": map[string]any{}}})
			in, _ := json.Marshal(b.Input)
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		} else {
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": e2eStopReason(r), "stop_sequence": nil},
		"usage": e2eUsage(tokens, 20)})
	ev("message_stop", map[string]any{"type": "message_stop"})
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
}

// e2eLastUserText is the text of the last user message of a request
// (text blocks only, tool results left out).
func e2eLastUserText(r *e2eRequest) string {
	msgs := r.parsed.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(msgs[i].Content, &s) == nil {
			return s
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(msgs[i].Content, &blocks)
		var b strings.Builder
		for _, bl := range blocks {
			if bl.Type == "text" {
				b.WriteString(bl.Text)
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	return ""
}

// e2eAllText is every string value of the request body, joined by newlines:
// what the model would read, whatever block or field carries it.
func e2eAllText(r *e2eRequest) string { return e2eAllTextSep(r, "\n") }

// e2eAdditionalContexts extracts the SessionStart context blocks of a
// request: from each occurrence of the prefix to the end of its string.
func e2eAdditionalContexts(r *e2eRequest) []string {
	var out []string
	for _, s := range strings.Split(e2eAllTextSep(r, "\x00"), "\x00") {
		for {
			i := strings.Index(s, e2eAdditionalContext)
			if i < 0 {
				break
			}
			s = s[i+len(e2eAdditionalContext):]
			end := strings.Index(s, e2eAdditionalContext)
			if end < 0 {
				out = append(out, strings.TrimSpace(s))
				break
			}
			out = append(out, strings.TrimSpace(s[:end]))
			s = s[end:]
		}
	}
	return out
}

// e2eAllTextSep is every string value of the request body joined by sep,
// keys of an object in sorted order.
func e2eAllTextSep(r *e2eRequest, sep string) string {
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		return string(r.Body)
	}
	var parts []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			parts = append(parts, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	return strings.Join(parts, sep)
}

// e2eSummaryIndex is the index in reqs of the n-th (from 1) compaction
// request, or -1.
func e2eSummaryIndex(reqs []*e2eRequest, n int) int {
	for i, r := range reqs {
		if r.Kind == "summary" {
			n--
			if n == 0 {
				return i
			}
		}
	}
	return -1
}

// e2eFirstAfter is the first main-loop request after index i, or nil.
func e2eFirstAfter(reqs []*e2eRequest, i int) *e2eRequest {
	for _, r := range reqs[i+1:] {
		if r.Kind == "tools" {
			return r
		}
	}
	return nil
}

// Log writes the request log to t.Log.
func (f *e2eFake) Log(t *testing.T) {
	var b strings.Builder
	for _, r := range f.Requests() {
		fmt.Fprintf(&b, "#%d %s %s %s kind=%s session=%s model=%s stream=%v tools=%d msgs=%d -> %s\n", r.Seq, r.Time.Format("15:04:05.000"),
			r.Method, r.Path, r.Kind, r.SessionID(), r.parsed.Model, r.parsed.Stream, len(r.parsed.Tools), len(r.parsed.Messages), r.Reply)
		if lu := e2eLastUserText(r); lu != "" {
			fmt.Fprintf(&b, "    last user text: %.300q\n", lu)
		}
		for _, c := range e2eAdditionalContexts(r) {
			fmt.Fprintf(&b, "    additional context: %.2000q\n", c)
		}
	}
	t.Logf("fake API request log (%s):\n%s", f.URL(), b.String())
}

// ---------------------------------------------------------------------------
// A scenario's world: HOME, project, hooks, client runs.

// e2eHooks says which hooks a world registers.
type e2eHooks int

const (
	e2eGuardHooks     e2eHooks = iota // compact-guard precompact / postcompact
	e2eRecordingHooks                 // the recording hook, for every event
	// compact-guard's hooks, and the recording hook beside them, silent
	e2eGuardAndRecordingHooks
	e2eNoHooks // none: the scenario installs them (e2e_install_test.go)
)

// e2eWorld is one scenario's temporary HOME with its hook registration,
// snapshot folder and environment. Projects live inside it.
type e2eWorld struct {
	t        *testing.T
	bins     e2eBinaries
	claude   e2eClient
	Home     string
	Settings string // the settings file passed with --settings
	// SnapDir is COMPACT_GUARD_DIR; Log is compact-guard.log above it.
	SnapDir string
	Log     string
	// RecordDir holds the recording hook's payloads.
	RecordDir string
	// BinDir comes first on PATH and holds `claude`, the client, as a
	// user's PATH does (install asks it for its release, IN-18).
	BinDir string
	// ExtraEnv is added to every client run.
	ExtraEnv []string
	// ClientTimeout, when set, bounds one headless run instead of
	// e2eClientTimeout: a scenario of forty steps whose compaction hooks a
	// recording hook holds (E2E-41) takes longer on two busy cores than
	// one answer does. It bounds a stuck run; nothing waits for it.
	ClientTimeout time.Duration

	mu   sync.Mutex
	runs []string // transcript of client runs, for failure dumps
}

// e2eNewWorld makes a temporary HOME and registers the hooks in it.
func e2eNewWorld(t *testing.T, bins e2eBinaries, claude e2eClient, hooks e2eHooks) *e2eWorld {
	t.Helper()
	root := t.TempDir()
	w := &e2eWorld{
		t: t, bins: bins, claude: claude,
		Home:      filepath.Join(root, "home"),
		RecordDir: filepath.Join(root, "hook-records"),
	}
	// The snapshot folder's path holds a space and Cyrillic letters too.
	w.SnapDir = filepath.Join(w.Home, ".local", "state", "compact guard данные", "snapshots")
	w.Log = filepath.Join(filepath.Dir(w.SnapDir), "compact-guard.log")
	w.Settings = filepath.Join(w.Home, ".claude", "settings.json")
	w.BinDir = filepath.Join(root, "bin")
	for _, d := range []string{w.Home, filepath.Join(w.Home, ".claude"), w.RecordDir, w.BinDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if len(claude.Argv) > 0 {
		e2eClaudeShim(t, w.BinDir, claude)
	}
	switch hooks {
	case e2eGuardHooks:
		e2eRegisterGuardHooks(t, w)
	case e2eRecordingHooks:
		e2eRegisterRecordingHooks(t, bins.RecHook, w.Settings, claude.Version)
	case e2eGuardAndRecordingHooks:
		e2eRegisterGuardHooks(t, w)
		e2eRegisterRecordingHooks(t, bins.RecHook, w.Settings, claude.Version)
		w.ExtraEnv = append(w.ExtraEnv, "E2E_RECHOOK_SILENT=1")
	}
	t.Cleanup(func() {
		if t.Failed() {
			w.dump()
		}
		if keep := os.Getenv("COMPACT_GUARD_E2E_KEEP"); keep != "" {
			dst := filepath.Join(keep, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
			if err := os.CopyFS(dst, os.DirFS(root)); err != nil {
				t.Logf("keeping %s in %s: %v", root, dst, err)
			} else {
				t.Logf("kept the scenario's HOME and projects in %s", dst)
			}
		}
	})
	return w
}

// e2eRegisterGuardHooks registers compact-guard's hooks in the settings file
// at path with `compact-guard install --settings PATH`, as a user would, and
// checks that the file then names the binary for both hook events.
func e2eRegisterGuardHooks(t *testing.T, w *e2eWorld) {
	t.Helper()
	cmd := exec.Command(w.bins.Guard, "install", "--settings", w.Settings)
	cmd.Env = w.env(nil)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("compact-guard install --settings %s: %v\n%s", w.Settings, err, out)
	}
	b, err := os.ReadFile(w.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("settings written by install: %v\n%s", err, b)
	}
	for ev, sub := range map[string]string{"PreCompact": " precompact", "SessionStart": " postcompact"} {
		found := false
		for _, m := range s.Hooks[ev] {
			for _, h := range m.Hooks {
				found = found || strings.Contains(h.Command, w.bins.Guard) && strings.HasSuffix(h.Command, sub)
			}
		}
		if !found {
			t.Fatalf("settings written by install have no %s hook running %q%s:\n%s", ev, w.bins.Guard, sub, b)
		}
	}
}

// e2eRegisterRecordingHooks registers the recording hook for every event
// the harness cares about that the client knows: releases before 2.1.76 do
// not know PostCompact, and load no hook at all from a settings file that
// names it (E2E-10).
func e2eRegisterRecordingHooks(t *testing.T, rec, path, version string) {
	t.Helper()
	hooks := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		var s struct {
			Hooks map[string]any `json:"hooks"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Hooks != nil {
			hooks = s.Hooks
		}
	}
	h := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": e2eQuote(rec), "timeout": 15}}}
	for _, ev := range []string{"PreCompact", "SessionStart", "PostCompact"} {
		if ev == "PostCompact" && transcript.VersionBefore(version, "2.1.76") {
			continue
		}
		list, _ := hooks[ev].([]any)
		hooks[ev] = append(list, h)
	}
	e2eWriteSettings(t, path, map[string]any{"hooks": hooks})
}

func e2eWriteSettings(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// e2eQuote quotes a path for the shell the client runs hook commands in.
func e2eQuote(p string) string {
	if runtime.GOOS == "windows" {
		return `"` + p + `"`
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// NewProject makes a git repository with one commit at a path holding a
// space and Cyrillic letters, inside the world's root.
func (w *e2eWorld) NewProject(name string) string {
	w.t.Helper()
	dir := filepath.Join(filepath.Dir(w.Home), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# демо\n"), 0o644); err != nil {
		w.t.Fatal(err)
	}
	for _, c := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "README.md"},
		{"-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid", "commit", "-q", "-m", "initial"},
	} {
		cmd := exec.Command("git", c...)
		cmd.Dir = dir
		cmd.Env = w.env(nil)
		if out, err := cmd.CombinedOutput(); err != nil {
			w.t.Fatalf("git %s: %v\n%s", strings.Join(c, " "), err, out)
		}
	}
	return dir
}

// e2eBaseEnv is the test process's environment without the coding client's
// own variables, which would otherwise leak a real session into the run.
func e2eBaseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "ANTHROPIC_"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "COMPACT_GUARD"),
			strings.HasPrefix(k, "OTEL_"), strings.HasPrefix(k, "GIT_"),
			k == "HOME", k == "USERPROFILE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// env is the client's environment for a run against fake.
func (w *e2eWorld) env(fake *e2eFake) []string {
	env := append(e2eBaseEnv(),
		// Later duplicates win: this PATH replaces the test's.
		"PATH="+w.BinDir+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HOME="+w.Home,
		"USERPROFILE="+w.Home,
		"XDG_CONFIG_HOME="+filepath.Join(w.Home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(w.Home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(w.Home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(w.Home, ".local", "state"),
		"COMPACT_GUARD_DIR="+w.SnapDir,
		"E2E_HOOK_RECORD_DIR="+w.RecordDir,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"LANG=C.UTF-8", "LC_ALL=C.UTF-8",
	)
	if fake != nil {
		env = append(env, "ANTHROPIC_BASE_URL="+fake.URL(), "ANTHROPIC_API_KEY=test")
	}
	return append(env, w.ExtraEnv...)
}

// e2eResult is the client's --output-format json result.
type e2eResult struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
	NumTurns  int    `json:"num_turns"`
}

// Claude runs the client headless in project against fake with the given
// prompt; resume names the session to continue ("" for a new one). Extra
// arguments go before the prompt. It fails the test when the client fails.
func (w *e2eWorld) Claude(fake *e2eFake, project, resume, prompt string, extra ...string) e2eResult {
	w.t.Helper()
	res, err := w.TryClaude(fake, project, resume, prompt, extra...)
	if err != nil {
		w.t.Fatal(err)
	}
	return res
}

// TryClaude is Claude returning the error instead of failing.
func (w *e2eWorld) TryClaude(fake *e2eFake, project, resume, prompt string, extra ...string) (e2eResult, error) {
	args := []string{"-p", prompt, "--settings", w.Settings, "--output-format", "json", "--allowedTools", "Write Edit Bash"}
	if resume != "" {
		args = append(args, "--resume", resume)
	}
	args = append(args, extra...)
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(w.ClientTimeout, e2eClientTimeout))
	defer cancel()
	cmd := w.claude.Command(ctx, args...)
	cmd.Dir = project
	cmd.Env = w.env(fake)
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	var res e2eResult
	jerr := json.Unmarshal(stdout.Bytes(), &res)
	out := stdout.String()
	if jerr == nil { // the full result is long; these fields tell what happened
		out = fmt.Sprintf("subtype=%s is_error=%v session_id=%s result=%.1000q", res.Subtype, res.IsError, res.SessionID, res.Result)
	}
	w.mu.Lock()
	w.runs = append(w.runs, fmt.Sprintf("claude %q in %s (%s, err=%v)\n  stdout: %s\n  stderr: %s",
		args, project, took, err, out, stderr.String()))
	w.mu.Unlock()
	switch {
	case err != nil:
		return res, fmt.Errorf("claude %q: %v (after %s)\nstdout: %s\nstderr: %s", args, err, took, out, stderr.String())
	case jerr != nil:
		return res, fmt.Errorf("claude %q: output is not a json result: %v\n%s", args, jerr, out)
	case res.IsError:
		return res, fmt.Errorf("claude %q: result is an error: %s", args, out)
	}
	return res, nil
}

// Compact runs "/compact ARGS" in the session and fails the test unless
// the fake received a compaction request during the run: the client reports
// a compaction blocked by a PreCompact hook as a success.
func (w *e2eWorld) Compact(fake *e2eFake, project, sessionID, args string) {
	w.t.Helper()
	if err := w.TryCompact(fake, project, sessionID, args); err != nil {
		w.t.Fatal(err)
	}
}

// TryCompact is Compact returning the error instead of failing.
func (w *e2eWorld) TryCompact(fake *e2eFake, project, sessionID, args string) error {
	prompt := strings.TrimSpace("/compact " + args)
	before := fake.Summaries()
	res, err := w.TryClaude(fake, project, sessionID, prompt)
	if err != nil {
		return err
	}
	if fake.Summaries() == before {
		return fmt.Errorf("claude -p %q --resume %s did not compact; it said: %q", prompt, sessionID, res.Result)
	}
	return nil
}

// dump writes what a failure needs to be understood to t.Log.
func (w *e2eWorld) dump() {
	w.mu.Lock()
	runs := append([]string(nil), w.runs...)
	w.mu.Unlock()
	for _, r := range runs {
		w.t.Logf("client run: %s", r)
	}
	if b, err := os.ReadFile(w.Log); err == nil {
		w.t.Logf("hook log %s:\n%s", w.Log, b)
	} else {
		w.t.Logf("hook log %s: %v", w.Log, err)
	}
	var files []string
	filepath.WalkDir(filepath.Dir(w.SnapDir), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fi, _ := d.Info()
			files = append(files, fmt.Sprintf("%s %v %d", p, fi.Mode(), fi.Size()))
		}
		return nil
	})
	w.t.Logf("snapshot folder %s:\n%s", w.SnapDir, strings.Join(files, "\n"))
}

// Transcript returns the entries of the session's transcript, found under
// the world's ~/.claude/projects.
func (w *e2eWorld) Transcript(sessionID string) []map[string]any {
	w.t.Helper()
	path := w.TranscriptPath(sessionID)
	b, err := os.ReadFile(path)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal(line, &e); err != nil {
			w.t.Errorf("transcript %s: bad line: %v", path, err)
			continue
		}
		out = append(out, e)
	}
	return out
}

// e2eHookAttachments returns the transcript's attachment records of the
// given type (hook_success, hook_additional_context, ...) for hookEvent.
func e2eHookAttachments(entries []map[string]any, typ, hookEvent string) []map[string]any {
	var out []map[string]any
	for _, e := range entries {
		if e["type"] != "attachment" {
			continue
		}
		a, _ := e["attachment"].(map[string]any)
		if a == nil || a["type"] != typ {
			continue
		}
		if a["hookEvent"] == hookEvent || strings.HasPrefix(fmt.Sprint(a["hookName"]), hookEvent) {
			out = append(out, a)
		}
	}
	return out
}

// Records returns the recording hook's payloads, oldest first.
func (w *e2eWorld) Records() []map[string]any {
	w.t.Helper()
	ents, err := os.ReadDir(w.RecordDir)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range ents { // names start with a nanosecond time
		b, err := os.ReadFile(filepath.Join(w.RecordDir, e.Name()))
		if err != nil {
			w.t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			w.t.Errorf("hook record %s: %v: %s", e.Name(), err, b)
			continue
		}
		out = append(out, m)
	}
	return out
}

// e2ePreCompactRun is what the transcript recorded of one PreCompact hook
// run. Claude Code 2.1.328 writes no hook_success attachment for PreCompact;
// it lists the hooks in the /compact command's <local-command-stdout> entry
// as "PreCompact [COMMAND] completed successfully" followed by ": STDOUT"
// when the hook printed something.
type e2ePreCompactRun struct {
	Line   string // the whole recorded text of the run
	OK     bool   // "completed successfully"
	Stdout string // what the hook printed, as recorded
}

// e2ePreCompactRuns collects the PreCompact runs the transcript recorded,
// from <local-command-stdout> entries and from any hook_success attachment.
func e2ePreCompactRuns(entries []map[string]any) []e2ePreCompactRun {
	var out []e2ePreCompactRun
	for _, a := range e2eHookAttachments(entries, "hook_success", "PreCompact") {
		out = append(out, e2ePreCompactRun{Line: fmt.Sprint(a), OK: true, Stdout: fmt.Sprint(a["stdout"]) + fmt.Sprint(a["content"])})
	}
	for _, e := range entries {
		if e["type"] != "user" {
			continue
		}
		msg, _ := e["message"].(map[string]any)
		text, _ := msg["content"].(string)
		const open, end = "<local-command-stdout>", "</local-command-stdout>"
		i := strings.Index(text, open)
		if i < 0 {
			continue
		}
		text = strings.TrimSuffix(text[i+len(open):], end)
		// Each hook run starts a line with its event name and "[".
		var runs []string
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "PreCompact [") || strings.HasPrefix(line, "PostCompact [") || len(runs) == 0 {
				runs = append(runs, line)
			} else {
				runs[len(runs)-1] += "\n" + line
			}
		}
		for _, r := range runs {
			if !strings.HasPrefix(r, "PreCompact [") {
				continue
			}
			run := e2ePreCompactRun{Line: r}
			const ok = "] completed successfully"
			if j := strings.LastIndex(r, ok); j >= 0 {
				run.OK = true
				run.Stdout = strings.TrimPrefix(r[j+len(ok):], ": ")
			}
			out = append(out, run)
		}
	}
	return out
}

// e2eSummaryInstructions is the "Additional Instructions" section of a
// compaction request: the /compact arguments, then the stdout of every
// PreCompact hook (2.1.328), up to the closing reminder.
func e2eSummaryInstructions(r *e2eRequest) (string, bool) {
	text := e2eLastUserText(r)
	const open = "Additional Instructions:\n"
	i := strings.Index(text, open)
	if i < 0 {
		return "", false
	}
	text = text[i+len(open):]
	if j := strings.Index(text, "\n\nREMINDER:"); j >= 0 {
		text = text[:j]
	}
	return strings.TrimSpace(text), true
}

// e2eSnap is one snapshot on disk: its two files and its JSON record.
type e2eSnap struct {
	Base     string
	JSONPath string
	MDPath   string
	Rec      e2eSnapRecord
}

// e2eSnapRecord holds the fields of the snapshot record (schema 1,
// snapshot/record.go and transcript/facts.go) the scenarios check. It is
// decoded independently of the snapshot package on purpose: the test checks
// the file format, not the Go type.
type e2eSnapRecord struct {
	Schema             int       `json:"schema"`
	Name               string    `json:"name"`
	SessionID          string    `json:"session_id"`
	CreatedAt          time.Time `json:"created_at"`
	Trigger            string    `json:"trigger"`
	CustomInstructions *string   `json:"custom_instructions"`
	Cwd                string    `json:"cwd"`
	GitBranch          string    `json:"git_branch"`
	Prompts            []struct {
		Text string `json:"text"`
	} `json:"prompts"`
	Files []struct {
		Path     string `json:"path"`
		Edits    int    `json:"edits"`
		LastTool string `json:"last_tool"`
	} `json:"files"`
	Commands []struct {
		Tool      string `json:"tool"`
		Command   string `json:"command"`
		Outcome   string `json:"outcome"`
		ExitCode  *int   `json:"exit_code"`
		ErrorLine string `json:"error_line"`
	} `json:"commands"`
	Git *struct {
		Repo        bool   `json:"repo"`
		Branch      string `json:"branch"`
		Head        string `json:"head"`
		ChangeCount int    `json:"change_count"`
		Error       string `json:"error"`
	} `json:"git"`
	Preparation *struct {
		Kind        string `json:"kind"`
		OtherBlocks int    `json:"other_blocks"`
	} `json:"preparation"`
}

// e2eSnapshots returns the snapshots in dir whose record names sessionID,
// oldest first (by the record's creation time). A .json that does not
// decode fails the test.
func e2eSnapshots(t *testing.T, dir, sessionID string) []e2eSnap {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "snap_*.json"))
	var out []e2eSnap
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var rec e2eSnapRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Errorf("snapshot record %s: %v", m, err)
			continue
		}
		if rec.SessionID != sessionID {
			continue
		}
		base := strings.TrimSuffix(filepath.Base(m), ".json")
		out = append(out, e2eSnap{Base: base, JSONPath: m, MDPath: strings.TrimSuffix(m, ".json") + ".md", Rec: rec})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Rec.CreatedAt.Equal(out[j].Rec.CreatedAt) {
			return out[i].Rec.CreatedAt.Before(out[j].Rec.CreatedAt)
		}
		return e2eNameOrder(out[i].Base) < e2eNameOrder(out[j].Base)
	})
	return out
}

// e2eNameOrder orders snapshot names of the same second: "snap_T_sid8"
// before "snap_T_sid8_1" before "snap_T_sid8_2" (the collision suffix).
func e2eNameOrder(base string) string {
	parts := strings.Split(base, "_")
	suffix := ""
	if len(parts) == 4 {
		suffix = parts[3]
	}
	return fmt.Sprintf("%s %6s", strings.Join(parts[:min(len(parts), 2)], "_"), suffix)
}

// e2eCheckFile checks that path is a regular, non-empty file readable only
// by its owner.
func e2eCheckFile(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Errorf("snapshot file: %v", err)
		return
	}
	if fi.Size() == 0 {
		t.Errorf("snapshot file %s is empty", path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("snapshot file %s has mode %v, want 0600", path, fi.Mode().Perm())
	}
}

// TranscriptPath is the session's transcript file under the world's HOME.
func (w *e2eWorld) TranscriptPath(sessionID string) string {
	w.t.Helper()
	matches, _ := filepath.Glob(filepath.Join(w.Home, ".claude", "projects", "*", sessionID+".jsonl"))
	if len(matches) != 1 {
		w.t.Fatalf("transcript of session %s: found %q", sessionID, matches)
	}
	return matches[0]
}

// ---------------------------------------------------------------------------
// The interactive client, driven through tmux.

// e2eTUI is one interactive client running in a detached tmux session on a
// private tmux server (its own socket), as a user would run it in a
// terminal: the harness types keys and reads the screen.
type e2eTUI struct {
	w      *e2eWorld
	socket string
	target string
}

// e2eRequireTmux returns the tmux binary; with CI=true a missing tmux fails
// the test (.ci/run installs it), otherwise the test skips.
func e2eRequireTmux(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("tmux not found (CI=true, so not skipping): %v", err)
		}
		t.Skipf("skipping interactive end-to-end test: tmux not found: %v", err)
	}
	return p
}

// StartTUI starts the interactive client in project against fake, with
// args after the harness's own (--settings).
func (w *e2eWorld) StartTUI(fake *e2eFake, project string, args ...string) *e2eTUI {
	w.t.Helper()
	tmux := e2eRequireTmux(w.t)
	u := &e2eTUI{w: w, socket: filepath.Join(filepath.Dir(w.Home), "tmux.sock"), target: "cg"}
	argv := append(append([]string(nil), w.claude.Argv...), "--settings", w.Settings)
	argv = append(argv, args...)
	// remain-on-exit keeps the pane, and what the client printed last,
	// when the client exits.
	cmd := exec.Command(tmux, append([]string{"-S", u.socket, "-f", os.DevNull,
		"start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-s", u.target, "-x", "160", "-y", "50", "-c", project, "--"}, argv...)...)
	cmd.Env = append(w.env(fake), "TERM=xterm-256color")
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	var pid int
	if out, err := u.tmux("display-message", "-p", "-t", u.target, "#{pane_pid}"); err == nil {
		fmt.Sscan(out, &pid)
	}
	w.t.Cleanup(func() {
		if w.t.Failed() {
			w.t.Logf("last screen of the interactive client:\n%s", u.Screen())
		}
		exec.Command(tmux, "-S", u.socket, "kill-server").Run()
		// The client goes on writing into HOME while it exits; the test's
		// temporary folder can be removed only after it is gone.
		if p, err := os.FindProcess(pid); pid > 0 && err == nil {
			e2eWaitFor(30*time.Second, func() bool { return p.Signal(syscall.Signal(0)) != nil })
		}
	})
	return u
}

func (u *e2eTUI) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", u.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// Screen is what the terminal shows now.
func (u *e2eTUI) Screen() string {
	out, err := u.tmux("capture-pane", "-p", "-t", u.target)
	if err != nil {
		return fmt.Sprintf("(capture-pane: %v: %s)", err, out)
	}
	return out
}

// Type types text literally, then presses the given keys (tmux key names
// such as Enter, Escape, Down).
func (u *e2eTUI) Type(text string, keys ...string) {
	u.w.t.Helper()
	if text != "" {
		if out, err := u.tmux("send-keys", "-t", u.target, "-l", text); err != nil {
			u.w.t.Fatalf("tmux send-keys: %v: %s", err, out)
		}
	}
	for _, k := range keys {
		if out, err := u.tmux("send-keys", "-t", u.target, k); err != nil {
			u.w.t.Fatalf("tmux send-keys %s: %v: %s", k, err, out)
		}
	}
}

// WaitScreen polls the screen until cond holds and returns it; it fails the
// test after timeout with the last screen.
func (u *e2eTUI) WaitScreen(what string, timeout time.Duration, cond func(string) bool) string {
	u.w.t.Helper()
	var s string
	if !e2eWaitFor(timeout, func() bool { s = u.Screen(); return cond(s) }) {
		u.w.t.Fatalf("interactive client: %s did not happen within %s; the screen:\n%s", what, timeout, s)
	}
	return s
}

// e2eWaitFor polls cond until it holds or timeout passes. It waits for a
// state, not for a time: the timeout only bounds a run that is stuck.
func e2eWaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Choose selects the option of the dialog on screen whose label starts
// with label, the last option (End) or, when first is set, the first (Home),
// and confirms it with Enter, until the option is gone from the screen.
// End and Home select the same option however often they are pressed, so a
// key that arrives late does no harm. A dialog that has just appeared may be
// drawn again from its default option, dropping what was pressed meanwhile;
// so Enter is pressed only once the selection has stayed on the option for
// a while, and the selection is made again whenever it was lost.
func (u *e2eTUI) Choose(label string, first bool) {
	u.w.t.Helper()
	key := "End"
	if first {
		key = "Home"
	}
	u.WaitScreen("option "+label, 60*time.Second, func(s string) bool { return strings.Contains(s, label) })
	selected := func() bool {
		for _, l := range strings.Split(u.Screen(), "\n") {
			if strings.Contains(l, "❯") {
				return strings.HasPrefix(strings.TrimSpace(l), "❯ "+label)
			}
		}
		return false
	}
	for tries := 0; strings.Contains(u.Screen(), label); tries++ {
		if tries == 10 {
			u.w.t.Fatalf("interactive client: cannot choose %q; the screen:\n%s", label, u.Screen())
		}
		if !selected() {
			u.Type("", key)
			if !e2eWaitFor(5*time.Second, selected) {
				continue
			}
		}
		// Stable for 3 s: the dialog is not being drawn again.
		if e2eWaitFor(3*time.Second, func() bool { return !selected() }) {
			continue
		}
		u.Type("", "Enter")
		e2eWaitFor(15*time.Second, func() bool { return !strings.Contains(u.Screen(), label) })
	}
}

// Submit types text into the prompt and presses Enter, then waits until
// submitted reports that the client acted on it (a request reached the
// fake, say). Keys typed while the client is still setting up its input are
// dropped, so the text is typed again (after Ctrl-U clears what did arrive)
// until the input line shows it, and Enter is pressed again only while the
// text is still in the input line.
func (u *e2eTUI) Submit(text string, submitted func() bool) {
	u.w.t.Helper()
	input := func() string {
		lines := strings.Split(u.Screen(), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if strings.Contains(lines[i], "❯") {
				return lines[i]
			}
		}
		return ""
	}
	for tries := 0; !strings.Contains(input(), text); tries++ {
		if tries == 5 {
			u.w.t.Fatalf("interactive client: %q does not show in the input line; the screen:\n%s", text, u.Screen())
		}
		if tries > 0 {
			u.Type("", "C-u")
		}
		u.Type(text)
		e2eWaitFor(10*time.Second, func() bool { return strings.Contains(input(), text) })
	}
	for tries := 0; ; tries++ {
		u.Type("", "Enter")
		if e2eWaitFor(60*time.Second, submitted) {
			return
		}
		if tries == 2 || !strings.Contains(input(), text) {
			u.w.t.Fatalf("interactive client: %q was not acted on; the screen:\n%s", text, u.Screen())
		}
	}
}

// e2eClaudeShim makes `claude` in dir start the client: a link to the
// native binary, or a script running cli.js with node.
func e2eClaudeShim(t *testing.T, dir string, c e2eClient) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return // the Windows e2e is not run; PATH keeps the machine's claude, if any
	}
	p := filepath.Join(dir, "claude")
	if len(c.Argv) == 1 {
		if err := os.Symlink(c.Argv[0], p); err != nil {
			t.Fatal(err)
		}
		return
	}
	script := "#!/bin/sh\nexec"
	for _, a := range c.Argv {
		script += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	if err := os.WriteFile(p, []byte(script+` "$@"`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}
