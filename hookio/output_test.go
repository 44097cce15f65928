package hookio

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// spec: PO-12
func TestHookOutput(t *testing.T) {
	for _, text := range []string{
		"",
		"plain",
		"Снимок сессии: /tmp/snap_1.md\n\tпоследний запрос: «исправь тест»",
		"quotes \" backslash \\ <tag> & \u2028 \x00 \x1b",
		"invalid \xff utf-8",
	} {
		out, err := HookOutput(text)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(out, []byte("}\n")) || bytes.Count(out, []byte("\n")) != 1 || out[0] != '{' {
			t.Errorf("not one JSON line: %q", out)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(out, &top); err != nil {
			t.Fatalf("invalid JSON %q: %v", out, err)
		}
		if len(top) != 1 || top["hookSpecificOutput"] == nil {
			t.Fatalf("top level %s, want only hookSpecificOutput", out)
		}
		var inner map[string]string
		if err := json.Unmarshal(top["hookSpecificOutput"], &inner); err != nil {
			t.Fatalf("hookSpecificOutput: %v", err)
		}
		if len(inner) != 2 || inner["hookEventName"] != "SessionStart" {
			t.Fatalf("hookSpecificOutput %v", inner)
		}
		want := strings.ToValidUTF8(text, "\uFFFD")
		if inner["additionalContext"] != want {
			t.Errorf("additionalContext %q, want %q", inner["additionalContext"], want)
		}
	}
	out, _ := HookOutput("a<b")
	if want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a<b"}}` + "\n"; string(out) != want {
		t.Errorf("got %s want %s", out, want)
	}
}
