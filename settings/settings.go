// Package settings reads and edits the hooks files of the clients
// compact-guard registers with (Claude Code, Codex CLI, Qwen Code, GitHub
// Copilot CLI, Gemini CLI): where they are (scopes), which hook entries in
// them are compact-guard's, merging those in (install) and out (uninstall),
// and writing the file
// back safely. It knows nothing of cobra: cmd wires it to the install,
// uninstall and doctor commands.
//
// The editing is shared: json.go edits JSON (with comments where the
// client allows them) through hujson, keeping the user's layout; toml.go
// edits Codex's config.toml; owned.go says which entries are install's
// (IN-21) and carry.go which flags install carries over (IN-31). What
// differs per client is one file each: claude.go, codex.go, qwen.go,
// copilot.go, gemini.go, each defining the client's Client (title, scopes,
// paths, comments, the watch events it fires).
//
// Adding a client: write <client>.go with its Client value (and, when its
// files are not the home-and-project pair HomeAndProject describes, its
// path function), add its Agent constant and one row to the clients table
// in clients.go. install, uninstall, --agent, its help and completion then
// know it, and doctor checks its files, entries and coverage. A check only
// that client needs (Claude Code's plugins, Codex's trust in config.toml)
// goes beside it, in <client>_doctor.go, set on its Client's doctor in an
// init function (doctor.go, ClientChecks).
//
// doctor's checks of the hooks files live here (doctor*.go, Check): each
// returns health.Result lines, which cmd prints.
//
// What install leaves and uninstall takes back (trace.go, specs/install.md
// IN-76 to IN-85) is shared by every client with one setting: an Edit (or
// TrustEdit) with Trace set to TraceInstall records, beside the file's
// backups, what the file was and what install created in it and on the
// way to it; with TraceUninstall it gives the file back byte for byte from
// that record, removes the backups a file given back made needless, and
// hands the folders to RemoveCreatedDirs. A new client's file edited
// through Edit needs nothing more; a file written some other way calls
// traceBefore and traceAfter around its write, as TrustEdit.Apply does.
// Registered says which files still register compact-guard, which decides
// whether uninstall removes watch's state (RemoveWatchState); a client in
// the clients table is in it by that alone.
package settings

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
}

// For reports whether h is registered with client a: precompact and
// postcompact with every client, watch for the events the client's Watch
// lists (specs/watch.md WA-1).
func (h Hook) For(a Agent) bool {
	return h.Sub != "watch" || slices.Contains(ClientOf(a).Watch, h.Event)
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
// sessions (specs/watch.md WA-1); each client's Watch says which of these
// events it fires.
var Hooks = []Hook{
	{Event: "PreCompact", Matcher: "manual|auto", Sub: "precompact", Timeout: 60},
	{Event: "SessionStart", Matcher: "compact", Sub: "postcompact", Timeout: 15},
	{Event: "PostCompact", Matcher: "manual|auto", Sub: "postcompact", Timeout: 15, Since: "2.1.76"},
	{Event: "UserPromptSubmit", Sub: "watch", Timeout: 10},
	{Event: "PostToolUse", Matcher: "*", Sub: "watch", Timeout: 10},
	{Event: "PostToolUseFailure", Matcher: "*", Sub: "watch", Timeout: 10, Since: "2.0.56"},
	{Event: "Stop", Sub: "watch", Timeout: 10},
	{Event: "SessionStart", Matcher: "resume", Sub: "watch", Timeout: 10},
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
