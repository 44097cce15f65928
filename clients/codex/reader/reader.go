package reader

import (
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// Reader reads Codex CLI's rollout files (TR-38..TR-43). It is the
// transcript package's reader for FormatCodex.
type Reader struct{}

// codexTypes are the record types of a Codex rollout line.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "token_usage_record": true,
}

// Detect reports whether a line is a rollout line: it has a "payload" and
// a Codex record type; the first line is session_meta (TR-37).
func (Reader) Detect(typ string, keys map[string]bool) bool {
	return typ == "session_meta" || keys["payload"] && codexTypes[typ]
}

// Lines returns the handler that turns rollout lines into facts built in b.
func (Reader) Lines(b *facts.Builder) facts.LineHandler { return &lines{Builder: b} }

// Boundary finds "compacted" records and their timestamp (TR-39).
func (Reader) Boundary() facts.LineRule {
	return facts.LineRule{Needle: []byte(`compacted"`), Match: func(line []byte) (string, time.Time, bool) {
		if !isCodexBoundary(line) {
			return "", time.Time{}, false
		}
		id, t := codexIDTime(line)
		return id, t, true
	}}
}

// Response finds the model's response items and their timestamp (TR-40).
func (Reader) Response() facts.LineRule {
	return facts.LineRule{Needle: []byte(`response_item"`), Match: func(line []byte) (string, time.Time, bool) {
		t, ok := codexResponse(line)
		return "", t, ok
	}}
}
