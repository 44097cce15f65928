package transcript

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// The skimmer walks JSON structure without building values: strings are
// skipped with bytes.IndexByte, so a multi-megabyte tool output costs a memchr
// rather than a full encoding/json decode. It checks structure (brackets,
// colons, commas, string termination, literals) but not every escape inside a
// skipped string; values that are used are unquoted strictly.

var errSyntax = errors.New("transcript: malformed JSON")

// maxDepth bounds nesting so hostile input cannot blow the stack of the
// recursive helpers (skipping itself is iterative).
const maxDepth = 10000

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	i++ // opening quote
	for {
		q := nextQuote(b, i)
		if q < 0 {
			return 0, errSyntax
		}
		// An escaped quote has an odd run of backslashes before it.
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, nil
		}
		i = q + 1
	}
}

// nextQuote returns the index of the first '"' at or after i, or -1. Most
// strings are short, so the first 32 bytes are looked at eight at a time
// before paying for a call to bytes.IndexByte.
func nextQuote(b []byte, i int) int {
	const ones, highs, quotes = 0x0101010101010101, 0x8080808080808080, 0x2222222222222222
	for end := min(len(b), i+32); i+8 <= end; i += 8 {
		v := binary.LittleEndian.Uint64(b[i:]) ^ quotes
		if t := (v - ones) &^ v & highs; t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	if j := bytes.IndexByte(b[i:], '"'); j >= 0 {
		return i + j
	}
	return -1
}

// structural marks the bytes skipValue must look at inside containers.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipValue returns the index just past the JSON value starting at b[i]
// (after optional white space).
func skipValue(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; c {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipContainer(b, i)
	case 't':
		return skipLiteral(b, i, "true")
	case 'f':
		return skipLiteral(b, i, "false")
	case 'n':
		return skipLiteral(b, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			j := i + 1
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
				j++
			}
			return j, nil
		}
		return 0, errSyntax
	}
}

func skipLiteral(b []byte, i int, lit string) (int, error) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, errSyntax
	}
	return i + len(lit), nil
}

// skipContainer skips an object or array by bracket matching; strings inside
// are skipped whole so brackets in text do not count.
func skipContainer(b []byte, i int) (int, error) {
	var stack [64]byte
	open := stack[:0]
	for i < len(b) {
		c := b[i]
		if !structural[c] {
			i++
			continue
		}
		switch c {
		case '"':
			j, err := skipString(b, i)
			if err != nil {
				return 0, err
			}
			i = j
			continue
		case '{', '[':
			if len(open) >= maxDepth {
				return 0, errSyntax
			}
			open = append(open, c)
		case '}', ']':
			if len(open) == 0 {
				return 0, errSyntax
			}
			want := byte('{')
			if c == ']' {
				want = '['
			}
			if open[len(open)-1] != want {
				return 0, errSyntax
			}
			open = open[:len(open)-1]
			if len(open) == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, errSyntax
}

// walkObject walks the object starting at b[i] (after optional white
// space). For each member fn gets the raw key (quotes removed; unescaped only
// when it holds an escape) and the index where the value starts; fn consumes
// the value and returns the index just past it, or -1 to stop the walk, which
// then returns (-1, nil). Otherwise walkObject returns the index just past
// the object.
func walkObject(b []byte, i int, fn func(key []byte, vs int) (int, error)) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		ke, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			// Escaped keys are legal JSON; compare them unescaped.
			if s, ok := unquote(b[i:ke]); ok {
				key = []byte(s)
			}
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		vs := skipSpace(b, i+1)
		if vs >= len(b) {
			return 0, errSyntax
		}
		ve, err := fn(key, vs)
		if err != nil {
			return 0, err
		}
		if ve < 0 {
			return -1, nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// walkArray walks the array starting at b[i] like walkObject walks objects.
func walkArray(b []byte, i int, fn func(vs int) (int, error)) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		if i >= len(b) {
			return 0, errSyntax
		}
		ve, err := fn(i)
		if err != nil {
			return 0, err
		}
		if ve < 0 {
			return -1, nil
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// eachField calls fn for every member of the object at b[i] with the raw
// key and the value's span; fn returns false to stop early.
func eachField(b []byte, i int, fn func(key []byte, vs, ve int) bool) (int, error) {
	return walkObject(b, i, func(key []byte, vs int) (int, error) {
		ve, err := skipValue(b, vs)
		if err != nil || !fn(key, vs, ve) {
			return -1, err
		}
		return ve, nil
	})
}

// eachElem calls fn for every element of the array at b[i] with the
// element's span; fn returns false to stop early.
func eachElem(b []byte, i int, fn func(vs, ve int) bool) (int, error) {
	return walkArray(b, i, func(vs int) (int, error) {
		ve, err := skipValue(b, vs)
		if err != nil || !fn(vs, ve) {
			return -1, err
		}
		return ve, nil
	})
}

// span is a raw JSON value inside a line; the zero span means "absent".
type span struct{ s, e int }

func (sp span) ok() bool { return sp.e > sp.s }

func (sp span) raw(b []byte) []byte { return b[sp.s:sp.e] }

// isString reports whether the value is a JSON string.
func (sp span) isString(b []byte) bool { return sp.ok() && b[sp.s] == '"' }

// isTrue reports whether the value is the literal true.
func (sp span) isTrue(b []byte) bool { return sp.ok() && string(b[sp.s:sp.e]) == "true" }

// str unquotes a string value; ok is false for anything else.
func (sp span) str(b []byte) (string, bool) {
	if !sp.isString(b) {
		return "", false
	}
	return unquote(b[sp.s:sp.e])
}

// strEq reports whether the value is a JSON string equal to want; the common
// unescaped case compares bytes in place.
func (sp span) strEq(b []byte, want string) bool {
	if !sp.isString(b) {
		return false
	}
	inner := b[sp.s+1 : sp.e-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == want
	}
	s, ok := unquote(b[sp.s:sp.e])
	return ok && s == want
}

// int64 parses an integer value; floats are truncated, anything else fails.
func (sp span) int64(b []byte) (int64, bool) {
	if !sp.ok() {
		return 0, false
	}
	raw := string(b[sp.s:sp.e])
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil && f >= -9e18 && f <= 9e18 {
		return int64(f), true
	}
	return 0, false
}

// fields fills out[k] with the span of key names[k] in the object at sp;
// later duplicates win, as with encoding/json.
func (sp span) fields(b []byte, names []string, out []span) bool {
	for k := range out {
		out[k] = span{}
	}
	if !sp.ok() || b[sp.s] != '{' {
		return false
	}
	_, err := eachField(b[:sp.e], sp.s, func(key []byte, vs, ve int) bool {
		for k, n := range names {
			if string(key) == n {
				out[k] = span{vs, ve}
				break
			}
		}
		return true
	})
	return err == nil
}

// unquote decodes a complete JSON string literal (with quotes). Invalid UTF-8
// becomes U+FFFD as with encoding/json.
func unquote(lit []byte) (string, bool) {
	s, _, ok := unquotePrefix(lit, -1)
	return s, ok
}

// unquotePrefix decodes at most maxRunes runes of a JSON string literal
// (maxRunes < 0: all). more reports that runes were left undecoded, so a
// prompt of megabytes costs only the prefix that is kept.
func unquotePrefix(lit []byte, maxRunes int) (s string, more bool, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false, false
	}
	in := lit[1 : len(lit)-1]
	if maxRunes < 0 && bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) && !hasControl(in) {
		return string(in), false, true
	}
	var out []byte
	if maxRunes >= 0 {
		out = make([]byte, 0, min(len(in), maxRunes*3+4))
	} else {
		out = make([]byte, 0, len(in))
	}
	runes := 0
	for i := 0; i < len(in); {
		if maxRunes >= 0 && runes >= maxRunes {
			return string(out), true, true
		}
		// Copy a run of plain ASCII at once.
		j := i
		lim := len(in)
		if maxRunes >= 0 {
			lim = min(lim, i+maxRunes-runes)
		}
		for j < lim && in[j] >= 0x20 && in[j] < utf8.RuneSelf && in[j] != '\\' {
			j++
		}
		if j > i {
			out = append(out, in[i:j]...)
			runes += j - i
			i = j
			continue
		}
		c := in[i]
		switch {
		case c == '\\':
			if i+1 >= len(in) {
				return "", false, false
			}
			switch in[i+1] {
			case '"', '\\', '/':
				out = append(out, in[i+1])
				i += 2
			case 'b':
				out = append(out, '\b')
				i += 2
			case 'f':
				out = append(out, '\f')
				i += 2
			case 'n':
				out = append(out, '\n')
				i += 2
			case 'r':
				out = append(out, '\r')
				i += 2
			case 't':
				out = append(out, '\t')
				i += 2
			case 'u':
				r, n := decodeU(in[i:])
				if n == 0 {
					return "", false, false
				}
				out = utf8.AppendRune(out, r)
				i += n
			default:
				return "", false, false
			}
		case c < 0x20:
			return "", false, false
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, in[i:i+n]...)
			}
			i += n
		}
		runes++
	}
	return string(out), false, true
}

func hasControl(b []byte) bool {
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// decodeU decodes \uXXXX (and a following low surrogate) at the start of b;
// n is the number of bytes used, 0 on error. Lone surrogates become U+FFFD.
func decodeU(b []byte) (rune, int) {
	r := hex4(b)
	if r < 0 {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2 := hex4(b[6:]); r2 >= 0 && len(b) >= 12 && b[6] == '\\' {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// hex4 parses `\uXXXX` at the start of b, -1 when it is not one.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
