package qwen

import (
	"path/filepath"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
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
