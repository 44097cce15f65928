package restore

import (
	"testing"

	"github.com/compact-guard/compact-guard/selectsnap"
)

// spec: PO-38
// A Qwen Code session's quotes carry "|" marks: every quoted line, the
// empty ones included, and nothing of what they quote; other clients' text
// is unchanged.
func TestForClient(t *testing.T) {
	text := "The last typed prompt, verbatim:\n" + quote("run it > out.txt\n\n> not a mark of ours") + "\nGit: branch \"main\"."
	want := "The last typed prompt, verbatim:\n| run it > out.txt\n|\n| > not a mark of ours\nGit: branch \"main\"."
	for _, agent := range []string{selectsnap.AgentQwen, "gemini"} {
		if got := ForClient(agent, text); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", agent, got, want)
		}
	}
	for _, agent := range []string{selectsnap.AgentClaude, selectsnap.AgentCodex, ""} {
		if got := ForClient(agent, text); got != text {
			t.Errorf("%q changed the text:\n%s", agent, got)
		}
	}
}
