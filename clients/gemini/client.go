package gemini

import (
	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/handover"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/transcript"
	"time"
)

// Client is what the shared code asks of Gemini CLI (agent.Client); the
// clients package registers it.
var Client = &agent.Client{
	Settings: &Settings,
	Format:   transcript.Format(Name),
	Reader:   reader.Reader{},
	// Gemini CLI escapes "<" and ">" in a hook's context as Qwen Code does
	// (the same getAdditionalContext, PO-38).
	EscapesBrackets: true,
	Layout:          layout,
	Sessions:        sessions,
	Pointer:         pointer,
	Hooks: agent.Hooks{Owns: IsHook, ChatWindow: Limit, SkipPreCompact: Skip, SupersedesAt: "PreCompress",
		WatchEvents: map[string]func(*handover.WatchOptions, hookio.Payload, string, time.Time, *hookio.Entry){"BeforeAgent": BeforeAgent}},
}
