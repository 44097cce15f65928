package transcript

import (
	"bytes"
	"context"
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
}

// NewestFill returns the context fill the transcript's newest model
// response reports (TR-51): input + cache creation + cache read tokens of
// the last main-chain assistant line whose model is not "<synthetic>" and
// that is no API error. A compact_boundary written after it makes it stale:
// Tokens is then the boundary's compactMetadata.postTokens, 0 when it has
// none, with FromBoundary set. ok is false when the transcript holds no
// response with usage and no boundary. It reads backwards from the end, as
// LastBoundary does, and stops at the first response with usage, so its cost
// follows what was written after that response, not the file's size.
func (f *File) NewestFill(ctx context.Context) (fill Fill, ok bool, err error) {
	fill.Offset, fill.Boundary = -1, -1
	// One backward pass finds the newest response and any boundary after
	// it: a tool result of megabytes is read once, not twice.
	var boundary []byte
	err = f.scanBackAny(ctx, 0, f.size, [][]byte{responseNeedle, boundaryNeedle}, func(start int64, line []byte) bool {
		if fill.Boundary < 0 && IsBoundaryLine(line) {
			fill.Boundary, boundary = start, append([]byte(nil), line...)
			return false
		}
		u, at, yes := usageLine(line)
		if yes {
			fill.Usage, fill.At, fill.Offset, ok = u, at, start, true
		}
		return yes
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

// usageLine reads a model response's usage by the rule of TR-26: a line
// ResponseLine accepts (main chain, a model other than "<synthetic>", no
// API error, a timestamp) that carries message.usage.
func usageLine(line []byte) (Usage, time.Time, bool) {
	at, ok := ResponseLine(line)
	if !ok {
		return Usage{}, time.Time{}, false
	}
	var e entry
	classify(line, true, &e)
	line = bytes.TrimSuffix(line, []byte("\r"))
	var u [3]span
	if !e.usage.ok() || !e.usage.fields(line, usageKeys, u[:]) {
		return Usage{}, time.Time{}, false
	}
	in, _ := u[0].int64(line)
	cc, _ := u[1].int64(line)
	cr, _ := u[2].int64(line)
	model, _ := e.model.str(line)
	return Usage{Tokens: in + cc + cr, InputTokens: in, CacheCreation: cc, CacheRead: cr, Model: model}, at, true
}
