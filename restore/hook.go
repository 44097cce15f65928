package restore

import (
	"bytes"
	"encoding/json"
)

type hookOutput struct {
	HookSpecificOutput hookSpecific `json:"hookSpecificOutput"`
}

type hookSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// HookOutput is the SessionStart hook's stdout carrying text:
// {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":TEXT}}
// and a newline. HTML characters are not escaped, so the text stays
// readable in the transcript; invalid UTF-8 becomes U+FFFD.
func HookOutput(text string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(hookOutput{hookSpecific{"SessionStart", text}}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
