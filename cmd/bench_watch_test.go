package cmd

// What watch costs on every tool call (PF-20, specs/performance.md): the
// hook process on a 1 GiB transcript, against an empty Go program started
// the same way in the same run.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// benchWatchSize is the transcript's size; benchWatchTail how much of its
// end is a generated session (transcripttest), the rest a hole: watch reads
// only backwards from the end to the newest response, which the benchmark
// shows (a hook that read further would read the hole and take far longer),
// and a sparse file spares the disk a gigabyte.
const (
	benchWatchSize = 1 << 30
	benchWatchTail = 20 << 20
)

// benchWatchCases are the runs watch makes most: the tail each appends to
// the generated session, and what the hook must print.
var benchWatchCases = []struct {
	name string
	// fill is the newest response's context fill (model claude-opus-5-5,
	// a 1,000,000-token window); result, when positive, a tool result of
	// that many bytes written after it (PostToolUse follows a tool result).
	fill, result int
	// told: the session's state already holds the crossings, told.
	told bool
	// python: every line of the transcript written again as Python's
	// json.dumps writes it, keys in another order (transcripttest.Relayout):
	// valid JSON that is not Claude Code's layout (TR-56).
	python bool
}{
	// Below WA-4's floor: no window, settings or state is looked at.
	{name: "below-floor", fill: 30_000},
	// Above the floor, below the first threshold (500,000): the window is
	// inferred (settings files read), the state looked for, nothing said.
	{name: "below-first", fill: 300_000},
	// The same behind a 1 MB tool result (a large file read or edited)
	// and an 8 MB one (rare: Claude Code cuts Bash output at 30,000
	// characters), read backwards whole, once.
	{name: "below-first-after-1MB-result", fill: 300_000, result: 1 << 20},
	{name: "below-first-after-8MB-result", fill: 300_000, result: 8 << 20},
	// Past two thresholds, both told: the state is read, nothing changes.
	{name: "past-thresholds-told", fill: 612_000, told: true},
	// The same runs on a transcript in another JSON layout: the cost
	// still follows what comes after the newest response (TR-56).
	{name: "python-layout/below-first", fill: 300_000, python: true},
	{name: "python-layout/below-first-after-1MB-result", fill: 300_000, result: 1 << 20, python: true},
	{name: "python-layout/below-first-after-8MB-result", fill: 300_000, result: 8 << 20, python: true},
	{name: "python-layout/past-thresholds-told", fill: 612_000, told: true, python: true},
}

// BenchmarkWatch runs compact-guard watch as the PostToolUse hook on a
// 1 GiB transcript and an empty Go program in turn, in alternating order,
// from the test process (as BenchmarkStart, PF-18), and reports the
// hook's median wall time start to exit (p50-ms), the empty program's
// (empty-p50-ms) and their ratio (x-empty); every tenth run also goes
// through the wrapper of PF-12 for the peak resident set (peak-RSS-MB).
// Every run is checked: exit 0, nothing printed.
//
//	go test -run '^$' -bench BenchmarkWatch -benchtime 400x ./cmd/
//
// spec: PF-20 (measured as PF-21 says)
func BenchmarkWatch(b *testing.B) {
	c := benchHold(b)
	empty := c.emptyProgram(b)
	for _, tc := range benchWatchCases {
		b.Run(tc.name+"/1GB", func(b *testing.B) {
			b.StopTimer()
			dir := filepath.Join(c.dir, "watch", tc.name)
			snapDir := filepath.Join(dir, "snapshots")
			path, sid := benchWatchTranscript(b, dir, tc.fill, tc.result, tc.python)
			payload, _ := json.Marshal(map[string]any{
				"session_id": sid, "transcript_path": path, "cwd": c.repo, "prompt_id": "p1",
				"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_response": map[string]any{"stdout": "ok"},
			})
			if tc.told {
				// A first run tells of the crossings (in the framework's
				// first round); the ones measured find them told.
				if r := c.run(b, snapDir, c.repo, payload, "watch"); r.exitCode != 0 {
					b.Fatalf("the first run: exit %d, %s", r.exitCode, r.stderr)
				}
				st, err := watch.StoreFor(snapDir).Load(sid)
				if err != nil || st == nil || len(st.Crossings) != 2 || st.Crossings[1].Told.IsZero() {
					b.Fatalf("the state does not hold two crossings told: %+v %v", st, err)
				}
			}
			var hook, floor []time.Duration
			var rss benchStats
			for i := 0; i < b.N; i++ {
				runHook := func() {
					r := startRun(b, c, snapDir, c.repo, payload, c.bin, "watch")
					if r.exitCode != 0 || len(r.stdout) != 0 {
						b.Fatalf("watch: exit %d, stdout %q, stderr %q", r.exitCode, r.stdout, r.stderr)
					}
					hook = append(hook, r.wall)
				}
				runEmpty := func() {
					r := startRun(b, c, snapDir, c.repo, payload, empty)
					if r.exitCode != 0 {
						b.Fatalf("the empty program exited %d", r.exitCode)
					}
					floor = append(floor, r.wall)
				}
				if i%2 == 0 {
					runHook()
					runEmpty()
				} else {
					runEmpty()
					runHook()
				}
				if i%10 == 0 {
					r := c.run(b, snapDir, c.repo, payload, "watch")
					if r.exitCode != 0 || len(r.stdout) != 0 {
						b.Fatalf("watch through the wrapper: exit %d, stdout %q", r.exitCode, r.stdout)
					}
					rss.add(r)
				}
			}
			p50 := func(ws []time.Duration) time.Duration { return slices.Sorted(slices.Values(ws))[len(ws)/2] }
			var sum time.Duration
			for _, w := range hook {
				sum += w
			}
			b.ReportMetric(float64(sum.Nanoseconds())/float64(len(hook)), "ns/op")
			b.ReportMetric(float64(p50(hook).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p50(floor).Microseconds())/1000, "empty-p50-ms")
			b.ReportMetric(float64(p50(hook))/float64(p50(floor)), "x-empty")
			if rss.peakRSS > 0 {
				b.ReportMetric(float64(rss.peakRSS)/(1<<20), "peak-RSS-MB")
			}
		})
	}
}

// benchWatchTranscript writes a 1 GiB transcript into dir: a hole, a
// generated session of benchWatchTail bytes, a model response reporting
// fill tokens and, when result is positive, a tool result of that size;
// with python, every line of it in another JSON layout.
func benchWatchTranscript(b *testing.B, dir string, fill, result int, python bool) (path, sid string) {
	b.Helper()
	sid = "b3c4e5f6-0000-4000-8000-00000000aaaa"
	path = filepath.Join(dir, "projects", "-home-dev-проект", sid+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	var tail bytes.Buffer
	if _, err := transcripttest.Generate(&tail, transcripttest.Options{Size: benchWatchTail, Seed: 19}); err != nil {
		b.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	fmt.Fprintf(&tail, `{"type":"assistant","message":{"id":"msg_w","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_w","name":"Bash","input":{"command":"go test ./..."}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":1200,"cache_read_input_tokens":%d,"output_tokens":40}},"isSidechain":false,"sessionId":%q,"timestamp":%q}`+"\n",
		fill-1203, sid, now)
	if result > 0 {
		// Code, as a Read or an Edit of a large file returns it: quotes,
		// line breaks and the letters of the words watch looks for.
		code := "func (s *Store) Load(name string) (*Record, error) {\n\tif _, ok := ParseName(name); !ok {\n\t\treturn nil, fmt.Errorf(\"%q: not a snapshot\", name) // type \"assistant\" compact_boundary\n\t}\n}\n"
		msg, _ := json.Marshal(map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": "toolu_w", "content": strings.Repeat(code, result/len(code)),
		}}})
		// The keys in Claude Code 2.1.328's order: "type" before "message".
		fmt.Fprintf(&tail, `{"parentUuid":"u1","isSidechain":false,"type":"user","message":%s,"sessionId":%q,"timestamp":%q}`+"\n", msg, sid, now)
	}
	if python {
		// Seed 56 puts "type" after "message": a tool result's head does
		// not say what the line is (TR-51), the hard case.
		out, _ := transcripttest.RelayoutLines(tail.Bytes(), 56)
		tail.Reset()
		tail.Write(out)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	hole := int64(benchWatchSize - tail.Len())
	// The hole ends in a line break, so that the session starts a line.
	if _, err := f.WriteAt([]byte("\n"), hole-1); err != nil {
		b.Fatal(err)
	}
	if _, err := f.WriteAt(tail.Bytes(), hole); err != nil {
		b.Fatal(err)
	}
	return path, sid
}
