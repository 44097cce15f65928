package transcript

import (
	"bytes"
	"context"
	"errors"
	"io"
)

// readChunk is how much is asked of the reader at a time; large enough that
// system calls do not dominate, small next to the 8 MiB line limit.
const readChunk = 1 << 20

// ctxCheckBytes is how often, in bytes read, reading looks at ctx (and,
// in Read, at its pace).
const ctxCheckBytes = 4 << 20

// lineSplitter splits a stream into lines with a single reusable buffer that
// never grows past MaxLineBytes plus one read; a longer line is passed over
// (only its length is counted) without ever being held whole.
type lineSplitter struct {
	r     io.Reader
	buf   []byte
	start int // unconsumed data is buf[start:end]
	end   int
	seen  int // buf[start:start+seen] holds no '\n' (searched already)
	eof   bool
	err   error
	// consumed counts bytes handed out as lines or skipped, newlines included.
	consumed int64
	// check is asked every ctxCheckBytes read whether to go on; an error
	// stops the splitter at once (nothing buffered is handed out) and is
	// kept in err. It runs inside every loop that reads, so a line of any
	// length is no way around it.
	check     func() error
	read      int64 // bytes read from r
	nextCheck int64
	stopped   bool
}

func newLineSplitter(r io.Reader, check func() error) *lineSplitter {
	return &lineSplitter{r: r, buf: make([]byte, 0, readChunk), check: check, nextCheck: ctxCheckBytes}
}

// lineKind says how next ended.
type lineKind int

const (
	lineDone lineKind = iota // no more data
	lineFull                 // a line ended by '\n'
	lineLast                 // the final line, without '\n'
	lineLong                 // a line over MaxLineBytes, skipped
)

// next returns the next line without its '\n' (a '\r' before it is kept;
// the extractor trims it). The slice is valid until the next call.
func (ls *lineSplitter) next() ([]byte, lineKind) {
	for {
		if ls.stopped {
			return nil, lineDone
		}
		if i := bytes.IndexByte(ls.buf[ls.start+ls.seen:ls.end], '\n'); i >= 0 {
			i += ls.seen
			ls.seen = 0
			line := ls.buf[ls.start : ls.start+i]
			ls.start += i + 1
			ls.consumed += int64(i) + 1
			if len(line) > MaxLineBytes {
				return nil, lineLong
			}
			return line, lineFull
		}
		ls.seen = ls.end - ls.start
		if ls.end-ls.start > MaxLineBytes {
			ls.seen = 0
			return nil, ls.skipLong()
		}
		if ls.eof {
			if ls.end == ls.start {
				return nil, lineDone
			}
			line := ls.buf[ls.start:ls.end]
			ls.consumed += int64(len(line))
			ls.start, ls.seen = ls.end, 0
			return line, lineLast
		}
		ls.fill()
	}
}

// fill reads more data, moving the unconsumed tail to the front and growing
// the buffer only as far as one maximal line needs.
func (ls *lineSplitter) fill() {
	if ls.start > 0 {
		n := copy(ls.buf[:cap(ls.buf)], ls.buf[ls.start:ls.end])
		ls.start, ls.end = 0, n
	}
	if cap(ls.buf)-ls.end < readChunk/4 {
		// Grow in large steps, but never past one maximal line plus one read.
		nc := max(min(4*cap(ls.buf), MaxLineBytes+readChunk), ls.end+readChunk)
		nb := make([]byte, ls.end, nc)
		copy(nb, ls.buf[:ls.end])
		ls.buf = nb
	}
	ls.readMore()
}

func (ls *lineSplitter) readMore() {
	full := ls.buf[:cap(ls.buf)]
	n, err := io.ReadAtLeast(ls.r, full[ls.end:min(len(full), ls.end+readChunk)], 1)
	ls.end += n
	ls.buf = full[:ls.end]
	ls.read += int64(n)
	if err != nil {
		ls.eof = true
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			ls.err = err
		}
	}
	if ls.check != nil && ls.read >= ls.nextCheck && !ls.eof {
		ls.nextCheck = ls.read + ctxCheckBytes
		if err := ls.check(); err != nil {
			ls.err, ls.eof, ls.stopped = err, true, true
		}
	}
}

// skipLong discards the current over-long line: the buffered part, then
// whole reads until a '\n' shows up. Nothing of it is kept.
func (ls *lineSplitter) skipLong() lineKind {
	for {
		if i := bytes.IndexByte(ls.buf[ls.start:ls.end], '\n'); i >= 0 {
			ls.consumed += int64(i) + 1
			ls.start += i + 1
			return lineLong
		}
		ls.consumed += int64(ls.end - ls.start)
		ls.start, ls.end = 0, 0
		ls.buf = ls.buf[:0]
		if ls.eof {
			return lineLong
		}
		ls.readMore()
	}
}

// dropPartial discards bytes up to and including the first '\n', so reading
// starts at a line boundary; it reports false when no '\n' exists.
func (ls *lineSplitter) dropPartial() bool {
	for {
		if i := bytes.IndexByte(ls.buf[ls.start:ls.end], '\n'); i >= 0 {
			ls.consumed += int64(i) + 1
			ls.start += i + 1
			return true
		}
		ls.consumed += int64(ls.end - ls.start)
		ls.start, ls.end = 0, 0
		ls.buf = ls.buf[:0]
		if ls.eof {
			return false
		}
		ls.readMore()
	}
}

// ReadLines feeds every line of r to x, in order, until EOF, a read error or
// ctx is done (checked every few MiB read, also inside a long line). A final
// line without '\n' goes to FeedLast; a line over MaxLineBytes is counted by
// SkipLong without being buffered whole. It returns the number of bytes
// consumed (also added to Stats.BytesRead) and the read error, or ctx's error
// when ctx ended the reading.
func (x *Extractor) ReadLines(ctx context.Context, r io.Reader) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return x.feedFrom(newLineSplitter(r, ctx.Err))
}

// feedFrom feeds the splitter's lines to x until it is done or stopped, and
// returns the bytes consumed and the splitter's error.
func (x *Extractor) feedFrom(ls *lineSplitter) (int64, error) {
	begin := ls.consumed
	for {
		line, kind := ls.next()
		switch kind {
		case lineDone:
			x.b.AddBytes(ls.consumed - begin)
			return ls.consumed, ls.err
		case lineFull:
			x.Feed(line)
		case lineLast:
			x.FeedLast(line)
		case lineLong:
			x.SkipLong()
		}
	}
}
