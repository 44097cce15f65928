package settings

// claudeClient is Claude Code: settings.json of the user
// ($CLAUDE_CONFIG_DIR or ~/.claude), of the project and the project's
// personal settings.local.json (PathFor); hooks for every watch event;
// JSON without comments. Its own doctor checks: the switches that turn
// all hooks off, installed plugins, and whether the release on PATH knows
// every event registered (claude_doctor.go).
var claudeClient = Client{
	Agent:    AgentClaude,
	Title:    "Claude Code",
	Scopes:   []string{ScopeUser, ScopeProject, ScopeLocal},
	FileNoun: "settings",
	Watch:    []string{"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SessionStart"},
	Path:     func(scope string, h Host) (string, error) { return PathFor(scope, "", h) },
}
