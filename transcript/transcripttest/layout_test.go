package transcripttest

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Relayout gives the same JSON value in Python's layout, keys in another
// order, ASCII only; what is not whole valid JSON is left as it is.
// spec: TR-56
func TestRelayout(t *testing.T) {
	in := `{"type":"assistant","message":{"model":"claude-opus-5-5","usage":{"input_tokens":3}},"text":"Привет \"q\"\n😀 <a>","n":1.5e3,"list":[true,null,{},[]]}`
	out := string(Relayout([]byte(in), 56))
	var a, b any
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &b); err != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("%s is not the same value (%v)", out, err)
	}
	for _, want := range []string{`"type": "assistant"`, `\u041f\u0440\u0438\u0432\u0435\u0442 \"q\"\n\ud83d\ude00 <a>`, `[true, null, {}, []]`, `"n": 1.5e3`} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %s", out, want)
		}
	}
	if strings.HasPrefix(out, `{"type"`) {
		t.Errorf("%s keeps the keys in their order", out)
	}
	for _, same := range []string{`{"type":"a","type":"b"}`, "not json", `{"a":`, "", "{\"a\":\"\xff\"}"} {
		got := string(Relayout([]byte(same), 56))
		if strings.Contains(same, `"type":"a"`) {
			if got != `{"type": "a", "type": "b"}` {
				t.Errorf("duplicate keys reordered: %s", got)
			}
			continue
		}
		if got != same {
			t.Errorf("%q became %q", same, got)
		}
	}
	if got := string(Relayout([]byte("{\"a\":1}\r"), 1)); got != "{\"a\": 1}\r" {
		t.Errorf("CRLF line: %q", got)
	}
	data := "{\"a\":1}\n\n{\"b\":[1,2]}\nlast"
	laid, starts := RelayoutLines([]byte(data), 1)
	if string(laid) != "{\"a\": 1}\n\n{\"b\": [1, 2]}\nlast" || starts[0] != 0 || starts[8] != 9 || starts[9] != 10 || starts[21] != 24 || starts[int64(len(data))] != int64(len(laid)) {
		t.Errorf("RelayoutLines: %q %v", laid, starts)
	}
}
