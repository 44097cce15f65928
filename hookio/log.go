package cmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Hook outcomes as written to the log; doctor (snapshot.CheckLogRuns)
// reports lines whose outcome is "failed".
const (
	outcomeOK      = "ok"
	outcomeWarn    = snapshot.OutcomeWarn
	outcomeFailed  = snapshot.OutcomeFailed
	outcomeNone    = "none"
	outcomeSkipped = "skipped"
)

// logEntry is one line of compact-guard.log:
//
//	2026-11-30T10:15:00Z precompact session=<id> outcome=ok duration=41ms snapshot=<name> warnings=0 detail="..."
//	2026-11-30T10:15:09Z postcompact session=<id> outcome=ok duration=9ms snapshot=<name> newer_turned_down=0 turned_down="<name>: <why>; ..." warnings=0
type logEntry struct {
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

func (e logEntry) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s session=%s outcome=%s duration=%dms", e.At.UTC().Format(time.RFC3339), e.Command,
		logValue(e.Session), e.Outcome, e.Duration.Milliseconds())
	if e.Snapshot != "" {
		fmt.Fprintf(&b, " snapshot=%s", logValue(e.Snapshot))
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, " hint=%s", logValue(e.Hint))
	}
	if e.TurnedDown != "" {
		fmt.Fprintf(&b, " newer_turned_down=%d turned_down=%q", e.NewerTurnedDown, truncateRunes(e.TurnedDown, 2000))
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
		fmt.Fprintf(&b, " detail=%q", truncateRunes(detail, 2000))
	}
	return b.String()
}

// logValue keeps a log field on one line and free of spaces.
func logValue(s string) string {
	if s == "" {
		return "-"
	}
	s = truncateRunes(s, 200)
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

// truncateRunes is the shared cut (textcut) under the name doctor uses too.
func truncateRunes(s string, n int) string { return textcut.Marked(textcut.Runes(s, n)) }
