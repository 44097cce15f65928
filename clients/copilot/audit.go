package copilot

import (
	"path/filepath"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
)

// sessions is the folder audit reads Copilot CLI's sessions from: its
// session-state (AU-21).
func sessions(h settings.Host) (string, error) {
	home, err := Home(h)
	return filepath.Join(home, "session-state"), err
}

// pointer is audit's word on a Copilot CLI compaction (AU-23): Copilot
// records each hook's output and the prompt the model got.
func pointer(c audit.Compaction, snap string) (verdict, pointer, note string) {
	if c.Delivered == "no" && c.Handed != "" {
		return snap + "; GitHub Copilot CLI recorded no hook context naming it after the compaction: the pointer compact-guard handed out (" + c.Handed + ") did not reach the model", "", ""
	}
	if c.Delivered == "no" {
		return snap + "; GitHub Copilot CLI recorded no pointer in a prompt or tool result after the compaction", "", ""
	}
	on := c.HandedEvent
	if on == "" {
		on = "a prompt or tool result"
	}
	return "", "pointer delivered with " + on, ""
}
