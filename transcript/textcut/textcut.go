// Package textcut is the one way compact-guard shortens text: at a
// character boundary, walking no further than the cut (a megabyte value
// costs only what is kept), and marked with Marker. Records, the Markdown,
// the pointer, the log and git subjects all cut through it, so a cut looks
// the same wherever it is read.
package textcut

import "unicode/utf8"

// Marker ends text that was cut. It is the same in every language: it ends
// text taken verbatim from the transcript, git or an error, which is never
// translated either.
const Marker = " […]"

// Runes returns s cut to at most n runes (code points) and whether anything
// was cut. Invalid UTF-8 counts one rune per byte, as range does.
func Runes(s string, n int) (string, bool) {
	if n <= 0 {
		return "", s != ""
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}

// Bytes returns s cut to at most n bytes, never inside a UTF-8 sequence,
// and whether anything was cut. It looks back at most utf8.UTFMax-1 bytes
// for the start of the character the cut falls in, so that invalid UTF-8
// (stray continuation bytes) is cut at n, not emptied.
func Bytes(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	if n <= 0 {
		return "", true
	}
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if !utf8.RuneStart(s[i]) {
			continue
		}
		if i < n {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size > n {
				return s[:i], true
			}
		}
		break
	}
	return s[:n], true
}

// Marked returns s followed by Marker when cut is set, so that a cut reads
// Marked(Runes(s, n)).
func Marked(s string, cut bool) string {
	if cut {
		return s + Marker
	}
	return s
}

// UTF16Len is the length of s in UTF-16 code units, the way JavaScript's
// String length counts it and so Claude Code's limits: 2 for a character
// above U+FFFF, 1 for any other (an invalid byte becomes U+FFFD, 1).
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// UTF16 returns s cut to at most n UTF-16 units, never inside a character
// (so never between the halves of a surrogate pair), and whether anything
// was cut.
func UTF16(s string, n int) (string, bool) {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i], true
		}
		units += w
	}
	return s, false
}
