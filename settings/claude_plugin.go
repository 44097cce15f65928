package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// doctor's view of Claude Code plugins (specs/install.md PL-6..PL-8): the
// client records installed plugins in <config>/plugins/installed_plugins.json
// and enables them with "enabledPlugins" in the settings files; an enabled
// plugin's hooks/hooks.json runs beside the settings files' hooks.

// PluginProgram is what every plugin hook runs, in exec form (no shell):
// on Windows the client's spawn finds bin/compact-guard.exe for it, on
// macOS and Linux bin/compact-guard is a POSIX sh launcher that execs the
// binary of PluginBinaryDir for the machine.
const PluginProgram = "${CLAUDE_PLUGIN_ROOT}/bin/compact-guard"

// PluginBinaryDir is the folder, relative to the plugin root, that holds
// the macOS or Linux binary for goos/goarch; the Windows binary is
// bin/compact-guard.exe itself.
func PluginBinaryDir(goos, goarch string) string {
	return path.Join("bin", goos+"-"+goarch)
}

// installedPlugin is one installation of a plugin, as Claude Code records it.
type installedPlugin struct {
	ID          string `json:"-"`
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// pluginConfigDir is $CLAUDE_CONFIG_DIR, else ~/.claude (as doctor's host
// sees them): where the client keeps plugins/.
func pluginConfigDir(h Host) (string, error) {
	if d := h.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d, nil
	}
	home, err := h.Home()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude"), nil
}

// readInstalledPlugins reads installed_plugins.json (format version 2: an
// object of plugin id to a list of installations). A missing file is no
// plugin.
func readInstalledPlugins(path string) ([]installedPlugin, error) {
	data, _, err := ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct {
		Plugins map[string][]installedPlugin `json:"plugins"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	var out []installedPlugin
	for id, list := range f.Plugins {
		for _, p := range list {
			p.ID = id
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// pluginEnabled reads "enabledPlugins" for id from the settings files, the
// most specific one that names it deciding (local, then project, then
// user). It returns the file that decided, "" when none names it.
func pluginEnabled(id string, srcs []Source) (bool, string) {
	order := map[string]int{ScopeLocal: 0, ScopeProject: 1, ScopeUser: 2}
	best, on, from := 99, false, ""
	for _, src := range srcs {
		rank, ok := order[src.Scope]
		if !ok || src.Ignored != "" || rank >= best {
			continue
		}
		data, _, err := ReadFile(src.Path)
		if err != nil {
			continue
		}
		var f struct {
			EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
		}
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		v, ok := f.EnabledPlugins[id]
		if !ok {
			continue
		}
		best, on, from = rank, string(v) == "true", src.Path
	}
	return on, from
}

// pluginHooksPaths are the hook files of a plugin installed at root: its
// hooks/hooks.json, and the file its manifest's "hooks" names instead of or
// beside it.
func pluginHooksPaths(root string) []string {
	paths := []string{filepath.Join(root, "hooks", "hooks.json")}
	if data, _, err := ReadFile(filepath.Join(root, ".claude-plugin", "plugin.json")); err == nil {
		var m struct {
			Hooks any `json:"hooks"`
		}
		if json.Unmarshal(data, &m) == nil {
			if s, ok := m.Hooks.(string); ok {
				p := filepath.Join(root, filepath.FromSlash(s))
				if p != paths[0] {
					paths = append(paths, p)
				}
			}
		}
	}
	return paths
}

// ourPlugin is an installed plugin whose hooks run compact-guard.
type ourPlugin struct {
	p         installedPlugin
	label     string
	hooksPath string
	entries   []Entry
	// notRunning says why its hooks do not run here ("" when they do):
	// installed for another project, or not enabled.
	notRunning string
}

// ourPlugins reads installed_plugins.json and each installation's hooks
// files (PL-6): the plugins that run compact-guard, and whether their
// hooks run for this project. A list that cannot be read is an error.
func ourPlugins(h Host) ([]ourPlugin, string, error) {
	cfg, err := pluginConfigDir(h)
	if err != nil {
		return nil, "", nil
	}
	listPath := filepath.Join(cfg, "plugins", "installed_plugins.json")
	plugins, err := readInstalledPlugins(listPath)
	if err != nil {
		return nil, listPath, err
	}
	projDir, _ := ProjectDir(h)
	srcs := claudeSources(h)
	var out []ourPlugin
	for _, p := range plugins {
		op := ourPlugin{p: p, label: fmt.Sprintf("plugin %s %s (%s scope)", p.ID, p.Version, p.Scope)}
		for _, hp := range pluginHooksPaths(p.InstallPath) {
			data, _, err := ReadFile(hp)
			if err != nil {
				continue
			}
			doc, err := Parse(data)
			if err != nil {
				continue
			}
			if hs := doc.Entries(""); len(hs) > 0 {
				op.entries, op.hooksPath = append(op.entries, hs...), hp
			}
		}
		if len(op.entries) == 0 {
			continue
		}
		if p.ProjectPath != "" && projDir != "" && !SameFile(p.ProjectPath, projDir) {
			op.notRunning = fmt.Sprintf("%s is installed for %s, not this project", op.label, p.ProjectPath)
		} else if on, from := pluginEnabled(p.ID, srcs); !on {
			why := "no settings file enables it"
			if from != "" {
				why = "disabled in " + from
			}
			op.notRunning = fmt.Sprintf("%s runs compact-guard, but %s: its hooks do not run", op.label, why)
		}
		out = append(out, op)
	}
	return out, listPath, nil
}

// RunningPlugins are the ids of the enabled plugins whose hooks run
// compact-guard for the project of h (PL-28: install names them).
func RunningPlugins(h Host) []string {
	ps, _, _ := ourPlugins(h)
	var ids []string
	for _, p := range ps {
		if p.notRunning == "" {
			ids = append(ids, p.p.ID)
		}
	}
	return ids
}

// checkPluginHooks finds the installed, enabled plugins whose hooks run
// compact-guard and judges each such entry. Their registrations join the
// settings files' ones for the coverage checks; a hook registered both by
// a plugin and by a settings file is reported here, with the fix.
func checkPluginHooks(env DoctorEnv, settingsRegs []Registration) ([]Registration, []health.Result) {
	plugins, listPath, err := ourPlugins(env.Host)
	if err != nil {
		return nil, []health.Result{{Status: health.Warn, Text: fmt.Sprintf("installed plugins %s: %v", listPath, err),
			Fix: "run 'claude plugin list' to see whether Claude Code can read it"}}
	}
	var regs []Registration
	var out []health.Result
	for _, op := range plugins {
		if op.notRunning != "" {
			out = append(out, health.Result{Status: health.Info, Text: op.notRunning})
			continue
		}
		out = append(out, health.Result{Status: health.Info, Text: fmt.Sprintf("%s at %s:", op.label, op.p.InstallPath)})
		src := Source{Label: "plugin " + op.p.ID, Path: op.hooksPath, Plugin: op.p.ID}
		for _, h := range op.entries {
			regs = append(regs, Registration{src, h})
			out = append(out, checkPluginEntry(op.p, h))
		}
		out = append(out, checkPluginCommand(env.Host, op.p)...) // PL-30
	}
	out = append(out, checkPluginDuplicates(env.Host, regs, settingsRegs)...)
	return regs, out
}

// checkPluginEntry judges one hook of a plugin: the program it runs, for
// the launcher the binary for this machine, the sub-command and matcher.
func checkPluginEntry(p installedPlugin, h Entry) health.Result {
	matcher := h.Matcher
	if !h.HasMatcher {
		matcher = "*"
	}
	cmdline := strings.TrimSpace(h.Command + " " + strings.Join(h.ExecArgs, " "))
	res := health.Result{Status: health.OK, Text: fmt.Sprintf("  %s [%s] runs %s", h.Event, matcher, cmdline)}
	reinstall := "run 'claude plugin update " + p.ID + "', or uninstall and install it again"
	var whys, fixes []string
	fail := func(why string) {
		res.Status = health.Fail
		whys = append(whys, why)
		if len(fixes) == 0 {
			fixes = append(fixes, reinstall)
		}
	}
	prog := strings.ReplaceAll(h.Program, "${CLAUDE_PLUGIN_ROOT}", p.InstallPath)
	if runtime.GOOS == "windows" && filepath.Ext(prog) == "" {
		prog += ".exe"
	}
	if !ProgramRuns(prog) {
		fail(fmt.Sprintf("%s is missing or not an executable file", prog))
	} else if runtime.GOOS != "windows" && h.Program == PluginProgram {
		bin := filepath.Join(p.InstallPath, filepath.FromSlash(PluginBinaryDir(runtime.GOOS, runtime.GOARCH)), "compact-guard")
		if _, err := os.Stat(bin); err != nil {
			fail(fmt.Sprintf("the plugin has no binary for %s/%s (%s)", runtime.GOOS, runtime.GOARCH, bin))
		}
	}
	spec, _ := hookSpec(h.Event, h.Sub)
	if spec == nil {
		fail(fmt.Sprintf("%s does not run compact-guard %s", h.Event, h.Sub))
	}
	for _, v := range matcherWants(spec) {
		if ok, err := MatcherMatches(matcher, v); err != nil || !ok {
			fail(fmt.Sprintf("matcher %q does not match %q", matcher, v))
		}
	}
	return finishCheck(res, whys, fixes)
}

// checkPluginDuplicates says once per settings file that registers
// compact-guard beside an enabled plugin that the client runs both
// handlers (their commands differ) and the plugin's stands down (PL-29)
// for the user's file; for a project's both run (PL-32), which it warns of.
func checkPluginDuplicates(h Host, pluginRegs, settingsRegs []Registration) []health.Result {
	if len(pluginRegs) == 0 {
		return nil
	}
	plugin := pluginRegs[0].Source.Plugin
	var out []health.Result
	seen := map[string]bool{}
	for _, r := range settingsRegs {
		if seen[r.Source.Path] {
			continue
		}
		var events []string
		for _, s := range settingsRegs {
			if s.Source.Path != r.Source.Path {
				continue
			}
			for _, p := range pluginRegs {
				if p.Entry.Event == s.Entry.Event && p.Entry.Sub == s.Entry.Sub && !slices.Contains(events, s.Entry.Event) {
					events = append(events, s.Entry.Event)
				}
			}
		}
		seen[r.Source.Path] = true
		if len(events) == 0 {
			continue
		}
		uninstall := "compact-guard uninstall"
		if r.Source.Scope != "" && r.Source.Scope != ScopeUser {
			uninstall += " --scope " + r.Source.Scope + "' in the project folder"
		} else {
			uninstall += "'"
		}
		fix := fmt.Sprintf("to keep one registration: run '%s to keep the plugin, or 'claude plugin uninstall %s' to keep the settings file", uninstall, plugin)
		if project, _ := ProjectDir(h); r.Source.Scope != ScopeUser || !OutsideProject(r.Source.Path, project, HomeOf(h)) {
			// PL-32: a file a repository can commit never makes the
			// plugin's hooks stand down, so both run.
			out = append(out, health.Result{Status: health.Warn,
				Text: fmt.Sprintf("both plugin %s and %s %s register compact-guard for %s, and both run: the plugin's hooks do not give way to a file a repository can commit (two snapshots per compaction)",
					plugin, r.Source.Label, r.Source.Path, strings.Join(events, ", ")),
				Fix: fix})
			continue
		}
		out = append(out, health.Result{Status: health.Info,
			Text: fmt.Sprintf("both plugin %s and %s %s register compact-guard for %s: the plugin's hooks stand down for these events while the settings file registers them (PL-26; a plugin release from before that runs each of them twice)",
				plugin, r.Source.Label, r.Source.Path, strings.Join(events, ", ")),
			Fix: fix})
	}
	return out
}
