package watch

import (
	"os"
	"path/filepath"
	"testing"
)

// spec: WA-43
// The window /autocompact saves (modelSettings.<model>.autoCompactWindow in
// the user's settings, Claude Code 2.1.311 and later) is read as 2.1.337
// reads it: per model before the file's top-level value, the file of
// highest precedence first, "auto" as no window set, values the client's
// schema drops as nothing, and the variable before every file.
func TestWA43WindowWhereTheClientReadsIt(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// As /autocompact 300k writes it for claude-opus-5-5 (measured, E2E-60).
	saved := write("user.json", `{"modelSettings": {"claude-opus-5-5": {"autoCompactWindow": 300000}}}`)
	both := write("both.json", `{"autoCompactWindow": 150000, "modelSettings": {"claude-opus-5-5": {"autoCompactWindow": 400000}}}`)
	top := write("top.json", `{"autoCompactWindow": 250000}`)
	auto := write("auto.json", `{"autoCompactWindow": 250000, "modelSettings": {"claude-opus-5-5": {"autoCompactWindow": "auto"}}}`)
	other := write("other.json", `{"modelSettings": {"claude-sonnet-5": {"autoCompactWindow": 120000}}}`)
	dropped := write("dropped.json", `{"autoCompactWindow": 50000, "modelSettings": {"claude-opus-5-5": {"autoCompactWindow": 99999.5}}}`)
	spellings := write("spellings.json", `{"modelSettings": {"claude-opus-5-5-20261001": {"autoCompactWindow": 500000}, "us.anthropic.claude-opus-5-5-v1:0": {"autoCompactWindow": 600000}}}`)
	exact := write("exact.json", `{"modelSettings": {"Claude-Opus-5-5[1m]": {"autoCompactWindow": 500000}, "claude-opus-5-5": {"autoCompactWindow": 700000}}}`)
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "CLAUDE_CODE_AUTO_COMPACT_WINDOW" {
				return v
			}
			return ""
		}
	}
	const model = "claude-opus-5-5"
	cases := []struct {
		name     string
		model    string
		settings []string
		getenv   func(string) string
		tokens   int64
		source   string
		mode     string
	}{
		{"as /autocompact saves it", model, []string{saved}, nil, 300_000, "modelSettings.autoCompactWindow in " + saved, ModeProactive},
		{"a dated id matches the canonical key", "claude-opus-5-5-20261001", []string{saved}, nil, 300_000, "modelSettings.autoCompactWindow in " + saved, ModeProactive},
		{"per model before the file's top level", model, []string{both}, nil, 400_000, "modelSettings.autoCompactWindow in " + both, ModeProactive},
		{"another model's entry: the top level", "claude-sonnet-5", []string{both}, nil, 150_000, "autoCompactWindow in " + both, ModeProactive},
		{"a later file's top level over an earlier file's per model", model, []string{saved, top}, nil, 250_000, "autoCompactWindow in " + top, ModeProactive},
		{"a later file's per model over an earlier file's top level", model, []string{top, saved}, nil, 300_000, "modelSettings.autoCompactWindow in " + saved, ModeProactive},
		{"auto for the model: none set, the client's own choice", model, []string{saved, auto}, nil, 1_000_000, "model " + model, ModeProactive},
		{"auto for the model on a model the release waits for the API", "claude-opus-4-5", []string{write("auto45.json", `{"modelSettings": {"claude-opus-4-5": {"autoCompactWindow": "auto"}}, "autoCompactWindow": 150000}`)}, nil, 200_000, "model claude-opus-4-5", ModeRefused},
		{"an entry for another model sets nothing", model, []string{other}, nil, 1_000_000, "model " + model, ModeProactive},
		{"values the schema drops set nothing", model, []string{saved, dropped}, nil, 300_000, "modelSettings.autoCompactWindow in " + saved, ModeProactive},
		{"the exact canonical key before other spellings", model, []string{exact}, nil, 700_000, "modelSettings.autoCompactWindow in " + exact, ModeProactive},
		{"the first spelling in the file's order", model, []string{spellings}, nil, 500_000, "modelSettings.autoCompactWindow in " + spellings, ModeProactive},
		{"the variable before every file", model, []string{saved}, env("200k"), 200_000, "CLAUDE_CODE_AUTO_COMPACT_WINDOW", ModeProactive},
		{"a variable that reads as no size: the files", model, []string{saved}, env("auto"), 300_000, "modelSettings.autoCompactWindow in " + saved, ModeProactive},
		{"a window set above a 200k model's is its window, at the set window's mode", "claude-opus-4-5", []string{write("big.json", `{"autoCompactWindow": 500000}`)}, nil, 200_000, "autoCompactWindow in " + filepath.Join(dir, "big.json"), ModeProactive},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := InferWindow(WindowInput{Model: tc.model, Version: "2.1.337", Settings: tc.settings, Getenv: tc.getenv})
			if w.Tokens != tc.tokens || w.Source != tc.source || w.Mode != tc.mode {
				t.Errorf("got %d from %q (%s), want %d from %q (%s)", w.Tokens, w.Source, w.Mode, tc.tokens, tc.source, tc.mode)
			}
		})
	}
}

// spec: WA-43
// CLAUDE_CODE_AUTO_COMPACT_WINDOW as the client reads it.
func TestWA43VariableAsTheClientReadsIt(t *testing.T) {
	for in, want := range map[string]int64{
		"300000": 300_000, " 300000 ": 300_000, "300k": 300_000, "300K": 300_000, "1.5m": 1_500_000, "1M": 1_000_000,
		"3e5": 300_000, "300,000": 300_000, "300_000": 300_000, "300000 tokens": 300_000,
		"5000": 100_000, "50k": 100_000,
	} {
		if got, ok := envTokens(in); !ok || got != want {
			t.Errorf("envTokens(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "auto", "k", "-5", "0", "x300000", "0.4"} {
		if got, ok := envTokens(in); ok {
			t.Errorf("envTokens(%q) = %d, want no size", in, got)
		}
	}
}
