package selectsnap

import (
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// TakenFor returns, among a session's records, the snapshot taken for the
// compaction whose boundary starts at boundary (written at boundaryTime),
// the compaction before it having its boundary at prev (-1 when there is
// none): the newest record made from transcriptPath whose coverage ends
// within [prev, boundary] and that was created before the boundary was
// written. PreCompact runs before the compaction, so its snapshot covers
// the transcript up to at most the boundary, and from after the previous
// one; a refused compaction's snapshot in the same stretch is older (SS-14).
// nil when there is none.
func TakenFor(records []*snapshot.Record, transcriptPath string, prev, boundary int64, boundaryTime time.Time) *snapshot.Record {
	var best *snapshot.Record
	for _, r := range records {
		s := r.Coverage.TranscriptSize
		if !samePath(r.TranscriptPath, transcriptPath) || s < prev || s > boundary {
			continue
		}
		if !boundaryTime.IsZero() && r.CreatedAt.After(boundaryTime.Add(time.Minute)) {
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
