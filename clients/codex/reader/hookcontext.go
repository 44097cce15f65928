package reader

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/facts"
)

// hookContextKind is the content kind of a hook's context in a developer
// message (Codex CLI 0.169.0).
const hookContextKind = "hooks.additional_context"

// HookContextNeedle finds the lines of Codex's hook contexts; the byte
// before it must be '"'.
func (Reader) HookContextNeedle() []byte { return []byte(hookContextKind + `"`) }

// HookContexts are the hook contexts a rollout line records as given to the
// model (AU-15), in the line's order, with Offset unset: a response_item
// developer message whose content items' kinds
// (internal_chat_message_metadata_passthrough.content_item_kinds, one per
// item) say hooks.additional_context. A text Codex elided is given by its
// length.
func (Reader) HookContexts(line []byte) []facts.HookContext {
	var e struct {
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Payload   struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			Meta struct {
				Kinds []string `json:"content_item_kinds"`
			} `json:"internal_chat_message_metadata_passthrough"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil || e.Type != "response_item" || e.Payload.Type != "message" || e.Payload.Role != "developer" {
		return nil
	}
	at, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
	var out []facts.HookContext
	for i, kind := range e.Payload.Meta.Kinds {
		if kind != hookContextKind || i >= len(e.Payload.Content) {
			continue
		}
		text := e.Payload.Content[i].Text
		hc := facts.HookContext{Time: at, Text: text, Chars: utf8.RuneCountInString(text)}
		if n, ok := elidedChars(text); ok {
			hc.Text, hc.Chars, hc.Elided = "", n, true
		}
		out = append(out, hc)
	}
	return out
}

// elidedChars reads Codex's placeholder for a text it did not keep,
// "[elided N characters]".
func elidedChars(s string) (int, bool) {
	rest, ok := strings.CutPrefix(s, "[elided ")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, " characters]")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil && n >= 0
}
