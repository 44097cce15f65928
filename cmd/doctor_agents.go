package cmd

import (
	"fmt"
	"os"
	"path/filepath"

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
		if a == settings.AgentQwen {
			label = a.Title() + " " + scope + " settings"
		}
		out = append(out, settingsSource{Label: label, Scope: scope, Path: p, Agent: a})
	}
	return out
}

// checkCodexTrust checks that Codex will run each hook of ours (DR-15):
// hooks are on, the handler is trusted in config.toml with the hash of
// what the file says now, and a project's file is in a trusted project.
// Codex skips an untrusted or changed hook without a word.
func checkCodexTrust(h settings.Host, regs []registration) []doctorCheck {
	home, err := settings.CodexHome(h)
	if err != nil {
		return []doctorCheck{{Status: checkFail, Text: "Codex trust: " + err.Error()}}
	}
	path := filepath.Join(home, "config.toml")
	cfg, err := readCodexConfigFile(path)
	if err != nil {
		return []doctorCheck{{Status: checkFail, Text: fmt.Sprintf("Codex config %s: %v", path, err),
			Fix: "correct the file by hand; Codex does not start with a config it cannot parse"}}
	}
	var out []doctorCheck
	if cfg.Features.Hooks != nil && !*cfg.Features.Hooks {
		out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("Codex config %s: features.hooks is false: Codex runs no hook", path),
			Fix: "remove 'hooks = false' from [features] in " + path})
	}
	handlers := map[string][]settings.Handler{}
	for _, r := range regs {
		if _, ok := handlers[r.Source.Path]; ok {
			continue
		}
		data, err := os.ReadFile(r.Source.Path)
		if err != nil {
			continue
		}
		doc, err := settings.ParseFor(settings.AgentCodex, data)
		if err != nil {
			continue
		}
		handlers[r.Source.Path] = doc.Handlers("")
	}
	projects := map[string]bool{}
	for _, r := range regs {
		for _, x := range handlers[r.Source.Path] {
			if x.Event != r.H.Event || x.Command != r.H.Command {
				continue
			}
			key := x.TrustKey(r.Source.Path)
			st, ok := cfg.Hooks.State[key]
			switch {
			case !ok || st.TrustedHash == "":
				out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("%s [%s] is not trusted in %s: Codex skips it without a word", x.Event, key, path), Fix: installFix(r.Source)})
			case st.TrustedHash != x.TrustHash():
				out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("%s [%s] changed since it was trusted in %s: Codex skips it as modified", x.Event, key, path), Fix: installFix(r.Source)})
			case st.Enabled != nil && !*st.Enabled:
				out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("%s [%s] is disabled in %s", x.Event, key, path), Fix: "remove 'enabled = false' from its [hooks.state] table"})
			default:
				out = append(out, doctorCheck{Status: checkOK, Text: fmt.Sprintf("%s [%s] trusted in %s", x.Event, key, path)})
			}
		}
		if r.Source.Scope == settings.ScopeProject && !projects[r.Source.Path] {
			projects[r.Source.Path] = true
			if proj := filepath.Dir(filepath.Dir(r.Source.Path)); !codexProjectTrusted(cfg, proj) {
				out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("%s is in a project Codex does not trust: it does not load it", r.Source.Path),
					Fix: fmt.Sprintf("trust %s when Codex asks, or set trust_level = \"trusted\" under [projects.%q] in %s", proj, proj, path)})
			}
		}
	}
	return out
}
