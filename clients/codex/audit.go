package codex

import (
	"fmt"
	"path/filepath"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
)

// sessions is the folder audit reads Codex CLI's rollouts from: its
// sessions (AU-14).
func sessions(h settings.Host) (string, error) {
	home, err := Home(h)
	return filepath.Join(home, "sessions"), err
}

// pointer is audit's word on a Codex CLI compaction (AU-15): Codex records
// that a hook context went into the model's history, with its length, and
// the snapshot is the one compact-guard's delivery record says it handed
// out.
func pointer(c audit.Compaction, snap string) (verdict, pointer, note string) {
	switch {
	case c.Delivered == "no" && c.Handed != "":
		return snap + "; Codex CLI recorded no hook context after it: the pointer compact-guard handed out (" + c.Handed + ") did not reach the model", "", ""
	case c.Delivered == "no":
		return snap + "; Codex CLI recorded no hook context after it: no pointer reached the model", "", ""
	case c.Delivered == "unknown":
		return fmt.Sprintf("%s; Codex CLI recorded %d hook context(s) of %d characters, and compact-guard recorded no pointer handed out for this compaction", snap, c.Contexts, c.ContextChars), "", ""
	case c.ContextChars > 0 && c.Named == c.Handed:
		note = fmt.Sprintf(" (Codex CLI recorded a hook context of %d characters; compact-guard's delivery record names the snapshot)", c.ContextChars)
	}
	return "", "", note
}
