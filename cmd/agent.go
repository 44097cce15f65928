package cmd

import (
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/clients/gemini"
	geminireader "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/transcript"
)

// sessionAgent tells which client a hook runs for (SF-5 agent): the
// transcript's format when its start decided it (TR-37), else the
// payload's transcript path where each client keeps its sessions
// (~/.codex/sessions/…/rollout-*.jsonl, ~/.qwen/projects/…/chats/,
// ~/.copilot/session-state/<id>/events.jsonl,
// ~/.gemini/tmp/…/chats/session-*.jsonl) or Gemini CLI's events, else a
// Codex-only payload field (turn_id), else Claude Code.
func sessionAgent(p hookio.Payload, f *transcript.File) string {
	if f != nil {
		if format, known := f.Format(); known {
			return string(format)
		}
	}
	path := filepath.ToSlash(p.TranscriptPath)
	base := filepath.Base(path)
	switch {
	case strings.HasPrefix(base, "rollout-") && strings.HasSuffix(base, ".jsonl") && strings.Contains(path, "/sessions/"):
		return string(transcript.FormatCodex)
	case strings.Contains(path, "/.qwen/") && strings.Contains(path, "/chats/"):
		return string(transcript.FormatQwen)
	case base == "events.jsonl" && strings.Contains(path, "/session-state/"):
		// Copilot CLI's, before the client wrote its first line (TR-65).
		return string(transcript.FormatCopilot)
	case geminireader.IsChatPath(p.TranscriptPath) || p.HookEventName == "PreCompress" || p.HookEventName == "BeforeAgent":
		return string(gemini.Name) // TR-81: Gemini CLI's chat, or its events
	case p.TurnID != "":
		return string(transcript.FormatCodex)
	}
	return string(transcript.FormatClaude)
}
