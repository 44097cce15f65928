package reader

import (
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// Reader reads Qwen Code's chat record files (TR-44..TR-49). It is the
// transcript package's reader for FormatQwen.
type Reader struct{}

// Detect reports whether a line is a Qwen Code record: it carries
// "provenance" or "systemPayload", which no Claude Code entry has (TR-37).
func (Reader) Detect(_ string, keys map[string]bool) bool {
	return keys["provenance"] || keys["systemPayload"]
}

// Lines returns the handler that turns chat records into facts built in b.
func (Reader) Lines(b *facts.Builder) facts.LineHandler { return &lines{Builder: b} }

// Boundary finds chat_compression records and their uuid and timestamp
// (TR-45).
func (Reader) Boundary() facts.LineRule {
	return facts.LineRule{Needle: []byte(`chat_compression"`), Match: func(line []byte) (string, time.Time, bool) {
		if !isQwenBoundary(line) {
			return "", time.Time{}, false
		}
		id, t := qwenIDTime(line)
		return id, t, true
	}}
}

// Response finds the model's responses and their timestamp (TR-46).
func (Reader) Response() facts.LineRule {
	return facts.LineRule{Needle: []byte(`assistant"`), Match: func(line []byte) (string, time.Time, bool) {
		t, ok := qwenResponse(line)
		return "", t, ok
	}}
}
