// Package settings reads and edits Claude Code's settings files for
// compact-guard: where they are (scopes), which hook entries in them are
// compact-guard's, merging those in (install) and out (uninstall), and
// writing the file back safely. It knows nothing of cobra: cmd wires it to
// the install, uninstall and doctor commands.
package settings

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/compact-guard/compact-guard/transcript"
)

// Hook is one hook registration compact-guard owns.
type Hook struct {
	Event string
	// Matcher is the group's matcher; "" writes no matcher key (events
	// that take none), and "", "*" and no key all match everything.
	Matcher string
	Sub     string // the compact-guard sub-command it runs
	Timeout int    // seconds
	// Since is the first Claude Code release that knows Event, "" when
	// every release does. Older releases load no hook at all from a
	// settings file that names an event they do not know (measured with
	// 2.0.76 and PostCompact, specs/e2e.md E2E-10).
	Since string
	// Agents are the clients it is registered with, nil for every one:
	// watch tells of thresholds on Claude Code only, and on Qwen Code hands
	// over the late pointer, which needs the prompt and the resume alone
	// (specs/watch.md WA-1).
	Agents []Agent
}

// For reports whether h is registered with client a.
func (h Hook) For(a Agent) bool {
	if h.Agents == nil {
		return true
	}
	for _, x := range h.Agents {
		if x == a || x.IsClaude() && a.IsClaude() {
			return true
		}
	}
	return false
}

// KnownTo reports whether the Claude Code release client knows h's event;
// an unknown release ("") is taken to know them all.
func (h Hook) KnownTo(client string) bool {
	return client == "" || h.Since == "" || !transcript.VersionBefore(client, h.Since)
}

// Hooks are the registrations install writes, in the order it adds them.
// PostCompact only confirms that a compaction completed (Record.Compaction);
// the restore pointer comes from SessionStart(compact). watch runs on every
// prompt, tool call (PostToolUse, and PostToolUseFailure, which Claude Code
// fires instead of it for a call that failed) and stop, and notes resumed
// sessions (specs/watch.md WA-1); on Qwen Code on prompts and resumes only.
var Hooks = []Hook{
	{Event: "PreCompact", Matcher: "manual|auto", Sub: "precompact", Timeout: 60},
	{Event: "SessionStart", Matcher: "compact", Sub: "postcompact", Timeout: 15},
	{Event: "PostCompact", Matcher: "manual|auto", Sub: "postcompact", Timeout: 15, Since: "2.1.76"},
	{Event: "UserPromptSubmit", Sub: "watch", Timeout: 10, Agents: []Agent{AgentClaude, AgentQwen}},
	{Event: "PostToolUse", Matcher: "*", Sub: "watch", Timeout: 10, Agents: []Agent{AgentClaude}},
	{Event: "PostToolUseFailure", Matcher: "*", Sub: "watch", Timeout: 10, Since: "2.0.56", Agents: []Agent{AgentClaude}},
	{Event: "Stop", Sub: "watch", Timeout: 10, Agents: []Agent{AgentClaude}},
	{Event: "SessionStart", Matcher: "resume", Sub: "watch", Timeout: 10, Agents: []Agent{AgentClaude, AgentQwen}},
}

// Settings scopes, as Claude Code names them.
const (
	ScopeUser    = "user"
	ScopeProject = "project"
	ScopeLocal   = "local"
)

// Host is what locating settings files asks of the machine; tests
// substitute it.
type Host struct {
	Getenv func(string) string
	Home   func() (string, error)
	Getwd  func() (string, error)
}

// DefaultHost is the running process's environment, home and folder.
func DefaultHost() Host {
	return Host{Getenv: os.Getenv, Home: os.UserHomeDir, Getwd: os.Getwd}
}

// UserPath is $CLAUDE_CONFIG_DIR/settings.json, else
// ~/.claude/settings.json.
func UserPath(h Host) (string, error) {
	if d := h.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(filepath.Join(d, "settings.json"))
	}
	home, err := h.Home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home folder: %w", err)
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// ProjectDir is the folder whose .claude/ holds project and local settings:
// $CLAUDE_PROJECT_DIR when set (inside a Claude Code session), else the
// current folder, since Claude Code reads .claude/ in the folder it was
// started in.
func ProjectDir(h Host) (string, error) {
	if d := h.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return filepath.Abs(d)
	}
	return h.Getwd()
}

// PathFor resolves a scope (or an explicit --settings path, which wins) to
// a file path.
func PathFor(scope, explicit string, h Host) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	switch scope {
	case ScopeUser:
		return UserPath(h)
	case ScopeProject, ScopeLocal:
		dir, err := ProjectDir(h)
		if err != nil {
			return "", err
		}
		name := "settings.json"
		if scope == ScopeLocal {
			name = "settings.local.json"
		}
		return filepath.Join(dir, ".claude", name), nil
	}
	return "", fmt.Errorf("invalid scope %q: want user, project or local", scope)
}

// GitRootAbove returns the nearest folder at or above dir holding .git, or
// "".
func GitRootAbove(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
