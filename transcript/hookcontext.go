package transcript

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// HookContext is a hook's context a client recorded as given to the model
// (specs/audit.md AU-15): Codex CLI writes it into the rollout as a
// developer message, the kind of its content hooks.additional_context.
type HookContext struct {
	// Offset is where its line starts.
	Offset int64
	Time   time.Time
	// Text is the context as recorded; "" when the client kept only its
	// length (Elided).
	Text string
	// Chars is its length in characters: the one the client gives for an
	// elided text ("[elided 812 characters]", Codex CLI 0.169.0), else
	// the text's.
	Chars  int
	Elided bool
}

// hookContextNeedle finds the lines of Codex's hook contexts; the byte
// before it must be '"'.
var hookContextNeedle = []byte(`hooks.additional_context"`)

// HookContexts returns, oldest first, the hook contexts recorded in lines
// that start in [from, to). Only Codex CLI records them this way: Claude
// Code's are Compaction.Contexts, Qwen Code records none (AU-16), and other
// formats give nil.
func (f *File) HookContexts(ctx context.Context, from, to int64) ([]HookContext, error) {
	if f.format != FormatCodex {
		return nil, nil
	}
	var out []HookContext
	err := f.scanBack(ctx, from, to, hookContextNeedle, func(start int64, line []byte) bool {
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
			return false
		}
		at, _ := time.Parse(time.RFC3339Nano, e.Timestamp)
		// One kind per content item, in order; the newest line comes first
		// here, so its items are prepended in reverse.
		for i := len(e.Payload.Meta.Kinds) - 1; i >= 0; i-- {
			if e.Payload.Meta.Kinds[i] != "hooks.additional_context" || i >= len(e.Payload.Content) {
				continue
			}
			text := e.Payload.Content[i].Text
			hc := HookContext{Offset: start, Time: at, Text: text, Chars: utf8.RuneCountInString(text)}
			if n, ok := elidedChars(text); ok {
				hc.Text, hc.Chars, hc.Elided = "", n, true
			}
			out = append(out, hc)
		}
		return false
	})
	slices.Reverse(out)
	return out, err
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
