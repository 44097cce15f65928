package copilot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/compact-guard/compact-guard/settings"
)

// Name is GitHub Copilot CLI.
const Name settings.Agent = "copilot"

// GitHub Copilot CLI (specs/install.md IN-41 to IN-48). Copilot reads every
// *.json of .github/hooks/ (a trusted project) and of $COPILOT_HOME/hooks/
// (~/.copilot/hooks/), each {"version":1,"hooks":{Event:[{"type":
// "command","bash":…,"powershell":…,"timeoutSec":N}]}}, so compact-guard
// has a file of its own there: nothing of another tool's is in it, and
// uninstall removes exactly it. Events are named in PascalCase, for which
// Copilot passes Claude Code's snake_case payload fields.

// Settings is GitHub Copilot CLI's hooks files: compact-guard's own hooks file in
// $COPILOT_HOME/hooks/ (else ~/.copilot/hooks/) or <project>/.github/hooks/
// (CopilotPath); no watch events (the Copilot hook, "compact-guard
// copilot", does what watch would); doctor's check is its own
// (copilot_doctor.go).
var Settings = settings.Client{
	Agent:    Name,
	Title:    "GitHub Copilot CLI",
	Scopes:   []string{settings.ScopeUser, settings.ScopeProject},
	FileNoun: "hooks",
	Path:     func(scope string, h settings.Host) (string, error) { return CopilotPath(scope, "", h) },
	Sub:      CopilotSub,
}

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

// Home is $COPILOT_HOME, else ~/.copilot.
func Home(h settings.Host) (string, error) {
	return settings.HomeDir(h, "COPILOT_HOME", ".copilot")
}

// CopilotPath is the hooks file of scope (IN-42): user
// $COPILOT_HOME/hooks/compact-guard.json, project
// <cwd>/.github/hooks/compact-guard.json; an explicit path wins.
func CopilotPath(scope, explicit string, h settings.Host) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	switch scope {
	case settings.ScopeUser:
		home, err := Home(h)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "hooks", CopilotFileName), nil
	case settings.ScopeProject:
		wd, err := h.Getwd()
		if err != nil {
			return "", err
		}
		return filepath.Join(wd, ".github", "hooks", CopilotFileName), nil
	}
	return "", fmt.Errorf("invalid scope %q for GitHub Copilot CLI: want user or project", scope)
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
		h := copilotHandler{Type: "command", Bash: settings.Command(exe, CopilotSub), PowerShell: psCommand(exe), TimeoutSec: e.Timeout}
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
			pc, ok := settings.ParseHookCommand(h.Bash, nil)
			if ok && settings.IsOurProgram(pc.Program, exe) && pc.Sub == CopilotSub && len(pc.Args) == 1 {
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

// CopilotFileRegistration names the user's Copilot hooks file
// ($COPILOT_HOME/hooks/compact-guard.json) when Copilot surely runs
// compact-guard from it for event, so that the plugin's hook can give way
// to it (PL-33); "" when it does not. The file must be, byte for byte, what
// install writes (IN-41) for one program that exists and can run — a
// matcher or anything else added by hand is not known to run for every
// call — outside project and its repository (PL-32), with no Copilot
// settings file turning hooks off (disableAllHooks). A project's
// .github/hooks never counts: a repository commits it.
func CopilotFileRegistration(h settings.Host, project, event string) string {
	path, err := CopilotPath(settings.ScopeUser, "", h)
	if err != nil || !slices.ContainsFunc(CopilotEvents, func(e CopilotEvent) bool { return e.Event == event }) {
		return ""
	}
	home := settings.HomeOf(h)
	if !settings.OutsideProject(path, project, home) {
		return ""
	}
	data, err := ReadCopilotHooks(path)
	if err != nil || data == nil {
		return ""
	}
	st, err := ReadCopilotFile(data, "")
	if err != nil || len(st.Foreign) > 0 || len(st.Programs) != 1 {
		return ""
	}
	program := st.Programs[0]
	if !filepath.IsAbs(program) || !bytes.Equal(data, CopilotFile(program)) || !settings.ProgramRuns(program) ||
		!settings.OutsideProject(program, project, home) || copilotHooksOff(h, project) {
		return ""
	}
	return path
}

// copilotHooksOff reports whether a Copilot settings file the session reads
// sets disableAllHooks, or cannot be read to tell: the user's
// $COPILOT_HOME/settings.json and the project's .github/copilot/settings.json
// and settings.local.json (PL-33).
func copilotHooksOff(h settings.Host, project string) bool {
	var files []string
	if home, err := Home(h); err == nil {
		files = append(files, filepath.Join(home, "settings.json"))
	}
	files = append(files, filepath.Join(project, ".github", "copilot", "settings.json"),
		filepath.Join(project, ".github", "copilot", "settings.local.json"))
	for _, f := range files {
		data, err := ReadCopilotHooks(f)
		if err != nil {
			return true
		}
		if data == nil {
			continue
		}
		var s struct {
			DisableAllHooks *bool `json:"disableAllHooks"`
		}
		if json.Unmarshal(settings.StripComments(data), &s) != nil || s.DisableAllHooks != nil && *s.DisableAllHooks {
			return true
		}
	}
	return false
}

// ClaudeEntriesUnderCopilot are the events of compact-guard's entries in
// a Claude Code settings document that Copilot CLI also runs (it reads
// .claude/settings.json and .claude/settings.local.json): they do nothing
// there (postcompact PO-28), which doctor --agent copilot says (DR-41).
func ClaudeEntriesUnderCopilot(data []byte, exe string) []string {
	d, err := settings.ParseFor(settings.AgentClaude, data)
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

// CopilotPlugin is a compact-guard plugin Copilot CLI has enabled (PL-13).
type CopilotPlugin struct {
	// ID is plugin@marketplace as Copilot records it.
	ID string
	// Dir is the plugin's folder, "" when it could not be found.
	Dir string
	// Events are the events its hooks/hooks.json registers compact-guard
	// for.
	Events []string
}

// CopilotPlugins lists the enabled plugins named compact-guard in
// $COPILOT_HOME/settings.json (enabledPlugins), with their folder: a
// marketplace of source "directory" (extraKnownMarketplaces) is loaded live
// from it, its marketplace.json naming the plugin's folder; a plugin
// installed from elsewhere is looked for under installed-plugins/.
func CopilotPlugins(h settings.Host) ([]CopilotPlugin, error) {
	home, err := Home(h)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(home, "settings.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s struct {
		Enabled map[string]bool `json:"enabledPlugins"`
		Markets map[string]struct {
			Source struct {
				Source string `json:"source"`
				Path   string `json:"path"`
			} `json:"source"`
		} `json:"extraKnownMarketplaces"`
	}
	if err := json.Unmarshal(settings.StripComments(data), &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(home, "settings.json"), err)
	}
	var out []CopilotPlugin
	for id, on := range s.Enabled {
		name, market, _ := strings.Cut(id, "@")
		if !on || name != "compact-guard" {
			continue
		}
		p := CopilotPlugin{ID: id}
		if m, ok := s.Markets[market]; ok && m.Source.Source == "directory" {
			p.Dir = marketplacePluginDir(m.Source.Path, name)
		}
		if p.Dir == "" {
			matches, _ := filepath.Glob(filepath.Join(home, "installed-plugins", "*", name))
			more, _ := filepath.Glob(filepath.Join(home, "installed-plugins", "*", "*", name))
			if all := append(matches, more...); len(all) > 0 {
				p.Dir = all[0]
			}
		}
		if p.Dir != "" {
			if hooks, err := os.ReadFile(filepath.Join(p.Dir, "hooks", "hooks.json")); err == nil {
				p.Events = ClaudeEntriesUnderCopilot(hooks, "")
			}
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// marketplacePluginDir is the folder of plugin name in the marketplace at
// dir: its .claude-plugin/marketplace.json's relative source.
func marketplacePluginDir(dir, name string) string {
	data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "marketplace.json"))
	if err != nil {
		return ""
	}
	var m struct {
		Plugins []struct {
			Name   string          `json:"name"`
			Source json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	for _, p := range m.Plugins {
		var rel string
		if p.Name == name && json.Unmarshal(p.Source, &rel) == nil && rel != "" {
			return filepath.Join(dir, filepath.FromSlash(rel))
		}
	}
	return ""
}
