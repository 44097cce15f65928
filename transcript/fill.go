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
			if t, known := topType(head[:n]); known && t != "assistant" && t != "system" {
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
		// Only a line holding one of the values, as a whole JSON string in
		// any layout, can be either (TR-56); parsing decides.
		if !bytes.Contains(l, quotedResponse) && !bytes.Contains(l, quotedBoundary) {
			return false, nil
		}
		if fill.Boundary < 0 && IsBoundaryLine(l) {
			fill.Boundary, boundary = start, append([]byte(nil), l...)
			return false, nil
		}
		u, at, version, yes := usageLine(l)
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
	fill.At = time.Time{}
	var e entry
	if classify(boundary, true, &e) == lineEntry {
		line := bytes.TrimSuffix(boundary, []byte("\r"))
		var post [1]span
		if e.top[kCompactMetadata].fields(line, []string{"postTokens"}, post[:]) {
			if n, yes := post[0].int64(line); yes && n >= 0 {
				fill.Tokens = n
			}
		}
		if s, yes := e.top[kTimestamp].str(line); yes {
			fill.At, _ = time.Parse(time.RFC3339Nano, s)
		}
	}
	return fill, true, nil
}

// The values a response's and a boundary's line hold, as whole JSON strings:
// NewestFill's prefilter, in any layout (TR-56).
var (
	quotedResponse = []byte(`"assistant"`)
	quotedBoundary = []byte(`"compact_boundary"`)
)

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

// topType reads the top-level "type" of an entry from the first bytes of
// its line: the keys before it must have short values (strings, numbers,
// booleans, null), as Claude Code writes tool results. known is false when
// those bytes do not tell.
func topType(b []byte) (typ string, known bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	for i++; ; i++ {
		i = skipSpace(b, i)
		key, j, ok := rawString(b, i)
		if !ok {
			return "", false
		}
		if i = skipSpace(b, j); i >= len(b) || b[i] != ':' {
			return "", false
		}
		if i = skipSpace(b, i+1); i >= len(b) {
			return "", false
		}
		if key == "type" {
			v, _, ok := rawString(b, i)
			return v, ok
		}
		switch b[i] {
		case '"':
			if _, i, ok = rawString(b, i); !ok {
				return "", false
			}
		case '{', '[':
			return "", false
		default:
			for i < len(b) && b[i] != ',' && b[i] != '}' {
				i++
			}
		}
		if i = skipSpace(b, i); i >= len(b) || b[i] != ',' {
			return "", false
		}
	}
}

// rawString returns the string starting at b[i] (a '"') as written, escapes
// and all, and the index after its closing quote.
func rawString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return string(b[i+1 : j]), j + 1, true
		}
	}
	return "", 0, false
}

// usageLine reads a model response's usage by the rule of TR-26: a line
// ResponseLine accepts (main chain, a model other than "<synthetic>", no
// API error, a timestamp) that carries message.usage, with the release that
// wrote it (TR-54).
func usageLine(line []byte) (Usage, time.Time, string, bool) {
	at, ok := ResponseLine(line)
	if !ok {
		return Usage{}, time.Time{}, "", false
	}
	var e entry
	classify(line, true, &e)
	line = bytes.TrimSuffix(line, []byte("\r"))
	var u [3]span
	if !e.usage.ok() || !e.usage.fields(line, usageKeys, u[:]) {
		return Usage{}, time.Time{}, "", false
	}
	in, _ := u[0].int64(line)
	cc, _ := u[1].int64(line)
	cr, _ := u[2].int64(line)
	model, _ := e.model.str(line)
	version, _ := e.top[kVersion].str(line)
	return Usage{Tokens: in + cc + cr, InputTokens: in, CacheCreation: cc, CacheRead: cr, Model: model}, at, version, true
}
