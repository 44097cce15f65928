package watch

import (
	"strings"

	"github.com/compact-guard/compact-guard/transcript"
)

// How the client compacts by itself (WA-20): at a threshold, or only when
// the API refuses a prompt as too long, as measured per release and model.
const (
	// ModeProactive: at AutoAt, the window less the output reserve and the
	// summary buffer.
	ModeProactive = "proactive"
	// ModeRefused: no auto-compact window applies, so the client sends
	// every prompt and compacts when the API answers 400 "prompt is too
	// long" (reactive compaction). AutoAt is then the window: the point no
	// prompt passes.
	ModeRefused = "refused"
	// ModeEither: this release was not measured to do one or the other for
	// this model. AutoAt is the proactive point, the earlier of the two.
	ModeEither = "either"
	// ModeOff: automatic compaction is off.
	ModeOff = "off"
)

// Releases where the rule changes (measured with the real client against a
// custom base URL, specs/watch.md WA-20): before reactiveFrom every release
// compacts at its threshold; from it, only with an auto-compact window set
// or one the release gives the model; from nativeLargeFrom the models with a
// native 1M window get one.
const (
	reactiveFrom    = "2.1.193"
	nativeLargeFrom = "2.1.285"
)

// clientMode is how release compacts a session of model when no
// auto-compact window is set (WA-20), and the window it compacts against
// when that differs from the model's (0: the model's). release "" (no
// response written yet) keeps WA-2's rule.
func clientMode(release, model string) (mode string, window int64) {
	if release == "" || transcript.VersionBefore(release, reactiveFrom) {
		return ModeProactive, 0
	}
	base := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(model)), "[1m]")
	if i := strings.LastIndex(base, "-20"); i > 0 && len(base)-i == 9 {
		base = base[:i] // a dated id: claude-opus-4-5-20251101
	}
	switch base {
	case "claude-sonnet-4-6", "claude-opus-4-6":
		// Held at 200,000 while the API offers 1M (2.1.193 to 2.1.328).
		return ModeProactive, SmallWindow
	}
	if !strings.HasPrefix(base, "claude-") {
		return ModeEither, 0 // an id the releases do not know: not measured
	}
	if transcript.VersionBefore(release, nativeLargeFrom) {
		switch base {
		case "claude-sonnet-5":
			return ModeProactive, SmallWindow // 2.1.210, 2.1.284: 180,000 effective
		case "claude-opus-5-5":
			return ModeEither, SmallWindow // reactive on 2.1.210, at 167,000 on 2.1.284
		}
		return ModeRefused, 0
	}
	if ModelWindow(base) == LargeWindow {
		return ModeProactive, LargeWindow
	}
	return ModeRefused, 0
}

// applyClientMode sets w's Mode (WA-20): off with the switches of WA-2;
// proactive at w.AutoAt when an auto-compact window is set (the variable, a
// setting, or --window, which stands for the client's --autocompact);
// otherwise as the release compacts for the model, which may move the
// window the client compacts against, and AutoAt with it.
func applyClientMode(w *Window, in WindowInput, getenv func(string) string) {
	w.Release, w.Model = in.Version, in.Model
	if w.AutoAt <= 0 {
		w.Mode = ModeOff
		return
	}
	w.Mode = ModeProactive
	if setByUser(w.Source) {
		return
	}
	mode, window := clientMode(in.Version, in.Model)
	if window > 0 && window < w.Tokens && in.Fill <= window {
		w.Tokens, w.Source = window, "Claude Code "+in.Version+" for "+in.Model
		w.AutoAt = autoPoint(w.Tokens, getenv)
	}
	w.Mode = mode
	if mode == ModeRefused {
		w.AutoAt = w.Tokens
	}
}
