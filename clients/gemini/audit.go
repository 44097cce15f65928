package gemini

import (
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
)

// sessions is the folder audit reads Gemini CLI's chats from: its tmp
// (AU-26).
func sessions(h settings.Host) (string, error) {
	home, err := Home(h)
	return filepath.Join(home, "tmp"), err
}

// pointer is audit's word on a Gemini CLI compression (AU-28): the chat
// records the BeforeAgent context in the prompt it was added to.
func pointer(c audit.Compaction, snap string) (verdict, pointer, note string) {
	switch c.Delivered {
	case "no":
		return snap + "; the first prompt after it carried no pointer", "", ""
	case "unknown":
		return snap + "; no prompt after it yet: the pointer goes with the next one", "", ""
	}
	return "", "pointer delivered with the first prompt after it", ""
}

// layout is where audit finds Gemini CLI's chats:
// tmp/<project>/chats/session-<time>-<sid8>.jsonl (AU-26). The chat is
// read whole by audit's own reading (the client's records update one
// another), so no Delivered judge.
var layout = audit.Layout{Title: "Gemini CLI", Depth: 1, Sub: "chats", Session: func(path string) (string, bool) {
	return chatSession(baseName(path))
}}

// chatSession is the session id part of a chat file's name
// (session-<YYYY-MM-DDTHH-MM>-<sid8>.jsonl): the id's first 8 characters,
// which is what --session's prefix can match (AU-26).
func chatSession(name string) (string, bool) {
	base, ok := strings.CutSuffix(name, ".jsonl")
	if !ok || !strings.HasPrefix(base, "session-") {
		return "", false
	}
	i := strings.LastIndexByte(base, '-')
	return base[i+1:], i > 0
}

// baseName is the last element of p, with either separator.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
