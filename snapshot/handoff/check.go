package handoff

import (
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"golang.org/x/text/message"
)

// FutureSlack is how far a block's date may lie ahead of the clock (clock
// skew, a date rounded up) before the block is refused.
const FutureSlack = 2 * time.Minute

// Current reports whether b counts as the session's handoff: complete,
// dated no earlier than since (the crossing of the handoff threshold, else
// the episode's start or the session's; zero when nothing bounds it) to the
// second — a block's date has seconds — and not in the future (HO-4). Whose
// block it is, Owner says (HO-10).
func Current(b *Block, since, now time.Time) bool {
	return len(problems(b, Since{At: since}, now)) == 0
}

// Problems lists, in lang, what keeps b from counting (HO-4, HO-11); none
// means it counts. b nil means the state file holds no block. A date too
// early is said against what since is: the crossing, the compaction after
// which none came, the previous snapshot or the session's start — never a
// crossing that did not happen (HO-4).
func Problems(b *Block, since Since, now time.Time, lang snapshot.Lang) []string {
	ps := problems(b, since, now)
	if len(ps) == 0 {
		return nil
	}
	p := printer(lang)
	out := make([]string, len(ps))
	for i, pr := range ps {
		for j, a := range pr.args {
			switch a := a.(type) {
			case Since:
				pr.args[j] = sinceText(p, a)
			case sectionList:
				pr.args[j] = titles(a, lang)
			}
		}
		out[i] = p.Sprintf(pr.id, pr.args...)
	}
	return out
}

// problems is Problems before it is put in words: a Since among the
// arguments is said by sinceText, a sectionList by the sections' titles,
// both in the reader's language.
func problems(b *Block, since Since, now time.Time) []problem {
	if b == nil {
		return []problem{{id: mNoBlock}}
	}
	var out []problem
	switch {
	case b.Time.IsZero():
		out = append(out, problem{mNoDate, []any{b.Heading}})
	case b.Time.After(now.Add(FutureSlack)):
		out = append(out, problem{mFuture, []any{stamp(b.Time), stamp(now)}})
	case !since.IsZero() && b.Time.Before(since.At.Truncate(time.Second)):
		out = append(out, problem{mBefore, []any{stamp(b.Time), since}})
	}
	if len(b.Missing) > 0 {
		out = append(out, problem{mMissing, []any{sectionList(b.Missing)}})
	}
	if len(b.Empty) > 0 {
		out = append(out, problem{mEmpty, []any{sectionList(b.Empty)}})
	}
	return out
}

// sectionList is a list of section keys among a problem's arguments, said
// by their titles in the printer's language.
type sectionList []string

// SinceText says in lang what the moment since was, with its time in RFC
// 3339 UTC: "the handoff threshold was crossed at …", "the compaction at …
// (no threshold crossed since)", "the previous snapshot at …", "the session
// started at …".
func SinceText(since Since, lang snapshot.Lang) string {
	return sinceText(printer(lang), since)
}

func sinceText(p *message.Printer, since Since) string {
	t := stamp(since.At)
	switch since.Kind {
	case SinceCrossing:
		return p.Sprintf(mSinceCrossing, t)
	case SinceCompaction:
		return p.Sprintf(mSinceCompaction, t)
	case SinceSnapshot:
		return p.Sprintf(mSinceSnapshot, t)
	case SinceStart:
		return p.Sprintf(mSinceStart, t)
	case SinceUnknown:
		return p.Sprintf(mSinceUnknown, t)
	}
	return p.Sprintf(mSinceAt, t)
}

func titles(keys []string, lang snapshot.Lang) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = Title(k, lang)
	}
	return strings.Join(out, ", ")
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
