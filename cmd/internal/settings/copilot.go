package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
)

// GitHub Copilot CLI (specs/install.md IN-41 to IN-48). Copilot reads every
// *.json of .github/hooks/ (a trusted project) and of $COPILOT_HOME/hooks/
// (~/.copilot/hooks/), each {"version":1,"hooks":{Event:[{"type":
// "command","bash":…,"powershell":…,"timeoutSec":N}]}}, so compact-guard
// has a file of its own there: nothing of another tool's is in it, and
// uninstall removes exactly it. Events are named in PascalCase, for which
// Copilot passes Claude Code's snake_case payload fields.

// AgentCopilot is GitHub Copilot CLI.
const AgentCopilot Agent = "copilot"

// CopilotFileName is the hooks file compact-guard writes for Copilot CLI.
const CopilotFileName = "compact-guard.json"

// CopilotSub is the sub-command Copilot's entries run.
const CopilotSub = "copilot"

// CopilotEvent is one registration in the Copilot hooks file.
type CopilotEvent struct {
	Event   string
	Timeout int
}

// CopilotEvents are the registrations, in the file's order (IN-41).
var CopilotEvents = []CopilotEvent{{"PreCompact", 60}, {"UserPromptSubmit", 15}, {"PostToolUse", 15}}

// CopilotHome is $COPILOT_HOME, else ~/.copilot.
func CopilotHome(h Host) (string, error) {
	return homeDir(h, "COPILOT_HOME", ".copilot")
}

// CopilotPath is the hooks file of scope (IN-42): user
// $COPILOT_HOME/hooks/compact-guard.json, project
// <cwd>/.github/hooks/compact-guard.json; an explicit path wins.
func CopilotPath(scope, explicit string, h Host) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	switch scope {
	case ScopeUser:
		home, err := CopilotHome(h)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "hooks", CopilotFileName), nil
	case ScopeProject:
		wd, err := h.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, ".github", "hooks", CopilotFileName), nil
	}
	return "", fmt.Errorf("invalid scope %q for %s: want user or project", scope, AgentCopilot.Title())
}

// copilotHandler is one entry of a Copilot hooks file, as compact-guard
// writes it.
type copilotHandler struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	PowerShell string `json:"powershell"`
	TimeoutSec int    `json:"timeoutSec"`
}

type copilotFile struct {
	Version int                         `json:"version"`
	Hooks   map[string][]copilotHandler `json:"hooks"`
}

// CopilotFile is the hooks file install writes for exe (IN-41): two-space
// indented JSON, the events in CopilotEvents' order, a final newline. The
// bash form quotes exe as QuotePath does; the PowerShell form calls it
// with &, single-quoted.
func CopilotFile(exe string) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"version\": 1,\n  \"hooks\": {\n")
	for i, e := range CopilotEvents {
		h := copilotHandler{Type: "command", Bash: Command(exe, CopilotSub), PowerShell: psCommand(exe), TimeoutSec: e.Timeout}
		var entry bytes.Buffer
		enc := json.NewEncoder(&entry)
		enc.SetEscapeHTML(false) // & stays &, as people write it
		_ = enc.Encode(h)
		fmt.Fprintf(&b, "    %q: [%s]", e.Event, bytes.TrimSpace(entry.Bytes()))
		if i < len(CopilotEvents)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  }\n}\n")
	return b.Bytes()
}

// psCommand is exe's PowerShell call: & 'path' copilot, ' doubled.
func psCommand(exe string) string {
	q := []byte("& '")
	for _, r := range exe {
		if r == '\'' {
			q = append(q, '\'')
		}
		q = append(q, string(r)...)
	}
	return string(q) + "' " + CopilotSub
}

// CopilotFileState is what an existing Copilot hooks file holds.
type CopilotFileState struct {
	// Ours lists the events with an entry that runs compact-guard copilot.
	Ours []string
	// Foreign lists the events with an entry that runs anything else.
	Foreign []string
	// Current is set when the file is byte for byte what CopilotFile(exe)
	// gives.
	Current bool
	// Programs are the compact-guard programs the entries run.
	Programs []string
}

// ReadCopilotFile parses a Copilot hooks file (IN-43). An entry is
// compact-guard's when its bash command is a compact-guard program and its
// sub-command copilot, nothing more.
func ReadCopilotFile(data []byte, exe string) (CopilotFileState, error) {
	var st CopilotFileState
	var f struct {
		Version int                          `json:"version"`
		Hooks   map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return st, fmt.Errorf("not a Copilot hooks file: %w", err)
	}
	st.Current = exe != "" && bytes.Equal(data, CopilotFile(exe))
	for ev, entries := range f.Hooks {
		ours, foreign := false, false
		for _, raw := range entries {
			var h copilotHandler
			if json.Unmarshal(raw, &h) != nil {
				foreign = true
				continue
			}
			pc, ok := parseHookCommand(h.Bash, nil)
			if ok && isOurProgram(pc.Program, exe) && pc.Sub == CopilotSub && len(pc.Args) == 1 {
				ours = true
				if !slices.Contains(st.Programs, pc.Program) {
					st.Programs = append(st.Programs, pc.Program)
				}
				continue
			}
			foreign = true
		}
		if ours {
			st.Ours = append(st.Ours, ev)
		}
		if foreign {
			st.Foreign = append(st.Foreign, ev)
		}
	}
	sort.Strings(st.Ours)
	sort.Strings(st.Foreign)
	return st, nil
}

// ClaudeEntriesUnderCopilot are the events of compact-guard's entries in
// a Claude Code settings document that Copilot CLI also runs (it reads
// .claude/settings.json and .claude/settings.local.json): they do nothing
// there (postcompact PO-28), which doctor --agent copilot says (DR-41).
func ClaudeEntriesUnderCopilot(data []byte, exe string) []string {
	d, err := parse(data, false)
	if err != nil {
		return nil
	}
	var evs []string
	for _, e := range d.Entries(exe) {
		if !slices.Contains(evs, e.Event) {
			evs = append(evs, e.Event)
		}
	}
	return evs
}
