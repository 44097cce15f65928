package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// BenchmarkFold measures SessionStart(compact) as Claude Code calls it after
// a PreCompact that read at once (PF-27): with the transcript's last model
// response and what follows it written after precompact read the file (the
// lag E2E-41 measured), so that the hook folds them into the snapshot
// (PO-C18), and without lag, where it finds nothing to fold. Each run gets
// the snapshot as precompact left it (restored between runs, outside the
// timing); the empty Go program runs through the same wrapper in turn, so
// that x-empty compares them on the machine as it is in that run. The
// in-process variants run the same hook through Main inside the test
// process, so that -cpuprofile sees its work (PF-14).
// spec: PF-27
func BenchmarkFold(b *testing.B) {
	c := benchHold(b)
	empty := c.emptyProgram(b)
	for _, kind := range []string{"10MB", "200MB"} {
		for _, lag := range []bool{true, false} {
			name := kind + "/no-lag"
			if lag {
				name = kind + "/late-response"
			}
			b.Run(name+"/in-process", func(b *testing.B) {
				b.StopTimer()
				w := newBenchFoldWorld(b, c, kind, lag)
				defer os.RemoveAll(w.root)
				b.Setenv("CLAUDE_PROJECT_DIR", "")
				b.Setenv("CLAUDE_CODE_SESSION_ID", "")
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					w.restore(b)
					var out, errOut bytes.Buffer
					b.StartTimer()
					code := Main([]string{"--dir", w.snapDir, "postcompact"}, bytes.NewReader(w.payload), &out, &errOut)
					b.StopTimer()
					w.check(b, benchRun{exitCode: code, stdout: out.Bytes(), stderr: errOut.Bytes()})
				}
			})
			b.Run(name, func(b *testing.B) {
				b.StopTimer()
				w := newBenchFoldWorld(b, c, kind, lag)
				defer os.RemoveAll(w.root)
				var st, floor benchStats
				for i := 0; i < b.N; i++ {
					w.restore(b)
					for k := range 2 {
						if (i+k)%2 == 0 {
							r := c.run(b, w.snapDir, c.repo, w.payload, "postcompact")
							w.check(b, r)
							st.add(r)
						} else {
							r := c.runProgram(b, empty, w.snapDir, c.repo, w.payload)
							floor.add(r)
						}
					}
				}
				st.report(b)
				p50 := func(ws []time.Duration) time.Duration { return slices.Sorted(slices.Values(ws))[len(ws)/2] }
				b.ReportMetric(float64(p50(floor.walls).Microseconds())/1000, "empty-p50-ms")
				b.ReportMetric(float64(p50(st.walls))/float64(p50(floor.walls)), "x-empty")
			})
		}
	}
}

// benchFoldWorld is a session at its SessionStart(compact): the
// transcript, the snapshot precompact wrote (its files' bytes, restored
// before each run) and the payload.
type benchFoldWorld struct {
	root, snapDir, name string
	files               map[string][]byte
	payload             []byte
	lag                 bool
}

// newBenchFoldWorld copies kind's transcript up to its last response (with
// lag) or whole, runs precompact on it, then puts the rest back: the lines
// the client wrote after the hook read.
func newBenchFoldWorld(b *testing.B, c *benchCorpus, kind string, lag bool) *benchFoldWorld {
	b.Helper()
	src := c.transcript(b, kind)
	data, err := os.ReadFile(src.path)
	if err != nil {
		b.Fatal(err)
	}
	cut := int64(len(data))
	if lag {
		cut = benchLastResponse(data)
		if cut <= src.lastBoundary {
			b.Fatalf("%s: no response after the last boundary", kind)
		}
	}
	root, err := os.MkdirTemp(c.dir, "fold-*")
	if err != nil {
		b.Fatal(err)
	}
	w := &benchFoldWorld{root: root, snapDir: filepath.Join(root, "snapshots"), files: map[string][]byte{}, lag: lag}
	sid := "f01dc0de-1111-4222-8333-444455556666"
	tpath := filepath.Join(root, "projects", "-home-dev-src-проект demo", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(tpath), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(tpath, data[:cut], 0o600); err != nil {
		b.Fatal(err)
	}
	if r := c.run(b, w.snapDir, c.repo, precompactPayload(sid, tpath, c.repo), "precompact"); r.exitCode != 0 {
		b.Fatalf("precompact exited %d: %s", r.exitCode, r.stderr)
	}
	f, err := os.OpenFile(tpath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	_, err = f.Write(data[cut:])
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	for n := range benchSnapshotNames(b, w.snapDir) {
		w.name = n
	}
	for _, ext := range []string{".md", ".json"} {
		if w.files[ext], err = os.ReadFile(filepath.Join(w.snapDir, w.name+ext)); err != nil {
			b.Fatal(err)
		}
	}
	w.payload, _ = json.Marshal(map[string]any{
		"session_id": sid, "transcript_path": tpath, "cwd": c.repo,
		"hook_event_name": "SessionStart", "source": "compact",
	})
	return w
}

// benchLastResponse is where the last model response line starts.
func benchLastResponse(data []byte) int64 {
	end := len(data)
	for end > 0 {
		start := bytes.LastIndexByte(data[:end-1], '\n') + 1
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data[start:end], &e) == nil && e.Type == "assistant" {
			return int64(start)
		}
		end = start
	}
	return 0
}

// restore puts the snapshot back as precompact wrote it and removes the
// delivery record, so that every run folds (or finds nothing) as the first.
func (w *benchFoldWorld) restore(b *testing.B) {
	b.Helper()
	for ext, data := range w.files {
		if err := snapshot.WriteFileAtomic(filepath.Join(w.snapDir, w.name+ext), data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	os.Remove(filepath.Join(w.snapDir, w.name+".delivered"))
}

// check fails b unless r handed out the pointer to the snapshot, folded
// when there was lag and untouched when there was none.
func (w *benchFoldWorld) check(b *testing.B, r benchRun) {
	b.Helper()
	if r.exitCode != 0 || !strings.Contains(string(r.stdout), w.name) {
		b.Fatalf("postcompact exited %d, printed %q (%s); want a pointer to %s", r.exitCode, r.stdout, r.stderr, w.name)
	}
	rec := benchLoad(b, w.snapDir, w.name)
	if folded := rec.Coverage.Folded != nil; folded != w.lag {
		b.Fatalf("folded %v, want %v: %s", rec.Coverage.Folded, w.lag, benchLogTail(w.snapDir))
	}
}
