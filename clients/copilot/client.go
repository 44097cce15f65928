package copilot

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/copilot/reader"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/transcript"
	"path/filepath"
	"strings"
)

// Client is what the shared code asks of GitHub Copilot CLI
// (agent.Client); the clients package registers it.
var Client = &agent.Client{
	Settings: &Settings,
	Format:   transcript.Format(Name),
	Reader:   reader.Reader{},
	Own:      ownFile,
	Layout:   layout,
	Sessions: sessions,
	Pointer:  pointer,
	// A Copilot CLI hook is known by its session's events file
	// (~/.copilot/session-state/<id>/events.jsonl), before the client
	// wrote its first line too (TR-65).
	Hooks: agent.Hooks{Owns: func(p hookio.Payload) bool {
		path := filepath.ToSlash(p.TranscriptPath)
		return filepath.Base(path) == "events.jsonl" && strings.Contains(path, "/session-state/")
	}},
}
