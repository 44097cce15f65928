package transcript

import "time"

// claudeReader reads Claude Code's session transcripts (specs/transcript.md).
type claudeReader struct{}

// detect: any line with a string "type" is one of Claude Code's entries
// when no other client's keys claimed it first (TR-37).
func (claudeReader) detect(typ string, _ map[string]bool) bool { return typ != "" }

func (claudeReader) lines(b *builder) lineHandler { return &claudeLines{builder: b} }

func (claudeReader) boundary() lineRule {
	return lineRule{boundaryNeedle, func(line []byte) (string, time.Time, bool) {
		if !IsBoundaryLine(line) {
			return "", time.Time{}, false
		}
		id, t := lineIDTime(line)
		return id, t, true
	}}
}

func (claudeReader) response() lineRule {
	return lineRule{responseNeedle, func(line []byte) (string, time.Time, bool) {
		t, ok := ResponseLine(line)
		return "", t, ok
	}}
}
