package take

import (
	"context"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
)

// Transcripts lag hooks (specs/selectsnap.md, "Transcripts lag hooks";
// specs/precompact.md PC-36 to PC-38; specs/postcompact.md PO-C14, PO-C15):
// Claude Code queues what it writes to the transcript and writes it 100 ms
// later, on the same loop that runs the hooks, so a PreCompact or
// SessionStart(compact) hook may start before the newest tool call, its
// result or a whole response is in the file, and the client writes them
// while the hook runs. The compaction hooks therefore wait for the file to
// settle before they read it, and the hook runs of the tool calls and
// prompts tell selection what the file may not show yet: that the session
// went on after a PreCompact.

// Waiting for a Claude Code transcript to settle (PC-36): measured with
// 2.1.210 and 2.1.328 (E2E-41, selectsnap.md "Transcripts lag hooks"), the
// lines the client made before a hook started came 14 to 63 ms after it
// started, each batch in one write of everything queued; the client writes
// its queue about 100 ms after queueing. The quiet period is four times
// that, for a busy machine; the cap bounds an arm's wait, where the session
// goes on writing beside the hook.
const (
	claudeSettleMax  = 1500 * time.Millisecond
	claudeSettlePoll = 10 * time.Millisecond
)

// ClaudeSettleQuiet is the quiet period chosen from the measurement, the
// default of precompact's and postcompact's --settle.
const ClaudeSettleQuiet = 400 * time.Millisecond

// StepSettle is the name the wait goes by for a test's BeforeStep.
const StepSettle = "waiting for the transcript to settle"

// settleClaudeTranscript waits for a Claude Code transcript to settle: no
// growth for quiet, at most claudeSettleMax, and never more than half of
// what ctx leaves, so that the steps of the phase after it keep their time
// (PC-36).
func settleClaudeTranscript(ctx context.Context, path string, quiet time.Duration) Settled {
	limit := claudeSettleMax
	if dl, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(dl)/2)
	}
	return settle(ctx, path, quiet, limit, claudeSettlePoll)
}

// OpenSettled opens the transcript at path for postcompact; for a Claude
// Code transcript at SessionStart(compact) only once it has settled
// (PO-C14), so that selection sees the responses after an arm and the
// snapshot taken at the compaction holds the newest tool call. PostCompact
// runs after it and waits for nothing; a run by hand neither.
func OpenSettled(ctx context.Context, p hookio.Payload, path string, quiet time.Duration, before func(string)) (*transcript.File, Settled, error) {
	f, err := transcript.Open(path)
	if err != nil || quiet <= 0 || p.HookEventName != "SessionStart" || p.Source != "compact" {
		return f, Settled{Quiet: true}, err
	}
	if format, _ := f.Format(); format != transcript.FormatClaude {
		return f, Settled{Quiet: true}, nil
	}
	f.Close()
	if before != nil {
		before(StepSettle)
	}
	r := settleClaudeTranscript(ctx, path, quiet)
	f, err = transcript.Open(path)
	return f, r, err
}

// markWait is how long precompact waits at most for its note of the
// PreCompact (PC-37) once the snapshot is gathered.
const markWait = 250 * time.Millisecond

// MarkPreCompact notes in the session's watch state that a PreCompact run
// started at at (PC-37, SS-27).
func MarkPreCompact(dir, sessionID string, at time.Time) error {
	if sessionID == "" {
		return nil
	}
	_, err := watch.StoreFor(dir).Update(sessionID, func(st *watch.State) bool { return st.MarkPreCompact(at) })
	return err
}

// WentOnRecorded is what the session's watch state recorded of a tool call
// or a prompt after its newest PreCompact, for selection (PO-C15, SS-26);
// nil for none. A state that cannot be trusted or read gives nothing and a
// warning: selection then goes by the transcript alone.
func WentOnRecorded(dir, sessionID string) (*selectsnap.WentOn, string) {
	st, err := watch.StoreFor(dir).Load(sessionID)
	if err != nil {
		return nil, "watch state: " + err.Error()
	}
	if st == nil || st.WentOn == nil || st.WentOn.At.IsZero() {
		return nil, ""
	}
	return &selectsnap.WentOn{At: st.WentOn.At, Event: st.WentOn.Event}, ""
}
