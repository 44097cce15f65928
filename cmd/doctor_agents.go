package cmd

import (
	"github.com/compact-guard/compact-guard/cmd/internal/settings"
)

// agentSources are the hooks files Codex CLI or Qwen Code reads (IN-19):
// the user's and the current folder's project file.
func agentSources(a settings.Agent, h settings.Host) []settingsSource {
	var out []settingsSource
	for _, scope := range a.Scopes() {
		p, err := settings.AgentPathFor(a, scope, "", h)
		if err != nil {
			continue
		}
		label := a.Title() + " " + scope + " hooks"
		if a == settings.AgentQwen || a == settings.AgentGemini {
			label = a.Title() + " " + scope + " settings"
		}
		out = append(out, settingsSource{Label: label, Scope: scope, Path: p, Agent: a})
	}
	return out
}
