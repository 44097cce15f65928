package transcripttest

import (
	"bytes"
	"encoding/json"
	"hash/fnv"
	"io"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// Relayout writes one JSON line again as Python's json.dumps writes it by
// default — ", " between members and elements, ": " after a key, every
// character outside ASCII as a \uXXXX escape — with each object's keys in
// another order, a permutation fixed by seed and the keys. It is valid JSON
// of the same value that is not Claude Code's byte layout, so that a test
// can show that nothing decides by that layout (specs/transcript.md TR-56).
// An object holding a key twice keeps its order: which one comes first
// decides. A line that is not whole valid JSON, or holds invalid UTF-8, is
// returned unchanged; so is a trailing '\r'.
func Relayout(line []byte, seed uint64) []byte {
	body, cr := bytes.CutSuffix(line, []byte("\r"))
	if len(bytes.TrimSpace(body)) == 0 || !utf8.Valid(body) || !json.Valid(body) {
		return line
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	v, err := readValue(d)
	if err != nil {
		return line
	}
	if _, err := d.Token(); err != io.EOF {
		return line
	}
	out := writeValue(nil, v, seed)
	if cr {
		out = append(out, '\r')
	}
	return out
}

// value is a JSON value as read: members keep their order and duplicates.
type value struct {
	tok     json.Token // string, json.Number, bool, nil, or json.Delim for containers
	members []member
	elems   []value
}

type member struct {
	key string
	val value
}

func readValue(d *json.Decoder) (value, error) {
	t, err := d.Token()
	if err != nil {
		return value{}, err
	}
	v := value{tok: t}
	switch t {
	case json.Delim('{'):
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return value{}, err
			}
			mv, err := readValue(d)
			if err != nil {
				return value{}, err
			}
			v.members = append(v.members, member{k.(string), mv})
		}
		_, err = d.Token()
	case json.Delim('['):
		for d.More() {
			ev, err := readValue(d)
			if err != nil {
				return value{}, err
			}
			v.elems = append(v.elems, ev)
		}
		_, err = d.Token()
	}
	return v, err
}

func writeValue(b []byte, v value, seed uint64) []byte {
	switch t := v.tok.(type) {
	case json.Delim:
		if t == '[' {
			b = append(b, '[')
			for i, e := range v.elems {
				if i > 0 {
					b = append(b, ", "...)
				}
				b = writeValue(b, e, seed)
			}
			return append(b, ']')
		}
		ms := shuffled(v.members, seed)
		b = append(b, '{')
		for i, m := range ms {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = writeString(b, m.key)
			b = append(b, ": "...)
			b = writeValue(b, m.val, seed)
		}
		return append(b, '}')
	case string:
		return writeString(b, t)
	case json.Number:
		return append(b, t...)
	case bool:
		return strconv.AppendBool(b, t)
	}
	return append(b, "null"...)
}

// shuffled orders members by a hash of seed and key; an object with a
// duplicate key keeps its order.
func shuffled(ms []member, seed uint64) []member {
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.key] {
			return ms
		}
		seen[m.key] = true
	}
	rank := func(k string) uint64 {
		h := fnv.New64a()
		h.Write(strconv.AppendUint(nil, seed, 10))
		h.Write([]byte(k))
		return h.Sum64()
	}
	out := slices.Clone(ms)
	slices.SortFunc(out, func(a, b member) int {
		ra, rb := rank(a.key), rank(b.key)
		switch {
		case ra < rb:
			return -1
		case ra > rb:
			return 1
		}
		return 0
	})
	return out
}

// writeString writes s as Python's json.dumps does with ensure_ascii.
func writeString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20:
			b = u(b, r)
		case r < utf8.RuneSelf:
			b = append(b, byte(r))
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			b = u(u(b, r1), r2)
		default:
			b = u(b, r)
		}
	}
	return append(b, '"')
}

// RelayoutLines applies Relayout to every line of data (lines end in
// '\n'), and returns, for each line start of data, where that line starts
// in the result, so that a test can map an offset it knows.
func RelayoutLines(data []byte, seed uint64) (out []byte, starts map[int64]int64) {
	starts = map[int64]int64{}
	var off int64
	for len(data) > 0 {
		starts[off] = int64(len(out))
		line, rest, nl := bytes.Cut(data, []byte("\n"))
		out = append(out, Relayout(line, seed)...)
		n := int64(len(line))
		if nl {
			out = append(out, '\n')
			n++
		}
		off += n
		data = rest
	}
	starts[off] = int64(len(out))
	return out, starts
}
