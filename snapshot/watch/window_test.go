package watch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// spec: WA-2
func TestWA2ModelWindow(t *testing.T) {
	for model, want := range map[string]int64{
		"claude-opus-5-5": LargeWindow, "claude-opus-4-7": LargeWindow, "claude-opus-4-8": LargeWindow,
		"claude-sonnet-5": LargeWindow, "claude-haiku-5-5": LargeWindow, "claude-fable-5-1": LargeWindow,
		"claude-mythos-5": LargeWindow, "claude-sonnet-4-6[1m]": LargeWindow,
		"claude-opus-4-6": SmallWindow, "claude-sonnet-4-6": SmallWindow, "claude-haiku-4-5-20251001": SmallWindow,
		"claude-opus-4-20250514": SmallWindow, "claude-sonnet-4-5-20250929": SmallWindow,
		"gpt-5": SmallWindow, "": SmallWindow, "claude-e2e": SmallWindow,
	} {
		if got := ModelWindow(model); got != want {
			t.Errorf("ModelWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

// spec: WA-2
func TestWA2InferWindow(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user := write("user.json", `{"autoCompactWindow": 300000, "model": "opus[1m]"}`)
	local := write("local.json", `{"autoCompactWindow": 150000}`)
	broken := write("broken.json", `{"autoCompactWindow": `)
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
	cases := []struct {
		name   string
		in     WindowInput
		tokens int64
		autoAt int64
		source string
	}{
		{"a 200k model", WindowInput{Model: "claude-opus-4-6"}, 200_000, 167_000, "model claude-opus-4-6"},
		{"a 1M model", WindowInput{Model: "claude-opus-5-5"}, 1_000_000, 967_000, "model claude-opus-5-5"},
		{"no model", WindowInput{}, 200_000, 167_000, "default"},
		{"usage above 200k means 1M", WindowInput{Model: "claude-opus-4-6", Fill: 250_000}, 1_000_000, 967_000, "usage seen"},
		{"--window wins", WindowInput{Flag: 500_000, Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")}, 500_000, 467_000, "--window"},
		{"the auto-compact window from the environment (measured: 67,000)",
			WindowInput{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100000")}, 100_000, 67_000, "CLAUDE_CODE_AUTO_COMPACT_WINDOW"},
		{"the environment before settings", WindowInput{Model: "claude-opus-5-5", Settings: []string{local},
			Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "120000")}, 120_000, 87_000, "CLAUDE_CODE_AUTO_COMPACT_WINDOW"},
		{"the last settings file wins", WindowInput{Model: "claude-opus-5-5", Settings: []string{user, local, broken, filepath.Join(dir, "missing.json")}},
			150_000, 117_000, "autoCompactWindow in " + local},
		{"an auto-compact window above the model's does not raise it", WindowInput{Model: "claude-opus-4-6", Settings: []string{local}}, 150_000, 117_000, "autoCompactWindow in " + local},
		{"a 1m model setting", WindowInput{Model: "claude-opus-4-6", Getenv: env("ANTHROPIC_MODEL", "opus[1m]")}, 1_000_000, 967_000, "model opus[1m]"},
		{"below the client's minimum", WindowInput{Model: "claude-opus-5-5", Getenv: env("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "5000")}, 100_000, 67_000, "CLAUDE_CODE_AUTO_COMPACT_WINDOW"},
		{"a percentage override lowers the point", WindowInput{Model: "claude-opus-4-6", Getenv: env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")}, 200_000, 90_000, "model claude-opus-4-6"},
		{"auto-compaction off", WindowInput{Model: "claude-opus-4-6", Getenv: env("DISABLE_AUTO_COMPACT", "1")}, 200_000, 0, "model claude-opus-4-6"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := InferWindow(tc.in)
			if w.Tokens != tc.tokens || w.AutoAt != tc.autoAt || w.Source != tc.source {
				t.Errorf("got %+v, want %d, %d, %q", w, tc.tokens, tc.autoAt, tc.source)
			}
		})
	}
}

// spec: WA-3
func TestWA3Thresholds(t *testing.T) {
	large := Window{Tokens: 1_000_000, AutoAt: 967_000}
	small := Window{Tokens: 200_000, AutoAt: 167_000}
	tiny := Window{Tokens: 100_000, AutoAt: 67_000}
	cases := []struct {
		spec string
		w    Window
		want []int64
	}{
		{DefaultThresholds, large, []int64{500_000, 600_000, 700_000}},
		{DefaultThresholds, small, []int64{100_000, 120_000, 140_000}},
		{DefaultThresholds, tiny, []int64{50_000, 60_000, 65_000}},
		{"450k,500k,600k", large, []int64{450_000, 500_000, 600_000}},
		{"600k, 450K ,500000", large, []int64{450_000, 500_000, 600_000}},
		{"450k,500k,600k", small, []int64{155_000, 159_000, 163_000}},
		{"1.2M", Window{Tokens: 2_000_000, AutoAt: 1_967_000}, []int64{1_200_000}},
		{"70%,80%,90%", small, []int64{140_000, 159_000, 163_000}},
		{"70%,70%", large, []int64{700_000}},
		{"120000,75%", small, []int64{120_000, 150_000}},
		{"70%,80%,90%", Window{Tokens: 200_000}, []int64{140_000, 160_000, 180_000}},
	}
	for _, tc := range cases {
		ts, err := ParseThresholds(tc.spec)
		if err != nil {
			t.Fatalf("%q: %v", tc.spec, err)
		}
		if got := Resolve(ts, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("%q on %+v: %v, want %v", tc.spec, tc.w, got, tc.want)
		}
	}
	for in, want := range map[string]int64{"200k": 200_000, "1M": 1_000_000, " 150000 ": 150_000} {
		if got, err := ParseTokens(in); err != nil || got != want {
			t.Errorf("ParseTokens(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"50%", "", "x"} {
		if _, err := ParseTokens(bad); err == nil {
			t.Errorf("ParseTokens(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"", "0", "-5k", "100%", "0%", "abc", "5x", "1k,2k,3k,4k,5k,6k", "2000M"} {
		if _, err := ParseThresholds(bad); err == nil {
			t.Errorf("ParseThresholds(%q) accepted", bad)
		}
	}
}

// spec: WA-4
func TestWA4FloorIsBelowEveryFirstThreshold(t *testing.T) {
	for _, spec := range []string{DefaultThresholds, "450k,500k,600k", "70%,80%,90%", "10%", "1k", "99%"} {
		ts, _ := ParseThresholds(spec)
		for _, flag := range []int64{0, 40_000, 150_000} {
			for _, model := range []string{"claude-opus-4-6", "claude-opus-5-5"} {
				for _, env := range []string{"", "100000", "123456", "700000"} {
					for _, pct := range []string{"", "30", "3"} {
						getenv := func(k string) string {
							switch k {
							case "CLAUDE_CODE_AUTO_COMPACT_WINDOW":
								return env
							case "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE":
								return pct
							}
							return ""
						}
						floor := Floor(ts, flag, getenv)
						w := InferWindow(WindowInput{Flag: flag, Model: model, Getenv: getenv})
						if first := Resolve(ts, w)[0]; floor > first {
							t.Errorf("%q, --window %d, %s, window %d: floor %d above the first threshold %d", spec, flag, model, w.Tokens, floor, first)
						}
					}
				}
			}
		}
	}
	ts, _ := ParseThresholds(DefaultThresholds)
	if f := Floor(ts, 0, nil); f != 50_000 {
		t.Errorf("floor of the defaults %d, want 50,000 (half the smallest auto-compact window)", f)
	}
}
