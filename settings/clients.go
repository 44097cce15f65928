package settings

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// Agent names a client whose hooks compact-guard registers (IN-19).
type Agent string

// AgentClaude is Claude Code, the baseline: the client compact-guard was
// made for, whose hooks every other client's are measured against. The
// others are named by their folders under clients/.
const AgentClaude Agent = "claude"

// Client is what compact-guard knows of one client's configuration: its
// name, where its hooks file of each scope is and how it reads it, the
// watch events it fires, and the doctor checks only it needs. Claude Code's
// value is claude.go's; every other client's lives in its folder under
// clients/, which registers it (Register).
type Client struct {
	// Agent is the client's name on --agent.
	Agent Agent
	// Title is the client's name for people.
	Title string
	// Scopes are the settings scopes it reads hooks from, in the order
	// doctor reads them.
	Scopes []string
	// Comments is set when the client reads its JSON with comments
	// stripped: comments are then kept, trailing commas still invalid.
	Comments bool
	// FileNoun names its hooks file in doctor's lines ("hooks",
	// "settings").
	FileNoun string
	// Watch are the events it fires that watch registers for (specs/
	// watch.md WA-1); precompact and postcompact register for every client.
	Watch []string
	// Path resolves a scope to its hooks file (IN-19).
	Path func(scope string, h Host) (string, error)
	// Doctor holds the checks only this client needs (doctor.go); its
	// folder sets them.
	Doctor ClientChecks
	// Hooks are the client's own registrations when its events are not
	// Claude Code's (Gemini CLI); nil: those of Hooks it fires (HooksFor).
	Hooks []Hook
	// Sub is the sub-command of compact-guard its own hooks file runs,
	// when not Claude Code's ones (Copilot CLI: "copilot"); an entry that
	// runs it is compact-guard's (IN-5).
	Sub string
	// TimeoutUnit is how many of the client's timeout units make a second
	// (Gemini CLI: 1000); 0 is 1.
	TimeoutUnit float64
}

// clients is the table of clients, in the order help names them: Claude
// Code's, the baseline, and then each that Register added (a client's
// folder under clients/ defines its Client; the clients package registers
// them all, in one place).
var clients = []*Client{&claudeClient}

// Register adds c to the table of clients after those registered before
// it; its Agent names it on --agent. It is called while the program
// starts, before any command runs.
func Register(c *Client) {
	clients = append(clients, c)
	Agents = append(Agents, c.Agent)
	if c.Sub != "" {
		ourSubcommands[c.Sub] = true
	}
}

// Flag is the --agent flag that repeats a command for a, "" for Claude
// Code.
func (a Agent) Flag() string {
	if a.IsClaude() {
		return ""
	}
	return " --agent " + string(a)
}

// Agents lists the clients' names in the order help names them.
var Agents = func() []Agent {
	out := make([]Agent, len(clients))
	for i, c := range clients {
		out[i] = c.Agent
	}
	return out
}()

// ClientOf is a's entry of the table; the zero Agent is Claude Code.
func ClientOf(a Agent) *Client {
	for _, c := range clients {
		if c.Agent == a {
			return c
		}
	}
	return &claudeClient
}

// AgentNames lists the agents' names as help says them: "claude, codex or
// qwen"; with titles, "claude (Claude Code), codex (Codex CLI) or qwen
// (Qwen Code)".
func AgentNames(titles bool) string {
	var b strings.Builder
	for i, c := range clients {
		switch {
		case i == len(clients)-1 && i > 0:
			b.WriteString(" or ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(string(c.Agent))
		if titles {
			b.WriteString(" (" + c.Title + ")")
		}
	}
	return b.String()
}

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
	return "", fmt.Errorf("invalid --agent %q: want %s", s, AgentNames(false))
}

// IsClaude reports Claude Code, which the zero Agent stands for.
func (a Agent) IsClaude() bool { return a == "" || a == AgentClaude }

// Title is the client's name for people.
func (a Agent) Title() string { return ClientOf(a).Title }

// Scopes are the settings scopes the client reads hooks from.
func (a Agent) Scopes() []string { return ClientOf(a).Scopes }

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
// stripped (Qwen Code: strip-json-comments, then JSON.parse).
func (a Agent) Comments() bool { return ClientOf(a).Comments }

func HomeDir(h Host, env, dot string) (string, error) {
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
	if h.Home == nil {
		return "", errors.New("cannot find the home folder")
	}
	home, err := h.Home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home folder: %w", err)
	}
	return filepath.Join(home, dot), nil
}

// AgentPathFor resolves a scope of agent a (or an explicit path, which
// wins) to the file that holds its hooks (IN-19), as the client's path
// says.
func AgentPathFor(a Agent, scope, explicit string, h Host) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	c := ClientOf(a)
	if !a.IsClaude() && !a.HasScope(scope) {
		return "", fmt.Errorf("invalid scope %q for %s: want user or project", scope, c.Title)
	}
	return c.Path(scope, h)
}

// HomeAndProject is the path of a client that keeps its user file in a
// home folder ($<env>, else ~/<dot>) and a project's in <cwd>/<dot>, both
// named name: Codex CLI and Qwen Code.
func HomeAndProject(env, dot, name string) func(scope string, h Host) (string, error) {
	return func(scope string, h Host) (string, error) {
		if scope == ScopeUser {
			dir, err := HomeDir(h, env, dot)
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
}

// StripComments returns data with every // and /* */ comment outside
// strings replaced by spaces (line breaks kept), as strip-json-comments
// does, so that offsets and line numbers stay those of data.
func StripComments(data []byte) []byte {
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

// HooksFor are the registrations install writes for client a, in order:
// the client's own list, else those of Hooks it fires.
func HooksFor(a Agent) []Hook {
	if h := ClientOf(a).Hooks; h != nil {
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

// unit is how a's hooks count their timeout: 1 for seconds, 1000 for
// Gemini CLI's milliseconds.
func (a Agent) unit() float64 {
	if u := ClientOf(a).TimeoutUnit; u > 0 {
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
