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
// dated no earlier than since (the crossing of the handoff threshold; zero
// when none was crossed) to the second — a block's date has seconds — and
// not in the future (HO-4).
func Current(b *Block, since, now time.Time) bool {
	return len(Problems(b, since, now, snapshot.English)) == 0
}

// Problems lists, in lang, what keeps b from counting (HO-4); none means it
// counts. b nil means the state file holds no block.
func Problems(b *Block, since, now time.Time, lang snapshot.Lang) []string {
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
	case !since.IsZero() && b.Time.Before(since.Truncate(time.Second)):
		out = append(out, fmt.Sprintf(pick("dated %s, before the handoff threshold was crossed at %s", "дата %s раньше пересечения порога передачи в %s"),
			stamp(b.Time), stamp(since)))
	}
	if len(b.Missing) > 0 {
		out = append(out, pick("missing: ", "нет разделов: ")+titles(b.Missing, lang))
	}
	if len(b.Empty) > 0 {
		out = append(out, pick("not filled: ", "не заполнены: ")+titles(b.Empty, lang))
	}
	return out
}

func titles(keys []string, lang snapshot.Lang) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = Title(k, lang)
	}
	return strings.Join(out, ", ")
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
