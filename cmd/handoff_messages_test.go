package cmd

import (
	"bytes"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

// handoff's report reads the same from its catalogue as it did from the
// inline English and Russian texts: every message in both languages, line
// numbers without digit grouping, the state file's text escaped.
//
// spec: HO-6, HO-8, HO-10
func TestHandoffReportMessages(t *testing.T) {
	const path, heading = "/p/SESSION-STATE.md", "## HANDOFF 2026-12-07 10:00"
	b := &handoff.Block{Line: 1234, Session: "0123456789abcdef"}
	for _, c := range []struct {
		lang snapshot.Lang
		want string
	}{
		{snapshot.English, "handoff current: /p/SESSION-STATE.md line 1234, ## HANDOFF 2026-12-07 10:00\n" +
			"(the context crossed its first threshold at 2026-12-07T10:00:00Z)\n" +
			"(no threshold crossed since the compaction at 2026-12-07T10:00:00Z)\n" +
			"(no threshold crossed since the session started at 2026-12-07T10:00:00Z)\n" +
			"no SESSION-STATE.md found in /a, /b\n" +
			"handoff not ready: /p/SESSION-STATE.md line 1234\n" +
			"- written by another session (01234567), not this one (fedcba98); this session's own: compact-guard handoff --template\n" +
			"handoff not ready: /p/SESSION-STATE.md\n"},
		{snapshot.Russian, "передача актуальна: /p/SESSION-STATE.md, строка 1234, ## HANDOFF 2026-12-07 10:00\n" +
			"(контекст прошёл первый порог в 2026-12-07T10:00:00Z)\n" +
			"(после сжатия в 2026-12-07T10:00:00Z порог не пройден)\n" +
			"(с начала сессии в 2026-12-07T10:00:00Z порог не пройден)\n" +
			"SESSION-STATE.md не найден в /a, /b\n" +
			"передача не готова: /p/SESSION-STATE.md, строка 1234\n" +
			"- блок написан другой сессией (01234567), не этой (fedcba98); своя передача: compact-guard handoff --template\n" +
			"передача не готова: /p/SESSION-STATE.md\n"},
	} {
		var out bytes.Buffer
		r := newHandoffReport(&out, c.lang)
		const at = "2026-12-07T10:00:00Z"
		r.line(mHoCurrent, path, lineNo(b.Line), heading)
		r.line(mHoSinceCrossing, at)
		r.line(mHoSinceCompaction, at)
		r.line(mHoSinceStart, at)
		r.line(mHoNotFound, "SESSION-STATE.md", "/a, /b")
		notReady(r, path, b, []string{foreignProblem(r, b, "fedcba9876543210")})
		notReady(r, path, nil, nil)
		if out.String() != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.lang, out.String(), c.want)
		}
	}
	var out bytes.Buffer
	newHandoffReport(&out, snapshot.English).line(mHoNotReady, "/p/\x1b[2Jx\rforged")
	if want := "handoff not ready: " + textesc.String("/p/\x1b[2Jx\rforged", false) + "\n"; out.String() != want || bytes.ContainsAny(out.Bytes(), "\x1b\r") {
		t.Errorf("escaped path: %q, want %q", out.String(), want)
	}
}
