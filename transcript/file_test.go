package transcript

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func open(t *testing.T, path string) *File {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func lastBoundary(t *testing.T, f *File) int64 {
	t.Helper()
	off, err := f.LastBoundary(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return off
}

// spec: TR-1
func TestTR1OpenRefuses(t *testing.T) {
	dir := t.TempDir()
	t.Run("directory", func(t *testing.T) {
		_, err := Open(dir)
		if !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		_, err := Open(filepath.Join(dir, "nope.jsonl"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("regular file with spaces and Cyrillic", func(t *testing.T) {
		p := filepath.Join(dir, "мой проект", "t.jsonl")
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(prompt(1, "a", nil)+"\n"), 0o600)
		f := open(t, p)
		eq(t, "size", f.Size(), int64(len(prompt(1, "a", nil))+1))
	})
}

// spec: TR-2
func TestTR2SizeFixedAtOpen(t *testing.T) {
	p := writeLines(t, prompt(1, "before", nil))
	f := open(t, p)
	size := f.Size()
	af, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(af, prompt(2, "after", nil))
	fmt.Fprint(af, boundary(3, nil)+"\n")
	af.Close()
	eq(t, "size", f.Size(), size)
	eq(t, "boundary", lastBoundary(t, f), int64(-1))
	res, err := f.Read(context.Background(), ReadPlan{LastBoundary: -1, ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, "prompts", promptTexts(res.Facts), []string{"before"})
	eq(t, "bytes read", res.Facts.Stats.BytesRead, size)
}

// spec: TR-3
func TestTR3IsBoundaryLine(t *testing.T) {
	cases := []struct {
		line string
		want bool
	}{
		{boundary(1, obj{"trigger": "auto"}), true},
		{boundary(1, nil) + "\r", true},
		{`  {"subtype":"compact_boundary","type":"system"}  `, true},
		{`{"type":"system","subtype":"compact_boundary","isSidechain":true}`, false},
		{`{"type":"system","subtype":"microcompact_boundary"}`, false},
		{`{"type":"user","subtype":"compact_boundary"}`, false},
		{`{"type":"system","subtype":"compact_boundary"`, false},
		{`{"type":"system","subtype":"compact_boundary"} x`, false},
		{`{"type":"attachment","type":"system","subtype":"compact_boundary"}`, false},
		{`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Grep","input":{"pattern":"compact_boundary"}}]}}`, false},
		{`{"type":"system","sub\u0074ype":"compact_boundary"}`, true},
	}
	for _, c := range cases {
		eq(t, c.line, IsBoundaryLine([]byte(c.line)), c.want)
		// The extractor counts exactly the same lines.
		eq(t, "extractor "+c.line, extract(c.line).Compactions == 1, c.want)
	}
}

// spec: TR-4
func TestTR4LastBoundary(t *testing.T) {
	grep := call(50, "g1", "Grep", obj{"pattern": "\"compact_boundary\"", "path": "/x"})
	grepPlain := call(51, "g2", "Grep", obj{"pattern": "compact_boundary"})
	side := mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": true})
	pad := func(n int) string { // an attachment line of n bytes, '\n' excluded
		s := `{"type":"attachment","x":"`
		return s + strings.Repeat("a", n-len(s)-2) + `"}`
	}
	t.Run("none", func(t *testing.T) {
		eq(t, "off", lastBoundary(t, open(t, writeLines(t, prompt(1, "a", nil), grep, side))), int64(-1))
	})
	t.Run("empty file", func(t *testing.T) {
		eq(t, "off", lastBoundary(t, open(t, writeFile(t, ""))), int64(-1))
	})
	t.Run("last of several, look-alikes after it", func(t *testing.T) {
		b1, b2 := boundary(2, nil), boundary(4, obj{"postTokens": 10})
		lines := []string{prompt(1, "a", nil), b1, prompt(3, "b", nil), b2, grep, grepPlain, side, prompt(5, "c", nil)}
		want := int64(len(strings.Join(lines[:3], "\n")) + 1)
		eq(t, "off", lastBoundary(t, open(t, writeLines(t, lines...))), want)
	})
	t.Run("first line", func(t *testing.T) {
		eq(t, "off", lastBoundary(t, open(t, writeLines(t, boundary(1, nil), prompt(2, "a", nil)))), int64(0))
	})
	t.Run("final line without newline", func(t *testing.T) {
		a := prompt(1, "a", nil)
		eq(t, "off", lastBoundary(t, open(t, writeFile(t, a+"\n"+boundary(2, nil)))), int64(len(a)+1))
	})
	t.Run("torn final boundary is none", func(t *testing.T) {
		b := boundary(2, nil)
		eq(t, "off", lastBoundary(t, open(t, writeFile(t, b+"\n"+b[:len(b)-3]))), int64(0))
	})
	t.Run("CRLF", func(t *testing.T) {
		a := prompt(1, "a", nil)
		eq(t, "off", lastBoundary(t, open(t, writeFile(t, a+"\r\n"+boundary(2, nil)+"\r\n"+a+"\r\n"))), int64(len(a)+2))
	})
	t.Run("more than one chunk after the boundary", func(t *testing.T) {
		lines := []string{prompt(1, "a", nil), boundary(2, nil)}
		for range 40 {
			lines = append(lines, pad(64<<10))
		}
		eq(t, "off", lastBoundary(t, open(t, writeLines(t, lines...))), int64(len(lines[0])+1))
	})
	t.Run("needle across a chunk edge", func(t *testing.T) {
		b := boundary(2, nil)
		k := strings.Index(b, "compact_boundary")
		// The scan reads 64 KiB, then 256 KiB, then 1 MiB chunks: the
		// edges sit at 64 KiB, 320 KiB and 1,344 KiB before the end.
		for _, edge := range []int{64 << 10, 320 << 10, 1344 << 10} {
			for _, shift := range []int{-3, 0, 5, 16, 17} {
				// Place the boundary so the chunk edge falls inside its needle.
				tail := pad(edge - (len(b) - k) - 1 + shift)
				data := prompt(1, "a", nil) + "\n" + b + "\n" + tail + "\n"
				eq(t, fmt.Sprint("edge ", edge, " shift ", shift), lastBoundary(t, open(t, writeFile(t, data))), int64(len(prompt(1, "a", nil))+1))
			}
		}
	})
	t.Run("needles in an over-long line after the boundary", func(t *testing.T) {
		// Not JSON and too long anyway: every needle in it is rejected
		// without the line being read whole.
		long := `{"type":"user","x":"` + strings.Repeat(`"compact_boundary" `, (MaxLineBytes+3<<20)/19) + `"}`
		data := prompt(1, "a", nil) + "\n" + boundary(2, nil) + "\n" + long + "\n" + prompt(3, "b", nil) + "\n"
		eq(t, "off", lastBoundary(t, open(t, writeFile(t, data))), int64(len(prompt(1, "a", nil))+1))
	})
	t.Run("boundary line longer than the limit is none", func(t *testing.T) {
		b := mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": false,
			"content": strings.Repeat("z", MaxLineBytes), "timestamp": ts(2)})
		eq(t, "off", lastBoundary(t, open(t, writeLines(t, prompt(1, "a", nil), b))), int64(-1))
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := open(t, writeLines(t, boundary(1, nil))).LastBoundary(ctx)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	})
}

// spec: TR-5
func TestTR5LastBoundaryIn(t *testing.T) {
	a, b := prompt(1, "a", nil), boundary(2, nil)
	data := a + "\n" + b + "\n" + a + "\n"
	f := open(t, writeFile(t, data))
	start := int64(len(a) + 1)
	needle := start + int64(strings.Index(b, "compact_boundary"))
	cases := []struct {
		from, to int64
		want     bool
	}{
		{0, f.Size(), true},
		{start, start + 1, true},                    // the line starts at from
		{start, needle, true},                       // the needle lies after to
		{0, start, false},                           // to is exclusive
		{start + 1, f.Size(), false},                // starts before from
		{needle + 20, f.Size(), false},              // inside the line
		{int64(len(data)) - 2, f.Size() + 5, false}, // clamped
		{5, 5, false},
	}
	for _, c := range cases {
		got, err := f.LastBoundaryIn(context.Background(), c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, fmt.Sprintf("[%d,%d)", c.from, c.to), got >= 0, c.want)
		if c.want {
			eq(t, fmt.Sprintf("[%d,%d) offset", c.from, c.to), got, start)
		}
	}
}

// twoSegments is a transcript with work before and after one boundary.
func twoSegments() (lines []string, boundaryOff int64) {
	before := []string{
		prompt(1, "first", nil),
		call(2, "w1", "Write", obj{"file_path": "/a"}), result(3, "w1", "ok", false, nil),
		call(4, "b1", "Bash", obj{"command": "make"}), result(5, "b1", "ok", false, nil),
	}
	after := []string{
		boundary(6, obj{"postTokens": 100}),
		prompt(7, "second", nil),
		call(8, "w2", "Edit", obj{"file_path": "/a"}), result(9, "w2", "ok", false, nil),
	}
	return append(before, after...), int64(len(strings.Join(before, "\n")) + 1)
}

// spec: TR-6
func TestTR6SegmentAlwaysRead(t *testing.T) {
	lines, lb := twoSegments()
	f := open(t, writeLines(t, lines...))
	eq(t, "boundary", lastBoundary(t, f), lb)
	res, err := f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "read from", res.ReadFrom, int64(0))
	eq(t, "partial", res.Partial, false)
	eqSlice(t, "prompts", promptTexts(res.Facts), []string{"first", "second"})
	eq(t, "edits", res.Facts.Files[0].Edits, 2)
	eq(t, "compactions", res.Facts.Compactions, 1)
	eq(t, "bytes", res.Facts.Stats.BytesRead, f.Size())

	// Without a boundary the whole file is the segment, whatever the budget.
	g := open(t, writeLines(t, lines[:5]...))
	res, err = g.Read(context.Background(), ReadPlan{LastBoundary: -1, ChainEnd: -1, EarlierBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "partial", res.Partial, false)
	eqSlice(t, "prompts", promptTexts(res.Facts), []string{"first"})
}

// spec: TR-7
func TestTR7Chain(t *testing.T) {
	lines, lb := twoSegments()
	f := open(t, writeLines(t, lines...))
	seed := &Facts{Prompts: []Prompt{{Text: "from seed"}}, Files: []FileEdit{{Path: "/a", Edits: 5, LastTool: "Write"}}, Compactions: 2}
	read := func(p ReadPlan) Result {
		t.Helper()
		res, err := f.Read(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("used at the boundary", func(t *testing.T) {
		res := read(ReadPlan{LastBoundary: lb, ChainEnd: lb, Seed: seed})
		eq(t, "chained", res.Chained, true)
		eq(t, "read from", res.ReadFrom, lb)
		eqSlice(t, "prompts", promptTexts(res.Facts), []string{"from seed", "second"})
		eq(t, "edits", res.Facts.Files[0].Edits, 6)
		eq(t, "compactions", res.Facts.Compactions, 3)
	})
	t.Run("used before the boundary", func(t *testing.T) {
		at := int64(len(lines[0]) + 1) // start of the Write call
		res := read(ReadPlan{LastBoundary: lb, ChainEnd: at, Seed: seed})
		eq(t, "chained", res.Chained, true)
		eq(t, "read from", res.ReadFrom, at)
		eq(t, "edits", res.Facts.Files[0].Edits, 7)
	})
	for _, c := range []struct {
		name string
		end  int64
		lb   int64
	}{
		{"after the boundary", lb + 1, lb},
		{"not a line start", 3, lb},
		{"negative", -1, lb},
		{"no boundary", 0, -1},
	} {
		t.Run("ignored "+c.name, func(t *testing.T) {
			res := read(ReadPlan{LastBoundary: c.lb, ChainEnd: c.end, Seed: seed})
			eq(t, "chained", res.Chained, false)
			eq(t, "read from", res.ReadFrom, int64(0))
			eqSlice(t, "prompts", promptTexts(res.Facts), []string{"first", "second"})
			eq(t, "edits", res.Facts.Files[0].Edits, 2)
		})
	}
}

// spec: TR-8
func TestTR8Budget(t *testing.T) {
	lines, lb := twoSegments()
	f := open(t, writeLines(t, lines...))
	// A budget that reaches into the middle of the Bash call line.
	budget := int64(len(lines[4])) + 10
	res, err := f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1, EarlierBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "partial", res.Partial, true)
	eq(t, "read from", res.ReadFrom, lb-int64(len(lines[4]))-1) // the result line of the Bash call
	eqSlice(t, "prompts", promptTexts(res.Facts), []string{"second"})
	eq(t, "commands", len(res.Facts.Commands), 0)

	// Exactly at a line start: that line is read.
	res, _ = f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1, EarlierBudget: int64(len(lines[4])) + 1})
	eq(t, "aligned read from", res.ReadFrom, lb-int64(len(lines[4]))-1)

	// A budget covering everything is not partial.
	res, _ = f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1, EarlierBudget: lb})
	eq(t, "partial", res.Partial, false)
	eq(t, "read from", res.ReadFrom, int64(0))

	// Chain plus budget: the budget counts from the chain's end.
	res, _ = f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: 0, Seed: &Facts{}, EarlierBudget: budget})
	eq(t, "chained", res.Chained, true)
	eq(t, "partial", res.Partial, true)
}

// spec: TR-9
func TestTR9ChainEqualsWholeRead(t *testing.T) {
	lines, lb := twoSegments()
	whole := open(t, writeLines(t, lines...))
	full, _ := whole.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1})

	// What precompact saw at the compaction: the file up to the boundary.
	first := open(t, writeLines(t, lines[:5]...))
	earlier, _ := first.Read(context.Background(), ReadPlan{LastBoundary: -1, ChainEnd: -1})

	chained, _ := whole.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: first.Size(), Seed: earlier.Facts})
	eq(t, "chained", chained.Chained, true)
	eqSlice(t, "files", chained.Facts.Files, full.Facts.Files)
	eqSlice(t, "prompts", chained.Facts.Prompts, full.Facts.Prompts)
	eqDeep(t, "commands", chained.Facts.Commands, full.Facts.Commands)
	eq(t, "compactions", chained.Facts.Compactions, full.Facts.Compactions)
}

// spec: TR-10
func TestTR10Interrupted(t *testing.T) {
	lines, lb := twoSegments()
	f := open(t, writeLines(t, lines...))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.Read(ctx, ReadPlan{LastBoundary: lb, ChainEnd: -1, Seed: nil})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "interrupted", res.Interrupted, true)
	if res.Facts == nil {
		t.Fatal("no facts")
	}

	// A context that ends mid-read: a reader that cancels after the first
	// few MiB.
	x := NewExtractor(nil)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	r := &cancelAfter{n: 6 << 20, cancel: cancel, line: []byte(prompt(1, "x", nil) + "\n")}
	n, err := x.ReadLines(ctx, r)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if n < 6<<20 || n > 16<<20 {
		t.Errorf("read %d bytes before stopping", n)
	}
	eq(t, "bytes read", x.Facts().Stats.BytesRead, n)
}

// cancelAfter yields the same line forever and cancels after n bytes.
type cancelAfter struct {
	n      int
	cancel func()
	line   []byte
	off    int
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		m := copy(p[k:], c.line[c.off%len(c.line):])
		c.off += m
		k += m
	}
	if c.off >= c.n {
		c.cancel()
	}
	return k, nil
}

// spec: TR-2
func TestTR2ConcurrentUse(t *testing.T) {
	lines, lb := twoSegments()
	f := open(t, writeLines(t, lines...))
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			var err error
			if i%2 == 0 {
				var off int64
				off, err = f.LastBoundary(context.Background())
				if err == nil && off != lb {
					err = fmt.Errorf("LastBoundary = %d", off)
				}
			} else {
				var res Result
				res, err = f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: -1})
				if err == nil && len(res.Facts.Prompts) != 2 {
					err = fmt.Errorf("prompts = %v", promptTexts(res.Facts))
				}
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// spec: TR-4
// LastBoundary is worked out once per File: postcompact asks it for the
// snapshot and again for the failure marker. An interrupted scan is not
// remembered.
func TestTR4LastBoundaryRemembered(t *testing.T) {
	f := open(t, writeLines(t, prompt(1, "a", nil), boundary(2, nil), prompt(3, "b", nil)))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.LastBoundary(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled first scan: err = %v", err)
	}
	want := lastBoundary(t, f)
	got, err := f.LastBoundary(cancelled) // no scan: a cancelled context is not even looked at
	if err != nil || got != want {
		t.Errorf("second call = %d, %v; want the remembered %d", got, err, want)
	}
}

// spec: TR-34
func TestTR34NewestResponseAfter(t *testing.T) {
	lines := []string{
		prompt(1, "go", nil),
		call(2, "b1", "Bash", obj{"command": "ls"}),
		result(3, "b1", "ok", false, nil),
		assistantText(4, "claude-opus-5-5", obj{"input_tokens": 1}, nil), // a response at t4
		assistantText(5, "<synthetic>", obj{"input_tokens": 0}, nil),     // "No response requested."
		assistantText(6, "claude-opus-5-5", obj{"input_tokens": 1}, obj{"isSidechain": true}),
		assistantText(7, "claude-opus-5-5", obj{"input_tokens": 1}, obj{"isApiErrorMessage": true}),
		prompt(8, `a prompt quoting "type":"assistant" in its text`, nil),
		mustJSON(obj{"type": "progress", "timestamp": ts(9), "data": obj{"message": obj{"type": "assistant", "timestamp": ts(9),
			"message": obj{"model": "claude-opus-5-5"}}}}),
		boundary(10, nil),
		assistantText(2, "claude-opus-5-5", obj{"input_tokens": 1}, nil), // re-emitted after the boundary with its old time
	}
	data := strings.Join(lines, "\n") + "\n"
	f := open(t, writeFile(t, data))
	off := func(i int) int64 { return int64(len(strings.Join(lines[:i], "\n")) + 1) }
	ctx := context.Background()
	cases := []struct {
		name   string
		from   int64
		after  int
		want   int // the response's clock second, 0 for none
		wantOK bool
	}{
		{"the response at t4 is the newest after t3", 0, 3, 4, true},
		{"synthetic, sidechain, API error, quoted text and nested objects are no responses", off(4), 0, 2, true},
		{"re-emitted responses keep their old time and do not count after it", off(4), 3, 0, false},
		{"nothing after t4", 0, 4, 0, false},
		{"from past the response", off(3) + 1, 3, 0, false},
		{"from at the response's start", off(3), 3, 4, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := f.NewestResponseAfter(ctx, c.from, tsTime(c.after))
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "found", ok, c.wantOK)
			if c.wantOK {
				eq(t, "time", got.Equal(tsTime(c.want)), true)
			}
		})
	}
	t.Run("a long line between is jumped over", func(t *testing.T) {
		long := prompt(1, strings.Repeat("x", MaxLineBytes+10), nil)
		p := writeLines(t, assistantText(4, "claude-opus-5-5", obj{"input_tokens": 1}, nil), long, prompt(5, "after", nil))
		got, ok, err := open(t, p).NewestResponseAfter(ctx, 0, tsTime(3))
		if err != nil || !ok || !got.Equal(tsTime(4)) {
			t.Errorf("got %v %v %v, want t4", got, ok, err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, err := f.NewestResponseAfter(cctx, 0, tsTime(0)); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	})
}

// spec: TR-35
func TestTR35Compactions(t *testing.T) {
	hook := func(n int, typ, event string, content any) string {
		return mustJSON(obj{"type": "attachment", "timestamp": ts(n), "attachment": obj{"type": typ, "hookEvent": event, "content": content}})
	}
	b1 := mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": false, "timestamp": ts(3), "version": "2.1.328",
		"compactMetadata": obj{"trigger": "manual", "preTokens": 1200}})
	b2 := mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": false, "timestamp": ts(9), "version": "2.1.328",
		"compactMetadata": obj{"trigger": "auto", "preTokens": 160000}})
	lines := []string{
		prompt(1, "one", nil),
		hook(2, "hook_additional_context", "SessionStart", []any{"before any compaction"}),
		b1,
		hook(4, "hook_success", "SessionStart", ""),
		hook(4, "hook_additional_context", "SessionStart", []any{"pointer one", "and more"}),
		hook(4, "hook_additional_context", "UserPromptSubmit", []any{"not SessionStart's"}),
		prompt(5, `quoting "hook_additional_context" in a prompt`, nil),
		b2,
		hook(10, "hook_additional_context", "SessionStart", "pointer two"),
	}
	f := open(t, writeLines(t, lines...))
	got, err := f.Compactions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d compactions, want 2: %+v", len(got), got)
	}
	first, second := got[0], got[1]
	eq(t, "first offset", first.Offset, int64(len(strings.Join(lines[:2], "\n"))+1))
	eq(t, "first trigger", first.Trigger, "manual")
	eq(t, "first pre tokens", first.PreTokens, int64(1200))
	eq(t, "first version", first.Version, "2.1.328")
	eq(t, "first time", first.Time.Equal(tsTime(3)), true)
	eqSlice(t, "first contexts", first.Contexts, []string{"pointer one", "and more"})
	eq(t, "first hook records", first.HookRecords, 3)
	eq(t, "second trigger", second.Trigger, "auto")
	eqSlice(t, "second contexts", second.Contexts, []string{"pointer two"})
	eq(t, "second hook records", second.HookRecords, 1)

	// From past the first boundary only the second is read.
	got, err = f.Compactions(context.Background(), first.Offset+1)
	if err != nil || len(got) != 1 || got[0].Trigger != "auto" {
		t.Errorf("from past the first: %+v %v", got, err)
	}
}

// spec: TR-36 TR-27
// A boundary entry written twice (the same uuid, as 2.1.119 was seen to do
// when it wrote a session's transcript late) is one compaction for every
// reader: BoundariesAfter, Compactions and the extractor's count; and a
// boundary's time, not its place, says whether it came after a moment.
func TestTR36BoundaryWrittenTwice(t *testing.T) {
	withID := func(n int, id string) string {
		return mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": false, "uuid": id,
			"timestamp": ts(n), "compactMetadata": obj{"trigger": "manual", "preTokens": 100}})
	}
	lines := []string{
		prompt(1, "one", nil),
		withID(2, "b-1"),
		prompt(3, "two", nil),
		withID(2, "b-1"), // the same entry again
		prompt(4, "three", nil),
		withID(5, "b-2"),
		boundary(6, nil), // no uuid: always its own
	}
	f := open(t, writeLines(t, lines...))
	off := func(i int) int64 { return int64(len(strings.Join(lines[:i], "\n")) + 1) }
	ctx := context.Background()
	got, err := f.BoundariesAfter(ctx, 0, f.Size(), time.Time{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	eqSlice(t, "three newest, the copy counted once at its first line", got, []int64{off(6), off(5), off(1)})
	got, _ = f.BoundariesAfter(ctx, off(2), off(6), time.Time{}, 2)
	eqSlice(t, "after the first copy, the second copy alone", got, []int64{off(5), off(3)})
	// A boundary timestamped at or before the given time is an earlier
	// compaction's, however late it was written.
	got, _ = f.BoundariesAfter(ctx, off(2), f.Size(), tsTime(2), 2)
	eqSlice(t, "after t2", got, []int64{off(6), off(5)})
	got, _ = f.BoundariesAfter(ctx, off(2), f.Size(), tsTime(5), 2)
	eqSlice(t, "after t5, only the one without a time", got, []int64{off(6)})
	comps, err := f.Compactions(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(comps) != 3 || comps[0].Offset != off(1) {
		t.Errorf("Compactions = %+v, want 3, the first at %d", comps, off(1))
	}
	eq(t, "extractor's count", extract(lines...).Compactions, 3)
}
