package settings

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/tailscale/hujson"
)

// geminiClient is Gemini CLI (specs/install.md IN-56 to IN-60):
// $GEMINI_CLI_HOME/.gemini/settings.json (the variable replaces the home
// folder), else ~/.gemini/settings.json, and <project>/.gemini/
// settings.json, read with comments stripped. Its events are its own, its
// timeouts milliseconds, and its trigger matcher one exact string (0.61.0's
// HookPlanner: "manual|auto" matches nothing), so its registrations are a
// list of their own with no matcher; doctor judges them by those rules
// (gemini_doctor.go).
var geminiClient = Client{
	Agent:       AgentGemini,
	Title:       "Gemini CLI",
	Scopes:      []string{ScopeUser, ScopeProject},
	Comments:    true,
	FileNoun:    "settings",
	Watch:       []string{"BeforeAgent"},
	hooks:       GeminiHooks,
	timeoutUnit: 1000,
	path: func(scope string, h Host) (string, error) {
		if scope == ScopeUser {
			dir, err := GeminiHome(h)
			if err != nil {
				return "", err
			}
			return filepath.Join(dir, "settings.json"), nil
		}
		dir, err := h.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, ".gemini", "settings.json"), nil
	},
}

// GeminiHooks are the registrations install writes for Gemini CLI:
// PreCompress, which the client awaits before every model request, runs
// precompact (it takes a snapshot only when a compression is due, PC-43);
// BeforeAgent, whose additionalContext joins the turn's prompt, runs watch,
// which hands over the pointer once the chat shows the compression
// (WA-36). Timeout is in milliseconds.
var GeminiHooks = []Hook{
	{Event: "PreCompress", Sub: "precompact", Timeout: 60000},
	{Event: "BeforeAgent", Sub: "watch", Timeout: 10000},
}

// HooksFor are the registrations install writes for client a, in order:
// the client's own list, else those of Hooks it fires.
func HooksFor(a Agent) []Hook {
	if h := ClientOf(a).hooks; h != nil {
		return h
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
// $GEMINI_CLI_HOME/.gemini, else ~/.gemini.
func GeminiHome(h Host) (string, error) {
	getenv := h.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if d := getenv("GEMINI_CLI_HOME"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		return filepath.Join(abs, ".gemini"), nil
	}
	if h.Home == nil {
		return "", errors.New("cannot find the home folder")
	}
	home, err := h.Home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home folder: %w", err)
	}
	return filepath.Join(home, ".gemini"), nil
}

// unit is how a's hooks count their timeout: 1 for seconds, 1000 for
// Gemini CLI's milliseconds.
func (a Agent) unit() float64 {
	if u := ClientOf(a).timeoutUnit; u > 0 {
		return u
	}
	return 1
}

// timeoutText says a timeout as the client counts it.
func (a Agent) timeoutText(t int) string {
	if a.unit() == 1000 {
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
	t /= a.unit()
	lo := float64(minPostcompactTimeout)
	if sub == "precompact" {
		lo = minPrecompactTimeout
	}
	return t >= lo && t <= maxHookTimeout
}

func init() {
	geminiClient.doctor = clientChecks{entry: checkGeminiEntry, coverage: checkGeminiCoverage}
}
