// Package transcripttest generates realistic Claude Code transcripts for
// tests and benchmarks: typed prompts, assistant text and tool calls, tool
// results from a few hundred bytes to several MB, attachments, progress
// records, api-request-blob copies of requests, metadata lines and
// compactions, in the shape Claude Code 2.1.3xx writes them.
//
// Output is deterministic for a given Options value.
package transcripttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Options shapes a generated transcript.
type Options struct {
	// Size is the approximate total size in bytes (default 10 MiB). The
	// file ends at the first turn boundary past it.
	Size int64
	// Compactions is the number of compact_boundary lines, spread evenly
	// over the part before the last segment; the last one starts the last
	// segment. 0 writes none: the whole file is one segment.
	Compactions int
	// LastSegment is the approximate size of the part after the last
	// compact_boundary (default Size/5; ignored without compactions).
	LastSegment int64
	// GiantLine, when positive, adds one tool_result line of about this many
	// bytes in the middle of the last segment.
	GiantLine int64
	// MaxLine caps ordinary lines (default 8 MB, just under the reader's
	// limit, so that all of them are read).
	MaxLine int
	// Seed varies the content.
	Seed uint64
}

// Info describes what was generated, for checks.
type Info struct {
	Size       int64
	Lines      int
	Boundaries []int64 // offsets of the compact_boundary lines, in order
	// GiantLineAt is the offset of the giant line, -1 without.
	GiantLineAt int64
	// LastPrompt is the text of the last typed prompt.
	LastPrompt string
	// LastSegmentEdits counts the successful Edit/Write calls after the last
	// boundary (the whole file without one); LastSegmentFiles the distinct
	// paths they touched.
	LastSegmentEdits int
	LastSegmentFiles int
}

// Write generates a transcript into the file at path (created or truncated).
func Write(path string, o Options) (Info, error) {
	f, err := os.Create(path)
	if err != nil {
		return Info{}, err
	}
	info, err := Generate(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return info, err
}

// Generate writes a transcript to w.
func Generate(w io.Writer, o Options) (Info, error) {
	if o.Size <= 0 {
		o.Size = 10 << 20
	}
	if o.MaxLine <= 0 {
		o.MaxLine = 8_000_000
	}
	if o.Compactions > 0 && o.LastSegment <= 0 {
		o.LastSegment = o.Size / 5
	}
	g := &gen{
		w:    bufio.NewWriterSize(w, 1<<20),
		o:    o,
		rng:  rand.New(rand.NewPCG(o.Seed, 0x5eed)),
		fill: filler(),
		now:  time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC),
		info: Info{GiantLineAt: -1},
	}
	g.sid = g.uuid()
	g.cwd = "/home/dev/src/проект demo"
	return g.run()
}

type gen struct {
	w      *bufio.Writer
	o      Options
	rng    *rand.Rand
	fill   []byte
	now    time.Time
	off    int64
	info   Info
	sid    string
	cwd    string
	parent string
	line   []byte
	tool   int
	prompt int
	files  map[string]bool
	last   bool // in the last segment
	err    error
}

func (g *gen) run() (Info, error) {
	var targets []int64
	lastStart := int64(-1)
	if g.o.Compactions > 0 {
		lastStart = max(g.o.Size-g.o.LastSegment, 0)
		for i := 1; i <= g.o.Compactions; i++ {
			targets = append(targets, lastStart*int64(i)/int64(g.o.Compactions))
		}
	}
	g.files = map[string]bool{}
	g.last = len(targets) == 0
	giantAt := int64(-1)
	if g.o.GiantLine > 0 {
		if lastStart >= 0 {
			giantAt = lastStart + (g.o.Size-lastStart)/2
		} else {
			giantAt = g.o.Size / 2
		}
	}
	for g.off < g.o.Size && g.err == nil {
		if len(targets) > 0 && g.off >= targets[0] {
			targets = targets[1:]
			g.boundary()
			if len(targets) == 0 {
				g.last = true
				g.files = map[string]bool{}
				g.info.LastSegmentEdits = 0
			}
			continue
		}
		if giantAt >= 0 && g.off >= giantAt {
			giantAt = -1
			g.giant()
			continue
		}
		g.turn()
	}
	if g.err == nil {
		g.err = g.w.Flush()
	}
	g.info.Size = g.off
	g.info.LastSegmentFiles = len(g.files)
	return g.info, g.err
}

var hexDigits = "0123456789abcdef"

func (g *gen) uuid() string {
	var b [36]byte
	a, c := g.rng.Uint64(), g.rng.Uint64()
	for i := range b {
		switch i {
		case 8, 13, 18, 23:
			b[i] = '-'
			continue
		}
		var v uint64
		if i < 18 {
			v, a = a&15, a>>4
		} else {
			v, c = c&15, c>>4
		}
		b[i] = hexDigits[v]
	}
	return string(b[:])
}

func (g *gen) ts() string {
	g.now = g.now.Add(time.Duration(20+g.rng.IntN(400)) * time.Millisecond)
	return g.now.Format("2006-01-02T15:04:05.000Z")
}

// text returns n bytes (about) of JSON-escaped filler, never cut inside an
// escape or a UTF-8 sequence.
func (g *gen) text(n int) []byte {
	n = max(1, min(n, len(g.fill)-16))
	a := g.rng.IntN(len(g.fill) - n)
	b := a + n
	for a < b && (!utf8.RuneStart(g.fill[a]) || a > 0 && g.fill[a-1] == '\\') {
		a++
	}
	for b > a && !utf8.RuneStart(g.fill[b]) {
		b--
	}
	return cutEscape(g.fill[a:b])
}

// cutEscape drops an escape left incomplete at the end of escaped text: a
// trailing backslash or a short \uXXXX.
func cutEscape(t []byte) []byte {
	b := len(t)
	for k := max(0, b-5); k < b-1; k++ {
		if t[k] == '\\' && t[k+1] == 'u' {
			b = k
			break
		}
	}
	for b > 0 && t[b-1] == '\\' {
		b--
	}
	return t[:b]
}

// size draws a tool-output size: mostly small, sometimes large, rarely huge.
func (g *gen) size() int {
	r := g.rng.Float64()
	var lo, hi int
	switch {
	case r < 0.55:
		lo, hi = 100, 4<<10
	case r < 0.88:
		lo, hi = 4<<10, 64<<10
	case r < 0.985:
		lo, hi = 64<<10, 1<<20
	default:
		lo, hi = 1<<20, g.o.MaxLine/2-4096
	}
	if hi <= lo {
		return lo
	}
	return lo + g.rng.IntN(hi-lo)
}

func (g *gen) emit() {
	if g.err != nil {
		return
	}
	g.line = append(g.line, '\n')
	_, g.err = g.w.Write(g.line)
	g.off += int64(len(g.line))
	g.info.Lines++
	g.line = g.line[:0]
}

// envelope appends the trailing fields every message-like entry carries.
func (g *gen) envelope(uuid string) {
	g.line = append(g.line, `,"uuid":"`...)
	g.line = append(g.line, uuid...)
	g.line = append(g.line, `","timestamp":"`...)
	g.line = append(g.line, g.ts()...)
	g.line = append(g.line, `","userType":"external","entrypoint":"cli","cwd":`...)
	g.line = strconv.AppendQuote(g.line, g.cwd)
	g.line = append(g.line, `,"sessionId":"`...)
	g.line = append(g.line, g.sid...)
	g.line = append(g.line, `","version":"2.1.328","gitBranch":"main"}`...)
	g.parent = uuid
}

func (g *gen) head() {
	g.line = append(g.line, `{"parentUuid":"`...)
	g.line = append(g.line, g.parent...)
	g.line = append(g.line, `","isSidechain":false,`...)
}

var prompts = []string{
	"Refactor the session reader so it never holds more than one line",
	"Почини тест для парсера и запусти его ещё раз",
	"Add a benchmark for the segment reader and report MB/s",
	"Why does the build fail on Windows? Fix it please",
	"Write the spec for the restore pointer, clause by clause",
	"Commit what we have, then look at the flaky test",
}

func (g *gen) turn() {
	g.prompt++
	p := prompts[g.prompt%len(prompts)] + " (turn " + strconv.Itoa(g.prompt) + ")"
	g.info.LastPrompt = p
	q, _ := json.Marshal(p)

	g.line = fmt.Appendf(g.line, `{"type":"queue-operation","operation":"enqueue","timestamp":"%s","sessionId":"%s","content":%s}`, g.ts(), g.sid, q)
	g.emit()
	g.line = fmt.Appendf(g.line, `{"type":"file-history-snapshot","messageId":"%s","snapshot":{"messageId":"%s","trackedFileBackups":{},"timestamp":"%s"},"isSnapshotUpdate":false}`, g.uuid(), g.uuid(), g.ts())
	g.emit()
	g.head()
	g.line = fmt.Appendf(g.line, `"promptId":"%s","type":"user","message":{"role":"user","content":%s}`, g.uuid(), q)
	g.line = append(g.line, `,"permissionMode":"default","promptSource":"typed","turnOrigin":"cli"`...)
	g.envelope(g.uuid())
	g.emit()
	for range 2 + g.rng.IntN(3) {
		g.attachment()
	}
	g.line = fmt.Appendf(g.line, `{"type":"last-prompt","lastPrompt":%s,"leafUuid":"%s","sessionId":"%s"}`, q, g.parent, g.sid)
	g.emit()
	rounds := 1 + g.rng.IntN(6)
	for r := 0; r < rounds && g.err == nil; r++ {
		g.apiRequest()
		if g.rng.IntN(3) == 0 {
			g.assistantText()
		}
		g.toolRound()
	}
	g.apiRequest()
	g.assistantText()
	g.line = fmt.Appendf(g.line, `{"type":"system","subtype":"turn_duration","durationMs":%d,"isSidechain":false,"parentUuid":"%s","isMeta":false`, 1000+g.rng.IntN(90000), g.parent)
	g.envelope(g.uuid())
	g.emit()
}

func (g *gen) attachment() {
	kinds := []string{"hook_success", "edited_text_file", "deferred_tools_delta", "skill_listing", "task_reminder"}
	g.head()
	g.line = fmt.Appendf(g.line, `"attachment":{"type":"%s","content":"`, kinds[g.rng.IntN(len(kinds))])
	g.line = append(g.line, g.text(200+g.rng.IntN(6000))...)
	g.line = append(g.line, `"},"type":"attachment"`...)
	g.envelope(g.uuid())
	g.emit()
}

func (g *gen) apiRequest() {
	g.line = fmt.Appendf(g.line, `{"type":"api-request","sessionId":"%s","id":"%s","timestamp":"%s","version":"2.1.328","querySource":"repl_main_thread","model":"claude-opus-5-5","messageRefs":["%s","%s"]}`, g.sid, g.uuid(), g.ts(), g.uuid(), g.uuid())
	g.emit()
	// A blob copies a request message: mostly some KB, sometimes far more.
	n := 2000 + g.rng.IntN(30000)
	if g.rng.IntN(10) == 0 {
		n = g.size()
	}
	g.line = fmt.Appendf(g.line, `{"type":"api-request-blob","sessionId":"%s","hash":"%016x%016x%016x%016x","message":{"role":"user","content":[{"type":"text","text":"`, g.sid, g.rng.Uint64(), g.rng.Uint64(), g.rng.Uint64(), g.rng.Uint64())
	g.line = append(g.line, g.text(n)...)
	g.line = append(g.line, `"}]}}`...)
	g.emit()
}

func (g *gen) assistantMsg(block []byte) {
	g.head()
	g.line = fmt.Appendf(g.line, `"message":{"id":"msg_%016x","type":"message","role":"assistant","model":"claude-opus-5-5","content":[`, g.rng.Uint64())
	g.line = append(g.line, block...)
	in := 2 + g.rng.IntN(10)
	g.line = fmt.Appendf(g.line, `],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":%d,"service_tier":"standard"}},"requestId":"req_%016x","type":"assistant"`,
		in, g.rng.IntN(5000), 20000+g.rng.IntN(150000), 10+g.rng.IntN(2000), g.rng.Uint64())
	g.envelope(g.uuid())
	g.emit()
}

func (g *gen) assistantText() {
	b := append([]byte(`{"type":"text","text":"`), g.text(100+g.rng.IntN(3000))...)
	g.assistantMsg(append(b, `"}`...))
}

var tools = []string{"Edit", "Edit", "Read", "Read", "Bash", "Bash", "Write", "Grep"}

func (g *gen) toolRound() {
	g.tool++
	id := fmt.Sprintf("toolu_%016x%04d", g.rng.Uint64(), g.tool%10000)
	name := tools[g.rng.IntN(len(tools))]
	file := fmt.Sprintf("/home/dev/src/проект demo/pkg/file%02d.go", g.rng.IntN(40))
	var b []byte
	b = fmt.Appendf(b, `{"type":"tool_use","id":"%s","name":"%s","input":{`, id, name)
	switch name {
	case "Edit":
		b = fmt.Appendf(b, `"replace_all":false,"file_path":"%s","old_string":"%s","new_string":"%s"`, file, g.text(50+g.rng.IntN(2000)), g.text(50+g.rng.IntN(2000)))
	case "Write":
		b = fmt.Appendf(b, `"file_path":"%s","content":"%s"`, file, g.text(g.size()/2))
	case "Read":
		b = fmt.Appendf(b, `"file_path":"%s"`, file)
	case "Bash":
		b = fmt.Appendf(b, `"command":"go test ./... -run Test%d","description":"Run the tests"`, g.tool)
	case "Grep":
		b = fmt.Appendf(b, `"pattern":"func .*Reader","path":"/home/dev/src"`)
	}
	b = append(b, `},"caller":{"type":"direct"}}`...)
	g.assistantMsg(b)
	if name == "Bash" {
		for range g.rng.IntN(3) {
			g.head()
			g.line = fmt.Appendf(g.line, `"type":"progress","data":{"type":"bash_progress","output":"%s","elapsedTimeSeconds":%d},"toolUseID":"bash-progress-%d","parentToolUseID":"%s"`, g.text(100+g.rng.IntN(2000)), g.rng.IntN(60), g.tool, id)
			g.envelope(g.uuid())
			g.emit()
		}
	}
	failed := g.rng.IntN(12) == 0
	n := g.size()
	if name == "Edit" || name == "Write" {
		n = 100 + g.rng.IntN(300)
	}
	out := g.text(n)
	g.head()
	g.line = fmt.Appendf(g.line, `"promptId":"%s","type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"`, g.uuid(), id)
	if failed {
		g.line = append(g.line, `Exit code 1\n`...)
	}
	g.line = append(g.line, out...)
	g.line = append(g.line, '"')
	if failed {
		g.line = append(g.line, `,"is_error":true`...)
	}
	g.line = append(g.line, `}]}`...)
	switch name {
	case "Bash":
		if failed {
			g.line = append(g.line, `,"toolUseResult":"Error: Exit code 1\n`...)
			g.line = append(g.line, cutEscape(out[:min(len(out), 2000)])...)
			g.line = append(g.line, '"')
		} else {
			g.line = append(g.line, `,"toolUseResult":{"stdout":"`...)
			g.line = append(g.line, out...)
			g.line = append(g.line, `","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}`...)
		}
	case "Read":
		g.line = fmt.Appendf(g.line, `,"toolUseResult":{"type":"text","file":{"filePath":"%s","content":"`, file)
		g.line = append(g.line, out...)
		g.line = append(g.line, `","numLines":120,"startLine":1,"totalLines":120}}`...)
	default:
		if failed {
			g.line = append(g.line, `,"toolUseResult":"Error: File has not been read yet"`...)
		} else {
			g.line = fmt.Appendf(g.line, `,"toolUseResult":{"filePath":"%s","structuredPatch":[],"userModified":false}`, file)
		}
	}
	g.line = fmt.Appendf(g.line, `,"sourceToolAssistantUUID":"%s"`, g.parent)
	g.envelope(g.uuid())
	g.emit()
	if !failed && (name == "Edit" || name == "Write") && g.last {
		g.info.LastSegmentEdits++
		g.files[file] = true
	}
}

func (g *gen) boundary() {
	g.info.Boundaries = append(g.info.Boundaries, g.off)
	g.line = fmt.Appendf(g.line, `{"parentUuid":null,"logicalParentUuid":"%s","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","compactMetadata":{"trigger":"auto","preTokens":%d,"postTokens":%d,"durationMs":%d}`,
		g.parent, 150000+g.rng.IntN(20000), 2000+g.rng.IntN(3000), 10000+g.rng.IntN(50000))
	g.envelope(g.uuid())
	g.emit()
	g.head()
	g.line = append(g.line, `"type":"user","message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n`...)
	g.line = append(g.line, g.text(3000+g.rng.IntN(15000))...)
	g.line = append(g.line, `"},"isCompactSummary":true,"isVisibleInTranscriptOnly":true`...)
	g.envelope(g.uuid())
	g.emit()
}

// giant writes one tool_result line of about GiantLine bytes.
func (g *gen) giant() {
	g.tool++
	id := fmt.Sprintf("toolu_giant%04d", g.tool)
	g.assistantMsg(fmt.Appendf(nil, `{"type":"tool_use","id":"%s","name":"Bash","input":{"command":"cat huge.log","description":"Show the log"}}`, id))
	g.info.GiantLineAt = g.off
	g.head()
	g.line = fmt.Appendf(g.line, `"type":"user","message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"`, id)
	if g.err != nil {
		return
	}
	// Written in pieces: the line is never held whole here either.
	_, g.err = g.w.Write(g.line)
	g.off += int64(len(g.line))
	g.line = g.line[:0]
	for left := g.o.GiantLine; left > 0 && g.err == nil; {
		t := g.text(int(min(left, 1<<20)))
		_, g.err = g.w.Write(t)
		g.off += int64(len(t))
		left -= int64(len(t))
	}
	g.line = append(g.line, `"}]}`...)
	g.envelope(g.uuid())
	g.emit()
}

var (
	fillOnce sync.Once
	fillData []byte
)

// fillLines are JSON-escaped pieces of code, logs and prose, in the
// proportions tool output has: quotes, tabs and newlines are frequent.
var fillLines = []string{
	`func (r *Reader) Next() ([]byte, error) {\n`,
	`\tif err := os.WriteFile(path, []byte(content), 0o644); err != nil {\n`,
	`\t\tt.Fatalf(\"failed to write %s: %v\", path, err)\n`,
	`\t}\n`,
	`    1→package transcript\n`,
	`=== RUN   TestSegment/long_line\n--- PASS: TestSegment/long_line (0.01s)\n`,
	`{\"type\":\"text\",\"text\":\"nested JSON in a tool output\"}\n`,
	`Отчёт о сборке: все проверки пройдены, ошибок нет.\n`,
	`The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs. `,
	`import (\n\t\"bytes\"\n\t\"context\"\n)\n`,
	`2026-11-30T09:38:06.680Z INFO server started on :8080 (pid 4242)\n`,
	`\u001b[32mok\u001b[0m  \tgithub.com/example/pkg\t0.012s\n`,
	`    return fmt.Errorf(\"compact-guard: %w\", err)\n`,
	`lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. `,
	`SELECT id, name FROM users WHERE created_at > '2026-01-01' ORDER BY id;\n`,
	`// Comment with a path C:\\Users\\dev\\project and a URL https://example.com/a?b=c\n`,
}

// filler returns 12 MiB of escaped text, built once per process.
func filler() []byte {
	fillOnce.Do(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, 0, 12<<20+256)
		for len(b) < 12<<20 {
			b = append(b, fillLines[rng.IntN(len(fillLines))]...)
		}
		fillData = b
	})
	return fillData
}
