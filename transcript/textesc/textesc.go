// Package textesc shows the characters that hide or rearrange text, or
// look blank, as escapes, so that text taken from a transcript, a payload or the file
// system cannot pass for something else where compact-guard prints it: in
// the pointer a compacted session reads (specs/security.md SEC-20), in
// `list` on a terminal (SEC-21), and inside the quotes of the summary hint
// (Quote; specs/precompact.md PC-30).
package textesc

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Hidden reports the characters Write escapes: C0 controls, DEL and C1
// controls (ESC and CSI start terminal sequences); the line and paragraph
// separators; format characters (Unicode Cf: zero-width space, joiners,
// word joiner, bidirectional controls, the BOM, the soft hyphen, the tag
// characters U+E0000–E007F that spell ASCII invisibly); the other
// default-ignorable code points (Hangul fillers, the combining grapheme
// joiner, Khmer and Mongolian invisibles, U+E0080–E0FFF); variation
// selectors, which render as nothing; and the blank-looking characters
// (Blank).
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0xa0:
		return false
	}
	return Blank(r) || unicode.In(r, unicode.Zl, unicode.Zp, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// Blank reports the characters that render as a space, or as nothing, and
// are not the plain space U+0020 (specs/security.md SEC-34): every other
// space separator (Unicode Zs: no-break, en, em, thin, hair, narrow no-break,
// medium mathematical and ideographic spaces, the Ogham space mark), U+2800
// BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD, which
// fonts draw empty. Between words they make a name or a path read as a
// sentence of its own; escaped, they show what they are. (The Hangul fillers
// U+115F, U+1160, U+3164 and U+FFA0 are default-ignorable, so Hidden has
// them already.)
func Blank(r rune) bool {
	switch {
	case r <= 0x20:
		return false
	case r == 0x2800, r == 0x1d159:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// presentation reports the two variation selectors in common use, text
// (U+FE0E) and emoji (U+FE0F) presentation: "❤️" is U+2764 U+FE0F.
func presentation(r rune) bool { return r == 0xfe0e || r == 0xfe0f }

// Escape is how r is shown when Hidden: \xNN for C0 controls and DEL,
// \uNNNN below U+10000, \UNNNNNNNN above.
func Escape(r rune) string {
	var pre string
	var width int
	switch {
	case r < 0x80:
		pre, width = `\x`, 2
	case r < 0x10000:
		pre, width = `\u`, 4
	default:
		pre, width = `\U`, 8
	}
	h := strconv.FormatInt(int64(r), 16)
	return pre + strings.Repeat("0", max(0, width-len(h))) + h
}

// Bounded returns s with every Hidden character escaped (but tab, when
// keepTab), cut so that the result holds at most n UTF-16 units, the way
// Claude Code counts (never inside a character or an escape), and whether
// anything was cut. A variation selector U+FE0E or U+FE0F right after a
// visible character is kept: it only picks that character's presentation.
// Invalid UTF-8 becomes U+FFFD. The walk stops at the cut, so a megabyte
// value costs only what is kept.
func Bounded(s string, n int, keepTab bool) (string, bool) {
	var b strings.Builder
	units := 0
	prevVisible := false
	for _, r := range s {
		hidden := Hidden(r) && !(keepTab && r == '\t') && !(prevVisible && presentation(r))
		piece, w := string(r), utf16.RuneLen(r)
		if hidden {
			piece = Escape(r)
			w = len(piece) // ASCII
		}
		if units+w > n {
			return b.String(), true
		}
		units += w
		b.WriteString(piece)
		prevVisible = !hidden && !presentation(r)
	}
	return b.String(), false
}

// String is s with every Hidden character escaped, but tab when keepTab.
func String(s string, keepTab bool) string {
	out, _ := Bounded(s, int(^uint(0)>>1), keepTab)
	return out
}

// Quote returns s inside double quotes that nothing in s can close, for
// text from a transcript, a repository or the file system that a sentence
// of compact-guard's own quotes inline (the summary hint, specs/precompact.md
// PC-30): the quote character and the backslash are escaped (\" and \\),
// line breaks and tabs are shown as \n, \r and \t, the double quotation
// marks that read as one (“ ” „ ‟ ″ ‶ ＂) as \uNNNN, and every other Hidden
// character as Escape shows it, so the text stays on one line, cannot end
// the quote and hides nothing. The quoted text is cut so that it holds at
// most n UTF-16 units (the quotes not counted), never inside a character or
// an escape; cut says whether it was. A variation selector U+FE0E or U+FE0F
// right after a visible character is kept, as Bounded keeps it. Invalid
// UTF-8 becomes U+FFFD. The walk stops at the cut.
func Quote(s string, n int) (quoted string, cut bool) {
	var b strings.Builder
	b.WriteByte('"')
	units := 0
	prevVisible := false
	for _, r := range s {
		piece, w, visible := string(r), utf16.RuneLen(r), true
		switch {
		case r == '"' || r == '\\':
			piece, w = `\`+string(r), 2
		case r == '\n':
			piece, w, visible = `\n`, 2, false
		case r == '\r':
			piece, w, visible = `\r`, 2, false
		case r == '\t':
			piece, w, visible = `\t`, 2, false
		case quoteLike(r):
			piece = Escape(r)
			w = len(piece)
		case prevVisible && presentation(r):
			visible = false // kept: it only picks the look of the character before it
		case Hidden(r):
			piece, visible = Escape(r), false
			w = len(piece)
		}
		if units+w > n {
			cut = true
			break
		}
		units += w
		b.WriteString(piece)
		prevVisible = visible && !presentation(r)
	}
	b.WriteByte('"')
	return b.String(), cut
}

// quoteLike reports the double quotation marks that a reader may take for
// the ASCII one, and so for the end of a quote.
func quoteLike(r rune) bool {
	switch r {
	case 0x201c, 0x201d, 0x201e, 0x201f, 0x2033, 0x2036, 0xff02:
		return true
	}
	return false
}
