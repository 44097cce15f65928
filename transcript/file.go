package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/compact-guard/compact-guard/transcript/nonblock"
)

// File is an opened transcript. Everything it reads stays within the size
// the file had at Open, so a transcript that grows meanwhile (Claude Code
// keeps appending) is read as a consistent prefix.
//
// A File is safe for concurrent use: every read is a ReadAt.
type File struct {
	f      *os.File
	size   int64
	format Format
	// formatKnown is false when the file's start did not decide its format.
	formatKnown bool

	// last caches LastBoundary: the file is read only up to size, so the
	// answer cannot change, and postcompact asks it for both the snapshot
	// and the failure marker.
	mu       sync.Mutex
	last     int64
	haveLast bool
}

// ErrNotRegular is returned by Open for a path that is not a regular file
// (directory, FIFO, device, socket).
var ErrNotRegular = errors.New("not a regular file")

// Open opens the transcript at path. It stats first and refuses anything but
// a regular file without opening it, so a FIFO or a device can never block
// the caller; symbolic links are followed and a link loop is an error.
func Open(path string) (*File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("transcript: %s: %w (%s)", path, ErrNotRegular, kind(fi.Mode()))
	}
	f, err := nonblock.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	// The path may have been swapped between Stat and open: check again on
	// what was actually opened.
	fi2, err := f.Stat()
	if err != nil || !fi2.Mode().IsRegular() || !os.SameFile(fi, fi2) {
		f.Close()
		return nil, fmt.Errorf("transcript: %s: %w (changed while opening)", path, ErrNotRegular)
	}
	tf := &File{f: f, size: fi2.Size()}
	tf.format, tf.formatKnown = sniff(f, tf.size)
	return tf, nil
}

// Format is the transcript's format, recognised from its start at Open
// (TR-37); known is false when nothing there decided (FormatClaude is then
// assumed).
func (f *File) Format() (format Format, known bool) { return f.format, f.formatKnown }

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}

// Size returns the file's size at Open; nothing past it is read.
func (f *File) Size() int64 { return f.size }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// boundaryChunk is how much the backward scan reads at a time.
const boundaryChunk = 1 << 20

// LastBoundary returns the offset of the start of the last compact_boundary
// line (type "system", subtype "compact_boundary", not a sidechain, at most
// MaxLineBytes long), or -1 when there is none. It reads backwards from the
// end in 1 MiB chunks and stops at the first match.
func (f *File) LastBoundary(ctx context.Context) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.haveLast {
		return f.last, nil
	}
	off, err := f.lastBoundaryIn(ctx, 0, f.size)
	if err == nil { // an interrupted scan is asked again, not remembered
		f.last, f.haveLast = off, true
	}
	return off, err
}

// LastBoundaryIn returns the start of the last compact_boundary line that
// starts within [from, to), -1 when there is none, scanning backwards from
// to (TR-5).
func (f *File) LastBoundaryIn(ctx context.Context, from, to int64) (int64, error) {
	return f.lastBoundaryIn(ctx, from, to)
}

// BoundariesAfter returns the starts of the last n distinct compaction
// boundaries that start within [from, to) and are timestamped after after
// (or carry no timestamp), newest first (TR-36). A boundary entry written
// twice (the same uuid) counts once, at its first line; one timestamped at
// or before after is passed over. Both come from a client that writes its
// transcript late (2.1.119 in stream-json mode): it repeated an entry, and
// wrote a compaction's boundary only after the next compaction's PreCompact
// had read the file, so a boundary's place alone does not say when its
// compaction happened, while its time (taken when the summary was ready)
// does.
func (f *File) BoundariesAfter(ctx context.Context, from, to int64, after time.Time, n int) ([]int64, error) {
	var out []int64
	var ids []string
	r := f.format.reader().Boundary()
	err := f.scanBack(ctx, from, to, r.Needle, func(start int64, line []byte) bool {
		id, ts, ok := r.Match(line)
		if !ok {
			return false
		}
		if !ts.IsZero() && !ts.After(after) {
			return false
		}
		for i, seen := range ids {
			if id != "" && seen == id {
				out[i] = start // an earlier copy of the same entry
				return false
			}
		}
		if len(out) == n {
			return true
		}
		out, ids = append(out, start), append(ids, id)
		return false
	})
	return out, err
}

// lastBoundaryIn returns the start of the last boundary line that starts in
// [from, to), or -1.
func (f *File) lastBoundaryIn(ctx context.Context, from, to int64) (int64, error) {
	found := int64(-1)
	r := f.format.reader().Boundary()
	err := f.scanBack(ctx, from, to, r.Needle, func(start int64, line []byte) bool {
		if _, _, ok := r.Match(line); ok {
			found = start
			return true
		}
		return false
	})
	return found, err
}

// scanBack visits, from the last to the first, the complete lines of at
// most MaxLineBytes that start in [from, to) and hold needle preceded by a
// '"', until visit returns true. It reads backwards from the end of the line
// holding to-1, in chunks that start at 64 KiB and grow to boundaryChunk, so
// that a match near the end is found without reading much.
func (f *File) scanBack(ctx context.Context, from, to int64, needle []byte, visit func(start int64, line []byte) bool) error {
	from = max(from, 0)
	to = min(to, f.size)
	if from >= to {
		return nil
	}
	// A line starting just before `to` may carry the needle after `to`:
	// scan from the end of that line.
	end, _, err := f.lineEnd(to - 1)
	if err != nil {
		return err
	}
	step := min(int64(64<<10), boundaryChunk)
	// One buffer for every chunk size: a fresh allocation's pages are
	// touched only as far as they are used, so a scan that stops in the
	// first 64 KiB costs no more, and a long one does not touch its
	// memory twice. It is no larger than the range: a scan of a few
	// hundred bytes (the hooks after each of 32,000 boundaries, audit's
	// PF-25) must not clear a MiB each time.
	chunk := make([]byte, min(boundaryChunk, end-from)+int64(len(needle)))
	var matches []int
	var line []byte // candidate lines, reused within this scan
	pos := end      // bytes [pos, end) are searched already, except an overlap
	for pos > from {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo := max(from, pos-step)
		hi := min(end, pos+int64(len(needle))-1)
		buf := chunk[:hi-lo]
		if _, err := f.f.ReadAt(buf, lo); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		// Find the needles forward (bytes.Index is vectorised, LastIndex is
		// not), then settle them from the last one back.
		matches = matches[:0]
		for p := 0; ; {
			k := bytes.Index(buf[p:], needle)
			if k < 0 {
				break
			}
			matches = append(matches, p+k)
			p += k + 1
		}
		next := lo
		limit := len(buf) // needles at or past limit are settled
	candidates:
		for mi := len(matches) - 1; mi >= 0; mi-- {
			k := matches[mi]
			if k >= limit {
				continue
			}
			m := lo + int64(k)
			if m == 0 || (k > 0 && buf[k-1] != '"') {
				continue
			}
			if k == 0 {
				var q [1]byte
				if _, err := f.f.ReadAt(q[:], m-1); err != nil || q[0] != '"' {
					continue
				}
			}
			start, ok, err := f.lineStart(buf, lo, k)
			if err != nil {
				return err
			}
			if !ok {
				// No line start within MaxLineBytes before the needle: every
				// byte back there belongs to one over-long line.
				next = max(from, start)
				break candidates
			}
			if start < from {
				return nil
			}
			if start < to {
				l, err := f.readLine(start, &line)
				if err != nil {
					return err
				}
				if l != nil && visit(start, l) {
					return nil
				}
			}
			// Every needle of this line is settled; continue before it.
			if start <= lo {
				next = start
				break candidates
			}
			limit = int(start - lo)
		}
		if next < lo {
			pos = next
		} else {
			pos = lo
		}
		if step < boundaryChunk {
			step = min(4*step, boundaryChunk)
		}
	}
	return nil
}

// lineStart finds the start of the line holding buf[k] (buf starts at file
// offset lo). ok is false when no line start lies within MaxLineBytes; start
// is then the lowest offset examined.
func (f *File) lineStart(buf []byte, lo int64, k int) (start int64, ok bool, err error) {
	if i := bytes.LastIndexByte(buf[:k], '\n'); i >= 0 {
		return lo + int64(i) + 1, true, nil
	}
	limit := max(0, lo+int64(k)-MaxLineBytes-1)
	p := lo
	var tmp [64 << 10]byte
	for p > limit {
		q := max(limit, p-int64(len(tmp)))
		b := tmp[:p-q]
		if _, err := f.f.ReadAt(b, q); err != nil && !errors.Is(err, io.EOF) {
			return 0, false, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return q + int64(i) + 1, true, nil
		}
		p = q
	}
	if p == 0 {
		return 0, true, nil
	}
	return p, false, nil
}

// lineEnd returns the offset just past the '\n' ending the line that holds
// offset off, or the file size for a final line without one, looking at most
// MaxLineBytes+1 bytes ahead; complete is false when the line goes on past
// that (it is then too long to be an entry).
func (f *File) lineEnd(off int64) (end int64, complete bool, err error) {
	var tmp [64 << 10]byte
	p := off
	limit := min(f.size, off+MaxLineBytes+1)
	for p < limit {
		b := tmp[:min(int64(len(tmp)), limit-p)]
		n, err := f.f.ReadAt(b, p)
		if i := bytes.IndexByte(b[:n], '\n'); i >= 0 {
			return p + int64(i) + 1, true, nil
		}
		p += int64(n)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, false, err
		}
	}
	if p >= f.size {
		return f.size, true, nil
	}
	return p, false, nil
}

// readLine reads the line starting at off into *buf (grown as needed),
// without its '\n'; nil when the line is longer than MaxLineBytes.
func (f *File) readLine(off int64, buf *[]byte) ([]byte, error) {
	end, complete, err := f.lineEnd(off)
	if err != nil || !complete {
		return nil, err
	}
	n := end - off
	if int64(cap(*buf)) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	if _, err := f.f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) > MaxLineBytes {
		return nil, nil
	}
	return b, nil
}

// ReadPlan says what Read reads.
type ReadPlan struct {
	// LastBoundary is the result of LastBoundary (-1: none, the whole file is
	// the segment).
	LastBoundary int64
	// ChainEnd is -1 without an earlier snapshot of the session, else the
	// offset up to which that snapshot covered the file. It is used only when
	// it is a line start no later than LastBoundary.
	ChainEnd int64
	// Seed holds the earlier snapshot's facts, carried forward when the
	// chain is used; nil without chain.
	Seed *Facts
	// EarlierBudget is how many bytes before LastBoundary are read at most;
	// 0 or less means DefaultEarlierBudget.
	EarlierBudget int64
	// Now is the clock Read paces itself by against ctx's deadline (nil:
	// time.Now); tests inject one.
	Now func() time.Time
}

// DefaultEarlierBudget is the default ReadPlan.EarlierBudget.
const DefaultEarlierBudget = 64 << 20

// ByteRange is the bytes [From, To) of the transcript.
type ByteRange struct {
	From int64 `json:"from"`
	To   int64 `json:"to"`
}

// Result is what Read found.
type Result struct {
	Facts *Facts
	// ReadFrom is the first byte read, a line start.
	ReadFrom int64
	// ReadTo is the offset just past the last byte read: Size when the
	// reading reached the end.
	ReadTo int64
	// Unread lists, in file order, the parts of [ReadFrom, ReadTo) that
	// were not read: the whole could not have been read by ctx's deadline,
	// so newer bytes were read before older ones (TR-50). Facts hold the
	// bytes read on every side of them.
	Unread []ByteRange
	// Partial is set when some bytes before ReadFrom were neither read nor
	// covered by the chain: Facts then miss what those bytes held, and
	// Compactions is a lower bound.
	Partial bool
	// Chained is set when ChainEnd and Seed were used.
	Chained bool
	// Interrupted is set when ctx ended the reading before ReadTo reached
	// Size: Facts hold what was read until then.
	Interrupted bool
}

// errBehind stops a pass that cannot end by the deadline (TR-50).
var errBehind = errors.New("reading cannot finish by the deadline")

// Pacing of Read against ctx's deadline (TR-50).
const (
	// paceGoOn: a pass goes on while the rest, at its rate so far, takes at
	// most this share of the time left.
	paceGoOnNum, paceGoOnDen = 3, 4
	// newestShare: the newest bytes read after a pass stopped are as many
	// as its rate reads in this share of the time left.
	newestShareNum, newestShareDen = 1, 2
	// maxPasses bounds the passes; the last one is not paced.
	maxPasses = 8
	// A pass's rate is trusted once it has read paceSampleBytes, or taken
	// 1/paceSampleDen of the time it had: its first MiB pays for faulting
	// in buffers and tables, and would make a fast read look slow.
	paceSampleBytes = 16 << 20
	paceSampleDen   = 16
)

// Read extracts the session's facts. The segment [LastBoundary, Size) is
// read whole, with the earlier bytes from ChainEnd (with a usable chain) or
// from 0 within EarlierBudget, in file order through one Extractor seeded
// with p.Seed, so facts are session-wide.
//
// When ctx has a deadline and, at the rate the reading goes, the rest could
// not be read by then, the newest bytes are read first (TR-50): the pass
// stops, the last bytes that its rate reads in half the time left are read
// next, paced the same way, and the facts of every pass are kept, the bytes
// skipped reported in Result.Unread.
func (f *File) Read(ctx context.Context, p ReadPlan) (Result, error) {
	now := p.Now
	if now == nil {
		now = time.Now
	}
	lb := p.LastBoundary
	if lb < 0 || lb > f.size {
		lb = 0
	}
	budget := p.EarlierBudget
	if budget <= 0 {
		budget = DefaultEarlierBudget
	}
	var res Result
	start := int64(0)
	seed := (*Facts)(nil)
	if p.LastBoundary >= 0 && f.chainUsable(p.ChainEnd, lb) {
		start, seed, res.Chained = p.ChainEnd, p.Seed, true
	}
	aligned := true
	if lb-start > budget {
		start, aligned, res.Partial = lb-budget, false, true
	}
	if err := ctx.Err(); err != nil {
		res.Facts, res.ReadFrom, res.ReadTo, res.Interrupted = NewExtractorFor(f.format, seed).Facts(), start, start, true
		return res, nil
	}

	deadline, paced := ctx.Deadline()
	x := NewExtractorFor(f.format, seed)
	from := start
	var err error
	for pass := 0; ; pass++ {
		// Each pass has its own pace: another part of the file may be read
		// at another speed (in the page cache or not).
		t0 := now()
		sample := deadline.Sub(t0) / paceSampleDen
		var left time.Duration
		var rate float64 // bytes per second
		pacing := paced && pass < maxPasses-1
		var sp readSpan
		sp, err = f.readRange(x, from, aligned, func(ls *lineSplitter, base int64) func() error {
			return func() error {
				if err := ctx.Err(); err != nil {
					return err
				}
				if !pacing {
					return nil
				}
				t := now()
				left = deadline.Sub(t)
				el := t.Sub(t0)
				if el <= 0 || (ls.read < paceSampleBytes && el < sample) {
					return nil
				}
				rate = float64(ls.read) / el.Seconds()
				need := time.Duration(float64(f.size-base-ls.read) / rate * float64(time.Second))
				if need*paceGoOnDen > left*paceGoOnNum {
					return errBehind
				}
				return nil
			}
		})
		if pass == 0 {
			res.ReadFrom = sp.from
		}
		res.ReadTo = sp.to
		if !errors.Is(err, errBehind) {
			break
		}
		// The newest bytes next: as many as this pass's rate reads in half
		// the time left, continuing from the facts read so far.
		n := max(int64(rate*left.Seconds()*newestShareNum/newestShareDen), readChunk)
		next := max(f.size-n, sp.to)
		older := x.Facts()
		x = NewExtractorFor(f.format, older)
		x.b.AddStats(older.Stats)
		if next > sp.to {
			res.Unread = append(res.Unread, ByteRange{From: sp.to, To: next})
		}
		from, aligned = next, false
	}
	res.Facts = x.Facts()
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			res.Interrupted = true
			return res, nil
		}
		return res, fmt.Errorf("transcript: %w", err)
	}
	return res, nil
}

// readSpan is what readRange covered: from the first line start to just past
// the last byte consumed.
type readSpan struct{ from, to int64 }

// readRange feeds x the lines of [start, Size): from start when aligned
// (start is known to be a line start), else from the first line that begins
// at or after it.
// checker makes the splitter's stop check (ctx, the pace), given the
// splitter and the offset its reader starts at.
func (f *File) readRange(x *Extractor, start int64, aligned bool, checker func(ls *lineSplitter, base int64) func() error) (readSpan, error) {
	base := start
	if !aligned {
		// Start at the first line beginning at or after start: read from
		// the byte before it and drop through the first '\n'.
		base = start - 1
	}
	ls := newLineSplitter(io.NewSectionReader(f.f, base, f.size-base), nil)
	ls.check = checker(ls, base)
	if !aligned {
		ls.dropPartial()
	}
	from := base + ls.consumed
	consumed, err := x.feedFrom(ls)
	return readSpan{from: from, to: base + consumed}, err
}

// chainUsable reports whether end is a line start in [0, lb].
func (f *File) chainUsable(end, lb int64) bool {
	if end < 0 || end > lb {
		return false
	}
	if end == 0 {
		return true
	}
	var b [1]byte
	_, err := f.f.ReadAt(b[:], end-1)
	return err == nil && b[0] == '\n'
}
