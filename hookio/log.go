package hookio

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Hook outcomes as written to the log; doctor (snapshot.CheckLogRuns)
// reports lines whose outcome is "failed".
const (
	// OutcomeOK: the run did what it is for.
	OutcomeOK = "ok"
	// OutcomeWarn: it did, with warnings.
	OutcomeWarn = snapshot.OutcomeWarn
	// OutcomeFailed: it could not; doctor reports these lines.
	OutcomeFailed = snapshot.OutcomeFailed
	// OutcomeNone: there was nothing to do, and the detail says why.
	OutcomeNone = "none"
	// OutcomeSkipped: the run was not for this hook; not logged.
	OutcomeSkipped = "skipped"
)

// Entry is one line of compact-guard.log:
//
//	2026-11-30T10:15:00Z precompact session=<id> outcome=ok duration=41ms snapshot=<name> warnings=0 detail="..."
//	2026-11-30T10:15:09Z postcompact session=<id> outcome=ok duration=9ms snapshot=<name> newer_turned_down=0 turned_down="<name>: <why>; ..." warnings=0
type Entry struct {
	At       time.Time
	Command  string
	Session  string
	Outcome  string
	Duration time.Duration
	Snapshot string
	// Hint says whether precompact printed the summary hint, or why not
	// (PC-20, PC-27).
	Hint string
	// TurnedDown lists, for postcompact, the session's snapshots selection
	// turned down and why; NewerTurnedDown counts those newer than the one
	// chosen (DR-13).
	TurnedDown      string
	NewerTurnedDown int
	Warnings        []string
	Detail          string
}

// String is the entry as its log line.
func (e Entry) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s session=%s outcome=%s duration=%dms", e.At.UTC().Format(time.RFC3339), e.Command,
		LogValue(e.Session), e.Outcome, e.Duration.Milliseconds())
	if e.Snapshot != "" {
		fmt.Fprintf(&b, " snapshot=%s", LogValue(e.Snapshot))
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, " hint=%s", LogValue(e.Hint))
	}
	if e.TurnedDown != "" {
		fmt.Fprintf(&b, " newer_turned_down=%d turned_down=%q", e.NewerTurnedDown, TruncateRunes(e.TurnedDown, 2000))
	}
	fmt.Fprintf(&b, " warnings=%d", len(e.Warnings))
	detail := e.Detail
	if len(e.Warnings) > 0 {
		if detail != "" {
			detail += "; "
		}
		detail += strings.Join(e.Warnings, "; ")
	}
	if detail != "" {
		fmt.Fprintf(&b, " detail=%q", TruncateRunes(detail, 2000))
	}
	return b.String()
}

// LogValue keeps a log field on one line and free of spaces.
func LogValue(s string) string {
	if s == "" {
		return "-"
	}
	s = TruncateRunes(s, 200)
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

// TruncateRunes is the shared cut (textcut) under the name doctor uses too.
func TruncateRunes(s string, n int) string { return textcut.Marked(textcut.Runes(s, n)) }

// LogFileName is the log's name, in the folder above the snapshot folder.
const LogFileName = "compact-guard.log"

// LogPath is the log file of the snapshot folder dir, in the folder above
// it.
func LogPath(dir string) string { return filepath.Join(filepath.Dir(dir), LogFileName) }

// WriteLog appends one line to the log; a log that cannot be written is
// reported on stderr, which Claude Code keeps in its debug log.
func WriteLog(dir string, e Entry) {
	if err := snapshot.AppendLog(LogPath(dir), e.String()); err != nil {
		os.Stderr.WriteString("compact-guard: writing log: " + err.Error() + "\n")
	}
}
