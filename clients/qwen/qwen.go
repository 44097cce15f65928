package qwen

import "github.com/compact-guard/compact-guard/settings"

// Name is Qwen Code's name on --agent and in the records of its sessions.
const Name settings.Agent = "qwen"

// Settings is Qwen Code's settings files: $QWEN_HOME/settings.json (else
// ~/.qwen/settings.json) and <project>/.qwen/settings.json, read with
// comments stripped (strip-json-comments, then JSON.parse). watch hands
// over the late pointer only, which needs the prompt and the resume
// (specs/watch.md WA-1).
var Settings = settings.Client{
	Agent:    Name,
	Title:    "Qwen Code",
	Scopes:   []string{settings.ScopeUser, settings.ScopeProject},
	Comments: true,
	FileNoun: "settings",
	Watch:    []string{"UserPromptSubmit", "SessionStart"},
	Path:     settings.HomeAndProject("QWEN_HOME", ".qwen", "settings.json"),
}

// Home is $QWEN_HOME, else ~/.qwen.
func Home(h settings.Host) (string, error) {
	return settings.HomeDir(h, "QWEN_HOME", ".qwen")
}

// On Qwen Code watch hands over the late pointer only (specs/watch.md
// WA-1), so that is what doctor says is lost without its registrations.
func init() {
	Settings.Doctor = settings.ClientChecks{WatchLoss: map[string]string{
		"UserPromptSubmit": "no pointer handed over late",
		"SessionStart":     "a resumed session is not noted, so a pointer lost with the process that compacted is not handed over",
	}}
}
