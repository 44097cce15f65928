package transcript

// The whole-line tests of a model response and a compaction boundary, and
// the backward search for responses (TR-3, TR-34), in any JSON layout
// (TR-56); moved out of file.go when it grew.

import (
	"context"
	claude "github.com/compact-guard/compact-guard/clients/claude/reader"
	"time"
)

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
	r := f.format.reader().Response()
	err = f.scanBack(ctx, from, to, r.Needle, func(_ int64, line []byte) bool {
		if _, rt, yes := r.Match(line); yes && rt.After(after) {
			t, ok = rt, true
			return true
		}
		return false
	})
	return t, ok, err
}

// ResponseLine reports whether line is one of Claude Code's model
// responses and returns its timestamp (claude.ResponseLine).
func ResponseLine(line []byte) (time.Time, bool) { return claude.ResponseLine(line) }

// IsBoundaryLine reports whether line is a main-chain compact_boundary
// entry of Claude Code's (claude.IsBoundaryLine).
func IsBoundaryLine(line []byte) bool { return claude.IsBoundaryLine(line) }
