package handover

import "github.com/compact-guard/compact-guard/snapshot/watch"

// watchEvent is the event watch acts as on: a failed tool call
// (PostToolUseFailure, Claude Code 2.0.56 and later, IN-2, E2E-36) is a
// tool call like any other, so a turn of failing calls gets its notice
// too (specs/watch.md WA-1). The hook's output still names the event it
// ran for, as the client's schema wants.
func watchEvent(event string) string {
	if event == watch.PostToolUseFailure {
		return watch.PostToolUse
	}
	return event
}
