package selectsnap

import (
	"context"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Compactions without a PreCompact of their own (specs/selectsnap.md SS-18
// to SS-25): a precomputed swap, a compaction whose PreCompact did not run
// or failed. postcompact then takes the snapshot at SessionStart(compact);
// what selection needs to know of that snapshot is here.

// HookSessionStart is the hook_event a snapshot taken at SessionStart
// records (SF-5's hook_event): postcompact took it, not precompact.
const HookSessionStart = "SessionStart"

// ReasonWentOn starts the reason SS-8d gives: a model response came after
// the snapshot. The snapshot a precomputed compaction's PreCompact took at
// arm time is turned down with it at the swap (SS-18).
const ReasonWentOn = "the session went on after it"

// TakesAtSessionStart reports whether, for the client agent, a snapshot
// taken at SessionStart(compact) holds the session up to the compaction:
// the client has not written the compaction's boundary yet when that hook
// runs, so the transcript's last segment is the one compacted (SS-15's
// order: Claude Code). Codex CLI and Qwen Code write it before, and their
// last segment at SessionStart is the compacted session's, so no snapshot
// is taken there (SS-21).
func TakesAtSessionStart(agent string) bool {
	return !Orders[agentOr(agent)].BoundaryBefore[HookSessionStart]
}

// PreparedEarlier is the snapshot selection turned down because the
// session went on after it (SS-8d), "" for none: for a precomputed swap,
// the one its PreCompact took when the compaction was armed (SS-18). Its
// trigger is the compaction's; its facts stop where the session went on.
func PreparedEarlier(rejected []Rejection) string {
	for _, r := range rejected {
		if strings.HasPrefix(r.Reason, ReasonWentOn) {
			return r.Name
		}
	}
	return ""
}

// EarlierPointer says whether a pointer handed out after the transcript's
// last boundary may still be in the context after the compaction now
// happening, and when it was made (SS-24): the client recorded a
// SessionStart context naming a snapshot other than current after that
// boundary (TR-35), and the boundary kept the newest messages verbatim
// (TR-53), so the client keeps tails and that context can be among them.
// It returns the time of the snapshot that pointer names (its name's time),
// zero for none. It reads backwards from the end to the last boundary.
func EarlierPointer(ctx context.Context, f *transcript.File, current string) (time.Time, error) {
	last, err := f.LastBoundary(ctx)
	if err != nil || last < 0 {
		return time.Time{}, err
	}
	comps, err := f.Compactions(ctx, last)
	if err != nil || len(comps) == 0 {
		return time.Time{}, err
	}
	c := comps[len(comps)-1]
	if !c.KeepsTail {
		return time.Time{}, nil
	}
	for i := len(c.Contexts) - 1; i >= 0; i-- {
		name := NamedSnapshot(c.Contexts[i])
		if name == "" || name == current {
			continue
		}
		if n, ok := snapshot.ParseName(name); ok {
			return n.Time, nil
		}
	}
	return time.Time{}, nil
}

// takenAtSessionStart reports whether a record was taken for the compaction
// whose boundary starts at boundary, the one before it at prev, by
// postcompact at SessionStart (SS-22): it covers the transcript up to an
// offset in (prev, boundary] (the client writes the boundary after the
// hook, often at exactly the size the hook saw: 2.1.210 and 2.1.328 write
// nothing in between) and was made after after. Its time says nothing of
// the boundary's: 2.1.210 takes the boundary's time before the hooks run,
// 2.1.328 after them.
func takenAtSessionStart(r *snapshot.Record, after time.Time, prev, boundary int64) bool {
	s := r.Coverage.TranscriptSize
	return r.HookEvent == HookSessionStart && s > prev && s <= boundary && r.CreatedAt.After(after)
}

// boundariesSince is the time after which a boundary counts as a
// compaction that happened after the snapshot (SS-8b, SS-8c): the
// snapshot's time, but for one taken at SessionStart every boundary after
// its bytes counts (SS-21). The client writes that snapshot's own
// compaction's boundary after it, and 2.1.210 gives that boundary the time
// its summary was ready, before the hook ran: with the snapshot's time, a
// later compaction without a PreCompact of its own could not tell that the
// snapshot was handed out already and had ended with its compaction.
func (tk Taken) boundariesSince() time.Time {
	if tk.AtSessionStart {
		return time.Time{}
	}
	return tk.At
}
