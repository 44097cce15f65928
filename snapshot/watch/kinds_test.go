package watch

import "testing"

// spec: WA-20
// Where the client compacts by itself, per release and model, as measured
// with the real clients against a custom base URL (their --debug-file's
// "autocompact:" lines, specs/watch.md WA-20).
func TestWA20ClientMode(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name           string
		in             WindowInput
		mode           string
		tokens, autoAt int64
	}{
		{"no release seen yet: WA-2's rule", WindowInput{Model: "claude-opus-4-5"}, ModeProactive, 200_000, 167_000},
		{"before 2.1.193 every release compacts at its threshold", WindowInput{Model: "claude-opus-4-5", Version: "2.1.119"}, ModeProactive, 200_000, 167_000},
		{"2.1.328, a native 1M model", WindowInput{Model: "claude-opus-5-5", Version: "2.1.328"}, ModeProactive, 1_000_000, 967_000},
		{"2.1.328, Opus 4.6 held at 200k", WindowInput{Model: "claude-opus-4-6", Version: "2.1.328"}, ModeProactive, 200_000, 167_000},
		{"2.1.328, Opus 4.5 waits for the API", WindowInput{Model: "claude-opus-4-5", Version: "2.1.328"}, ModeRefused, 200_000, 200_000},
		{"2.1.328, a dated Haiku 4.5", WindowInput{Model: "claude-haiku-4-5-20251001", Version: "2.1.328"}, ModeRefused, 200_000, 200_000},
		{"2.1.328, a [1m] suffix is no native window", WindowInput{Model: "claude-opus-4-5[1m]", Version: "2.1.328"}, ModeRefused, 1_000_000, 1_000_000},
		{"2.1.285, the first with native 1M windows", WindowInput{Model: "claude-opus-4-7", Version: "2.1.285"}, ModeProactive, 1_000_000, 967_000},
		{"2.1.284, Opus 4.7 waits for the API", WindowInput{Model: "claude-opus-4-7", Version: "2.1.284"}, ModeRefused, 1_000_000, 1_000_000},
		{"2.1.210, Sonnet 5 at 200k", WindowInput{Model: "claude-sonnet-5", Version: "2.1.210"}, ModeProactive, 200_000, 167_000},
		{"2.1.210, Opus 5.5 not the same on every release measured", WindowInput{Model: "claude-opus-5-5", Version: "2.1.210"}, ModeEither, 200_000, 167_000},
		{"an id the client does not know", WindowInput{Model: "gpt-5", Version: "2.1.328"}, ModeEither, 200_000, 167_000},
		{"a window set: proactive whatever the release", WindowInput{Model: "claude-opus-4-5", Version: "2.1.328",
			Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")}, ModeProactive, 100_000, 67_000},
		{"--window stands for the client's --autocompact", WindowInput{Flag: 150_000, Model: "claude-opus-4-5", Version: "2.1.328"}, ModeProactive, 150_000, 117_000},
		{"off", WindowInput{Model: "claude-opus-4-5", Version: "2.1.328", Getenv: env("DISABLE_AUTO_COMPACT", "1")}, ModeOff, 200_000, 0},
		{"a fill above 200k keeps the larger window", WindowInput{Model: "claude-sonnet-5", Version: "2.1.210", Fill: 300_000}, ModeProactive, 1_000_000, 967_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := InferWindow(tc.in)
			if w.Mode != tc.mode || w.Tokens != tc.tokens || w.AutoAt != tc.autoAt {
				t.Errorf("got %+v, want %s, %d, %d", w, tc.mode, tc.tokens, tc.autoAt)
			}
		})
	}
}
