package settings

import (
	"fmt"
	"path/filepath"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// Claude Code's own doctor checks: besides the files of its three scopes
// (and ~/.claude's, which it does not read while CLAUDE_CONFIG_DIR is set),
// the switches that turn every hook off, installed plugins
// (claude_plugin.go) and whether the release on PATH knows each event
// registered.
func init() {
	claudeClient.Doctor = ClientChecks{
		Sources: claudeSources,
		File:    checkHookSwitches,
		More:    checkPluginHooks,
		After: func(env DoctorEnv, regs []Registration) []health.Result {
			return checkClientKnowsEvents(regs, env.ClaudeVersion)
		},
		WatchLoss: map[string]string{
			"UserPromptSubmit":   "no notice of a planned compaction with a prompt, and no pointer handed over late",
			"PostToolUse":        "no notice of a planned compaction between prompts",
			"PostToolUseFailure": "no notice of a planned compaction after a tool call that failed, so a turn of failing calls gets none",
			"Stop":               "no Stop gate",
			"SessionStart":       "a resumed session is not noted, so a pointer lost by clients up to 2.1.119 is not handed over",
		},
	}
}

// checkHookSwitches fails a file that turns every hook off (DR-4).
func checkHookSwitches(src Source, doc *Document) []health.Result {
	var out []health.Result
	for _, key := range []string{"disableAllHooks", "allowManagedHooksOnly"} {
		if doc.IsTrue(key) {
			out = append(out, health.Result{Status: health.Fail, Text: fmt.Sprintf("%s %s: %q is true: Claude Code runs none of these hooks", src.Label, src.Path, key),
				Fix: fmt.Sprintf("remove %q from %s", key, src.Path)})
		}
	}
	return out
}

// checkClientKnowsEvents fails for each settings file that registers
// compact-guard for an event the Claude Code on PATH does not know: that
// release loads no hook at all from such a file, so compact-guard's other
// hooks do not run either (DR-14).
func checkClientKnowsEvents(regs []Registration, version func() (string, string)) []health.Result {
	if version == nil {
		return nil
	}
	client, from := version()
	if client == "" {
		return nil
	}
	var out []health.Result
	seen := map[string]bool{}
	for _, r := range regs {
		for _, h := range Hooks {
			if r.Entry.Event != h.Event || h.KnownTo(client) || seen[r.Source.Path+h.Event] {
				continue
			}
			seen[r.Source.Path+h.Event] = true
			out = append(out, health.Result{Status: health.Fail,
				Text: fmt.Sprintf("%s registers %s, which Claude Code %s (%s) does not know (it came in %s): that release loads no hook from this file",
					r.Source.Path, h.Event, client, from, h.Since),
				Fix: InstallFix(r.Source) + " (it leaves " + h.Event + " out for this release), or update Claude Code"})
		}
	}
	return out
}

// claudeSources are the settings files Claude Code reads: the user's
// (and ~/.claude's, to warn about hooks there it does not see while
// CLAUDE_CONFIG_DIR is set), the project's and the local one.
func claudeSources(h Host) []Source {
	var out []Source
	if p, err := UserPath(h); err == nil {
		label := "user settings"
		if h.Getenv("CLAUDE_CONFIG_DIR") != "" {
			label = "user settings ($CLAUDE_CONFIG_DIR)"
		}
		out = append(out, Source{Label: label, Scope: ScopeUser, Path: p})
	}
	if h.Getenv("CLAUDE_CONFIG_DIR") != "" {
		if home, err := h.Home(); err == nil {
			out = append(out, Source{Label: "~/.claude settings", Path: filepath.Join(home, ".claude", "settings.json"),
				Ignored: "Claude Code does not read it while CLAUDE_CONFIG_DIR is set"})
		}
	}
	if dir, err := ProjectDir(h); err == nil {
		out = append(out,
			Source{Label: "project settings", Scope: ScopeProject, Path: filepath.Join(dir, ".claude", "settings.json")},
			Source{Label: "local settings", Scope: ScopeLocal, Path: filepath.Join(dir, ".claude", "settings.local.json")})
	}
	return out
}
