package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/take"
)

// sessionTranscript finds a Claude Code session's transcript by its id,
// projects/<folder>/<id>.jsonl under the client's folder, for handoff
// --check, which runs in the agent's shell and is given no path: "" when
// there is none or the id is not one a file name can hold.
func sessionTranscript(getenv func(string) string, sid string) string {
	if sid == "" || strings.IndexFunc(sid, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return ""
	}
	matches, _ := filepath.Glob(filepath.Join(take.ClaudeConfigDir(getenv), "projects", "*", sid+".jsonl"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
			return m
		}
	}
	return ""
}

// notReady prints that the block is not this session's handoff, and why
// (HO-6).
func notReady(say func(en, ru string, a ...any), path string, b *handoff.Block, problems []string) {
	if b != nil {
		say("handoff not ready: %s line %d", "передача не готова: %s, строка %d", path, b.Line)
	} else {
		say("handoff not ready: %s", "передача не готова: %s", path)
	}
	for _, p := range problems {
		say("- %s", "- %s", p)
	}
}

// foreignProblem says that the state file's newest block was written by
// another session (HO-10), naming both by their first 8 characters.
func foreignProblem(b *handoff.Block, sid string, lang snapshot.Lang) string {
	if lang == snapshot.Russian {
		return "блок написан другой сессией (" + snapshot.SID8(b.Session) + "), не этой (" + snapshot.SID8(sid) + "); своя передача: compact-guard handoff --template"
	}
	return "written by another session (" + snapshot.SID8(b.Session) + "), not this one (" + snapshot.SID8(sid) + "); this session's own: compact-guard handoff --template"
}

func stampUTC(t time.Time) string { return t.UTC().Format(time.RFC3339) }
