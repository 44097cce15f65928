package codex

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/codex/reader"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/transcript"
	"path/filepath"
	"strings"
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
	// A Codex CLI hook is known by its rollout file under sessions/, or,
	// asked last, by the turn_id only Codex sends.
	Hooks: agent.Hooks{Owns: ownsPath, OwnsByField: func(p hookio.Payload) bool { return p.TurnID != "" }},
}

// ownsPath reports a payload whose transcript is a Codex rollout file
// (~/.codex/sessions/…/rollout-*.jsonl).
func ownsPath(p hookio.Payload) bool {
	path := filepath.ToSlash(p.TranscriptPath)
	base := filepath.Base(path)
	return strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl") && strings.Contains(path, "/sessions/")
}
