package agent

import (
	"time"

	"github.com/compact-guard/compact-guard/handover"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/transcript"
)

// Hooks is what a client's hook runs need beyond Claude Code's: how a
// payload is known as the client's, and the quirks of its events. Every
// field may be nil.
type Hooks struct {
	// Owns reports a payload of the client's by where its transcript
	// lies or by events only it sends (SF-5 agent); asked of each client
	// in the order they are registered.
	Owns func(p hookio.Payload) bool
	// OwnsByField reports a payload of the client's by a field only it
	// sends; asked only when no client's Owns answered.
	OwnsByField func(p hookio.Payload) bool
	// ChatWindow is the context window of a chat file read whole that
	// names none, by the model it names.
	ChatWindow func(model string) int64
	// SkipPreCompact says why a PreCompact compresses nothing, so that no
	// snapshot is taken (Gemini CLI, PC-43).
	SkipPreCompact func(p hookio.Payload, getenv func(string) string) (why string, skip bool)
	// SupersedesAt is the event at which the client runs its PreCompact
	// hook before every request (Gemini CLI's PreCompress): a snapshot
	// taken there replaces the session's earlier ones of the segment never
	// handed out, as only the newest can be the next compression's (PC-47).
	SupersedesAt string
	// WatchEvents are watch's runs at events only the client sends, by
	// event name (Gemini CLI's BeforeAgent, WA-36).
	WatchEvents map[string]func(w *handover.WatchOptions, p hookio.Payload, sid string, start time.Time, entry *hookio.Entry)
}

// ForPayload is the client a hook runs for (SF-5 agent): the one whose
// format the transcript's start decided (TR-37), else the first whose
// Owns knows the payload, else the first whose OwnsByField does, else
// Claude Code.
func ForPayload(p hookio.Payload, f *transcript.File) *Client {
	if f != nil {
		if format, known := f.Format(); known {
			return OfFormat(format)
		}
	}
	for _, c := range all {
		if c.Hooks.Owns != nil && c.Hooks.Owns(p) {
			return c
		}
	}
	for _, c := range all {
		if c.Hooks.OwnsByField != nil && c.Hooks.OwnsByField(p) {
			return c
		}
	}
	return claude
}

// ChatWindow is the window of a chat read whole that names none, as the
// client that writes such chats counts it; 0 when no client does.
func ChatWindow(model string) int64 {
	for _, c := range all {
		if c.Hooks.ChatWindow != nil {
			return c.Hooks.ChatWindow(model)
		}
	}
	return 0
}

// WritesLate reports whether the client whose transcripts are of format f
// writes them in the background (Client.WritesLate).
func WritesLate(f transcript.Format) bool { return OfFormat(f).WritesLate }

// Supersedes reports whether a snapshot of agent's, taken at event,
// supersedes the session's earlier ones (Hooks.SupersedesAt).
func Supersedes(agent, event string) bool {
	at := Of(settings.Agent(agent)).Hooks.SupersedesAt
	return at != "" && at == event
}

// SkipPreCompact says whether some client's PreCompact at p compresses
// nothing, and why.
func SkipPreCompact(p hookio.Payload, getenv func(string) string) (why string, skip bool) {
	for _, c := range all {
		if c.Hooks.SkipPreCompact != nil {
			if why, skip := c.Hooks.SkipPreCompact(p, getenv); skip {
				return why, true
			}
		}
	}
	return "", false
}

// WatchEvent is watch's run at an event only one client sends, nil for
// the shared events.
func WatchEvent(event string) func(w *handover.WatchOptions, p hookio.Payload, sid string, start time.Time, entry *hookio.Entry) {
	for _, c := range all {
		if run := c.Hooks.WatchEvents[event]; run != nil {
			return run
		}
	}
	return nil
}
