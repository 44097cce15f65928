package settings

// qwenClient is Qwen Code: $QWEN_HOME/settings.json (else
// ~/.qwen/settings.json) and <project>/.qwen/settings.json, read with
// comments stripped (strip-json-comments, then JSON.parse). watch hands
// over the late pointer only, which needs the prompt and the resume
// (specs/watch.md WA-1).
var qwenClient = Client{
	Agent:    AgentQwen,
	Title:    "Qwen Code",
	Scopes:   []string{ScopeUser, ScopeProject},
	Comments: true,
	FileNoun: "settings",
	Watch:    []string{"UserPromptSubmit", "SessionStart"},
	Path:     HomeAndProject("QWEN_HOME", ".qwen", "settings.json"),
}

// QwenHome is $QWEN_HOME, else ~/.qwen.
func QwenHome(h Host) (string, error) {
	return HomeDir(h, "QWEN_HOME", ".qwen")
}

// On Qwen Code watch hands over the late pointer only (specs/watch.md
// WA-1), so that is what doctor says is lost without its registrations.
func init() {
	qwenClient.Doctor = ClientChecks{WatchLoss: map[string]string{
		"UserPromptSubmit": "no pointer handed over late",
		"SessionStart":     "a resumed session is not noted, so a pointer lost with the process that compacted is not handed over",
	}}
}
