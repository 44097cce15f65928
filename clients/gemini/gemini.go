package gemini

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/compact-guard/compact-guard/settings"
)

// Name is Gemini CLI's name on --agent and in the records of its sessions.
const Name settings.Agent = "gemini"

// Settings is Gemini CLI's settings files (specs/install.md IN-56 to IN-60):
// $GEMINI_CLI_HOME/.gemini/settings.json (the variable replaces the home
// folder), else ~/.gemini/settings.json, and <project>/.gemini/
// settings.json, read with comments stripped. Its events are its own, its
// timeouts milliseconds, and its trigger matcher one exact string (0.61.0's
// HookPlanner: "manual|auto" matches nothing), so its registrations are a
// list of their own with no matcher; doctor judges them by those rules
// (gemini_doctor.go).
var Settings = settings.Client{
	Agent:       Name,
	Title:       "Gemini CLI",
	Scopes:      []string{settings.ScopeUser, settings.ScopeProject},
	Comments:    true,
	FileNoun:    "settings",
	Watch:       []string{"BeforeAgent"},
	Hooks:       GeminiHooks,
	TimeoutUnit: 1000,
	Path: func(scope string, h settings.Host) (string, error) {
		if scope == settings.ScopeUser {
			dir, err := Home(h)
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
var GeminiHooks = []settings.Hook{
	{Event: "PreCompress", Sub: "precompact", Timeout: 60000},
	{Event: "BeforeAgent", Sub: "watch", Timeout: 10000},
}

// Home is the folder Gemini CLI keeps its settings and chats in:
// $GEMINI_CLI_HOME/.gemini, else ~/.gemini.
func Home(h settings.Host) (string, error) {
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

func init() {
	Settings.Doctor = settings.ClientChecks{Entry: checkGeminiEntry, Coverage: checkGeminiCoverage}
}
