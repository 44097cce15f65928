package cmd

import (
	"fmt"
	"io"
	"strconv"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

// Message ids of handoff --check's report (specs/handoff.md HO-6, HO-10),
// in English and Russian from one catalogue, as restore's and snapshot's
// texts are.
const (
	mHoCurrent         = "ho-current"
	mHoSinceCrossing   = "ho-since-crossing"
	mHoSinceCompaction = "ho-since-compaction"
	mHoSinceStart      = "ho-since-start"
	mHoNotFound        = "ho-not-found"
	mHoNotReadyLine    = "ho-not-ready-line"
	mHoNotReady        = "ho-not-ready"
	mHoProblem         = "ho-problem"
	mHoForeign         = "ho-foreign"
)

// handoffCatalog is handoff's messages; built on first use, as restore's
// catalogue is, since package initialisation is paid by every hook (PF-16).
var handoffCatalog = sync.OnceValue(func() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, e := range [][3]string{
		{mHoCurrent, "handoff current: %s line %s, %s", "передача актуальна: %s, строка %s, %s"},
		{mHoSinceCrossing, "(the context crossed its first threshold at %s)", "(контекст прошёл первый порог в %s)"},
		{mHoSinceCompaction, "(no threshold crossed since the compaction at %s)", "(после сжатия в %s порог не пройден)"},
		{mHoSinceStart, "(no threshold crossed since the session started at %s)", "(с начала сессии в %s порог не пройден)"},
		{mHoNotFound, "no %s found in %s", "%s не найден в %s"},
		{mHoNotReadyLine, "handoff not ready: %s line %s", "передача не готова: %s, строка %s"},
		{mHoNotReady, "handoff not ready: %s", "передача не готова: %s"},
		{mHoProblem, "- %s", "- %s"},
		{mHoForeign,
			"written by another session (%s), not this one (%s); this session's own: compact-guard handoff --template",
			"блок написан другой сессией (%s), не этой (%s); своя передача: compact-guard handoff --template"},
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

// handoffReport prints handoff's report, one message a line, in the
// user's language.
type handoffReport struct {
	out io.Writer
	p   *message.Printer
}

func newHandoffReport(out io.Writer, lang snapshot.Lang) handoffReport {
	return handoffReport{out: out, p: message.NewPrinter(lang.Tag(), message.Catalog(handoffCatalog()))}
}

// line prints the message id with its arguments, all strings: a number
// goes through lineNo, since the printer would group its digits ("1,234").
// The path, the heading and the problems quote the state file: escaped as
// list escapes them, so that a CR, ESC or BEL in it cannot forge a line or
// drive the terminal (HO-8).
func (r handoffReport) line(id string, a ...string) {
	args := make([]any, len(a))
	for i, s := range a {
		args[i] = textesc.String(s, false)
	}
	fmt.Fprintln(r.out, r.p.Sprintf(id, args...))
}

// lineNo is a block's line number as the report prints it.
func lineNo(n int) string { return strconv.Itoa(n) }
