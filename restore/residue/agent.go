package residue

import "github.com/compact-guard/compact-guard/transcript"

// ForAgent reports whether a record's client gets a residue (RS-1):
// Claude Code's only ("" is a record written before the field existed).
func ForAgent(agent string) bool {
	return agent == "" || agent == string(transcript.FormatClaude)
}
