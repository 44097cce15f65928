package restore

import (
	"strings"

	"github.com/compact-guard/compact-guard/transcript/textcut"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// oneLine escapes s (textesc: controls, line breaks, invisible and format
// characters) so that it stays on one line and hides nothing, and cuts the
// escaped text at n UTF-16 units, marked with textcut.Marker.
func oneLine(s string, n int) string {
	return textcut.Marked(textesc.Bounded(s, n, true))
}

// inline quotes s on one line with textesc.Quote, cut at n UTF-16 units of
// the quoted text and marked after the closing quote: every piece of
// repository, transcript or file-system text that a sentence of ours names
// inline goes through it, so that nothing in it can close the quote and pass
// for a sentence of the pointer, the notice, the residue or the hint
// (specs/security.md SEC-35).
func inline(s string, n int) string { return textcut.Marked(textesc.Quote(s, n)) }

// ident shows a name the transcript gives (a tool, a model, a client
// release) as it is when it is a plain identifier of at most n bytes —
// letters, digits and _ . : / @ + [ ] - with no space, so that it cannot
// hold a sentence — and quoted by inline otherwise (SEC-35); "" stays "".
func ident(s string, n int) string {
	if s == "" {
		return ""
	}
	if len(s) <= n && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.:/@+[]-", r))
	}) < 0 {
		return s
	}
	return inline(s, n)
}

// quote renders text as a quoted block, "> " before every line, so that
// nothing in it can pass for the pointer's own lines; control, invisible
// and format characters are escaped and CRLF is taken as a line break.
func quote(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for i, ln := range strings.Split(s, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if ln == "" {
			b.WriteByte('>')
			continue
		}
		b.WriteString("> ")
		b.WriteString(textesc.String(ln, true))
	}
	return b.String()
}
