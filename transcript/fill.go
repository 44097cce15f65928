package transcript

import (
	"bytes"
	"context"
	"errors"
	"io"
	"time"
)

// Fill is the context fill of a session as its transcript ends: the Usage
// rule of the extractor (TR-26) applied backwards, from the newest entry.
type Fill struct {
	Usage
	// At is the timestamp of the response the usage comes from (of the
	// boundary, when FromBoundary is set).
	At time.Time
	// Offset is where the response's line starts.
	Offset int64
	// Boundary is the start of the last compact_boundary line written after
	// the response, -1 when there is none.
	Boundary int64
	// Version is the client release that wrote the response (its
	// "version"), "" when it names none (TR-54).
	Version string
}

// NewestFill returns the context fill the transcript's newest model
// response reports (TR-51): input + cache creation + cache read tokens of
// the last main-chain assistant line whose model is not "<synthetic>" and
// that is no API error. A compact_boundary written after it makes it stale:
// Tokens is then the boundary's compactMetadata.postTokens, 0 when it has
// none, with FromBoundary set. ok is false when the transcript holds no
// response with usage and no boundary. It reads the file's lines backwards
// from the end and stops at the first response with usage, so its cost
// follows what was written after that response, not the file's size; a
// long line whose first bytes show it is neither a response nor a system
// entry (a tool result) is passed over without being searched.
func (f *File) NewestFill(ctx context.Context) (fill Fill, ok bool, err error) {
	fill.Offset, fill.Boundary = -1, -1
	r, yes := f.format.reader().(FillReader)
	if !yes {
		return fill, false, nil // the format records no fill to read back
	}
	isBoundary := r.Boundary().Match
	var boundary, line []byte
	head := make([]byte, headBytes)
	err = f.backLines(ctx, func(start, end int64, l []byte) (bool, error) {
		if end-start > MaxLineBytes+1 {
			return false, nil // no entry is this long (TR-2)
		}
		if l == nil && end-start > longLineHead {
			n, err := f.f.ReadAt(head, start)
			if err != nil && !errors.Is(err, io.EOF) {
				return false, err
			}
			if r.SkipHead(head[:n]) {
				return false, nil
			}
		}
		if l == nil {
			var err error
			if l, err = f.readLine(start, &line); err != nil || l == nil {
				return false, err
			}
		} else {
			l = bytes.TrimSuffix(l, []byte("\n"))
		}
		if !r.Candidate(l) {
			return false, nil
		}
		if _, _, yes := isBoundary(l); fill.Boundary < 0 && yes {
			fill.Boundary, boundary = start, append([]byte(nil), l...)
			return false, nil
		}
		u, at, version, yes := r.Usage(l)
		if yes {
			fill.Usage, fill.At, fill.Offset, fill.Version, ok = u, at, start, version, true
		}
		return yes, nil
	})
	if err != nil {
		return Fill{}, false, err
	}
	if fill.Boundary < 0 {
		return fill, ok, nil
	}
	fill.Usage = Usage{Model: fill.Model, FromBoundary: true}
	fill.Tokens, fill.At = r.BoundaryFill(boundary)
	return fill, true, nil
}

// A line longer than longLineHead is first judged by its first headBytes.
const (
	longLineHead = 64 << 10
	headBytes    = 4 << 10
)

// backLines visits the file's lines from the last to the first, each as
// [start, end) with its '\n', until visit reports true or an error; line is
// the line's bytes when it lies within the chunk read (valid during the
// call), else nil. It reads backwards in chunks of 64 KiB growing to
// boundaryChunk and finds line breaks with the vectorised bytes.IndexByte,
// so a line of megabytes costs one pass of that, not a search for words.
func (f *File) backLines(ctx context.Context, visit func(start, end int64, line []byte) (bool, error)) error {
	buf := make([]byte, boundaryChunk)
	var nls []int
	end, pos := f.size, f.size // the line being collected ends at end; [pos, size) is read
	step := int64(64 << 10)
	for pos > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo := max(0, pos-step)
		b := buf[:pos-lo]
		if _, err := f.f.ReadAt(b, lo); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		nls = nls[:0]
		for p := 0; ; {
			k := bytes.IndexByte(b[p:], '\n')
			if k < 0 {
				break
			}
			nls = append(nls, p+k)
			p += k + 1
		}
		for i := len(nls) - 1; i >= 0; i-- {
			start := lo + int64(nls[i]) + 1
			if start < end {
				var line []byte
				if end <= pos {
					line = b[start-lo : end-lo]
				}
				if stop, err := visit(start, end, line); stop || err != nil {
					return err
				}
			}
			end = start
		}
		pos = lo
		step = min(4*step, boundaryChunk)
	}
	if end > 0 {
		_, err := visit(0, end, nil)
		return err
	}
	return nil
}

// FillBeforeTurn returns the fill the transcript reported when the turn of
// fill's response began (TR-89): that of the newest response with usage
// before the newest typed prompt that precedes fill's response — or, when
// a compaction's boundary comes first (reading backwards), the fill after
// that compaction (FromBoundary), and 0 at the start of the file (a session
// starts empty). ok is false when fill is no response's, or the format
// records no fill. It reads backwards from the end to that line, so its
// cost follows the turn's length; watch asks it only when it cannot keep
// its state (specs/watch.md WA-42).
func (f *File) FillBeforeTurn(ctx context.Context, fill Fill) (prev Fill, ok bool, err error) {
	prev.Offset, prev.Boundary = -1, -1
	r, yes := f.format.reader().(FillReader)
	if !yes || fill.FromBoundary || fill.Offset < 0 {
		return prev, false, nil
	}
	isBoundary := r.Boundary().Match
	var buf []byte
	typed, found := false, false
	err = f.backLines(ctx, func(start, end int64, l []byte) (bool, error) {
		if start >= fill.Offset || end-start > MaxLineBytes+1 {
			return false, nil
		}
		if l == nil {
			var err error
			if l, err = f.readLine(start, &buf); err != nil || l == nil {
				return false, err
			}
		} else {
			l = bytes.TrimSuffix(l, []byte("\n"))
		}
		if _, _, yes := isBoundary(l); yes {
			prev.Tokens, prev.At = r.BoundaryFill(l)
			prev.FromBoundary, prev.Boundary, found = true, start, true
			return true, nil
		}
		if !typed {
			typed = r.TypedPrompt(l)
			return false, nil
		}
		if u, at, version, yes := r.Usage(l); yes {
			prev.Usage, prev.At, prev.Offset, prev.Version, found = u, at, start, version, true
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return Fill{}, false, err
	}
	if !found {
		prev = Fill{Offset: -1, Boundary: -1} // the file's start: an empty context
	}
	return prev, true, nil
}
