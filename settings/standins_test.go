package settings

// The clients of clients/ import this package, so its own tests cannot
// register them; these stand-ins read and place their files as Codex CLI
// (strict JSON, hooks.json) and Qwen Code (comments allowed) do, for the
// tests of the shared edits and trust. The clients' own values are tested
// by the conformance suite in clients/.
const (
	AgentCodex Agent = "codex"
	AgentQwen  Agent = "qwen"
)

func init() {
	Register(&Client{Agent: AgentCodex, Title: "Codex CLI", Scopes: []string{ScopeUser, ScopeProject}, FileNoun: "hooks",
		Path: HomeAndProject("CODEX_HOME", ".codex", "hooks.json")})
	Register(&Client{Agent: AgentQwen, Title: "Qwen Code", Scopes: []string{ScopeUser, ScopeProject}, Comments: true, FileNoun: "settings",
		Watch: []string{"UserPromptSubmit", "SessionStart"}, Path: HomeAndProject("QWEN_HOME", ".qwen", "settings.json")})
}
