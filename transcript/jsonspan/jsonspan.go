// Package jsonspan walks JSON without building values: a line's keys and
// values are spans of its bytes, decoded only when used, so a reader's cost
// follows what it looks at (TR-56). It is internal to transcript/.
package jsonspan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"time"
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

func SkipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the index just past the string starting at b[i] == '"'.
func SkipString(b []byte, i int) (int, error) {
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

// SkipValue returns the index just past the JSON value starting at b[i]
// (after optional white space).
func SkipValue(b []byte, i int) (int, error) {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; c {
	case '"':
		return SkipString(b, i)
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
			j, err := SkipString(b, i)
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

// WalkObject walks the object starting at b[i] (after optional white
// space). For each member fn gets the raw key (quotes removed; unescaped only
// when it holds an escape) and the index where the value starts; fn consumes
// the value and returns the index just past it, or -1 to stop the walk, which
// then returns (-1, nil). Otherwise walkObject returns the index just past
// the object.
func WalkObject(b []byte, i int, fn func(key []byte, vs int) (int, error)) (int, error) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		ke, err := SkipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			// Escaped keys are legal JSON; compare them unescaped.
			if s, ok := Unquote(b[i:ke]); ok {
				key = []byte(s)
			}
		}
		i = SkipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		vs := SkipSpace(b, i+1)
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
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = SkipSpace(b, i+1)
	}
}

// WalkArray walks the array starting at b[i] like walkObject walks objects.
func WalkArray(b []byte, i int, fn func(vs int) (int, error)) (int, error) {
	i = SkipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, errSyntax
	}
	i = SkipSpace(b, i+1)
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
		i = SkipSpace(b, ve)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = SkipSpace(b, i+1)
	}
}

// EachField calls fn for every member of the object at b[i] with the raw
// key and the value's span; fn returns false to stop early.
func EachField(b []byte, i int, fn func(key []byte, vs, ve int) bool) (int, error) {
	return WalkObject(b, i, func(key []byte, vs int) (int, error) {
		ve, err := SkipValue(b, vs)
		if err != nil || !fn(key, vs, ve) {
			return -1, err
		}
		return ve, nil
	})
}

// EachElem calls fn for every element of the array at b[i] with the
// element's span; fn returns false to stop early.
func EachElem(b []byte, i int, fn func(vs, ve int) bool) (int, error) {
	return WalkArray(b, i, func(vs int) (int, error) {
		ve, err := SkipValue(b, vs)
		if err != nil || !fn(vs, ve) {
			return -1, err
		}
		return ve, nil
	})
}

// Span is a raw JSON value inside a line; the zero span means "absent".
type Span struct{ S, E int }

func (sp Span) OK() bool { return sp.E > sp.S }

func (sp Span) Raw(b []byte) []byte { return b[sp.S:sp.E] }

// IsString reports whether the value is a JSON string.
func (sp Span) IsString(b []byte) bool { return sp.OK() && b[sp.S] == '"' }

// IsTrue reports whether the value is the literal true.
func (sp Span) IsTrue(b []byte) bool { return sp.OK() && string(b[sp.S:sp.E]) == "true" }

// Str unquotes a string value; ok is false for anything else.
func (sp Span) Str(b []byte) (string, bool) {
	if !sp.IsString(b) {
		return "", false
	}
	return Unquote(b[sp.S:sp.E])
}

// Time is the string value as an RFC 3339 time, as every client writes
// its timestamps; false when it is no string or no such time.
func (sp Span) Time(b []byte) (time.Time, bool) {
	s, ok := sp.Str(b)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// StrEq reports whether the value is a JSON string equal to want; the common
// unescaped case compares bytes in place.
func (sp Span) StrEq(b []byte, want string) bool {
	if !sp.IsString(b) {
		return false
	}
	inner := b[sp.S+1 : sp.E-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == want
	}
	s, ok := Unquote(b[sp.S:sp.E])
	return ok && s == want
}

// Int64 parses an integer value; floats are truncated, anything else fails.
func (sp Span) Int64(b []byte) (int64, bool) {
	if !sp.OK() {
		return 0, false
	}
	raw := string(b[sp.S:sp.E])
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n, true
	}
	if f, err := strconv.ParseFloat(raw, 64); err == nil && f >= -9e18 && f <= 9e18 {
		return int64(f), true
	}
	return 0, false
}

// Fields fills out[k] with the span of key names[k] in the object at sp;
// later duplicates win, as with encoding/json.
func (sp Span) Fields(b []byte, names []string, out []Span) bool {
	for k := range out {
		out[k] = Span{}
	}
	if !sp.OK() || b[sp.S] != '{' {
		return false
	}
	_, err := EachField(b[:sp.E], sp.S, func(key []byte, vs, ve int) bool {
		for k, n := range names {
			if string(key) == n {
				out[k] = Span{vs, ve}
				break
			}
		}
		return true
	})
	return err == nil
}

// Unquote decodes a complete JSON string literal (with quotes). Invalid UTF-8
// becomes U+FFFD as with encoding/json.
func Unquote(lit []byte) (string, bool) {
	s, _, ok := UnquotePrefix(lit, -1)
	return s, ok
}

// UnquotePrefix decodes at most maxRunes runes of a JSON string literal
// (maxRunes < 0: all). more reports that runes were left undecoded, so a
// prompt of megabytes costs only the prefix that is kept.
func UnquotePrefix(lit []byte, maxRunes int) (s string, more bool, ok bool) {
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

// TopFields walks the top level of a line and fills out[k] with the span of
// keys[k] (the first occurrence of typeKey, later duplicates of the others,
// as encoding/json does); it stops early, without checking the rest, once
// the value of typeKey fails keep. It returns false when the line is not a
// JSON object (or, with strict, not a whole valid one).
func TopFields(line []byte, keys []string, typeKey int, keep func(typ []byte) bool, strict bool, out []Span) (stopped, ok bool) {
	for i := range out {
		out[i] = Span{}
	}
	i := SkipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return false, false
	}
	typed := false
	end, err := WalkObject(line, i, func(key []byte, vs int) (int, error) {
		ve, err := SkipValue(line, vs)
		if err != nil {
			return ve, err
		}
		for k, name := range keys {
			if string(key) != name {
				continue
			}
			if k == typeKey {
				if typed {
					break
				}
				typed = true
				if !keep(UnquoteRawKey(line[vs:ve])) {
					stopped = true
					if !strict {
						return -1, nil
					}
				}
			}
			out[k] = Span{vs, ve}
		}
		return ve, nil
	})
	if err != nil || end >= 0 && SkipSpace(line, end) != len(line) {
		return false, false
	}
	return stopped, true
}

// UnquoteRawKey returns the bytes of a string value for a type comparison,
// unescaping only when needed.
func UnquoteRawKey(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, _ := Unquote(v)
	return []byte(s)
}
