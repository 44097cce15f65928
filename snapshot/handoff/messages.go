package handoff

import (
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/compact-guard/compact-guard/snapshot"
)

// Message ids of what keeps a block from counting (HO-4, HO-11) and of
// what a block had to be newer than, in English and Russian from one
// catalogue, as restore's and snapshot's texts are.
const (
	mNoBlock         = "handoff-no-block"
	mNoDate          = "handoff-no-date"
	mFuture          = "handoff-future"
	mBefore          = "handoff-before"
	mMissing         = "handoff-missing"
	mEmpty           = "handoff-empty"
	mSinceCrossing   = "handoff-since-crossing"
	mSinceCompaction = "handoff-since-compaction"
	mSinceSnapshot   = "handoff-since-snapshot"
	mSinceStart      = "handoff-since-start"
	mSinceUnknown    = "handoff-since-unknown"
	mSinceAt         = "handoff-since-at"
	// mTemplateNote is the comment under a template's heading (HO-1).
	mTemplateNote = "handoff-template-note"
)

// messages is the package's own catalogue, built on first use: package
// initialisation is paid by every hook (PF-16), and only a block that does
// not count is described.
var messages = sync.OnceValue(func() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, e := range [][3]string{
		{mNoBlock, `no handoff block (a heading "## HANDOFF <date>")`, `блока передачи нет (заголовка "## HANDOFF <дата>")`},
		{mNoDate, `the heading "%s" has no date such as 2026-12-01T10:22:05Z`, `в заголовке "%s" нет даты вида 2026-12-01T10:22:05Z`},
		{mFuture, "dated %s, later than the clock (%s)", "дата %s позже текущего времени (%s)"},
		{mBefore, "dated %s, before %s", "дата %s раньше, чем %s"},
		{mMissing, "missing: %s", "нет разделов: %s"},
		{mEmpty, "not filled: %s", "не заполнены: %s"},
		{mSinceCrossing, "the handoff threshold was crossed at %s", "пересечение порога передачи в %s"},
		{mSinceCompaction, "the compaction at %s (no threshold crossed since)", "сжатие в %s (порог с тех пор не пройден)"},
		{mSinceSnapshot, "the previous snapshot at %s", "предыдущий снимок в %s"},
		{mSinceStart, "the session started at %s", "начало сессии в %s"},
		{mSinceUnknown, "%s, an hour before the clock (nothing tells when this session began)", "%s, за час до текущего времени (неизвестно, когда началась эта сессия)"},
		{mSinceAt, "%s", "%s"},
		{mTemplateNote,
			`compact-guard: handoff before a planned compaction. Every section filled, "none" where nothing applies; check: compact-guard handoff --check`,
			`compact-guard: передача дел перед плановым сжатием контекста. Заполнены все разделы, "нет" там, где нечего сказать; проверка: compact-guard handoff --check`},
	} {
		if err := b.SetString(language.English, e[0], e[1]); err != nil {
			panic(err)
		}
		if err := b.SetString(language.Russian, e[0], e[2]); err != nil {
			panic(err)
		}
	}
	return b
})

func printer(lang snapshot.Lang) *message.Printer {
	return message.NewPrinter(lang.Tag(), message.Catalog(messages()))
}

// problem is one thing that keeps a block from counting: its message and
// arguments, all text (a printer would group a number's digits), made into
// words only when someone reads them (Current only counts them).
type problem struct {
	id   string
	args []any
}
