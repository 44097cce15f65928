package settings

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Agent names a client whose hooks compact-guard registers (IN-19).
type Agent string

// The clients compact-guard registers with.
const (
	AgentClaude Agent = "claude"
	AgentCodex  Agent = "codex"
	AgentQwen   Agent = "qwen"
	AgentGemini Agent = "gemini"
)

// Agents lists them in the order help names them.
var Agents = []Agent{AgentClaude, AgentCodex, AgentQwen, AgentGemini}

// ParseAgent accepts an agent's name ("" is Claude Code).
func ParseAgent(s string) (Agent, error) {
	if s == "" {
		return AgentClaude, nil
	}
	for _, a := range Agents {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fmt.Errorf("invalid --agent %q: want claude, codex, qwen or gemini", s)
}

// IsClaude reports Claude Code, which the zero Agent stands for.
func (a Agent) IsClaude() bool { return a == "" || a == AgentClaude }

// Title is the client's name for people.
func (a Agent) Title() string {
	switch a {
	case AgentCodex:
		return "Codex CLI"
	case AgentQwen:
		return "Qwen Code"
	case AgentGemini:
		return "Gemini CLI"
	}
	return "Claude Code"
}

// Scopes are the settings scopes the client reads hooks from: Codex and
// Qwen Code have a user file and a project's, no personal local one.
func (a Agent) Scopes() []string {
	if a.IsClaude() {
		return []string{ScopeUser, ScopeProject, ScopeLocal}
	}
	return []string{ScopeUser, ScopeProject}
}

// HasScope reports whether the client reads hooks from scope.
func (a Agent) HasScope(scope string) bool {
	for _, s := range a.Scopes() {
		if s == scope {
			return true
		}
	}
	return false
}

// Comments reports whether the client reads its settings with comments
// stripped (Qwen Code: strip-json-comments, then JSON.parse): comments are
// then kept, but trailing commas are still invalid.
func (a Agent) Comments() bool { return a == AgentQwen || a == AgentGemini }

// CodexHome is $CODEX_HOME, else ~/.codex.
func CodexHome(h Host) (string, error) {
	return homeDir(h, "CODEX_HOME", ".codex")
}

// QwenHome is $QWEN_HOME, else ~/.qwen.
func QwenHome(h Host) (string, error) {
	return homeDir(h, "QWEN_HOME", ".qwen")
}

func homeDir(h Host, env, dot string) (string, error) {
	if d := h.Getenv(env); d != "" {
		if strings.HasPrefix(d, "~"+string(filepath.Separator)) || strings.HasPrefix(d, "~/") {
			home, err := h.Home()
			if err != nil {
				return "", fmt.Errorf("cannot find the home folder: %w", err)
			}
			d = filepath.Join(home, d[2:])
		}
		return filepath.Abs(d)
	}
	home, err := h.Home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home folder: %w", err)
	}
	return filepath.Join(home, dot), nil
}

// AgentPathFor resolves a scope of agent a (or an explicit path, which
// wins) to the file that holds its hooks (IN-19): Codex CLI's
// $CODEX_HOME/hooks.json or <project>/.codex/hooks.json, Qwen Code's
// $QWEN_HOME/settings.json or <project>/.qwen/settings.json, Claude Code's
// as PathFor says. <project> is the current folder, where the client is
// started.
func AgentPathFor(a Agent, scope, explicit string, h Host) (string, error) {
	if a.IsClaude() || explicit != "" {
		return PathFor(scope, explicit, h)
	}
	if !a.HasScope(scope) {
		return "", fmt.Errorf("invalid scope %q for %s: want user or project", scope, a.Title())
	}
	dot, name, home := ".codex", "hooks.json", CodexHome
	switch a {
	case AgentQwen:
		dot, name, home = ".qwen", "settings.json", QwenHome
	case AgentGemini:
		dot, name, home = ".gemini", "settings.json", GeminiHome
	}
	if scope == ScopeUser {
		dir, err := home(h)
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, name), nil
	}
	dir, err := h.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, dot, name), nil
}

// stripComments returns data with every // and /* */ comment outside
// strings replaced by spaces (line breaks kept), as strip-json-comments
// does, so that offsets and line numbers stay those of data.
func stripComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				if out[i] != '\r' {
					out[i] = ' '
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := i + 2
			for end+1 < len(out) && !(out[end] == '*' && out[end+1] == '/') {
				end++
			}
			end = min(end+2, len(out))
			for j := i; j < end; j++ {
				if out[j] != '\n' && out[j] != '\r' {
					out[j] = ' '
				}
			}
			i = end - 1
		}
	}
	return out
}
