package transcript

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// tickClock is an injected clock: every call is step later than the one
// before, whatever the real time, so the pace of a read is decided by the
// number of checks it makes, never by how fast the machine is.
func tickClock(base time.Time, step time.Duration) func() time.Time {
	n := 0
	return func() time.Time {
		t := base.Add(time.Duration(n) * step)
		n++
		return t
	}
}

// generated returns a realistic transcript of about size bytes followed by
// the given lines.
func generated(t *testing.T, size int64, seed uint64, lines ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := transcripttest.Generate(&b, transcripttest.Options{Size: size, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if otherLayout {
		// The same session in the other layout (TR-56); lines already
		// relaid by their builders are left as they are.
		out, _ := transcripttest.RelayoutLines(b.Bytes(), layoutSeed)
		return out
	}
	return b.Bytes()
}

// sparseTranscript writes head, then hole bytes of NUL ended by '\n' (one
// line far longer than MaxLineBytes, which costs no disk), then tail.
func sparseTranscript(t *testing.T, head []byte, hole int64, tail []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "huge.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(head); err != nil {
		t.Fatal(err)
	}
	at := int64(len(head)) + hole
	if hole > 0 {
		if err := f.Truncate(at); err != nil {
			t.Skipf("cannot make a sparse file: %v", err)
		}
		if _, err := f.WriteAt([]byte("\n"), at-1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.WriteAt(tail, at); err != nil {
		t.Fatal(err)
	}
	return p
}

// The newest facts of the tests below.
var (
	oldEdit = []string{
		prompt(10, "the oldest prompt", nil),
		call(11, "old-edit", "Edit", obj{"file_path": "/p/old.go"}),
		result(12, "old-edit", "ok", false, nil),
	}
	newestFacts = []string{
		prompt(100, "the newest prompt", nil),
		call(101, "new-bash", "Bash", obj{"command": "go test ./..."}),
		result(102, "new-bash", "Exit code 1\n--- FAIL: TestNewest", true, nil),
		call(103, "new-edit", "Edit", obj{"file_path": "/p/new.go"}),
		result(104, "new-edit", "ok", false, nil),
	}
)

func checkNewest(t *testing.T, f *Facts) {
	t.Helper()
	if n := len(f.Prompts); n == 0 || f.Prompts[n-1].Text != "the newest prompt" {
		t.Errorf("newest prompt missing: %q", promptTexts(f))
	}
	if n := len(f.Commands); n == 0 || f.Commands[n-1].Command != "go test ./..." || f.Commands[n-1].Outcome != OutcomeError {
		t.Errorf("newest command missing: %+v", f.Commands)
	}
	if len(f.Files) == 0 || f.Files[0].Path != "/p/new.go" {
		t.Errorf("newest edit missing: %q", filePaths(f))
	}
}

// A 1.3 GB segment (a sparse 1.3 GB line between an older part and the
// newest turns) read against a deadline the pace says it cannot meet: the
// first pass stops after its first check, the newest bytes are read next,
// and the facts of both parts are kept, the bytes between them reported.
// spec: TR-50
func TestTR50HugeSegmentNewestFirst(t *testing.T) {
	head := generated(t, 1<<20, 1, oldEdit...)
	tail := generated(t, 2<<20, 2, newestFacts...)
	const hole = 1300 << 20
	f := open(t, sparseTranscript(t, head, hole, tail))

	base := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), base.Add(10*time.Second))
	defer cancel()
	res, err := f.Read(ctx, ReadPlan{LastBoundary: -1, ChainEnd: -1, Now: tickClock(base, time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	checkNewest(t, res.Facts)
	if !strings.Contains(strings.Join(filePaths(res.Facts), " "), "/p/old.go") {
		t.Errorf("the facts read before the pace stopped the first pass were dropped: %q", filePaths(res.Facts))
	}
	eq(t, "interrupted", res.Interrupted, false)
	eq(t, "read from", res.ReadFrom, int64(0))
	eq(t, "read to", res.ReadTo, f.Size())
	if len(res.Unread) != 1 {
		t.Fatalf("unread %+v, want one range", res.Unread)
	}
	// The first pass took the head and stopped in the giant line; the
	// second read the newest bytes, as many as about 4 MiB/s (the rate the
	// clock gave: the first check comes once 4 MiB are read, a read of up
	// to 1 MiB past that as the reads fall on the lines) reads in half of
	// the 9 s left.
	eq(t, "unread from", res.Unread[0].From, int64(len(head)))
	if newest := f.Size() - res.Unread[0].To; newest < 18<<20 || newest > 23<<20 {
		t.Errorf("newest part %d bytes, want 18 to 23 MiB", newest)
	}
	if st := res.Facts.Stats; st.BytesRead > 32<<20 || st.SkippedLong != 0 || st.Corrupt != 0 {
		t.Errorf("stats %+v: want at most 32 MiB read, nothing skipped or corrupt", st)
	}
}

// A newest part that turns out slower than the pass before it is paced
// too: it stops, and newer bytes still are read next, each skipped range
// reported.
// spec: TR-50
func TestTR50NewestPartRepaced(t *testing.T) {
	head := generated(t, 1<<20, 7, oldEdit...)
	tail := generated(t, 2<<20, 6, newestFacts...)
	f := open(t, sparseTranscript(t, head, 1300<<20, tail))
	base := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), base.Add(10*time.Second))
	defer cancel()
	// Calls: the first pass starts at 0 s and checks at 1 s (4 MiB/s, 9 s
	// left: behind); the second starts at 1 s and checks at 5 s (1 MiB/s,
	// 5 s left for its 14 MiB: behind).
	at := []time.Duration{0, time.Second, time.Second, 5 * time.Second}
	calls := 0
	res, err := f.Read(ctx, ReadPlan{LastBoundary: -1, ChainEnd: -1, Now: func() time.Time {
		d := at[min(calls, len(at)-1)]
		calls++
		return base.Add(d)
	}})
	if err != nil {
		t.Fatal(err)
	}
	checkNewest(t, res.Facts)
	if len(res.Unread) != 2 || res.Unread[0].To >= res.Unread[1].From || res.Interrupted || res.ReadTo != f.Size() {
		t.Fatalf("unread %+v, read to %d of %d, interrupted %v: want two ranges and the end reached", res.Unread, res.ReadTo, f.Size(), res.Interrupted)
	}
	if newest := f.Size() - res.Unread[1].To; newest < 2<<20 || newest > 3<<20 {
		t.Errorf("newest part %d bytes, want about 2.5 MiB (1 MiB/s for half of 5 s)", newest)
	}
	if !strings.Contains(strings.Join(filePaths(res.Facts), " "), "/p/old.go") {
		t.Errorf("facts of the first pass dropped: %q", filePaths(res.Facts))
	}
}

// A 3 GB file with no newline: no line is ever held whole, the pace stops
// the first pass inside the line, and the newest bytes, which hold no line
// start, give no facts; the unread range says which bytes were not read.
// spec: TR-50, TR-11
func TestTR50NoNewlineNewestFirst(t *testing.T) {
	head := []byte(`{"type":"user","message":{"role":"user","content":"`)
	p := filepath.Join(t.TempDir(), "one-line.jsonl")
	if err := os.WriteFile(p, head, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 3<<30); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	f := open(t, p)
	base := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), base.Add(10*time.Second))
	defer cancel()
	res, err := f.Read(ctx, ReadPlan{LastBoundary: -1, ChainEnd: -1, Now: tickClock(base, time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "interrupted", res.Interrupted, false)
	eq(t, "read to", res.ReadTo, f.Size())
	if len(res.Unread) != 1 || res.Unread[0].From != 0 || res.Unread[0].To != f.Size()-18<<20 {
		t.Errorf("unread = %+v, want [0, %d)", res.Unread, f.Size()-18<<20)
	}
	if len(res.Facts.Prompts) != 0 || res.Facts.Stats.Lines != 0 || res.Facts.Stats.BytesRead > 32<<20 {
		t.Errorf("facts from a line that was never read whole: prompts %d, stats %+v", len(res.Facts.Prompts), res.Facts.Stats)
	}
}

// With time to spare the pace changes nothing: the same facts as a read
// without a deadline, no unread range.
// spec: TR-50
func TestTR50OnPaceReadsWhole(t *testing.T) {
	data := generated(t, 12<<20, 3, newestFacts...)
	f := open(t, writeFile(t, string(data)))
	plain, err := f.Read(context.Background(), ReadPlan{LastBoundary: -1, ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), base.Add(10*time.Second))
	defer cancel()
	// 1 ms a check: 4 MiB/ms, 12 MiB left, 10 s to go.
	paced, err := f.Read(ctx, ReadPlan{LastBoundary: -1, ChainEnd: -1, Now: tickClock(base, time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	if len(paced.Unread) != 0 || paced.ReadTo != f.Size() || paced.Interrupted {
		t.Errorf("paced read: unread %+v, read to %d of %d, interrupted %v", paced.Unread, paced.ReadTo, f.Size(), paced.Interrupted)
	}
	eqDeep(t, "facts", paced.Facts, plain.Facts)
	checkNewest(t, paced.Facts)
}

// When ctx ends during the newest bytes too, the facts hold both parts up
// to there, Interrupted is set and ReadTo says where reading stopped.
// spec: TR-50, TR-10
func TestTR50NewestPartInterrupted(t *testing.T) {
	data := generated(t, 40<<20, 4, newestFacts...)
	f := open(t, writeFile(t, string(data)))
	base := time.Now()
	ctx, cancel := context.WithDeadline(context.Background(), base.Add(10*time.Second))
	defer cancel()
	clock := tickClock(base, time.Second)
	calls := 0
	res, err := f.Read(ctx, ReadPlan{LastBoundary: -1, ChainEnd: -1, Now: func() time.Time {
		calls++
		if calls == 2 { // the first pace check, which stops the first pass
			cancel()
		}
		return clock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "interrupted", res.Interrupted, true)
	if len(res.Unread) != 1 || res.ReadTo <= res.Unread[0].To || res.ReadTo >= f.Size() {
		t.Fatalf("unread %+v, read to %d of %d: want reading stopped inside the newest part", res.Unread, res.ReadTo, f.Size())
	}
	u := res.Unread[0]
	eq(t, "bytes read", res.Facts.Stats.BytesRead, u.From+(res.ReadTo-u.To)-lineRest(t, data, u.To))
}

// lineRest is how many bytes from off belong to a line begun before it
// (read, but dropped to start at a line).
func lineRest(t *testing.T, data []byte, off int64) int64 {
	t.Helper()
	if off == 0 || data[off-1] == '\n' {
		return 0
	}
	return int64(bytes.IndexByte(data[off:], '\n')) + 1
}

// endless yields one line that never ends.
type endless struct {
	n, cancelAt int64
	cancel      func()
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	if e.n >= e.cancelAt {
		e.cancel()
	}
	return len(p), nil
}

// ctx is looked at inside a line of any length, not only between lines.
// spec: TR-10, TR-11
func TestTR10StopsInsideLongLine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	x := NewExtractor(nil)
	r := &endless{cancelAt: 20 << 20, cancel: cancel}
	n, err := x.ReadLines(ctx, r)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if r.n > 32<<20 {
		t.Errorf("read %d bytes of the line after ctx ended at 20 MiB", r.n)
	}
	if st := x.Facts().Stats; st.SkippedLong != 1 || st.BytesRead != n {
		t.Errorf("stats %+v (consumed %d): want the line counted once as too long", st, n)
	}
}
