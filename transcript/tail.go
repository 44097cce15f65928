package transcript

import (
	"context"
	"encoding/json"
	"io"
)

// The lines a client writes after a hook read its transcript (TR-90):
// Claude Code writes what it queued about 100 ms late, so a PreCompact that
// reads at once may miss the newest tool call, its result or a response; a
// later hook of the same compaction looks at what came after the point the
// snapshot recorded, up to the compaction's boundary, and folds it in when
// it holds a line of the session's own (specs/postcompact.md PO-C18).

// Tail is what the lines from an offset hold.
type Tail struct {
	// End is where the tail ends: the start of the first compaction
	// boundary line at or after the offset, else just past the last line
	// ended by a newline (a line still being written is not the tail's).
	End int64
	// Boundary is set when End is the start of a compaction boundary.
	Boundary bool
	// Own is set when a line of the session's own (a prompt, a response,
	// a tool result: type user or assistant, or an attachment) starts in
	// the tail, or when the offset lies inside a line, which the hook
	// before then read cut.
	Own bool
}

// TailFrom reads the lines of f from offset from forwards (TR-90). It reads
// only the bytes after from, up to the first boundary: a hook that finds
// nothing new pays for what the client wrote since, not for the file.
func (f *File) TailFrom(ctx context.Context, from int64) (Tail, error) {
	t := Tail{End: from}
	if from < 0 || from >= f.size {
		return t, nil
	}
	base, aligned := from, true
	if from > 0 {
		var b [1]byte
		if _, err := f.f.ReadAt(b[:], from-1); err != nil {
			return t, err
		}
		if b[0] != '\n' {
			base, aligned = from-1, false
		}
	}
	ls := newLineSplitter(io.NewSectionReader(f.f, base, f.size-base), ctx.Err)
	if !aligned {
		if !ls.dropPartial() {
			return t, ls.err
		}
		t.Own, t.End = true, base+ls.consumed
	}
	for {
		start := base + ls.consumed
		line, kind := ls.next()
		if kind == lineDone || kind == lineLast {
			break
		}
		if kind == lineFull {
			var e struct {
				Type    string `json:"type"`
				Subtype string `json:"subtype"`
			}
			if json.Unmarshal(line, &e) == nil {
				if e.Type == "system" && e.Subtype == "compact_boundary" {
					t.End, t.Boundary = start, true
					return t, nil
				}
				if e.Type == "user" || e.Type == "assistant" || e.Type == "attachment" {
					t.Own = true
				}
			}
		} else {
			t.Own = true // a line over MaxLineBytes: a tool result, most likely
		}
		t.End = base + ls.consumed
	}
	return t, ls.err
}

// Upto is f as it stood when it was n bytes long (n at most f's size):
// everything read through it stays within n, so a snapshot completed up to
// a compaction's boundary holds nothing after it. It shares f's file, which
// only f's Close closes.
func (f *File) Upto(n int64) *File {
	if n < 0 || n > f.size {
		n = f.size
	}
	return &File{f: f.f, size: n, format: f.format, formatKnown: f.formatKnown}
}
