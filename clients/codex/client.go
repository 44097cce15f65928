package codex

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/codex/reader"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/transcript"
)

// Client is what the shared code asks of Codex CLI (agent.Client); the
// clients package registers it.
var Client = &agent.Client{
	Settings: &Settings,
	Format:   transcript.Format(Name),
	Reader:   reader.Reader{},
	// Codex CLI writes the compaction's boundary before PostCompact and
	// SessionStart(compact) start (measured with 0.169.0, SS-15).
	Order:    selectsnap.Order{BoundaryBefore: map[string]bool{"SessionStart": true, "PostCompact": true}},
	Trust:    trust,
	Layout:   layout,
	Sessions: sessions,
	Pointer:  pointer,
}
