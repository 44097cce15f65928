package settings

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// doctor's checks of the hooks files (specs/install.md DR-1 to DR-5,
// DR-12, DR-15 to DR-19, DR-26): every file the client reads, each entry of
// compact-guard's in it, the registrations missing or doubled; then what
// only one client needs, from its Client's doctor (ClientChecks). cmd's
// doctor runs Check and prints its lines.

// DoctorEnv is what the hooks files' checks need of doctor's run; cmd
// fills it. ArgProblem and Hint are cmd's: they parse a hook's arguments
// with the real command tree.
type DoctorEnv struct {
	Host  Host
	Agent Agent
	// Exe is the running binary, "" when unknown.
	Exe string
	// Backups is where install keeps its backups (IN-8), for a fix that
	// puts one back.
	Backups string
	// ClaudeVersion asks the Claude Code on PATH for its release; nil
	// skips the check of the events it knows (DR-14).
	ClaudeVersion func() (version, from string)
	// DefaultKeep is precompact's default --keep, against which a
	// project's --keep is judged (DR-26).
	DefaultKeep int
	// HintVar is the environment variable that turns the summary hint
	// off, read from the files' "env" for Hint (DR-16).
	HintVar string
	// ArgProblem judges a hook entry's arguments as the hook parses them
	// (DR-12); the zero Result means none.
	ArgProblem func(args []string, file string) health.Result
	// Hint reports the summary hint of the PreCompact entries among regs,
	// given the files' values of HintVar in the order they were read
	// (DR-16).
	Hint func(regs []Registration, envs []Value) []health.Result
}

// Source is one settings file doctor reads.
type Source struct {
	Label string
	Scope string // for the fix: "" when install cannot target it by scope
	Agent Agent
	Path  string
	// Ignored explains why Claude Code does not read this file.
	Ignored string
	// Plugin is the plugin id when the entries come from an installed
	// plugin's hooks file (claude_plugin.go).
	Plugin string
}

// Registration is one hook of ours found in a settings file.
type Registration struct {
	Source Source
	Entry  Entry
}

// Value is a value a settings file gives, and the file.
type Value struct {
	Source Source
	Value  string
}

// ClientChecks are the steps of Check that differ per client; each is
// optional. A client's folder sets them in an init function (they call back
// into the table, which a variable's initializer cannot).
type ClientChecks struct {
	// Sources are the files the client reads hooks from; nil: one per
	// scope, as AgentPathFor resolves it (DefaultSources).
	Sources func(h Host) []Source
	// File judges a file beyond its entries (Claude Code's switches that
	// turn every hook off).
	File func(src Source, doc *Document) []health.Result
	// More finds registrations outside the files (Claude Code's plugins),
	// with its lines; they count for coverage and the hint.
	More func(env DoctorEnv, regs []Registration) ([]Registration, []health.Result)
	// Counted are the registrations that can run, for coverage (Codex:
	// only those install can trust).
	Counted func(regs []Registration) []Registration
	// After comes after coverage (Claude Code: the events the release on
	// PATH knows), Last after the hint (Codex: trust in config.toml).
	After func(env DoctorEnv, regs []Registration) []health.Result
	Last  func(env DoctorEnv) []health.Result
	// WatchLoss says what is lost without watch's registration for an
	// event (specs/watch.md WA-1).
	WatchLoss map[string]string
	// Whole, when set, is the client's whole check, in place of the
	// steps above: Copilot CLI's hooks files are not in Claude Code's
	// format (copilot_doctor.go).
	Whole func(env DoctorEnv) []health.Result
	// Entry and Coverage replace checkRegistration and checkCoverage for
	// a client whose registrations are its own (Gemini CLI).
	Entry    func(env DoctorEnv, src Source, h Entry, projDir string) health.Result
	Coverage func(regs []Registration) []health.Result
}

// Check reads every hooks file env.Agent reads and judges compact-guard's
// registrations in them (DR-1 to DR-5): one line per file and per entry,
// then the registrations missing or doubled, then the client's own checks.
func Check(env DoctorEnv) []health.Result {
	c := ClientOf(env.Agent).Doctor
	if c.Whole != nil {
		return c.Whole(env)
	}
	out, regs, broken, envs := checkFiles(env, c)
	all := regs
	if c.More != nil {
		more, lines := c.More(env, regs)
		out, all = append(out, lines...), append(slices.Clip(regs), more...)
	}
	counted := all
	if c.Counted != nil {
		counted = c.Counted(all)
	}
	if c.Coverage != nil {
		out = append(out, foldCoverage(c.Coverage(counted), broken)...)
	} else {
		out = append(out, foldCoverage(checkCoverage(counted, env.Agent), broken)...)
	}
	if c.After != nil {
		out = append(out, c.After(env, regs)...)
	}
	if env.Hint != nil {
		out = append(out, env.Hint(all, envs)...)
	}
	if c.Last != nil {
		out = append(out, c.Last(env)...)
	}
	return out
}

// checkFiles reads each of the client's files: a line for each, and for
// each entry of ours in it; the registrations found, the files that exist
// but cannot be read or parsed, and the files' values of env.HintVar.
func checkFiles(env DoctorEnv, c ClientChecks) (out []health.Result, regs []Registration, broken []Source, envs []Value) {
	projDir, _ := ProjectDir(env.Host)
	sources := DefaultSources(env.Agent, env.Host)
	if c.Sources != nil {
		sources = c.Sources(env.Host)
	}
	for _, src := range sources {
		data, _, err := ReadFile(src.Path)
		if errors.Is(err, os.ErrNotExist) {
			if src.Ignored == "" {
				out = append(out, health.Result{Status: health.Info, Text: fmt.Sprintf("%s %s: not found", src.Label, src.Path)})
			}
			continue
		}
		if err != nil {
			out, broken = append(out, settingsReadProblem(src, err)), append(broken, src)
			continue
		}
		doc, err := ParseFor(src.Agent, data)
		if err != nil {
			out, broken = append(out, settingsParseProblem(src, err, env.Backups)), append(broken, src)
			continue
		}
		found := doc.Entries(env.Exe)
		if src.Ignored != "" {
			if len(found) > 0 {
				out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("%s %s holds compact-guard hooks, but %s", src.Label, src.Path, src.Ignored),
					Fix: fmt.Sprintf("run 'compact-guard install' (it writes to $CLAUDE_CONFIG_DIR/settings.json), then 'compact-guard uninstall --settings %s'", health.ShellQuote(src.Path))})
			}
			continue
		}
		if v, ok := doc.Env(env.HintVar); ok && env.HintVar != "" {
			envs = append(envs, Value{src, v})
		}
		if c.File != nil {
			out = append(out, c.File(src, doc)...)
		}
		if len(found) == 0 {
			out = append(out, health.Result{Status: health.Info, Text: fmt.Sprintf("%s %s: no compact-guard hooks", src.Label, src.Path)})
		} else {
			out = append(out, health.Result{Status: health.Info, Text: fmt.Sprintf("%s %s:", src.Label, src.Path)})
		}
		for _, h := range found {
			regs = append(regs, Registration{src, h})
			if c.Entry != nil {
				out = append(out, c.Entry(env, src, h, projDir))
				continue
			}
			out = append(out, checkRegistration(env, src, h, projDir))
		}
	}
	return out, regs, broken, envs
}

// DefaultSources are the files of a client that reads one hooks file per
// scope (IN-19): for Codex CLI and Qwen Code the user's and the current
// folder's project file.
func DefaultSources(a Agent, h Host) []Source {
	var out []Source
	for _, scope := range a.Scopes() {
		p, err := AgentPathFor(a, scope, "", h)
		if err != nil {
			continue
		}
		out = append(out, Source{Label: a.Title() + " " + scope + " " + ClientOf(a).FileNoun, Scope: scope, Path: p, Agent: a})
	}
	return out
}

// InstallFix is the install command that repairs an entry in src.
func InstallFix(src Source) string {
	if src.Scope == "" || src.Scope == ScopeUser {
		return "run 'compact-guard install" + src.Agent.Flag() + "'"
	}
	return "run 'compact-guard install" + src.Agent.Flag() + " --scope " + src.Scope + "' in the project folder"
}

// checkCoverage reports the hooks missing from every file, and the same hook
// registered more than once with different commands (identical handlers run
// once; different ones run twice).
func checkCoverage(regs []Registration, agent Agent) []health.Result {
	var out []health.Result
	install := "run 'compact-guard install" + agent.Flag() + "'"
	for _, s := range Hooks {
		if !s.For(agent) {
			continue
		}
		var where []Registration
		for _, r := range regs {
			if r.Entry.Event == s.Event && r.Entry.Sub == s.Sub {
				where = append(where, r)
			}
		}
		switch {
		case len(where) == 0 && s.Event == "PostCompact":
			out = append(out, health.Result{Status: health.Warn, Text: "no PostCompact hook runs compact-guard postcompact: snapshots do not record that the compaction completed",
				Fix: install})
		case len(where) == 0 && s.Event == "PreCompact":
			out = append(out, health.Result{Status: health.Fail, Text: "no PreCompact hook runs compact-guard precompact: no snapshot is taken before a compaction",
				Fix: install})
		case len(where) == 0 && s.Sub == "watch":
			out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("no %s hook runs compact-guard watch: %s", s.Event, ClientOf(agent).Doctor.WatchLoss[s.Event]),
				Fix: install})
		case len(where) == 0:
			out = append(out, health.Result{Status: health.Fail, Text: `no SessionStart hook with matcher "compact" runs compact-guard postcompact: the compacted session is not pointed at its snapshot`,
				Fix: install})
		case len(where) > 1:
			cmds := map[string]bool{}
			var labels []string
			for _, r := range where {
				cmds[r.Entry.Command+"\x00"+strings.Join(r.Entry.ExecArgs, "\x00")] = true
				labels = append(labels, r.Source.Label)
			}
			// A plugin beside a settings file is reported with its own fix
			// (checkPluginDuplicates).
			if len(cmds) > 1 && !slices.ContainsFunc(where, func(r Registration) bool { return r.Source.Plugin != "" }) {
				out = append(out, health.Result{Status: health.Warn,
					Text: fmt.Sprintf("%s runs compact-guard %s %d times (%s) with different commands", s.Event, s.Sub, len(where), strings.Join(labels, ", ")),
					Fix:  duplicateFix(where)})
			}
		}
	}
	return out
}
