package reader

import (
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// Reader is Gemini CLI's row of the transcript package's readers table
// (specs/transcript.md TR-88): it tells a chat file from the others, so
// that transcript.Open names its format, and nothing more. A chat's
// records update one another by id (a "$set" rewrites the messages at a
// compression), so its facts, compressions and fill come from Read and
// LastFill, which read it whole; the line handler records nothing, and the
// backward scans' rules find no boundary and no response in it.
type Reader struct{}

// Detect reports a chat's lines: its header (sessionId, projectHash,
// startTime) and its "$set" updates, which no other client writes.
func (Reader) Detect(_ string, keys map[string]bool) bool {
	return keys["projectHash"] && keys["sessionId"] && keys["startTime"] || keys["$set"]
}

// Lines returns a handler that counts the lines and records no fact
// (Read gives them).
func (Reader) Lines(b *facts.Builder) facts.LineHandler { return lineCounter{b} }

// Boundary finds no compaction line: a compression is a "$set" of the
// messages that Read recognises by the summary it holds (TR-82).
func (Reader) Boundary() facts.LineRule { return noLines() }

// Response finds no model response for the scans; Read has them.
func (Reader) Response() facts.LineRule { return noLines() }

type lineCounter struct{ b *facts.Builder }

func (c lineCounter) Line([]byte, bool) { c.b.CountLine() }

// noLines is a rule that matches no line. Its needle is the header's key,
// which a chat holds once, on its first line, so a scan finds at most one
// candidate and turns it down.
func noLines() facts.LineRule {
	return facts.LineRule{Needle: []byte(`projectHash"`), Match: func([]byte) (string, time.Time, bool) { return "", time.Time{}, false }}
}
