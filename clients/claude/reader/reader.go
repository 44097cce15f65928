package reader

import (
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// Reader reads Claude Code's session transcripts (specs/transcript.md).
// It is the transcript package's reader for FormatClaude.
type Reader struct{}

// Detect reports whether a line is one of Claude Code's entries: any line
// with a string "type", when no other client's keys claimed it first
// (TR-37).
func (Reader) Detect(typ string, _ map[string]bool) bool { return typ != "" }

// Lines returns the handler that turns entries into facts built in b.
func (Reader) Lines(b *facts.Builder) facts.LineHandler { return &lines{Builder: b} }

// Boundary finds compact_boundary entries (IsBoundaryLine) and their uuid
// and timestamp.
func (Reader) Boundary() facts.LineRule {
	return facts.LineRule{Needle: boundaryNeedle, Match: func(line []byte) (string, time.Time, bool) {
		if !IsBoundaryLine(line) {
			return "", time.Time{}, false
		}
		id, t := lineIDTime(line)
		return id, t, true
	}}
}

// Response finds model responses (ResponseLine) and their timestamp.
func (Reader) Response() facts.LineRule {
	return facts.LineRule{Needle: responseNeedle, Match: func(line []byte) (string, time.Time, bool) {
		t, ok := ResponseLine(line)
		return "", t, ok
	}}
}
