package facts

import (
	"bytes"
	"time"

	"github.com/compact-guard/compact-guard/transcript/jsonspan"
)

// TopShape is how a one-record-a-line format lays out a record's top level,
// for OpenLine: the keys a reader wants, the index among them of the record
// type and of the timestamp, and which types can hold a fact.
type TopShape struct {
	Keys        []string
	Type, Time  int
	Interesting func(typ []byte) bool
}

// OpenLine is the opening that the line handlers of the one-record-a-line
// formats (Codex CLI, Qwen Code, Copilot CLI) share, kept in one place so
// they count lines alike. It drops a trailing '\r', passes over a blank
// line, walks the top level into top (len(s.Keys) spans; the whole line is
// checked only when it is the torn-able last one), counts a line that is no
// JSON object as bad, passes over a type that holds no fact or is no string,
// and counts the rest as decoded with its time noted. It returns the line
// without its '\r' and the record's time; ok false means the handler has
// nothing more to do with the line.
func (x *Builder) OpenLine(line []byte, last bool, s *TopShape, top []jsonspan.Span) (rest []byte, t time.Time, ok bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if jsonspan.SkipSpace(line, 0) == len(line) {
		return line, time.Time{}, false
	}
	skipped, ok := jsonspan.TopFields(line, s.Keys, s.Type, s.Interesting, last, top)
	if !ok {
		x.Bad(last)
		return line, time.Time{}, false
	}
	if skipped || !top[s.Type].IsString(line) {
		return line, time.Time{}, false
	}
	x.Decoded()
	return line, x.NoteTime(line, top[s.Time]), true
}
