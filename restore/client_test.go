package restore

import (
	"testing"

	"github.com/compact-guard/compact-guard/selectsnap"
)

// escaping stands in for the clients that register as escaping angle
// brackets (Qwen Code, Gemini CLI: the conformance suite in clients/ checks
// that they do), since restore's own tests cannot import them.
func escaping(t *testing.T, names ...string) {
	for _, n := range names {
		EscapesBrackets[n] = true
	}
	t.Cleanup(func() {
		for _, n := range names {
			delete(EscapesBrackets, n)
		}
	})
}

// spec: PO-38
// A Qwen Code session's quotes carry "|" marks: every quoted line, the
// empty ones included, and nothing of what they quote; other clients' text
// is unchanged.
func TestForClient(t *testing.T) {
	escaping(t, "qwen", "gemini")
	text := "The last typed prompt, verbatim:\n" + quote("run it > out.txt\n\n> not a mark of ours") + "\nGit: branch \"main\"."
	want := "The last typed prompt, verbatim:\n| run it > out.txt\n|\n| > not a mark of ours\nGit: branch \"main\"."
	for _, agent := range []string{"qwen", "gemini"} {
		if got := ForClient(agent, text); got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", agent, got, want)
		}
	}
	for _, agent := range []string{selectsnap.AgentClaude, "codex", ""} {
		if got := ForClient(agent, text); got != text {
			t.Errorf("%q changed the text:\n%s", agent, got)
		}
	}
}
