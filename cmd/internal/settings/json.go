package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// jsonNode is a JSON value that remembers the order of object keys, so that
// rewriting a settings file moves nothing the user wrote. Numbers keep their
// literal text.
type jsonNode struct {
	kind    jsonKind
	text    string // number literal, string value, "true"/"false"
	elems   []*jsonNode
	members []jsonMember
}

type jsonMember struct {
	key string
	val *jsonNode
}

func newObject() *jsonNode            { return &jsonNode{kind: jsonObject} }
func newArray() *jsonNode             { return &jsonNode{kind: jsonArray} }
func newString(s string) *jsonNode    { return &jsonNode{kind: jsonString, text: s} }
func newNumberInt(i int) *jsonNode    { return &jsonNode{kind: jsonNumber, text: strconv.Itoa(i)} }
func (n *jsonNode) isObject() bool    { return n != nil && n.kind == jsonObject }
func (n *jsonNode) isArray() bool     { return n != nil && n.kind == jsonArray }
func (n *jsonNode) isString() bool    { return n != nil && n.kind == jsonString }
func (n *jsonNode) isTrue() bool      { return n != nil && n.kind == jsonBool && n.text == "true" }
func (n *jsonNode) stringVal() string { return n.text }

// get returns the value of key in an object; like JavaScript, the last
// duplicate key wins.
func (n *jsonNode) get(key string) *jsonNode {
	if !n.isObject() {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].val
		}
	}
	return nil
}

// set replaces the value of key in place, or appends the key.
func (n *jsonNode) set(key string, v *jsonNode) {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			n.members[i].val = v
			return
		}
	}
	n.members = append(n.members, jsonMember{key, v})
}

// del removes every occurrence of key.
func (n *jsonNode) del(key string) bool {
	out := n.members[:0]
	found := false
	for _, m := range n.members {
		if m.key == key {
			found = true
			continue
		}
		out = append(out, m)
	}
	n.members = out
	return found
}

// number returns the value of a number node.
func (n *jsonNode) number() (float64, bool) {
	if n == nil || n.kind != jsonNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.text, 64)
	return f, err == nil
}

// SyntaxError is invalid JSON, located by line and column (both from 1,
// the column counted in characters).
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// lineCol converts a byte offset into a 1-based line and character column.
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line, col := 1, 1
	for i := 0; i < off; {
		r, size := utf8.DecodeRune(data[i:])
		i += size
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// parseJSON parses data into an order-keeping tree. An empty (or all
// whitespace) document is an empty object, the way Claude Code treats an
// empty settings file.
func parseJSON(data []byte) (*jsonNode, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return newObject(), nil
	}
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			off := int(se.Offset) - 1
			if off < 0 {
				off = 0
			}
			if se.Offset >= int64(len(data)) {
				off = len(bytes.TrimRight(data, " \t\r\n"))
			}
			line, col := lineCol(data, off)
			return nil, &SyntaxError{Line: line, Col: col, Msg: se.Error()}
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return decodeNode(dec)
}

func decodeNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, jsonMember{key, v})
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := newArray()
			for dec.More() {
				v, err := decodeNode(dec)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case nil:
		return &jsonNode{kind: jsonNull}, nil
	case bool:
		return &jsonNode{kind: jsonBool, text: strconv.FormatBool(t)}, nil
	case json.Number:
		return &jsonNode{kind: jsonNumber, text: t.String()}, nil
	case string:
		return newString(t), nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// encodeJSON writes n with the given indent unit, the way JSON.stringify
// does (no HTML escaping), followed by a newline when trailingNL is set.
func encodeJSON(n *jsonNode, indent string, trailingNL bool) []byte {
	var b bytes.Buffer
	writeNode(&b, n, indent, 0)
	if trailingNL {
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func writeNode(b *bytes.Buffer, n *jsonNode, indent string, depth int) {
	nl := func(d int) {
		b.WriteByte('\n')
		for range d {
			b.WriteString(indent)
		}
	}
	switch n.kind {
	case jsonNull:
		b.WriteString("null")
	case jsonBool, jsonNumber:
		b.WriteString(n.text)
	case jsonString:
		writeJSONString(b, n.text)
	case jsonArray:
		if len(n.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeNode(b, e, indent, depth+1)
		}
		nl(depth)
		b.WriteByte(']')
	case jsonObject:
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			nl(depth + 1)
			writeJSONString(b, m.key)
			b.WriteString(": ")
			writeNode(b, m.val, indent, depth+1)
		}
		nl(depth)
		b.WriteByte('}')
	}
}

func writeJSONString(b *bytes.Buffer, s string) {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimRight(tmp.Bytes(), "\n"))
}

// detectIndent guesses the indent unit of a JSON document (the leading
// whitespace of its first indented line), so that a rewrite keeps the
// user's style. Two spaces, as Claude Code writes, when there is none.
func detectIndent(data []byte) string {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == 0 || len(trimmed) == len(line) {
			continue
		}
		ws := line[:len(line)-len(trimmed)]
		if bytes.Count(ws, []byte(" ")) == len(ws) || bytes.Count(ws, []byte("\t")) == len(ws) {
			return string(ws)
		}
		break
	}
	return "  "
}

// Document is a parsed settings file: a JSON object, and the text it came
// from, whose style a rewrite keeps.
type Document struct {
	root *jsonNode
	src  []byte
}

// Parse parses a settings file. An empty (or all whitespace) file is an
// empty object, as Claude Code reads it; a top-level value that is not an
// object is an error.
func Parse(data []byte) (*Document, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	if !root.isObject() {
		return nil, errors.New("the top-level value is not an object")
	}
	return &Document{root: root, src: data}, nil
}

// Bytes is the document as it goes back to disk, in the indent unit of the
// text it was parsed from and with its final newline or lack of one; a new
// document is indented by two spaces, as Claude Code writes, and ends with
// a newline.
func (d *Document) Bytes() []byte {
	if len(bytes.TrimSpace(d.src)) == 0 {
		return encodeJSON(d.root, "  ", true)
	}
	return encodeJSON(d.root, detectIndent(d.src), bytes.HasSuffix(d.src, []byte("\n")))
}

// IsTrue reports whether a top-level key holds true (disableAllHooks).
func (d *Document) IsTrue(key string) bool { return d.root.get(key).isTrue() }
