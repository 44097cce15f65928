// Package watch holds what `compact-guard watch` knows between hook runs of
// a session (specs/watch.md): the context window and the point where the
// client compacts by itself, the thresholds that make a compaction due, and
// the per-session watch state — crossings and when the model was told, the
// Stop gate, the compaction precompact saw and whether its pointer reached
// the model. It lives under snapshot because precompact copies the state
// into the snapshot record and because its files sit beside the snapshot
// folder, under the same rules. It knows nothing of cobra.
package watch

import (
	"strconv"
	"strings"
)

// Windows and reserves of Claude Code 2.1.328 (measured, specs/watch.md
// WA-2): the client compacts by itself at the window less the output
// reserve (20,000 tokens for every current model) less a summary buffer
// (13,000): 167,000 on a 200,000 window, 67,000 with an auto-compact window
// of 100,000.
const (
	SmallWindow    = 200_000
	LargeWindow    = 1_000_000
	OutputReserve  = 20_000
	SummaryBuffer  = 13_000
	MinAutoCompact = 100_000 // the smallest auto-compact window the client accepts
)

// Window is the context window the client compacts against and where it
// does so by itself.
type Window struct {
	Tokens int64 `json:"tokens"`
	// AutoAt is where automatic compaction happens; 0 when it is off.
	AutoAt int64 `json:"auto_at"`
	// Source says what decided Tokens, for the notice and the log: "--window",
	// "CLAUDE_CODE_AUTO_COMPACT_WINDOW", "autoCompactWindow in <file>",
	// "model <id>", "usage seen", "default".
	Source string `json:"source"`
	// Mode says how the client compacts by itself (WA-20: ModeProactive,
	// ModeRefused, ModeEither, ModeOff); Release and Model are what it was
	// decided for, for the notice.
	Mode    string `json:"mode,omitempty"`
	Release string `json:"release,omitempty"`
	Model   string `json:"model,omitempty"`
}

// WindowInput is what the window is inferred from (WA-2).
type WindowInput struct {
	// Flag is --window (0: not given).
	Flag int64
	// Model is the model of the newest response; Fill the context fill seen.
	Model string
	Fill  int64
	// Version is the client release that wrote the newest response (TR-54),
	// "" when unknown: it decides whether the client compacts at a threshold
	// without an auto-compact window set (WA-20).
	Version string
	// Getenv reads the hook's environment, which is the client's.
	Getenv func(string) string
	// Settings are Claude Code's settings files in the client's order of
	// precedence, lowest first (user, project, local); later ones win.
	Settings []string
}

// InferWindow applies WA-2: --window wins; else the model's window (1M for
// the models the client gives one natively or a model setting ending in
// "[1m]", 200k otherwise, 1M when the fill seen exceeds 200k), lowered to
// the auto-compact window the user set (the variable, else the settings
// files as WA-43 reads them); the auto-compaction point follows the
// client's rule and its switches.
func InferWindow(in WindowInput) Window {
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	s := readAllSettings(in.Settings)
	w := Window{Tokens: SmallWindow, Source: "default"}
	switch {
	case in.Flag > 0:
		w = Window{Tokens: in.Flag, Source: "--window"}
	default:
		if m := ModelWindow(in.Model); in.Model != "" {
			w = Window{Tokens: m, Source: "model " + in.Model}
		}
		if model := firstOf(getenv("ANTHROPIC_MODEL"), s.model); strings.HasSuffix(strings.ToLower(model), "[1m]") && w.Tokens < LargeWindow {
			w = Window{Tokens: LargeWindow, Source: "model " + model}
		}
		if in.Fill > w.Tokens {
			w = Window{Tokens: LargeWindow, Source: "usage seen"}
		}
		if u, ok := setWindow(getenv, s, firstOf(in.Model, firstOf(getenv("ANTHROPIC_MODEL"), s.model))); ok {
			w = Window{Tokens: min(w.Tokens, u.tokens), Source: u.source}
		}
	}
	w.AutoAt = autoPoint(w.Tokens, getenv)
	applyClientMode(&w, in, getenv)
	return w
}

// autoPoint is where the client compacts by itself on a window of tokens:
// the window less the output reserve and the summary buffer, lowered by
// CLAUDE_AUTOCOMPACT_PCT_OVERRIDE (a percentage of the window less the
// reserve), 0 when DISABLE_AUTO_COMPACT or DISABLE_COMPACT is set.
func autoPoint(tokens int64, getenv func(string) string) int64 {
	if truthy(getenv("DISABLE_AUTO_COMPACT")) || truthy(getenv("DISABLE_COMPACT")) {
		return 0
	}
	effective := tokens - OutputReserve
	at := max(effective-SummaryBuffer, 0)
	if p, ok := positive(getenv("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")); ok && p <= 100 {
		at = min(at, effective*p/100)
	}
	return max(at, 0)
}

// ModelWindow is the window Claude Code 2.1.328 gives a model id by default:
// 1,000,000 for the models it gives one natively (Opus 4.7 and later, and
// every Sonnet, Haiku, Fable and Mythos from version 5), 200,000 for the
// others and for ids it does not know (WA-2).
func ModelWindow(model string) int64 {
	m := strings.ToLower(strings.TrimSpace(model))
	if strings.HasSuffix(m, "[1m]") {
		return LargeWindow
	}
	rest, ok := strings.CutPrefix(m, "claude-")
	if !ok {
		return SmallWindow
	}
	parts := strings.Split(rest, "-")
	family := parts[0]
	major, minor := -1, 0
	if len(parts) > 1 {
		major, _ = strconv.Atoi(parts[1])
	}
	if len(parts) > 2 && len(parts[2]) <= 2 { // not a date
		minor, _ = strconv.Atoi(parts[2])
	}
	switch family {
	case "fable", "mythos":
		return LargeWindow
	case "opus":
		if major > 4 || major == 4 && minor >= 7 {
			return LargeWindow
		}
	case "sonnet", "haiku":
		if major >= 5 {
			return LargeWindow
		}
	}
	return SmallWindow
}

// setWindow is the auto-compact window the user set for model (WA-43):
// CLAUDE_CODE_AUTO_COMPACT_WINDOW when it reads as a size, else the
// settings files'.
func setWindow(getenv func(string) string, s settingsFacts, model string) (userWindow, bool) {
	if n, ok := envTokens(getenv("CLAUDE_CODE_AUTO_COMPACT_WINDOW")); ok {
		return userWindow{n, "CLAUDE_CODE_AUTO_COMPACT_WINDOW"}, true
	}
	return s.windowFor(model)
}

// setByUser reports whether a window's source is one the user set, so that
// the client compacts at its point whatever the release (WA-20).
func setByUser(source string) bool {
	return source == "--window" || source == "CLAUDE_CODE_AUTO_COMPACT_WINDOW" ||
		strings.HasPrefix(source, "autoCompactWindow in ") || strings.HasPrefix(source, "modelSettings.autoCompactWindow in ")
}

func positive(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil && n > 0
}

func truthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
