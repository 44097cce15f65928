package restore

import (
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/textcut"
	"github.com/compact-guard/compact-guard/snapshot/textesc"
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
