package cmd

// What the residue costs (PF-22, PF-23, specs/performance.md): the
// PostCompact run that compares the summary and records it, and the watch
// run that hands the residue over, each a process started as Claude Code
// starts a hook.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// benchResidueWorld is a session compacted once: the snapshot folder of
// BenchmarkPostcompact's shape (the session's snapshot, 39 of other
// sessions, 1,000 unrelated files), its transcript before and after the
// client writes the boundary, and the files each run changes, saved as
// they must be before it.
type benchResidueWorld struct {
	root, snapDir, tpath, sid string
	name                      string // the session's snapshot
	before, after             []byte // the transcript at PostCompact, at the next prompt
	record, md                []byte // the snapshot unconfirmed
	stateFile                 string
	state                     []byte // the watch state with the residue due
	residue                   []byte // the residue record PostCompact leaves
	postCompact, prompt       []byte // the payloads
}

// benchSummary is a summary of the length and shape Claude Code writes
// (the real ones of the shared fixtures are 10,000 to 16,000 characters):
// sections naming files, quoting a prompt and a command.
func benchSummary() string {
	var b strings.Builder
	b.WriteString("<analysis>\nLet me go through the conversation chronologically.\n</analysis>\n<summary>\n1. Primary Request and Intent:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "   - Section %d: the user asked to refactor `internal/pkg%02d/handler.go` and to keep `go test ./...` green; "+
			"the work touched `internal/pkg%02d/handler_test.go` and the README, and ran `go vet ./internal/pkg%02d/`.\n", i, i, i, i)
		fmt.Fprintf(&b, "   - \"Please make the handler in package %02d return typed errors and log the request id\"\n", i)
		b.WriteString("     The errors are wrapped with %w; the log line carries the id; the tests cover both paths and the edge cases.\n")
	}
	b.WriteString("</summary>")
	return b.String()
}

func newBenchResidueWorld(b *testing.B, c *benchCorpus) *benchResidueWorld {
	b.Helper()
	src := c.transcript(b, "10MB")
	w := &benchResidueWorld{root: filepath.Join(c.dir, "residue"), sid: "c0ffee00-2222-4222-8333-444455556666"}
	if err := os.RemoveAll(w.root); err != nil {
		b.Fatal(err)
	}
	w.snapDir = filepath.Join(w.root, "snapshots")
	if err := os.MkdirAll(w.snapDir, 0o700); err != nil {
		b.Fatal(err)
	}
	for i := range 1000 {
		ext := []string{".txt", ".json", ".md", ".log"}[i%4]
		if err := os.WriteFile(filepath.Join(w.snapDir, fmt.Sprintf("unrelated-%04d%s", i, ext)), []byte("not a snapshot\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	data, err := os.ReadFile(src.path)
	if err != nil {
		b.Fatal(err)
	}
	w.tpath = filepath.Join(w.root, "projects", "-home-dev-src-проект demo", w.sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(w.tpath), 0o700); err != nil {
		b.Fatal(err)
	}
	w.before = data
	if err := os.WriteFile(w.tpath, w.before, 0o600); err != nil {
		b.Fatal(err)
	}
	for i := 1; i < snapshot.DefaultKeep; i++ {
		osid := fmt.Sprintf("0ther%03d-aaaa-4bbb-8ccc-dddddddddddd", i)
		if r := c.run(b, w.snapDir, c.repo, precompactPayload(osid, w.tpath, c.repo), "precompact"); r.exitCode != 0 {
			b.Fatalf("precompact for another session exited %d: %s", r.exitCode, r.stderr)
		}
	}
	// The compaction: PreCompact, SessionStart(compact).
	time.Sleep(1100 * time.Millisecond) // its own second, so that its name is the newest
	names := benchSnapshotNames(b, w.snapDir)
	if r := c.run(b, w.snapDir, c.repo, precompactPayload(w.sid, w.tpath, c.repo), "precompact"); r.exitCode != 0 {
		b.Fatalf("precompact exited %d: %s", r.exitCode, r.stderr)
	}
	w.name = benchNewSnapshot(b, w.snapDir, names)
	start, _ := json.Marshal(map[string]any{"session_id": w.sid, "transcript_path": w.tpath, "cwd": c.repo,
		"hook_event_name": "SessionStart", "source": "compact"})
	r := c.run(b, w.snapDir, c.repo, start, "postcompact")
	pointer := hookContext(r.stdout)
	if !strings.Contains(pointer, w.name) {
		b.Fatalf("the pointer does not name %s: %q", w.name, r.stdout)
	}
	w.record, _ = os.ReadFile(filepath.Join(w.snapDir, w.name+".json"))
	w.md, _ = os.ReadFile(filepath.Join(w.snapDir, w.name+".md"))
	w.stateFile = watch.StoreFor(w.snapDir).Path(w.sid)
	w.state, _ = os.ReadFile(w.stateFile)
	w.postCompact, _ = json.Marshal(map[string]any{"session_id": w.sid, "transcript_path": w.tpath, "cwd": c.repo,
		"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": benchSummary()})
	w.prompt, _ = json.Marshal(map[string]any{"session_id": w.sid, "transcript_path": w.tpath, "cwd": c.repo,
		"hook_event_name": "UserPromptSubmit", "prompt_id": "p2", "prompt": "go on"})

	// What the client writes after the hooks: the boundary, the summary
	// entry, the SessionStart context it gave the model.
	now := time.Now().UTC()
	var tail bytes.Buffer
	for _, e := range []map[string]any{
		{"type": "system", "subtype": "compact_boundary", "uuid": "bench-boundary", "isSidechain": false, "content": "Conversation compacted",
			"timestamp": now.Format(time.RFC3339Nano), "version": "2.1.328", "sessionId": w.sid,
			"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 167000, "postTokens": 4000}},
		{"type": "user", "uuid": "bench-summary", "parentUuid": "bench-boundary", "isSidechain": false, "isCompactSummary": true,
			"timestamp": now.Format(time.RFC3339Nano), "message": map[string]any{"role": "user",
				"content": "This session is being continued from a previous conversation that ran out of context.\n\nSummary:\n" + benchSummary()}},
		{"type": "attachment", "uuid": "bench-context", "timestamp": now.Format(time.RFC3339Nano),
			"attachment": map[string]any{"type": "hook_additional_context", "hookEvent": "SessionStart", "content": []string{pointer}}},
	} {
		j, _ := json.Marshal(e)
		tail.Write(append(j, '\n'))
	}
	w.after = append(append([]byte(nil), w.before...), tail.Bytes()...)

	// One PostCompact, for the residue record the hand-over starts from.
	w.resetPostCompact(b)
	if r := c.run(b, w.snapDir, c.repo, w.postCompact, "postcompact"); r.exitCode != 0 || len(r.stdout) != 0 {
		b.Fatalf("PostCompact: exit %d, stdout %q", r.exitCode, r.stdout)
	}
	w.residue, _ = os.ReadFile(snapshot.ResiduePath(w.snapDir, w.name))
	if len(w.residue) == 0 {
		b.Fatalf("PostCompact wrote no residue record; log:\n%s", benchLogTail(w.snapDir))
	}
	w.state, _ = os.ReadFile(w.stateFile)
	return w
}

// resetPostCompact puts back what a PostCompact run changes: the snapshot
// unconfirmed, no residue record, the transcript as the hook finds it.
func (w *benchResidueWorld) resetPostCompact(b *testing.B) {
	b.Helper()
	for _, f := range []struct {
		path string
		data []byte
	}{{filepath.Join(w.snapDir, w.name+".md"), w.md}, {filepath.Join(w.snapDir, w.name+".json"), w.record}, {w.stateFile, w.state}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	os.Remove(snapshot.ResiduePath(w.snapDir, w.name))
	if fi, err := os.Stat(w.tpath); err != nil || fi.Size() != int64(len(w.before)) {
		if err := os.WriteFile(w.tpath, w.before, 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

// resetHandOver puts back what a hand-over changes: the residue due in
// the state, the record not given, the transcript as the next prompt finds it.
func (w *benchResidueWorld) resetHandOver(b *testing.B) {
	b.Helper()
	for _, f := range []struct {
		path string
		data []byte
	}{{w.stateFile, w.state}, {snapshot.ResiduePath(w.snapDir, w.name), w.residue}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	if fi, err := os.Stat(w.tpath); err != nil || fi.Size() != int64(len(w.after)) {
		if err := os.WriteFile(w.tpath, w.after, 0o600); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResidue runs, one process per operation, process start
// included: PostCompact comparing a 10,000-character summary with the
// snapshot and recording it (PF-22), and the next prompt's watch handing
// the residue over (PF-23), in a folder of 40 snapshots and 1,000
// unrelated files, on an 8 MB transcript. Every run is checked.
//
//	go test -run '^$' -bench BenchmarkResidue -benchtime 200x ./cmd/
//
// spec: PF-22 PF-23
func BenchmarkResidue(b *testing.B) {
	c := benchHold(b)
	var w *benchResidueWorld
	world := func(b *testing.B) *benchResidueWorld {
		b.StopTimer()
		if w == nil {
			w = newBenchResidueWorld(b, c)
		}
		return w
	}
	b.Cleanup(func() {
		if w != nil {
			os.RemoveAll(w.root)
		}
	})
	b.Run("PostCompact/40snapshots+1000files", func(b *testing.B) {
		w := world(b)
		c.logFloor(b)
		var st benchStats
		for i := 0; i < b.N; i++ {
			w.resetPostCompact(b)
			r := c.run(b, w.snapDir, c.repo, w.postCompact, "postcompact")
			if r.exitCode != 0 || len(r.stdout) != 0 {
				b.Fatalf("PostCompact: exit %d, stdout %q", r.exitCode, r.stdout)
			}
			res, err := snapshot.ReadResidue(w.snapDir, w.name, w.sid)
			if err != nil || res == nil || len(res.Facts) == 0 || res.Given != nil {
				b.Fatalf("residue record %+v, %v; log:\n%s", res, err, benchLogTail(w.snapDir))
			}
			st.add(r)
		}
		st.report(b)
	})
	b.Run("hand-over/UserPromptSubmit", func(b *testing.B) {
		w := world(b)
		var st benchStats
		for i := 0; i < b.N; i++ {
			w.resetHandOver(b)
			r := c.run(b, w.snapDir, c.repo, w.prompt, "watch")
			if r.exitCode != 0 || !strings.Contains(hookContext(r.stdout), "compact-guard: the summary of the compaction at") {
				b.Fatalf("watch: exit %d, stdout %q; log:\n%s", r.exitCode, r.stdout, benchLogTail(w.snapDir))
			}
			st.add(r)
		}
		st.report(b)
	})
}
