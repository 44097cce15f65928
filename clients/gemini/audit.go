package gemini

import (
	"path/filepath"

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
