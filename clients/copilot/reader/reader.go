package reader

import (
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// Reader reads GitHub Copilot CLI's session events,
// ~/.copilot/session-state/<session>/events.jsonl (TR-65..TR-71). It is the
// transcript package's reader for FormatCopilot.
type Reader struct{}

// Detect reports whether a line is a Copilot CLI event: it has "data" and
// "parentId" and a dotted type (session.start, user.message, …); Claude
// Code's entries name their parent parentUuid and their types have no dot
// (TR-65).
func (Reader) Detect(typ string, keys map[string]bool) bool {
	return keys["data"] && keys["parentId"] && strings.Contains(typ, ".")
}

// Lines returns the handler that turns events into facts built in b.
func (Reader) Lines(b *facts.Builder) facts.LineHandler { return &lines{Builder: b} }

// Boundary finds applied compactions and their id and timestamp (TR-67).
func (Reader) Boundary() facts.LineRule {
	return facts.LineRule{Needle: []byte(boundaryType + `"`), Match: func(line []byte) (string, time.Time, bool) {
		if !isBoundary(line) {
			return "", time.Time{}, false
		}
		id, t := idTime(line)
		return id, t, true
	}}
}

// Response finds the model's responses and their timestamp (TR-68).
func (Reader) Response() facts.LineRule {
	return facts.LineRule{Needle: []byte(`assistant.message"`), Match: func(line []byte) (string, time.Time, bool) {
		t, ok := response(line)
		return "", t, ok
	}}
}
