package residue

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// index is one held text prepared once for every rule: its words (RS-5),
// its quoted spans and lines as word sequences (RS-7), its text with white
// space collapsed (RS-13) and its path tokens (RS-9). Each part is made on
// first need: a summary holding no short prompt never has its units built.
type index struct {
	raw string

	foldOnce sync.Once
	folded   string // raw composed and case folded, once for words and units

	wordsOnce sync.Once
	words     string // " w1 w2 … " (RS-5)

	unitsOnce sync.Once
	units     map[string]bool // word sequences of quoted spans and lines

	spaceOnce sync.Once
	spaced    string // white space collapsed (RS-13)

	pathsOnce sync.Once
	tokens    map[string]bool // path tokens (RS-9)
	written   map[string]bool // the tokens written with a slash (RS-29)
	slashed   string          // raw with '\' as '/', for paths with spaces
}

func newIndex(raw string) *index { return &index{raw: raw} }

func (x *index) fold() string {
	x.foldOnce.Do(func() { x.folded = fold(x.raw) })
	return x.folded
}

func (x *index) wordSeq() string {
	x.wordsOnce.Do(func() { x.words = foldedWords(x.fold()) })
	return x.words
}

func (x *index) unitSet() map[string]bool {
	x.unitsOnce.Do(func() { x.units = units(x.fold()) })
	return x.units
}

func (x *index) spaceText() string {
	x.spaceOnce.Do(func() { x.spaced = collapseSpace(unquoteLines(x.raw)) })
	return x.spaced
}

// unquoteLines drops one Markdown quotation marker ("> ", or ">" alone) at
// the start of each line (RS-13): a command quoted over several lines (the
// pointer's and the residue's quotes, a summary's) is the command.
func unquoteLines(s string) string {
	if !strings.Contains(s, ">") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, ln := range lines {
		switch {
		case strings.HasPrefix(ln, "> "):
			lines[i] = ln[2:]
		case ln == ">" || ln == ">\r":
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

func (x *index) pathTokens() (map[string]bool, string) {
	x.pathsOnce.Do(func() {
		x.slashed = strings.ReplaceAll(x.raw, `\`, "/")
		x.tokens, x.written = pathTokens(x.slashed)
	})
	return x.tokens, x.slashed
}

// slashTokens is the set of path tokens the held text wrote with a slash
// ("notes/", "./notes", "docs/notes"): what names a folder (RS-29).
func (x *index) slashTokens() map[string]bool {
	x.pathTokens()
	return x.written
}

// fold composes s (NFC) and lowers its case, rune by rune (RS-5): a
// summary that writes a prompt's first word capitalised has not changed the
// prompt. Unicode's simple lower case, not full case folding (which would
// also make "ß" "ss"): it tells the same words apart for matching, and
// strings.ToLower walks ASCII at memory speed where cases.Fold takes a
// millisecond for a summary (PF-22).
func fold(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// isWordRune is a letter, a digit or a combining mark; everything else
// separates words (RS-5).
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// words is s as its sequence of words (RS-5): composed (NFC), case folded,
// every run of characters other than letters, digits and marks taken as one
// separator, joined by single spaces with a space at each end, so that a
// contiguous run of words is found by a substring search.
func words(s string) string { return foldedWords(fold(s)) }

// foldedWords is words for a text folded already. ASCII is told apart
// byte by byte; only other characters are decoded and looked up.
func foldedWords(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	sep := true
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' {
				b.WriteByte(c)
				sep = false
			} else if !sep {
				b.WriteByte(' ')
				sep = true
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if isWordRune(r) {
			b.WriteString(s[i : i+size])
			sep = false
		} else if !sep {
			b.WriteByte(' ')
			sep = true
		}
		i += size
	}
	if !sep {
		b.WriteByte(' ')
	}
	return b.String()
}

// wordCount is how many words a words() sequence holds.
func wordCount(seq string) int { return strings.Count(seq, " ") - 1 }

// imageMark is what the extractor writes for an image block (TR-16): no
// summary writes it, and it is no word the user typed.
const imageMark = "[image]"

// headWords is the word sequence of the first n characters of s (RS-6): a
// word that the cut splits is left out, since the held text has it whole.
func headWords(s string, n int) string {
	s = strings.ReplaceAll(s, imageMark, " ")
	s = strings.TrimSuffix(s, textcut.Marker)
	head, cut := textcut.Runes(s, n)
	if cut {
		last, _ := utf8.DecodeLastRuneInString(head)
		next, _ := utf8.DecodeRuneInString(s[len(head):])
		if isWordRune(last) && isWordRune(next) {
			head = strings.TrimRightFunc(head, isWordRune)
		}
	}
	return words(head)
}

// withoutNumber drops a numbered list item's marker ("3. ", "12) ") at a
// line's start: its number is no word of the item.
func withoutNumber(ln string) string {
	t := strings.TrimLeft(ln, " \t")
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i >= len(t) || (t[i] != '.' && t[i] != ')') || i+1 >= len(t) || (t[i+1] != ' ' && t[i+1] != '\t') {
		return ln
	}
	return t[i+2:]
}

// closingQuote is the quotation mark that closes one a summary opens
// with r, and whether r opens a quotation at all. A string scan, not a
// table: the package is linked into every hook, which build nothing at
// start (performance.md PF-16).
func closingQuote(r rune) (rune, bool) {
	switch r {
	case '"', '`', '\'':
		return r, true
	case '“', '„':
		return '”', true
	case '«':
		return '»', true
	case '‘':
		return '’', true
	}
	return 0, false
}

// maxUnitBytes bounds a quoted span: a quote longer than this is no unit of
// a short text.
const maxUnitBytes = 400

// units is the set of word sequences of s's quoted spans and lines (RS-7):
// what a summary writes as a unit, a quotation or a list item of its own.
// s is folded already.
func units(s string) map[string]bool {
	out := map[string]bool{}
	for _, ln := range strings.Split(s, "\n") {
		ln = withoutNumber(ln)
		if w := foldedWords(ln); w != " " {
			out[w] = true
		}
		for i, r := range ln {
			closing, ok := closingQuote(r)
			if !ok {
				continue
			}
			if r == '\'' && i > 0 {
				// An apostrophe inside a word opens nothing.
				prev, _ := utf8.DecodeLastRuneInString(ln[:i])
				if isWordRune(prev) {
					continue
				}
			}
			rest := ln[i+utf8.RuneLen(r):]
			j := strings.IndexRune(rest, closing)
			if j <= 0 || j > maxUnitBytes {
				continue
			}
			if w := foldedWords(rest[:j]); w != " " {
				out[w] = true
			}
		}
	}
	return out
}

// collapseSpace turns every run of white space into one space and trims
// both ends (RS-13).
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// isPathSeparator reports the characters that end a path token (RS-9):
// white space, quotation marks, brackets, and the punctuation Markdown and
// prose put around paths.
func isPathSeparator(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	switch r {
	case '`', '"', '\'', '(', ')', '<', '>', '[', ']', '{', '}', ',', ';', '|', '*', '=', '“', '”', '‘', '’', '«', '»':
		return true
	}
	return false
}

// withoutLineSuffix drops a ":line" or ":line:column" after a path, and a
// "#L12" or "#L12-L20" anchor.
func withoutLineSuffix(t string) string {
	if i := strings.LastIndex(t, "#L"); i > 0 && strings.Trim(t[i+2:], "0123456789-L") == "" {
		t = t[:i]
	}
	for k := 0; k < 2; k++ {
		i := strings.LastIndexByte(t, ':')
		if i <= 0 || i == len(t)-1 || strings.Trim(t[i+1:], "0123456789") != "" {
			break
		}
		t = t[:i]
	}
	return t
}

// pathTokens is the set of path-like tokens of s (RS-9), each cleaned as
// cleanToken says, and the set of those that were written with a slash
// before cleaning took it off (RS-29): "notes/" and "./notes" are paths,
// "notes" is a word.
func pathTokens(s string) (all, written map[string]bool) {
	all, written = map[string]bool{}, map[string]bool{}
	for _, f := range strings.FieldsFunc(s, isPathSeparator) {
		if t := cleanToken(f); t != "" {
			all[t] = true
			if strings.Contains(strings.TrimPrefix(f, "file://"), "/") {
				written[t] = true
			}
		}
	}
	return all, written
}

// cleanToken strips what surrounds a path in prose (RS-9): a "file://"
// scheme, a leading "@", "./" or "~/", a trailing ":line[:column]", and the
// sentence's punctuation after it.
func cleanToken(t string) string {
	t = strings.TrimPrefix(t, "file://")
	t = strings.TrimLeft(t, "@")
	t = strings.TrimRight(t, ".:!?")
	t = withoutLineSuffix(t)
	t = strings.TrimRight(t, ".:!?")
	for strings.HasPrefix(t, "./") {
		t = t[2:]
	}
	t = strings.TrimPrefix(t, "~/")
	t = strings.TrimRight(t, "/")
	return t
}
