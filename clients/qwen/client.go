package qwen

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/qwen/reader"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/transcript"
	"path/filepath"
	"strings"
)

// Client is what the shared code asks of Qwen Code (agent.Client); the
// clients package registers it.
var Client = &agent.Client{
	Settings: &Settings,
	Format:   transcript.Format(Name),
	Reader:   reader.Reader{},
	// Qwen Code writes the boundary before SessionStart(compact), which it
	// runs in the background, so it may start after the next responses
	// (measured with 0.24.4, SS-15).
	Order: selectsnap.Order{BoundaryBefore: map[string]bool{"SessionStart": true}, LateSessionStart: true},
	// It records no hook context (SS-17, AU-16) and escapes "<" and ">" in
	// the context it hands the model (PO-38).
	NoContextRecorded: true,
	EscapesBrackets:   true,
	// It queues its records and writes them in the background (PC-24).
	WritesLate: true,
	Layout:     layout,
	Sessions:   sessions,
	Pointer:    pointer,
	// A Qwen Code hook is known by its chat under ~/.qwen/projects/…/chats/.
	Hooks: agent.Hooks{Owns: func(p hookio.Payload) bool {
		path := filepath.ToSlash(p.TranscriptPath)
		return strings.Contains(path, "/.qwen/") && strings.Contains(path, "/chats/")
	}},
}
