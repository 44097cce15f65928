package settings

// codexClient is Codex CLI: $CODEX_HOME/hooks.json (else
// ~/.codex/hooks.json) and <project>/.codex/hooks.json, strict JSON; no
// watch events. It runs only the hooks config.toml trusts (toml.go), which
// its doctor check verifies (codex_doctor.go).
var codexClient = Client{
	Agent:    AgentCodex,
	Title:    "Codex CLI",
	Scopes:   []string{ScopeUser, ScopeProject},
	FileNoun: "hooks",
	Path:     HomeAndProject("CODEX_HOME", ".codex", "hooks.json"),
}

// CodexHome is $CODEX_HOME, else ~/.codex.
func CodexHome(h Host) (string, error) {
	return HomeDir(h, "CODEX_HOME", ".codex")
}
