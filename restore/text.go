package restore

import (
	"fmt"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/textcut"
)

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// oneLine cuts s at n runes (marked with textcut.Marker) and escapes it so
// that it stays on one line and holds no control or bidi characters.
func oneLine(s string, n int) string {
	s, cut := textcut.Runes(s, n)
	var b strings.Builder
	escape(&b, s)
	return textcut.Marked(b.String(), cut)
}

// quote renders text as a quoted block, "> " before every line, so that
// nothing in it can pass for the pointer's own lines; control characters
// are escaped and CRLF is taken as a line break.
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
		escape(&b, ln)
	}
	return b.String()
}

// escape writes s with control characters (C0 but tab, line breaks
// included; DEL; C1), line and paragraph separators, bidi controls and BOMs
// shown as \xNN or \uNNNN, so that quoted text cannot start a line of its own
// or reorder what is displayed. Invalid UTF-8 becomes U+FFFD.
func escape(b *strings.Builder, s string) {
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20, r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f,
			r == 0x061c, r == 0x200e, r == 0x200f,
			r >= 0x2028 && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069,
			r == 0xfeff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
}
