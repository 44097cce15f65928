package handoff

import (
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// Every problem and every since-text, word for word, in both languages:
// what the check prints and the pointer quotes stays the same whatever
// holds the texts.
//
// spec: HO-4, HO-11
func TestProblemTexts(t *testing.T) {
	done := Parse([]byte(fill(Template(snapshot.English, now), "none")))[0]
	partial := Parse([]byte(strings.Replace(Template(snapshot.English, now), "### DON'T\n", "", 1)))[0]
	undated := Parse([]byte(strings.Replace(fill(Template(snapshot.English, now), "x"), "2026-12-01T10:22:05Z", "soon 100%s", 1)))[0]
	later := now.Add(time.Second)
	for _, c := range []struct {
		lang snapshot.Lang
		want []string
	}{
		{snapshot.English, []string{
			`no handoff block (a heading "## HANDOFF <date>")`,
			`the heading "HANDOFF soon 100%s" has no date such as 2026-12-01T10:22:05Z`,
			"dated 2026-12-01T10:22:05Z, later than the clock (2026-12-01T10:10:05Z)",
			"dated 2026-12-01T10:22:05Z, before the handoff threshold was crossed at 2026-12-01T10:22:06Z",
			"dated 2026-12-01T10:22:05Z, before the compaction at 2026-12-01T10:22:06Z (no threshold crossed since)",
			"dated 2026-12-01T10:22:05Z, before the previous snapshot at 2026-12-01T10:22:06Z",
			"dated 2026-12-01T10:22:05Z, before the session started at 2026-12-01T10:22:06Z",
			"dated 2026-12-01T10:22:05Z, before 2026-12-01T10:22:06Z",
			"missing: DON'T",
			"not filled: TASK, CURRENT STATE, NEXT STEP, USER DECISIONS, WAITING ON, NOT VERIFIED, RULED OUT, KEY RESULTS",
		}},
		{snapshot.Russian, []string{
			`блока передачи нет (заголовка "## HANDOFF <дата>")`,
			`в заголовке "HANDOFF soon 100%s" нет даты вида 2026-12-01T10:22:05Z`,
			"дата 2026-12-01T10:22:05Z позже текущего времени (2026-12-01T10:10:05Z)",
			"дата 2026-12-01T10:22:05Z раньше, чем пересечение порога передачи в 2026-12-01T10:22:06Z",
			"дата 2026-12-01T10:22:05Z раньше, чем сжатие в 2026-12-01T10:22:06Z (порог с тех пор не пройден)",
			"дата 2026-12-01T10:22:05Z раньше, чем предыдущий снимок в 2026-12-01T10:22:06Z",
			"дата 2026-12-01T10:22:05Z раньше, чем начало сессии в 2026-12-01T10:22:06Z",
			"дата 2026-12-01T10:22:05Z раньше, чем 2026-12-01T10:22:06Z",
			"нет разделов: НЕ ТРОГАТЬ",
			"не заполнены: ЗАДАЧА, ТЕКУЩЕЕ СОСТОЯНИЕ, СЛЕДУЮЩИЙ ШАГ, РЕШЕНИЯ ПОЛЬЗОВАТЕЛЯ, ЖДЁМ, НЕ ПРОВЕРЕНО, ОТБРОШЕНО, КЛЮЧЕВЫЕ РЕЗУЛЬТАТЫ",
		}},
	} {
		var got []string
		got = append(got, Problems(nil, Since{}, now, c.lang)...)
		got = append(got, Problems(&undated, Since{}, now, c.lang)...)
		got = append(got, Problems(&done, Since{}, now.Add(-FutureSlack-10*time.Minute), c.lang)...)
		for _, k := range []string{SinceCrossing, SinceCompaction, SinceSnapshot, SinceStart, ""} {
			got = append(got, Problems(&done, Since{At: later, Kind: k}, later, c.lang)...)
		}
		got = append(got, Problems(&partial, Since{}, now, c.lang)...)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", c.lang, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}
