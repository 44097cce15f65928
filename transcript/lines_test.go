package transcript

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func readAll(t *testing.T, path string) Result {
	t.Helper()
	f := open(t, path)
	res, err := f.Read(context.Background(), ReadPlan{LastBoundary: lastBoundary(t, f), ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// longLine is a user tool_result line of n bytes.
func longLine(n int) string {
	head := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"big","content":"`
	tail := `"}]}}`
	return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
}

// spec: TR-11
func TestTR11LongLines(t *testing.T) {
	t.Run("line over the limit skipped, neighbours read", func(t *testing.T) {
		p := writeLines(t,
			prompt(1, "before", nil),
			call(2, "big", "Bash", obj{"command": "cat big"}),
			longLine(9_000_000),
			prompt(3, "after", nil),
		)
		res := readAll(t, p)
		f := res.Facts
		eq(t, "skipped", f.Stats.SkippedLong, 1)
		eq(t, "corrupt", f.Stats.Corrupt, 0)
		eq(t, "lines", f.Stats.Lines, 4)
		eqSlice(t, "prompts", promptTexts(f), []string{"before", "after"})
		eq(t, "outcome", f.Commands[0].Outcome, OutcomeUnknown)
		eq(t, "bytes", f.Stats.BytesRead, open(t, p).Size())
	})
	t.Run("line just under the limit is read", func(t *testing.T) {
		res := readAll(t, writeLines(t, call(1, "big", "Bash", obj{"command": "cat big"}), longLine(MaxLineBytes), prompt(3, "after", nil)))
		eq(t, "skipped", res.Facts.Stats.SkippedLong, 0)
		eq(t, "outcome", res.Facts.Commands[0].Outcome, OutcomeOK)
	})
	t.Run("over-long final line without newline", func(t *testing.T) {
		res := readAll(t, writeFile(t, prompt(1, "a", nil)+"\n"+longLine(MaxLineBytes+10)))
		eq(t, "skipped", res.Facts.Stats.SkippedLong, 1)
		eq(t, "torn", res.Facts.Stats.TornLastLine, false)
	})
	t.Run("Feed of an over-long line", func(t *testing.T) {
		x := NewExtractor(nil)
		x.Feed([]byte(longLine(MaxLineBytes + 1)))
		eq(t, "skipped", x.Facts().Stats.SkippedLong, 1)
	})
	t.Run("many lines across buffer refills", func(t *testing.T) {
		var lines []string
		for i := range 3000 {
			lines = append(lines, prompt(i, strings.Repeat("y", i%700)+"z", nil))
		}
		res := readAll(t, writeLines(t, lines...))
		eq(t, "lines", res.Facts.Stats.Lines, 3000)
		eq(t, "decoded", res.Facts.Stats.Decoded, 3000)
		eq(t, "last prompt", res.Facts.Prompts[4].Text, strings.Repeat("y", 2999%700)+"z")
	})
}

// lineReader yields prefix, then n bytes of 'x', then suffix, without ever
// holding the middle.
type lineReader struct {
	prefix, suffix []byte
	n              int64
	state          int
}

func (r *lineReader) Read(p []byte) (int, error) {
	switch {
	case len(r.prefix) > 0:
		k := copy(p, r.prefix)
		r.prefix = r.prefix[k:]
		return k, nil
	case r.n > 0:
		k := int64(len(p))
		k = min(k, r.n)
		for i := range p[:k] {
			p[i] = 'x'
		}
		r.n -= k
		return int(k), nil
	case len(r.suffix) > 0:
		k := copy(p, r.suffix)
		r.suffix = r.suffix[k:]
		return k, nil
	}
	return 0, io.EOF
}

// allocDuring returns how many bytes fn allocated on the heap.
func allocDuring(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// spec: TR-11
func TestTR11FlatMemory(t *testing.T) {
	// The whole reading of a transcript holding one line of 50 MB (and one
	// of 200 MB) allocates a bounded amount: one buffer of at most 9 MiB
	// (with the steps that grew it), never the line.
	const bound = 20 << 20
	for _, size := range []int64{50 << 20, 200 << 20} {
		x := NewExtractor(nil)
		var n int64
		var err error
		alloc := allocDuring(func() {
			r := &lineReader{
				prefix: []byte(prompt(1, "before", nil) + "\n" + `{"type":"user","x":"`),
				n:      size,
				suffix: []byte(`"}` + "\n" + prompt(2, "after", nil) + "\n"),
			}
			n, err = x.ReadLines(context.Background(), r)
		})
		if err != nil {
			t.Fatal(err)
		}
		f := x.Facts()
		eq(t, "skipped", f.Stats.SkippedLong, 1)
		eqSlice(t, "prompts", promptTexts(f), []string{"before", "after"})
		if n < size {
			t.Errorf("consumed %d bytes", n)
		}
		t.Logf("line of %d MB: %.1f MiB allocated", size>>20, float64(alloc)/(1<<20))
		if alloc > bound {
			t.Errorf("line of %d MB: %d bytes allocated, want at most %d", size>>20, alloc, bound)
		}
	}

	t.Run("from a file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "big.jsonl")
		w, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, &lineReader{prefix: []byte(boundary(1, nil) + "\n" + `{"type":"user","x":"`), n: 50 << 20,
			suffix: []byte(`"}` + "\n" + prompt(2, "after", nil) + "\n")})
		w.Close()
		f := open(t, p)
		var res Result
		alloc := allocDuring(func() {
			lb, _ := f.LastBoundary(context.Background())
			res, err = f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1})
		})
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "skipped", res.Facts.Stats.SkippedLong, 1)
		eq(t, "compactions", res.Facts.Compactions, 1)
		eqSlice(t, "prompts", promptTexts(res.Facts), []string{"after"})
		t.Logf("file with a 50 MB line: %.1f MiB allocated", float64(alloc)/(1<<20))
		if alloc > bound {
			t.Errorf("%d bytes allocated, want at most %d", alloc, bound)
		}
	})
}

// spec: TR-12
func TestTR12CorruptLines(t *testing.T) {
	res := readAll(t, writeLines(t,
		prompt(1, "a", nil),
		`{"type":"user","message":{"content":"half`, // cut by a crash, more written after
		`not json at all`,
		`{"type":"user"}} `,
		``,
		`   `,
		`[1,2,3]`,
		`"just a string"`,
		prompt(2, "b", nil),
	))
	f := res.Facts
	eq(t, "corrupt", f.Stats.Corrupt, 3)
	eq(t, "torn", f.Stats.TornLastLine, false)
	eqSlice(t, "prompts", promptTexts(f), []string{"a", "b"})

	// A used value that fails to decode is treated as absent.
	bad := `{"type":"user","message":{"role":"user","content":"bad \x escape"}}`
	eq(t, "bad escape prompts", len(extract(bad).Prompts), 0)
}

// spec: TR-13
func TestTR13TornLastLine(t *testing.T) {
	a := prompt(1, "a", nil)
	t.Run("torn", func(t *testing.T) {
		res := readAll(t, writeFile(t, a+"\n"+prompt(2, "b", nil)[:30]))
		eq(t, "torn", res.Facts.Stats.TornLastLine, true)
		eq(t, "corrupt", res.Facts.Stats.Corrupt, 0)
		eqSlice(t, "prompts", promptTexts(res.Facts), []string{"a"})
	})
	t.Run("torn line of a skipped type is still torn", func(t *testing.T) {
		res := readAll(t, writeFile(t, a+"\n"+`{"type":"progress","data":{"x":`))
		eq(t, "torn", res.Facts.Stats.TornLastLine, true)
	})
	t.Run("complete JSON without newline is used", func(t *testing.T) {
		res := readAll(t, writeFile(t, a+"\n"+prompt(2, "b", nil)))
		eq(t, "torn", res.Facts.Stats.TornLastLine, false)
		eqSlice(t, "prompts", promptTexts(res.Facts), []string{"a", "b"})
	})
	t.Run("single line without newline", func(t *testing.T) {
		res := readAll(t, writeFile(t, a))
		eqSlice(t, "prompts", promptTexts(res.Facts), []string{"a"})
		eq(t, "lines", res.Facts.Stats.Lines, 1)
	})
	t.Run("empty file", func(t *testing.T) {
		res := readAll(t, writeFile(t, ""))
		f := res.Facts
		eq(t, "lines", f.Stats.Lines, 0)
		eq(t, "bytes", f.Stats.BytesRead, int64(0))
		eq(t, "prompts", len(f.Prompts), 0)
		if f.Prompts == nil || f.Files == nil || f.Commands == nil || f.Failures == nil {
			t.Error("lists must be empty, not nil (they marshal as [])")
		}
	})
}

// spec: TR-14
func TestTR14CRLF(t *testing.T) {
	data := strings.Join([]string{
		prompt(1, "a", nil),
		call(2, "w1", "Write", obj{"file_path": `C:\Users\dev\проект\main.go`}),
		result(3, "w1", "ok", false, nil),
		boundary(4, obj{"postTokens": 7}),
		prompt(5, "b", nil),
	}, "\r\n") + "\r\n"
	res := readAll(t, writeFile(t, data))
	f := res.Facts
	eq(t, "corrupt", f.Stats.Corrupt, 0)
	eqSlice(t, "prompts", promptTexts(f), []string{"a", "b"})
	eqSlice(t, "files", filePaths(f), []string{`C:\Users\dev\проект\main.go`})
	eq(t, "compactions", f.Compactions, 1)

	// A final CRLF line without '\n' is complete JSON too.
	res = readAll(t, writeFile(t, prompt(1, "a", nil)+"\r"))
	eq(t, "torn", res.Facts.Stats.TornLastLine, false)
	eqSlice(t, "prompts", promptTexts(res.Facts), []string{"a"})
}

// spec: TR-15
func TestTR15Classification(t *testing.T) {
	t.Run("ignored entries", func(t *testing.T) {
		f := extract(
			prompt(1, "side", obj{"isSidechain": true}),
			mustJSON(obj{"type": "assistant", "isSidechain": true, "message": obj{"model": "m",
				"content": []any{obj{"type": "tool_use", "id": "s1", "name": "Write", "input": obj{"file_path": "/side"}}}}}),
			result(2, "s1", "ok", false, nil),
			mustJSON(obj{"type": "brand-new-type", "message": obj{"content": "hi"}}),
			mustJSON(obj{"type": "queue-operation", "operation": "enqueue", "content": "queued text"}),
			mustJSON(obj{"type": "api-request-blob", "message": obj{"role": "user", "content": "blob prompt"}}),
			mustJSON(obj{"type": "attachment", "attachment": obj{"type": "queued_command", "prompt": "p"}}),
		)
		eq(t, "prompts", len(f.Prompts), 0)
		eq(t, "files", len(f.Files), 0)
		eq(t, "decoded", f.Stats.Decoded, 1) // only the main-chain tool result
	})
	t.Run("type after message", func(t *testing.T) {
		line := `{"message":{"role":"user","content":"late type"},"isSidechain":false,"type":"user"}`
		eqSlice(t, "prompts", promptTexts(extract(line)), []string{"late type"})
	})
	t.Run("skipped type is dropped at its type", func(t *testing.T) {
		// What follows the type of an attachment is not even looked at.
		x := NewExtractor(nil)
		x.Feed([]byte(`{"type":"attachment","attachment":{"content":"never looked at" !!!`))
		eq(t, "corrupt", x.Facts().Stats.Corrupt, 0)
		eq(t, "decoded", x.Facts().Stats.Decoded, 0)
	})
	t.Run("big output of an untracked result", func(t *testing.T) {
		out := strings.Repeat(`line with \"quotes\" and \\ slashes\n`, 100000)
		line := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody","content":"` + out + `"}]},"toolUseResult":{"stdout":"` + out + `"}}`
		f := extract(call(1, "t1", "Bash", obj{"command": "x"}), line)
		eq(t, "corrupt", f.Stats.Corrupt, 0)
		eq(t, "outcome", f.Commands[0].Outcome, OutcomeUnknown)
	})
}

func TestReadLinesErrors(t *testing.T) {
	x := NewExtractor(nil)
	want := io.ErrClosedPipe
	_, err := x.ReadLines(context.Background(), io.MultiReader(bytes.NewReader([]byte(prompt(1, "a", nil)+"\n")), errReader{want}))
	if err != want {
		t.Errorf("err = %v", err)
	}
	eqSlice(t, "prompts", promptTexts(x.Facts()), []string{"a"})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
