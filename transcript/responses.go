package transcript

// The whole-line tests of a model response and a compaction boundary, and
// the backward search for responses (TR-3, TR-34), in any JSON layout
// (TR-56); moved out of file.go when it grew.

import (
	"bytes"
	"context"
	"time"
)

// responseNeedle finds the lines that may be model responses: the byte
// before it must be '"', so it is the whole JSON string "assistant" (quotes
// inside JSON strings are escaped, so only a real key or value matches),
// whatever the spacing around it and wherever the "type" key stands
// (TR-56). Which lines are responses is decided by parsing them
// (ResponseLine): the needle only passes over the others.
var responseNeedle = []byte(`assistant"`)

// NewestResponseAfter returns the timestamp of the last model response (a
// main-chain assistant entry from a model: not "<synthetic>", not an API
// error message) that starts at or after from and is timestamped after
// after, reading backwards from the end; ok is false when there is none.
// Responses timestamped at or before after are passed over: the client
// re-emits kept messages after a boundary with their original times, and
// writes a turn's last entries after a hook may have read the file.
func (f *File) NewestResponseAfter(ctx context.Context, from int64, after time.Time) (t time.Time, ok bool, err error) {
	return f.NewestResponseIn(ctx, from, f.size, after)
}

// NewestResponseIn is NewestResponseAfter for the responses that start
// within [from, to) (TR-34).
func (f *File) NewestResponseIn(ctx context.Context, from, to int64, after time.Time) (t time.Time, ok bool, err error) {
	r := f.format.reader().response()
	err = f.scanBack(ctx, from, to, r.needle, func(_ int64, line []byte) bool {
		if _, rt, yes := r.match(line); yes && rt.After(after) {
			t, ok = rt, true
			return true
		}
		return false
	})
	return t, ok, err
}

// ResponseLine reports whether line (without its '\n') is a model response:
// complete JSON, top-level type "assistant", isSidechain not true, a
// message.model other than "<synthetic>", isApiErrorMessage not true, and a
// timestamp, which it returns.
func ResponseLine(line []byte) (time.Time, bool) {
	if len(line) > MaxLineBytes {
		return time.Time{}, false
	}
	var e entry
	if classify(line, true, &e) != lineEntry {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !e.top[kType].strEq(line, "assistant") || e.top[kSidechain].isTrue(line) || e.top[kAPIError].isTrue(line) {
		return time.Time{}, false
	}
	if model, _ := e.model.str(line); model == "" || model == "<synthetic>" {
		return time.Time{}, false
	}
	ts, ok := e.top[kTimestamp].str(line)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	return t, err == nil
}

// IsBoundaryLine reports whether line (without its '\n') is a main-chain
// compact_boundary entry, by the rule the Extractor counts compactions with:
// complete JSON, top-level type "system", subtype "compact_boundary",
// isSidechain not true, at most MaxLineBytes long.
func IsBoundaryLine(line []byte) bool {
	if len(line) > MaxLineBytes {
		return false
	}
	var e entry
	if classify(line, true, &e) != lineEntry {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	return e.top[kType].strEq(line, "system") && e.top[kSubtype].strEq(line, "compact_boundary") &&
		!e.top[kSidechain].isTrue(line)
}
