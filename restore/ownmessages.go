package restore

import (
	"time"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// Messages that say what a handoff had to be newer than, so that nothing
// calls a crossing what was the compaction or the session's start
// (specs/handoff.md HO-4, HO-11), and that the state file's blocks are
// another session's (HO-10, HO-12).
const (
	mSinceCrossing   = "since-crossing"
	mSinceCompaction = "since-compaction"
	mSinceSnapshot   = "since-snapshot"
	mSinceStart      = "since-start"
	mSinceAt         = "since-at"
	mNoOwnBlock      = "no-own-block"
	mHandoffNotOwn   = "handoff-not-own"
)

func ownEntries() []entry {
	return []entry{
		{mSinceCrossing, s("since the first threshold was crossed at %s"), s("с пересечения первого порога в %s")},
		{mSinceCompaction, s("since the compaction at %s"), s("с момента сжатия в %s")},
		{mSinceSnapshot, s("since the previous snapshot at %s"), s("с момента предыдущего снимка в %s")},
		{mSinceStart, s("since the session started at %s"), s("с начала сессии в %s")},
		{mSinceAt, s("since %s"), s("с %s")},
		{mNoOwnBlock, s("no handoff block of this session (blocks in the state file not its own: %d)"),
			s("блока передачи этой сессии нет (чужих блоков в файле состояния: %d)")},
		{mHandoffNotOwn, s("Handoff: no block of this session in %s (blocks not its own: %d)."),
			s("Передача: блоков этой сессии в %s нет (чужих блоков: %d).")},
	}
}

// sincePhrase says since when no handoff was current, naming what that
// moment was: the first threshold's crossing, the compaction with no
// crossing after it, the previous snapshot, the session's start; a record
// written before the kind was kept gets the time alone.
func sincePhrase(p *message.Printer, since handoff.Since, now time.Time) string {
	at := clockUTC(since.At, now)
	switch since.Kind {
	case handoff.SinceCrossing:
		return p.Sprintf(mSinceCrossing, at)
	case handoff.SinceCompaction:
		return p.Sprintf(mSinceCompaction, at)
	case handoff.SinceSnapshot:
		return p.Sprintf(mSinceSnapshot, at)
	case handoff.SinceStart:
		return p.Sprintf(mSinceStart, at)
	}
	return p.Sprintf(mSinceAt, at)
}
