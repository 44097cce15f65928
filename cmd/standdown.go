package cmd

import (
	"os"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/transcript"
)

// pluginStandsDown says why this hook run, a Claude Code plugin's, gives
// way to a settings file that registers compact-guard for the same event
// and sub-command (specs/install.md PL-26, PL-27); "" when it runs. Only a
// plugin's run pays for the look (a getenv for every other run): the
// settings files are a few KB, read once.
func pluginStandsDown(p hookio.Payload, sub string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("CLAUDE_PLUGIN_ROOT") == "" || p.HookEventName == "" {
		return ""
	}
	exe, err := os.Executable()
	if err != nil || !settings.RunsAsPlugin(getenv, exe) || sessionAgent(p, nil) != string(transcript.FormatClaude) {
		return ""
	}
	host := settings.Host{Getenv: getenv, Home: os.UserHomeDir, Getwd: func() (string, error) {
		if p.Cwd != "" {
			return p.Cwd, nil
		}
		return os.Getwd()
	}}
	if path := settings.SettingsRegistration(host, p.HookEventName, sub, matcherValue(p)); path != "" {
		return "stood down: " + path + " registers compact-guard for " + p.HookEventName + ", and the plugin's hook gives way to it (PL-26)"
	}
	return ""
}

// matcherValue is what Claude Code compares a hook group's matcher with
// for this call (PL-31): the trigger at PreCompact and PostCompact, the
// source at SessionStart; "" for the other events (a tool's name, which
// the payload reader does not keep).
func matcherValue(p hookio.Payload) string {
	switch p.HookEventName {
	case "PreCompact", "PostCompact":
		return p.Trigger
	case "SessionStart":
		return p.Source
	}
	return ""
}
