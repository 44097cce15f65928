package cmd

import (
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// notReady prints that the block is not this session's handoff, and why
// (HO-6).
func notReady(report handoffReport, path string, b *handoff.Block, problems []string) {
	if b != nil {
		report.line(mHoNotReadyLine, path, lineNo(b.Line))
	} else {
		report.line(mHoNotReady, path)
	}
	for _, p := range problems {
		report.line(mHoProblem, p)
	}
}

// foreignProblem says that the state file's newest block was written by
// another session (HO-10), naming both by their first 8 characters.
func foreignProblem(report handoffReport, b *handoff.Block, sid string) string {
	return report.p.Sprintf(mHoForeign, snapshot.SID8(b.Session), snapshot.SID8(sid))
}

func stampUTC(t time.Time) string { return t.UTC().Format(time.RFC3339) }
