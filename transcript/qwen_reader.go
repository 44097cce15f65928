package transcript

import "time"

// qwenReader reads Qwen Code's chat record files (TR-44..TR-49).
type qwenReader struct{}

// detect: a Qwen Code record carries "provenance" or "systemPayload",
// which no Claude Code entry has (TR-37).
func (qwenReader) detect(_ string, keys map[string]bool) bool {
	return keys["provenance"] || keys["systemPayload"]
}

func (qwenReader) lines(b *builder) lineHandler { return &qwenLines{builder: b} }

func (qwenReader) boundary() lineRule {
	return lineRule{[]byte(`chat_compression"`), func(line []byte) (string, time.Time, bool) {
		if !isQwenBoundary(line) {
			return "", time.Time{}, false
		}
		id, t := qwenIDTime(line)
		return id, t, true
	}}
}

func (qwenReader) response() lineRule {
	return lineRule{responseNeedle, func(line []byte) (string, time.Time, bool) {
		t, ok := qwenResponse(line)
		return "", t, ok
	}}
}
