package codex

import "github.com/compact-guard/compact-guard/settings"

// Name is Codex CLI's name on --agent and in the records of its sessions.
const Name settings.Agent = "codex"

// Settings is Codex CLI's hooks files: $CODEX_HOME/hooks.json (else
// ~/.codex/hooks.json) and <project>/.codex/hooks.json, strict JSON; no
// watch events. It runs only the hooks config.toml trusts (toml.go), which
// its doctor check verifies (codex_doctor.go).
var Settings = settings.Client{
	Agent:    Name,
	Title:    "Codex CLI",
	Scopes:   []string{settings.ScopeUser, settings.ScopeProject},
	FileNoun: "hooks",
	Path:     settings.HomeAndProject("CODEX_HOME", ".codex", "hooks.json"),
}

// Home is $CODEX_HOME, else ~/.codex.
func Home(h settings.Host) (string, error) {
	return settings.HomeDir(h, "CODEX_HOME", ".codex")
}
