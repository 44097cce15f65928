package transcript

import (
	"context"
	"strings"
	"testing"
)

// spec: TR-51
func TestTR51NewestFill(t *testing.T) {
	usage := func(in, cc, cr int) obj {
		return obj{"input_tokens": in, "cache_creation_input_tokens": cc, "cache_read_input_tokens": cr, "output_tokens": 900}
	}
	resp := assistantText(4, "claude-opus-5-5", usage(2, 528, 767574), nil)
	cases := []struct {
		name         string
		lines        []string
		want         int64
		fromBoundary bool
		ok           bool
		model        string
	}{
		{"input + cache creation + cache read of the newest response, output left out",
			[]string{prompt(1, "go", nil), assistantText(2, "claude-opus-5-5", usage(5, 0, 0), nil), resp, result(5, "b1", "ok", false, nil)},
			768104, false, true, "claude-opus-5-5"},
		{"synthetic, sidechain and API error responses are passed over",
			[]string{resp,
				assistantText(5, "<synthetic>", usage(0, 0, 0), nil),
				assistantText(6, "claude-opus-5-5", usage(9, 9, 9), obj{"isSidechain": true}),
				assistantText(7, "claude-opus-5-5", usage(9, 9, 9), obj{"isApiErrorMessage": true}),
				prompt(8, `quoting "type":"assistant" and "usage"`, nil)},
			768104, false, true, "claude-opus-5-5"},
		{"a response without usage is passed over",
			[]string{resp, assistantText(5, "claude-opus-5-5", nil, nil)},
			768104, false, true, "claude-opus-5-5"},
		{"a boundary after the response gives its postTokens",
			[]string{resp, boundary(5, obj{"trigger": "auto", "preTokens": 768104, "postTokens": 3100}), prompt(6, "summary", nil)},
			3100, true, true, "claude-opus-5-5"},
		{"a boundary without postTokens gives 0",
			[]string{resp, boundary(5, obj{"trigger": "manual", "preTokens": 768104})},
			0, true, true, "claude-opus-5-5"},
		{"a boundary before the response does not count",
			[]string{boundary(3, obj{"postTokens": 10}), resp},
			768104, false, true, "claude-opus-5-5"},
		{"no response and no boundary", []string{prompt(1, "go", nil)}, 0, false, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, writeLines(t, tc.lines...))
			got, ok, err := f.NewestFill(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			eq(t, "ok", ok, tc.ok)
			eq(t, "tokens", got.Tokens, tc.want)
			eq(t, "from boundary", got.FromBoundary, tc.fromBoundary)
			eq(t, "model", got.Model, tc.model)
			if tc.fromBoundary != (got.Boundary >= 0) {
				t.Errorf("boundary offset %d with from boundary %v", got.Boundary, tc.fromBoundary)
			}
		})
	}
}

// spec: TR-51
func TestTR51NewestFillBehindALongResult(t *testing.T) {
	// The response is found behind a tool result longer than the first
	// chunk the backward scan reads, and its offset is its line's start.
	var lines []string
	for i := 0; i < 20000; i++ {
		lines = append(lines, prompt(1, strings.Repeat("x", 200), nil))
	}
	lines = append(lines, assistantText(2, "claude-opus-5-5", obj{"input_tokens": 7}, nil), result(3, "b1", strings.Repeat("y", 300<<10), false, nil))
	f := open(t, writeLines(t, lines...))
	got, ok, err := f.NewestFill(context.Background())
	if err != nil || !ok || got.Tokens != 7 {
		t.Fatalf("got %+v %v %v", got, ok, err)
	}
	if want := f.Size() - int64(len(lines[len(lines)-1])+len(lines[len(lines)-2])+2); got.Offset != want {
		t.Errorf("offset %d, want %d", got.Offset, want)
	}
}

// spec: TR-51
func TestTR51LongLines(t *testing.T) {
	code := strings.Repeat(`type":"assistant" compact_boundary" \"quoted\" `, 4000) // 200 KB naming both needles
	longUser := `{"parentUuid":"u1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"b1","content":"` + code + `"}]},"timestamp":"` + ts(5) + `"}`
	longResp := assistantText(6, "claude-opus-5-5", obj{"input_tokens": 42}, obj{"message": obj{"role": "assistant", "model": "claude-opus-5-5",
		"content": []any{obj{"type": "text", "text": code}}, "usage": obj{"input_tokens": 42}}})
	for _, tc := range []struct {
		name  string
		lines []string
		want  int64
	}{
		{"a long tool result after the response is passed over", []string{assistantText(4, "claude-opus-5-5", obj{"input_tokens": 7}, nil), longUser}, 7},
		{"a long response is read whole", []string{assistantText(4, "claude-opus-5-5", obj{"input_tokens": 7}, nil), longResp, longUser}, 42},
		{"a long line whose head does not tell is read whole", []string{assistantText(4, "claude-opus-5-5", obj{"input_tokens": 7}, nil),
			`{"message":{"content":"` + code + `"},"type":"user"}`}, 7},
		{"many short lines after the response", append([]string{assistantText(4, "claude-opus-5-5", obj{"input_tokens": 9}, nil)},
			strings.Split(strings.Repeat(prompt(5, "x", nil)+"\n", 3000), "\n")[:3000]...), 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, writeLines(t, tc.lines...))
			got, ok, err := f.NewestFill(context.Background())
			if err != nil || !ok || got.Tokens != tc.want {
				t.Errorf("got %+v %v %v, want %d tokens", got.Usage, ok, err, tc.want)
			}
		})
	}
}

// spec: TR-89
func TestTR89FillBeforeTurn(t *testing.T) {
	usage := func(n int) obj {
		return obj{"input_tokens": n, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 9}
	}
	resp := func(n, tokens int) string { return assistantText(n, "claude-opus-5-5", usage(tokens), nil) }
	cases := []struct {
		name         string
		lines        []string
		want         int64
		fromBoundary bool
	}{
		{"the last response before the turn's typed prompt",
			[]string{prompt(1, "one", nil), resp(2, 100), resp(3, 400000), prompt(4, "two", nil), resp(5, 500000),
				result(6, "t1", "ok", false, nil), resp(7, 612000)},
			400000, false},
		{"tool results and harness text are no prompt",
			[]string{prompt(1, "one", nil), resp(2, 300000), prompt(3, "<command-name>/cost</command-name>", nil),
				result(4, "t1", "ok", false, nil), resp(5, 612000)},
			0, false},
		{"a compaction in the turn gives the fill after it",
			[]string{prompt(1, "one", nil), resp(2, 700000), boundary(3, obj{"postTokens": 3100}), resp(4, 612000)},
			3100, true},
		{"the file's start: an empty context",
			[]string{prompt(1, "one", nil), resp(2, 612000)},
			0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, writeLines(t, tc.lines...))
			fill, ok, err := f.NewestFill(context.Background())
			if err != nil || !ok || fill.Tokens != 612000 {
				t.Fatalf("newest fill %+v %v %v", fill, ok, err)
			}
			prev, ok, err := f.FillBeforeTurn(context.Background(), fill)
			if err != nil || !ok {
				t.Fatalf("FillBeforeTurn: %v %v", ok, err)
			}
			eq(t, "tokens", prev.Tokens, tc.want)
			eq(t, "from boundary", prev.FromBoundary, tc.fromBoundary)
		})
	}
	// A fill that is a boundary's has no turn to look back on.
	f := open(t, writeLines(t, prompt(1, "one", nil), resp(2, 612000), boundary(3, obj{"postTokens": 3100})))
	fill, _, _ := f.NewestFill(context.Background())
	if _, ok, _ := f.FillBeforeTurn(context.Background(), fill); ok {
		t.Error("a boundary's fill: ok")
	}
}
