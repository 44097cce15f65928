package restore

import (
	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// The lines of a pointer to a snapshot taken at the compaction, and of a
// pointer that replaces one still in the context (specs/postcompact.md
// PO-18, PO-19), and watch's compaction points other than a fixed number of
// tokens (specs/watch.md WA-21).
const (
	mCompactedAt       = "compacted-at"
	mTakenAt           = "taken-at"
	mTakenAfterFailure = "taken-after-failure"
	mTakenFailureLog   = "taken-after-failure-log"
	mSupersedes        = "supersedes"
	mWatchAutoRefused  = "watch-auto-refused"
	mWatchAutoEither   = "watch-auto-either"
)

// takenReasonChars is where the first line of precompact's failure reason
// is cut in PO-18's line, as the failure notice cuts it (PO-11).
const takenReasonChars = 300

// Taken says that postcompact took the snapshot itself at
// SessionStart(compact), because none was taken for this compaction before
// it (PO-18).
type Taken struct {
	// Failure is precompact's reason when its failure marker is about this
	// compaction (PO-C5), "" otherwise; LogPath the log the marker names.
	Failure string
	LogPath string
}

// takenAtCompaction reports whether rec was taken as the compacted session
// started rather than before the compaction: its hook was SessionStart.
func takenAtCompaction(rec *snapshot.Record) bool { return rec.HookEvent == "SessionStart" }

// kindLines are PO-18's and PO-19's lines, which follow PO-1's.
func kindLines(p *message.Printer, in PointerInput, line func(string)) {
	if in.Taken != nil {
		reason := inline(firstLine(in.Taken.Failure), takenReasonChars)
		switch {
		case in.Taken.Failure != "" && in.Taken.LogPath != "":
			line(p.Sprintf(mTakenFailureLog, reason, oneLine(in.Taken.LogPath, 1000)))
		case in.Taken.Failure != "":
			line(p.Sprintf(mTakenAfterFailure, reason))
		default:
			line(p.Sprintf(mTakenAt))
		}
	}
	if !in.Supersedes.IsZero() {
		line(p.Sprintf(mSupersedes, in.Supersedes.UTC().Format("15:04")))
	}
}

// kindEntries are this file's messages in both languages (PO-10).
func kindEntries() []entry {
	return []entry{
		{mCompactedAt,
			s("The context was compacted (%s, %s); a mechanical snapshot taken at the compaction is at %s"),
			s("Контекст был сжат (%s, %s); механический снимок, сделанный при сжатии, лежит в %s")},
		{mTakenAt,
			s("No snapshot taken before this compaction holds the session up to it, so this one was taken as the compacted session started."),
			s("Ни один снимок, сделанный до этого сжатия, не охватывает сессию до него, поэтому этот снимок сделан при старте сжатой сессии.")},
		{mTakenAfterFailure,
			s("compact-guard wrote no snapshot before this compaction (%s), so this one was taken as the compacted session started."),
			s("compact-guard не записал снимок перед этим сжатием (%s), поэтому этот снимок сделан при старте сжатой сессии.")},
		{mTakenFailureLog,
			s("compact-guard wrote no snapshot before this compaction (%s; the log is %s), so this one was taken as the compacted session started."),
			s("compact-guard не записал снимок перед этим сжатием (%s; журнал: %s), поэтому этот снимок сделан при старте сжатой сессии.")},
		{mSupersedes,
			s("This pointer supersedes the one of %s UTC."),
			s("Этот указатель заменяет указатель от %s UTC.")},
		{mWatchAutoRefused,
			s("Automatic compaction comes when the API refuses a prompt as too long (Claude Code %s sets no auto-compact window for %s)."),
			s("Автоматическое сжатие наступит, когда API отклонит запрос как слишком длинный (Claude Code %s не задаёт окно автосжатия для %s).")},
		{mWatchAutoEither,
			s("Automatic compaction comes at about %d tokens, or, if Claude Code %s sets no auto-compact window for %s, when the API refuses a prompt as too long."),
			s("Автоматическое сжатие наступит около отметки %d или, если Claude Code %s не задаёт окно автосжатия для %s, когда API отклонит запрос как слишком длинный.")},
	}
}

// clientModeSentence is the notice's sentence on where the client compacts
// by itself when that is not simply at a number of tokens (WA-21): when the
// API refuses a prompt as too long, with no figure; or, for a release and
// model not measured, either.
func clientModeSentence(p *message.Printer, w watch.Window) (string, bool) {
	model := "?"
	if w.Model != "" {
		model = ident(w.Model, watchPathChars)
	}
	release := ident(w.Release, 40)
	switch w.Mode {
	case watch.ModeRefused:
		return p.Sprintf(mWatchAutoRefused, release, model), true
	case watch.ModeEither:
		return p.Sprintf(mWatchAutoEither, w.AutoAt, release, model), true
	}
	return "", false
}
