package handoff

import (
	"fmt"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
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
	return len(Problems(b, Since{At: since}, now, snapshot.English)) == 0
}

// Problems lists, in lang, what keeps b from counting (HO-4, HO-11); none
// means it counts. b nil means the state file holds no block. A date too
// early is said against what since is: the crossing, the compaction after
// which none came, the previous snapshot or the session's start — never a
// crossing that did not happen (HO-4).
func Problems(b *Block, since Since, now time.Time, lang snapshot.Lang) []string {
	ru := lang == snapshot.Russian
	pick := func(en, r string) string {
		if ru {
			return r
		}
		return en
	}
	if b == nil {
		return []string{pick(`no handoff block (a heading "## HANDOFF <date>")`, `блока передачи нет (заголовка "## HANDOFF <дата>")`)}
	}
	var out []string
	switch {
	case b.Time.IsZero():
		out = append(out, pick(`the heading "`+b.Heading+`" has no date such as 2026-12-01T10:22:05Z`,
			`в заголовке "`+b.Heading+`" нет даты вида 2026-12-01T10:22:05Z`))
	case b.Time.After(now.Add(FutureSlack)):
		out = append(out, fmt.Sprintf(pick("dated %s, later than the clock (%s)", "дата %s позже текущего времени (%s)"),
			stamp(b.Time), stamp(now)))
	case !since.IsZero() && b.Time.Before(since.At.Truncate(time.Second)):
		out = append(out, fmt.Sprintf(pick("dated %s, before %s", "дата %s раньше, чем %s"), stamp(b.Time), SinceText(since, lang)))
	}
	if len(b.Missing) > 0 {
		out = append(out, pick("missing: ", "нет разделов: ")+titles(b.Missing, lang))
	}
	if len(b.Empty) > 0 {
		out = append(out, pick("not filled: ", "не заполнены: ")+titles(b.Empty, lang))
	}
	return out
}

// SinceText says in lang what the moment since was, with its time in RFC
// 3339 UTC: "the handoff threshold was crossed at …", "the compaction at …
// (no threshold crossed since)", "the previous snapshot at …", "the session
// started at …".
func SinceText(since Since, lang snapshot.Lang) string {
	t := stamp(since.At)
	if lang == snapshot.Russian {
		switch since.Kind {
		case SinceCrossing:
			return "пересечение порога передачи в " + t
		case SinceCompaction:
			return "сжатие в " + t + " (порог с тех пор не пройден)"
		case SinceSnapshot:
			return "предыдущий снимок в " + t
		case SinceStart:
			return "начало сессии в " + t
		case SinceUnknown:
			return t + ", за час до текущего времени (неизвестно, когда началась эта сессия)"
		}
		return t
	}
	switch since.Kind {
	case SinceCrossing:
		return "the handoff threshold was crossed at " + t
	case SinceCompaction:
		return "the compaction at " + t + " (no threshold crossed since)"
	case SinceSnapshot:
		return "the previous snapshot at " + t
	case SinceStart:
		return "the session started at " + t
	case SinceUnknown:
		return t + ", an hour before the clock (nothing tells when this session began)"
	}
	return t
}

func titles(keys []string, lang snapshot.Lang) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = Title(k, lang)
	}
	return strings.Join(out, ", ")
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
