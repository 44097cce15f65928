package transcript

import "time"

// codexReader reads Codex CLI's rollout files (TR-38..TR-43).
type codexReader struct{}

// codexTypes are the record types of a Codex rollout line.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "token_usage_record": true,
}

// detect: a rollout line has a "payload" and a Codex record type; its
// first line is session_meta (TR-37).
func (codexReader) detect(typ string, keys map[string]bool) bool {
	return typ == "session_meta" || keys["payload"] && codexTypes[typ]
}

func (codexReader) lines(b *builder) lineHandler { return &codexLines{builder: b} }

func (codexReader) boundary() lineRule {
	return lineRule{[]byte(`compacted"`), func(line []byte) (string, time.Time, bool) {
		if !isCodexBoundary(line) {
			return "", time.Time{}, false
		}
		id, t := codexIDTime(line)
		return id, t, true
	}}
}

func (codexReader) response() lineRule {
	return lineRule{[]byte(`response_item"`), func(line []byte) (string, time.Time, bool) {
		t, ok := codexResponse(line)
		return "", t, ok
	}}
}
