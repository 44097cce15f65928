package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/jsonspan"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// checkFacts asserts the invariants every Facts keeps, whatever it was fed.
func checkFacts(t *testing.T, f *Facts) {
	t.Helper()
	if len(f.Prompts) > MaxPrompts || len(f.Commands) > MaxCommands || len(f.Failures) > MaxFailures ||
		len(f.Files) > MaxFiles || len(f.Tasks) > MaxTasks || len(f.Todos) > MaxTasks {
		t.Fatalf("bounds broken: %d prompts, %d commands, %d failures, %d files, %d tasks, %d todos",
			len(f.Prompts), len(f.Commands), len(f.Failures), len(f.Files), len(f.Tasks), len(f.Todos))
	}
	markerRunes := utf8.RuneCountInString(textcut.Marker)
	for _, p := range f.Prompts {
		if n := utf8.RuneCountInString(p.Text); n > MaxPromptChars+markerRunes {
			t.Fatalf("prompt of %d runes", n)
		}
		if p.Truncated != strings.HasSuffix(p.Text, textcut.Marker) && p.Truncated {
			t.Fatalf("truncated prompt without marker")
		}
		if !utf8.ValidString(p.Text) {
			t.Fatalf("prompt not UTF-8: %q", p.Text)
		}
	}
	for _, c := range f.Commands {
		if n := utf8.RuneCountInString(c.Command); n > MaxCommandChars+markerRunes {
			t.Fatalf("command of %d runes", n)
		}
		if utf8.RuneCountInString(c.ErrorLine) > MaxErrorChars+markerRunes {
			t.Fatalf("error line too long")
		}
		switch c.Outcome {
		case OutcomeOK, OutcomeError, OutcomeRejected, OutcomeInterrupted, OutcomeBackground, OutcomeUnknown:
		default:
			t.Fatalf("outcome %q", c.Outcome)
		}
	}
	for _, fl := range f.Failures {
		if utf8.RuneCountInString(fl.Input) > MaxFailureInputChars+markerRunes {
			t.Fatalf("failure input too long")
		}
	}
	if f.Plan != nil && utf8.RuneCountInString(f.Plan.Text) > MaxPlanChars+markerRunes {
		t.Fatalf("plan too long")
	}
	if _, err := json.Marshal(f); err != nil {
		t.Fatalf("facts do not marshal: %v", err)
	}
}

// FuzzExtractorLine feeds arbitrary bytes as lines, alone and after a call
// they might answer: no panic, bounded facts, and the skimmer never calls
// valid JSON corrupt (it may only be more lenient than encoding/json).
//
// spec: TR-12, TR-13, TR-31
func FuzzExtractorLine(f *testing.F) {
	for _, s := range []string{
		prompt(1, "fix the build", nil),
		prompt(1, strings.Repeat("ж", 50), obj{"promptSource": "sdk"}),
		userBlocks(1, []any{obj{"type": "image"}, obj{"type": "text", "text": "see"}}, nil),
		call(1, "t1", "Bash", obj{"command": "go test", "run_in_background": true}),
		result(2, "t1", "Exit code 1\nboom", true, "Error: Exit code 1\nboom"),
		result(2, "t1", []any{obj{"type": "text", "text": "[Request interrupted by user for tool use]"}}, true, nil),
		boundary(3, obj{"postTokens": 12}),
		lastPrompt("queued"),
		`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"a","status":"pending"}]}}]}}`,
		`{"type":"user","message":{"content":"\ud83d\ude00 \u0000 \"x\""}}`,
		`{"type":"user","message":{"content":"\ud800"}}`,
		`{"type":"user","message":`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"postTokens":1e30}}`,
		`[[[[[[[[[[]]]]]]]]]]`,
		"{\"type\":\"user\"}\r",
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) > 1<<20 {
			return
		}
		x := NewExtractor(nil)
		// Calls the line may answer.
		x.Feed([]byte(call(0, "t1", "Bash", obj{"command": "go test"})))
		x.Feed([]byte(call(0, "w1", "Write", obj{"file_path": "/a"})))
		before := x.Facts().Stats.Corrupt
		x.Feed(line)
		fs := x.Facts()
		trimmed := bytes.TrimSuffix(line, []byte("\r"))
		if fs.Stats.Corrupt != before && json.Valid(trimmed) {
			t.Fatalf("valid JSON counted corrupt: %q", line)
		}
		x.FeedLast(line)
		checkFacts(t, x.Facts())
		if json.Valid(trimmed) && x.Facts().Stats.TornLastLine {
			t.Fatalf("valid JSON called torn: %q", line)
		}
		IsBoundaryLine(line)

		// The same bytes through the line reader, possibly many lines.
		y := NewExtractor(nil)
		if _, err := y.ReadLines(context.Background(), bytes.NewReader(line)); err != nil {
			t.Fatal(err)
		}
		checkFacts(t, y.Facts())
	})
}

// FuzzUnquote checks the string decoder against encoding/json on every
// string literal it accepts.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud800x"`, `"\udc00"`,
		"\"\xff\xfe\"", `"Привет"`, `"\u004"`, `"bad \x"`, `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		got, ok := jsonspan.Unquote(lit) // must not panic, whatever lit is
		var want string
		if json.Unmarshal(lit, &want) != nil || len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
			return
		}
		// Spans handed to unquote always come from skipString, so only
		// literals encoding/json accepts need to agree.
		if !ok || got != want {
			t.Fatalf("jsonspan.Unquote(%q) = %q, %v; encoding/json %q", lit, got, ok, want)
		}
		n := utf8.RuneCountInString(got) / 2
		p, more, ok := jsonspan.UnquotePrefix(lit, n)
		if !ok || !strings.HasPrefix(got, p) || utf8.RuneCountInString(p) != n || more != (n < utf8.RuneCountInString(got)) {
			t.Fatalf("jsonspan.UnquotePrefix(%q, %d) = %q, %v, %v", lit, n, p, more, ok)
		}
	})
}

// FuzzSkimValid: for any valid JSON, skipValue consumes exactly the value.
func FuzzSkimValid(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,2,{"b":"}"}]}`, `"x\\"`, `-1.5e10`, `true`, `null`,
		` { "a" : "\"" } `, `[{"k":"v\\\"w"}, 3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			jsonspan.SkipValue(b, 0) // must not panic
			return
		}
		end, err := jsonspan.SkipValue(b, 0)
		if err != nil {
			t.Fatalf("jsonspan.SkipValue(%q): %v", b, err)
		}
		if jsonspan.SkipSpace(b, end) != len(b) {
			t.Fatalf("jsonspan.SkipValue(%q) stopped at %d", b, end)
		}
	})
}
