package qwen

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/transcript"
)

// sessions is the folder audit reads Qwen Code's chats from: its
// projects (AU-14).
func sessions(h settings.Host) (string, error) {
	home, err := Home(h)
	return filepath.Join(home, "projects"), err
}

// pointer is audit's word on a Qwen Code compaction (AU-16): it records
// no hook context, so whether the model saw the pointer is not known; the
// one compact-guard handed out is named.
func pointer(c audit.Compaction, snap string) (verdict, pointer, note string) {
	note = " (Qwen Code records no hook context: whether the model saw it is not known)"
	if c.Named == "" {
		return snap + "; compact-guard recorded no pointer handed out for it" + note, "", ""
	}
	return "", "pointer handed out at " + orWord(c.HandedEvent, "a hook"), note
}

// orWord is s, or word when s is empty.
func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}

// layout is where audit finds Qwen Code's chats:
// projects/<folder>/chats/<session id>.jsonl (AU-14).
var layout = audit.Layout{Title: "Qwen Code", Depth: 1, Sub: "chats", Session: func(path string) (string, bool) {
	return strings.CutSuffix(filepath.Base(path), ".jsonl")
}, Delivered: delivered}

// delivered judges Qwen Code's record (AU-16): its chat records no hook
// context, and its SessionStart(compact) hook runs asynchronously, its
// context reaching the model a request late or, after a headless
// /compress, not at all (measured, E2E-23, E2E-25). Whether the model saw
// the pointer is not known; the snapshot compact-guard's delivery record
// says it handed out is named.
func delivered(_ context.Context, _ string, _ *transcript.File, _ transcript.Compaction, _ int64, a *audit.Compaction) {
	a.Delivered, a.Named = "unknown", a.Handed
}
