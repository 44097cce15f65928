package settings

import (
	"fmt"
	"path/filepath"

	"github.com/tailscale/hujson"
)

// Gemini CLI's settings (specs/install.md IN-56 to IN-62): hooks in
// ~/.gemini/settings.json (the home is $GEMINI_CLI_HOME when set) or
// <project>/.gemini/settings.json, read with comments stripped; its own
// event names, timeouts in milliseconds, and a trigger matcher that is an
// exact string (0.61.0's HookPlanner: "manual|auto" matches nothing), so
// PreCompress gets none.

// GeminiHooks are the registrations install writes for Gemini CLI:
// PreCompress, which the client awaits before every model request, runs
// precompact (it takes a snapshot only when a compression is due, PC-43);
// BeforeAgent, whose additionalContext joins the turn's prompt, runs watch,
// which hands over the pointer once the chat shows the compression
// (WA-36). Timeout is in milliseconds.
var GeminiHooks = []Hook{
	{Event: "PreCompress", Sub: "precompact", Timeout: 60000, Agents: []Agent{AgentGemini}},
	{Event: "BeforeAgent", Sub: "watch", Timeout: 10000, Agents: []Agent{AgentGemini}},
}

// HooksFor are the registrations install writes for client a, in order.
func HooksFor(a Agent) []Hook {
	if a == AgentGemini {
		return GeminiHooks
	}
	var out []Hook
	for _, h := range Hooks {
		if h.For(a) {
			out = append(out, h)
		}
	}
	return out
}

// GeminiHome is the folder Gemini CLI keeps its settings and chats in:
// $GEMINI_CLI_HOME/.gemini (the variable replaces the home folder), else
// ~/.gemini.
func GeminiHome(h Host) (string, error) {
	if d := h.Getenv("GEMINI_CLI_HOME"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		return filepath.Join(abs, ".gemini"), nil
	}
	home, err := h.Home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home folder: %w", err)
	}
	return filepath.Join(home, ".gemini"), nil
}

// timeoutUnit is how a's hooks count their timeout: 1 for seconds, 1000
// for Gemini CLI's milliseconds.
func (a Agent) timeoutUnit() float64 {
	if a == AgentGemini {
		return 1000
	}
	return 1
}

// timeoutText says a timeout as the client counts it.
func (a Agent) timeoutText(t int) string {
	if a == AgentGemini {
		return fmt.Sprintf("%dms", t)
	}
	return fmt.Sprintf("%ds", t)
}

// plausibleTimeout reports whether a user's timeout for sub is one install
// keeps, counted in the client's unit (IN-58: a Gemini timeout of 60 is
// 60 ms, which would cut precompact off).
func (a Agent) plausibleTimeout(sub string, v hujson.ValueTrimmed) bool {
	t, ok := numberOf(v)
	if !ok {
		return false
	}
	t /= a.timeoutUnit()
	lo := float64(minPostcompactTimeout)
	if sub == "precompact" {
		lo = minPrecompactTimeout
	}
	return t >= lo && t <= maxHookTimeout
}
