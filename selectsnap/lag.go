package selectsnap

import (
	"fmt"
	"time"
)

// Transcripts lag hooks (specs/selectsnap.md SS-26 to SS-29): Claude Code
// queues its transcript lines and writes them 100 ms later, so a hook may
// start before the newest tool call, its result or a whole response is in
// the file. At a precomputed compaction's swap the responses that followed
// the arm may not be there yet, and SS-8d alone would take the arm-time
// snapshot for the swap's. The hook runs themselves say what the file does
// not yet: the client's loop waits from a compaction's PreCompact to its
// SessionStart, so a tool call's or a prompt's hook that starts between
// them tells that the PreCompact was an arm and the session went on.

// WentOn is a hook run that tells the session went on after a PreCompact:
// the first PostToolUse, PostToolUseFailure or UserPromptSubmit run that
// started after the session's newest PreCompact run, as watch recorded it
// (SS-27).
type WentOn struct {
	// At is when that run started.
	At time.Time
	// Event is its hook event.
	Event string
}

// wentOnClients are the clients whose loop was measured to wait from a
// compaction's PreCompact to its SessionStart (SS-28): Claude Code. Codex
// CLI runs a manual compaction's SessionStart in the next turn and Qwen Code
// runs SessionStart in the background, so a tool call or a prompt may come
// between one compaction's hooks there.
var wentOnClients = map[string]bool{AgentClaude: true}

// wentOnFor is o.WentOn when the client's order lets it tell (SS-28).
func wentOnFor(o Options) *WentOn {
	if o.WentOn == nil || o.WentOn.At.IsZero() || !wentOnClients[agentOr(o.Agent)] {
		return nil
	}
	return o.WentOn
}

// wentOnAfter says why tk is not this compaction's when a tool call's or a
// prompt's hook started after it was taken (SS-26), "" otherwise. The
// reason starts with ReasonWentOn, as SS-8d's does: for a precomputed swap
// the snapshot it turns down is the arm's, whose trigger the snapshot taken
// at SessionStart keeps (SS-18).
func (c *compactionCheck) wentOnAfter(tk Taken) string {
	if c.wentOn == nil || !c.wentOn.At.After(tk.At) {
		return ""
	}
	return fmt.Sprintf("%s (a %s hook ran at %s)", ReasonWentOn, c.wentOn.Event, c.wentOn.At.UTC().Format(time.RFC3339))
}
