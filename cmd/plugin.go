package cmd

import (
	"encoding/json"

	"github.com/compact-guard/compact-guard/settings"
)

// This file describes the Claude Code plugin that release builds package
// (specs/install.md, "The Claude Code plugin"): its names, the layout of
// its binaries, and its hooks, which come from settings.Hooks, the list install
// writes into settings files, so that the two cannot drift apart.

const (
	// PluginName is the plugin's name in its manifest and marketplace.
	PluginName = "compact-guard"
	// MarketplaceName names the marketplace; the plugin's install id is
	// PluginName@MarketplaceName. Another plugin already uses
	// compact-guard@compact-guard.
	MarketplaceName = "compact-guard-tools"
	// PluginDescription is the one line the manifest and the marketplace
	// show.
	PluginDescription = "Keeps a Claude Code session's working state across compaction: a snapshot before, a pointer to it after"
)

// PluginID is the id Claude Code installs the plugin under.
const PluginID = PluginName + "@" + MarketplaceName

// pluginHooksFile is the plugin's hooks/hooks.json.
type pluginHooksFile struct {
	Description string                       `json:"description"`
	Hooks       map[string][]pluginHookGroup `json:"hooks"`
}

type pluginHookGroup struct {
	Matcher string              `json:"matcher"`
	Hooks   []pluginHookHandler `json:"hooks"`
}

type pluginHookHandler struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Timeout int      `json:"timeout"`
}

// PluginBinaryDir is the folder, relative to the plugin root, that holds
// the macOS or Linux binary for goos/goarch (settings.PluginBinaryDir,
// beside doctor's plugin check, which looks for it).
func PluginBinaryDir(goos, goarch string) string { return settings.PluginBinaryDir(goos, goarch) }

// PluginHooksJSON is the plugin's hooks/hooks.json: one matcher group per
// registration of settings.Hooks, with the same matcher and timeout, running
// settings.PluginProgram with the sub-command as its argument. Exec form needs
// Claude Code 2.1.139, which archive plugin sources (2.1.224) exceed.
func PluginHooksJSON() []byte {
	f := pluginHooksFile{
		Description: "compact-guard: " + PluginDescription,
		Hooks:       map[string][]pluginHookGroup{},
	}
	for _, s := range settings.Hooks {
		f.Hooks[s.Event] = append(f.Hooks[s.Event], pluginHookGroup{
			Matcher: s.Matcher,
			Hooks: []pluginHookHandler{{
				Type: "command", Command: settings.PluginProgram, Args: []string{s.Sub}, Timeout: s.Timeout,
			}},
		})
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		panic(err) // plain structs of strings and ints always marshal
	}
	return append(b, '\n')
}
