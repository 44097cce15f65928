package selectsnap

import (
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// TakenFor returns, among a session's records, the snapshot taken for a
// compaction (SS-14): the newest record made from transcriptPath and
// created in (after, at], where at is the compaction boundary's timestamp
// and after the previous boundary's (zero for none). PreCompact runs
// before the compaction request, and the boundary's time is taken when the
// summary is ready; a refused compaction's snapshot in the same stretch is
// older. Times, not offsets: a client that writes the transcript late
// (2.1.119 in stream-json mode wrote a compaction's boundary after the next
// PreCompact had read the file) leaves offsets that do not tell the
// compactions apart. When the boundary has no time (at is zero), the record
// must cover the transcript up to an offset in [prev, boundary] instead. A
// record postcompact took at SessionStart counts when it covers the
// transcript up to an offset in (prev, boundary] and was made after after
// (SS-22). nil when there is none.
func TakenFor(records []*snapshot.Record, transcriptPath string, after, at time.Time, prev, boundary int64) *snapshot.Record {
	var best *snapshot.Record
	for _, r := range records {
		if !samePath(r.TranscriptPath, transcriptPath) {
			continue
		}
		if r.HookEvent == HookSessionStart {
			// Taken at SessionStart, before the client wrote this boundary:
			// offsets tell, times do not (SS-22).
			if !takenAtSessionStart(r, after, prev, boundary) {
				continue
			}
		} else if at.IsZero() {
			if s := r.Coverage.TranscriptSize; s < prev || s > boundary {
				continue
			}
		} else if !r.CreatedAt.After(after) || r.CreatedAt.After(at) {
			continue
		}
		if best == nil || r.CreatedAt.After(best.CreatedAt) {
			best = r
		}
	}
	return best
}

// NamedSnapshot returns the base name of the snapshot whose .md a pointer
// text names, "" when it names none (a failure notice, another hook's
// context). A string scan, not a regexp: postcompact links this package and
// must not compile patterns at start.
func NamedSnapshot(text string) string {
	for rest := text; ; {
		i := strings.Index(rest, snapshot.NamePrefix)
		if i < 0 {
			return ""
		}
		rest = rest[i:]
		end := strings.IndexFunc(rest, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
		})
		if end < 0 {
			end = len(rest)
		}
		if base, ok := strings.CutSuffix(rest[:end], ".md"); ok {
			if _, ok := snapshot.ParseName(base); ok {
				return base
			}
		}
		rest = rest[len(snapshot.NamePrefix):]
	}
}

// nameSlack is how far a name's second may lie from the window TakenFor
// uses: a name keeps the second only (the record's time is finer), and a
// snapshot taken at SessionStart is made after the boundary's timestamp,
// which the client took when the summary was ready (SS-22).
const (
	nameBefore = time.Second
	nameAfter  = time.Minute
)

// NameFits reports whether base, the name a pointer gave for a snapshot no
// longer in the folder, is that of a snapshot of session sessionID taken
// for the compaction whose boundary is at at (after the previous
// boundary's time after, zero for none, and before the next one's next,
// zero for none): judged by the name alone, as audit must once the file is
// gone (specs/audit.md AU-11). at zero cannot be judged: false.
func NameFits(base, sessionID string, after, at, next time.Time) bool {
	n, ok := snapshot.ParseName(base)
	if !ok || at.IsZero() || n.SID8 != snapshot.SID8(sessionID) {
		return false
	}
	switch {
	case !after.IsZero() && !n.Time.After(after.Add(-nameBefore)):
		return false
	case n.Time.After(at.Add(nameAfter)):
		return false
	case !next.IsZero() && !n.Time.Before(next):
		return false
	}
	return true
}
