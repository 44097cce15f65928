package take

import (
	"time"

	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// Transcripts lag hooks (specs/selectsnap.md, "Transcripts lag hooks";
// specs/precompact.md PC-48; specs/postcompact.md PO-C14, PO-C15, PO-C18):
// Claude Code queues what it writes to the transcript and writes it 100 ms
// later, on the same loop that runs the hooks, so a PreCompact hook may
// start before the newest tool call, its result or a whole response is in
// the file, and the client writes them while the hook runs. precompact
// reads at once and records how far it read; the compaction's later hooks
// fold what came after into the same snapshot (handover/fold.go), and the hook runs
// of the tool calls and prompts tell selection what the file may not show
// yet: that the session went on after a PreCompact.

// SettleRetired is what --settle says of itself: the quiet window it set
// (PC-36, PO-C14) is gone, and the flag stays only so that a settings file
// written with it keeps its hooks (a flag error would make the hook do
// nothing).
const SettleRetired = "no effect (the wait it set was retired: the compaction's later hooks complete the snapshot, PO-C18)"

// markWait is how often precompact looks for evidence that its note of the
// PreCompact (PC-37) is held up by another run, once the snapshot is
// gathered.
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
