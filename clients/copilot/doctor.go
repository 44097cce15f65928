package copilot

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compact-guard/compact-guard/settings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// doctor --agent copilot (specs/install.md DR-41 to DR-43, PL-13, PL-14):
// compact-guard's Copilot hooks files of both scopes, the project's trust,
// the plugin, and Claude Code's entries that Copilot runs too.

func init() { Settings.Doctor = settings.ClientChecks{Whole: checkCopilot} }

// maxCopilotFile bounds what is read of a Copilot hooks or config file.
const maxCopilotFile = 1 << 20

// ReadCopilotHooks reads a Copilot file at path: nil, nil when it does not
// exist; an error when it is not a regular file, is larger than 1 MiB or
// cannot be read (IN-44).
func ReadCopilotHooks(path string) ([]byte, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("a symlink, not a file compact-guard writes")
	}
	data, _, err := settings.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) > maxCopilotFile {
		return nil, fmt.Errorf("larger than %d bytes", maxCopilotFile)
	}
	return data, nil
}

// CopilotConfigPath is Copilot's config.json, which holds trustedFolders.
func CopilotConfigPath(h settings.Host) string {
	home, err := Home(h)
	if err != nil {
		return "~/.copilot/config.json"
	}
	return filepath.Join(home, "config.json")
}

// CopilotTrusted reports whether Copilot CLI trusts project: config.json's
// trustedFolders holds it or a folder above it.
func CopilotTrusted(h settings.Host, project string) bool {
	data, err := ReadCopilotHooks(CopilotConfigPath(h))
	if err != nil || data == nil {
		return false
	}
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if json.Unmarshal(settings.StripComments(data), &cfg) != nil {
		return false
	}
	for _, t := range cfg.TrustedFolders {
		rel, err := filepath.Rel(filepath.Clean(t), filepath.Clean(project))
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// checkCopilot is doctor's check of Copilot CLI's hooks (DR-41 to DR-43,
// PL-13, PL-14): its files are not in Claude Code's format, so it replaces
// Check's steps.
func checkCopilot(env settings.DoctorEnv) []health.Result {
	out, filesGuard := checkCopilotFiles(env)
	plugins, pluginGuard := checkCopilotPlugins(env, filesGuard)
	out = append(out, plugins...)
	out = append(out, checkClaudeEntriesUnderCopilot(env)...)
	guarded := filesGuard || pluginGuard
	if !guarded {
		out = append(out, health.Result{Status: health.Fail, Text: "Copilot CLI: no compact-guard hooks registered: no snapshot at its compactions, no pointer after them",
			Fix: "run 'compact-guard install --agent copilot' (user) or with --scope project in the project folder"})
	}
	return out
}

// checkCopilotFiles judges compact-guard's own hooks file in each scope
// (DR-41), and reports whether one of them guards Copilot.
func checkCopilotFiles(env settings.DoctorEnv) (out []health.Result, guarded bool) {
	exe := env.Exe
	for _, scope := range []string{settings.ScopeUser, settings.ScopeProject} {
		path, err := CopilotPath(scope, "", env.Host)
		if err != nil {
			out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("Copilot CLI %s hooks: %v", scope, err)})
			continue
		}
		label := fmt.Sprintf("Copilot CLI %s hooks %s", scope, path)
		data, err := ReadCopilotHooks(path)
		switch {
		case err != nil:
			out = append(out, health.Result{Status: health.Fail, Text: fmt.Sprintf("%s: %v", label, err)})
			continue
		case data == nil:
			out = append(out, health.Result{Status: health.Info, Text: label + ": not found"})
			continue
		}
		st, perr := ReadCopilotFile(data, exe)
		if perr != nil {
			out = append(out, health.Result{Status: health.Fail, Text: fmt.Sprintf("%s: %v", label, perr),
				Fix: "remove it and run 'compact-guard install --agent copilot --scope " + scope + "'"})
			continue
		}
		fix := "run 'compact-guard install --agent copilot --scope " + scope + "'"
		if scope == settings.ScopeProject {
			fix += " in the project folder"
		}
		var missing []string
		for _, e := range CopilotEvents {
			if !slices.Contains(st.Ours, e.Event) {
				missing = append(missing, e.Event)
			}
		}
		switch {
		case len(st.Ours) == 0:
			out = append(out, health.Result{Status: health.Warn, Text: label + ": no compact-guard entry", Fix: fix})
			continue
		case len(missing) > 0:
			out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("%s: %s not registered: %s", label, strings.Join(missing, ", "), copilotLoss(missing)), Fix: fix})
		case !st.Current:
			out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("%s: registered for %s, not for this binary's layout", label, strings.Join(st.Programs, ", ")), Fix: fix})
		default:
			out = append(out, health.Result{Status: health.OK, Text: label + ": PreCompact, UserPromptSubmit, PostToolUse"})
		}
		guarded = true
		if scope == settings.ScopeProject {
			if proj := filepath.Dir(filepath.Dir(filepath.Dir(path))); !CopilotTrusted(env.Host, proj) {
				out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("Copilot CLI does not trust %s (%s): it runs no hook of its .github/hooks", proj, CopilotConfigPath(env.Host)),
					Fix: "start copilot in it and trust the folder when asked"})
			}
		}
	}
	return out, guarded
}

// checkCopilotPlugins judges the Claude Code plugin enabled in Copilot
// (PL-13), and reports whether it guards Copilot; with a hooks file too
// (filesGuard), each compaction gets two snapshots.
func checkCopilotPlugins(env settings.DoctorEnv, filesGuard bool) (out []health.Result, guarded bool) {
	plugins, perr := CopilotPlugins(env.Host)
	if perr != nil {
		out = append(out, health.Result{Status: health.Warn, Text: "Copilot CLI plugins: " + perr.Error()})
	}
	for _, pl := range plugins {
		var missing []string
		for _, e := range CopilotEvents {
			if !slices.Contains(pl.Events, e.Event) {
				missing = append(missing, e.Event)
			}
		}
		switch {
		case pl.Dir == "":
			out = append(out, health.Result{Status: health.Warn, Text: "Copilot CLI plugin " + pl.ID + ": enabled, but its folder was not found",
				Fix: "run 'copilot plugin update " + pl.ID + "', or uninstall and install it again"})
		case len(missing) > 0:
			out = append(out, health.Result{Status: health.Warn, Text: fmt.Sprintf("Copilot CLI plugin %s (%s): %s not registered: %s", pl.ID, pl.Dir, strings.Join(missing, ", "), copilotLoss(missing)),
				Fix: "run 'copilot plugin update " + pl.ID + "'"})
		default:
			out = append(out, health.Result{Status: health.OK, Text: fmt.Sprintf("Copilot CLI plugin %s (%s): its hooks run compact-guard as Copilot's guard", pl.ID, pl.Dir)})
			guarded = true
			if !filesGuard {
				continue
			}
			project, _ := env.Host.Getwd()
			if file := CopilotFileRegistration(env.Host, project, "PreCompact"); file != "" {
				// PL-33: one registration wins, the user's hooks file.
				out = append(out, health.Result{Status: health.Info, Text: "Copilot CLI plugin " + pl.ID + " and " + file + " both register compact-guard: the plugin's hooks stand down while the file registers them (PL-33; one snapshot per compaction; a plugin release from before that takes two)",
					Fix: "to keep one registration: run 'compact-guard uninstall --agent copilot' to keep the plugin, or 'copilot plugin uninstall " + pl.ID + "' to keep the file"})
			} else {
				out = append(out, health.Result{Status: health.Warn, Text: "Copilot CLI runs compact-guard from the plugin " + pl.ID + " and from a hooks file: two snapshots per compaction (one pointer)",
					Fix: "keep one: run 'compact-guard uninstall --agent copilot' (and with --scope project) to keep the plugin, or 'copilot plugin uninstall " + pl.ID + "' to keep the file"})
			}
		}
	}
	return out, guarded
}

// checkClaudeEntriesUnderCopilot notes compact-guard's Claude Code entries
// that Copilot runs too, where they do nothing (DR-42).
func checkClaudeEntriesUnderCopilot(env settings.DoctorEnv) (out []health.Result) {
	exe := env.Exe
	if proj, err := settings.ProjectDir(env.Host); err == nil {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			p := filepath.Join(proj, ".claude", name)
			data, err := ReadCopilotHooks(p)
			if err != nil || data == nil {
				continue
			}
			if evs := ClaudeEntriesUnderCopilot(data, exe); len(evs) > 0 {
				out = append(out, health.Result{Status: health.Info, Text: fmt.Sprintf("%s: compact-guard's Claude Code entries (%s) also run under Copilot CLI, where they do nothing: Copilot is guarded by its own entries", p, strings.Join(evs, ", "))})
			}
		}
	}
	return out
}

// copilotLoss says what each missing registration costs.
func copilotLoss(missing []string) string {
	var s []string
	for _, m := range missing {
		switch m {
		case "PreCompact":
			s = append(s, "no snapshot at a compaction")
		case "UserPromptSubmit":
			s = append(s, "no pointer with the next prompt")
		case "PostToolUse":
			s = append(s, "no pointer within the turn an automatic compaction happened in")
		}
	}
	return strings.Join(s, "; ")
}
