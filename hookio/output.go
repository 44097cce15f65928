package hookio

import (
	"bytes"
	"encoding/json"
)

type hookOutput struct {
	HookSpecificOutput hookSpecific `json:"hookSpecificOutput"`
	// SystemMessage is shown to the user, not to the model (PO-16).
	SystemMessage string `json:"systemMessage,omitempty"`
}

type hookSpecific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// HookOutput is the SessionStart hook's stdout carrying text:
// {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":TEXT}}
// and a newline. HTML characters are not escaped, so the text stays
// readable in the transcript; invalid UTF-8 becomes U+FFFD.
func HookOutput(text string) ([]byte, error) { return EventOutput("SessionStart", text) }

// NoticeOutput is HookOutput(text) that also shows message to the user:
// {"hookSpecificOutput":{…},"systemMessage":MESSAGE} and a newline. Claude
// Code prints a SessionStart hook's systemMessage in the terminal
// ("SessionStart:compact says: …") and in stream-json, and never sends it
// to the model (PO-16). An empty message gives HookOutput's bytes.
func NoticeOutput(text, message string) ([]byte, error) {
	return encode(hookOutput{hookSpecific{"SessionStart", text}, message})
}

// EventOutput is the same output for another event that takes
// additionalContext (UserPromptSubmit, PostToolUse: PO-12, WA-6).
func EventOutput(event, text string) ([]byte, error) {
	return encode(hookOutput{HookSpecificOutput: hookSpecific{event, text}})
}

// BlockOutput is a Stop hook's stdout holding the stop:
// {"decision":"block","reason":TEXT} and a newline (WA-10).
func BlockOutput(reason string) ([]byte, error) {
	return encode(struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason})
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
