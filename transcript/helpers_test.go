package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Builders for synthetic transcript lines. Maps marshal with sorted keys, so
// "message" comes before "type" as in real assistant lines.

type obj = map[string]any

// mustJSON is v as a line of this run's layout (TR-56: Claude Code's,
// or another one).
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(relaid(b))
}

var clock = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// ts returns the timestamp of the n-th synthetic event.
func ts(n int) string { return clock.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano) }

func tsTime(n int) time.Time { return clock.Add(time.Duration(n) * time.Second) }

func with(base obj, extra obj) obj {
	for k, v := range extra {
		if v == nil {
			delete(base, k)
			continue
		}
		base[k] = v
	}
	return base
}

// prompt is a typed user prompt with string content.
func prompt(n int, text string, extra obj) string {
	return mustJSON(with(obj{
		"type": "user", "isSidechain": false, "uuid": fmt.Sprint("u", n), "timestamp": ts(n),
		"message": obj{"role": "user", "content": text},
		"cwd":     "/home/dev/proj", "gitBranch": "main",
	}, extra))
}

// userBlocks is a user entry with array content.
func userBlocks(n int, blocks []any, extra obj) string {
	return mustJSON(with(obj{
		"type": "user", "isSidechain": false, "timestamp": ts(n),
		"message": obj{"role": "user", "content": blocks},
	}, extra))
}

// call is an assistant tool_use.
func call(n int, id, name string, input obj) string {
	return mustJSON(obj{
		"type": "assistant", "isSidechain": false, "timestamp": ts(n),
		"message": obj{"role": "assistant", "model": "claude-opus-5-5",
			"content": []any{obj{"type": "tool_use", "id": id, "name": name, "input": input}},
			"usage":   obj{"input_tokens": 10, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 30}},
	})
}

// result is a user tool_result; isErr false leaves is_error out as Claude
// Code does; tur nil leaves toolUseResult out.
func result(n int, id string, content any, isErr bool, tur any) string {
	b := obj{"type": "tool_result", "tool_use_id": id, "content": content}
	if isErr {
		b["is_error"] = true
	}
	e := obj{"type": "user", "isSidechain": false, "timestamp": ts(n),
		"message": obj{"role": "user", "content": []any{b}}}
	if tur != nil {
		e["toolUseResult"] = tur
	}
	return mustJSON(e)
}

func assistantText(n int, model string, usage obj, extra obj) string {
	return mustJSON(with(obj{
		"type": "assistant", "isSidechain": false, "timestamp": ts(n),
		"message": obj{"role": "assistant", "model": model,
			"content": []any{obj{"type": "text", "text": "ok"}}, "usage": usage},
	}, extra))
}

func boundary(n int, meta obj) string {
	return mustJSON(obj{"type": "system", "subtype": "compact_boundary", "isSidechain": false,
		"parentUuid": nil, "content": "Conversation compacted", "timestamp": ts(n), "compactMetadata": meta})
}

func lastPrompt(text string) string {
	return mustJSON(obj{"type": "last-prompt", "lastPrompt": text, "leafUuid": "x", "sessionId": "s"})
}

// extract feeds lines (each without '\n') to a fresh Extractor.
func extract(lines ...string) *Facts {
	x := NewExtractor(nil)
	for _, l := range lines {
		x.Feed([]byte(l))
	}
	return x.Facts()
}

// writeLines writes lines joined by '\n' (with a final '\n') to a temp file.
func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	return writeFile(t, strings.Join(lines, "\n")+"\n")
}

func writeFile(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func promptTexts(f *Facts) []string {
	out := []string{}
	for _, p := range f.Prompts {
		out = append(out, p.Text)
	}
	return out
}

func filePaths(f *Facts) []string {
	out := []string{}
	for _, p := range f.Files {
		out = append(out, p.Path)
	}
	return out
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func eqSlice[T comparable](t *testing.T, what string, got, want []T) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s = %+v, want %+v", what, got, want)
			return
		}
	}
}

func eqDeep(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %+v\nwant %+v", what, got, want)
	}
}
