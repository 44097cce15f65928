package cmd

import "github.com/compact-guard/compact-guard/snapshot/watch"

// postToolUseFailure is the event Claude Code (2.0.56 and later) fires
// instead of PostToolUse after a tool call that failed (IN-2, E2E-36).
const postToolUseFailure = "PostToolUseFailure"

// watchEvent is the event watch acts as on: a failed tool call is a tool
// call like any other, so a turn of failing calls gets its notice too
// (specs/watch.md WA-1). The hook's output still names the event it ran
// for, as the client's schema wants.
func watchEvent(event string) string {
	if event == postToolUseFailure {
		return watch.PostToolUse
	}
	return event
}
