package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// A settings file is edited in place through github.com/tailscale/hujson,
// whose syntax tree keeps every byte of whitespace: what install and
// uninstall do not touch goes back to disk exactly as it was read, and what
// they add is laid out like its neighbours (IN-4).

// utf8BOM starts files saved by some Windows editors; Claude Code skips it.
var utf8BOM = []byte("\ufeff")

// SyntaxError is invalid JSON, located by line and column (both from 1,
// the column counted in characters).
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Document is a parsed settings file: a JSON object, edited in place.
type Document struct {
	// agent is the client whose file this is ("" or claude: Claude Code).
	agent Agent
	// carryNotes are what the last Install carried over or left out
	// (IN-31).
	carryNotes []CarryNote
	// created are the containers install created, from its trace; nil
	// when not known (IN-77).
	created map[string]bool
	bom     bool
	root    hujson.Value // its Value is an *hujson.Object
	style   style
}

// style is how a file lays out its JSON, which new values follow.
type style struct {
	nl      string // line break: "\n" or "\r\n"
	indent  string // one level of indentation
	oneLine bool   // the whole object is on one line
	colon   string // whitespace between a key's colon and its value
	comma   string // whitespace after a comma on one line
}

// newFileStyle is how install writes a file that did not exist: the way
// Claude Code writes settings (JSON.stringify with two spaces).
var newFileStyle = style{nl: "\n", indent: "  ", colon: " ", comma: " "}

// Parse parses a settings file. An empty (or all whitespace) file is an
// empty object, as Claude Code reads it; so is a missing one (nil). A
// leading UTF-8 byte order mark is skipped, as Claude Code skips it, and
// kept. Claude Code reads settings with JSON.parse, so anything that is not
// strict JSON (comments, trailing commas) is a SyntaxError, and a
// top-level value that is not an object is an error.
func Parse(data []byte) (*Document, error) { return parse(data, false) }

// ParseFor parses a settings file of agent a: as Parse, but with comments
// allowed where the client strips them before JSON.parse (Qwen Code);
// they are kept as written.
func ParseFor(a Agent, data []byte) (*Document, error) {
	d, err := parse(data, a.Comments())
	if d != nil {
		d.agent = a
	}
	return d, err
}

func parse(data []byte, comments bool) (*Document, error) {
	d := &Document{}
	if bytes.HasPrefix(data, utf8BOM) {
		d.bom, data = true, data[len(utf8BOM):]
	}
	if len(bytes.TrimSpace(data)) == 0 {
		d.root = hujson.Value{Value: &hujson.Object{}, AfterExtra: hujson.Extra(newFileStyle.nl)}
		d.style = newFileStyle
		return d, nil
	}
	check := data
	if comments {
		check = StripComments(data)
	}
	if err := strictJSON(check); err != nil {
		return nil, err
	}
	root, err := hujson.Parse(data)
	if err != nil { // not reached for strict JSON, which HuJSON extends
		return nil, err
	}
	if _, ok := root.Value.(*hujson.Object); !ok {
		return nil, errors.New("the top-level value is not an object")
	}
	d.root = root
	d.style = detectStyle(data, &d.root)
	return d, nil
}

// strictJSON checks data with encoding/json and locates the first error.
func strictJSON(data []byte) error {
	var probe any
	err := json.Unmarshal(data, &probe)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	// Offset counts the bytes read, the offending one included.
	off := max(int(se.Offset)-1, 0)
	if se.Offset >= int64(len(data)) {
		off = len(bytes.TrimRight(data, " \t\r\n"))
	}
	line, col := lineCol(data, off)
	msg := se.Error()
	if off < len(data) && data[off] == '/' {
		msg += " (a comment: Claude Code reads settings as strict JSON, which has none)"
	}
	return &SyntaxError{Line: line, Col: col, Msg: msg}
}

// lineCol converts a byte offset into a 1-based line and character column.
func lineCol(data []byte, off int) (int, int) {
	line, col := 1, 1
	for i := 0; i < min(off, len(data)); {
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

// detectStyle reads the layout of a parsed file.
func detectStyle(data []byte, root *hujson.Value) style {
	s := style{nl: "\n", indent: detectIndent(data)}
	if bytes.Contains(data, []byte("\r\n")) {
		s.nl = "\r\n"
	}
	s.oneLine = !bytes.ContainsRune(data[root.StartOffset:root.EndOffset], '\n')
	colon, comma := "", ""
	foundColon, foundComma := false, false
	for v := range root.All() {
		leads := leadingExtras(v)
		if o, ok := v.Value.(*hujson.Object); ok && len(o.Members) > 0 && !foundColon && isBlank(o.Members[0].Value.BeforeExtra) {
			colon, foundColon = string(o.Members[0].Value.BeforeExtra), true
		}
		if len(leads) > 1 && !foundComma && isBlank(*leads[1]) {
			comma, foundComma = string(*leads[1]), true
		}
	}
	if !foundColon && !s.oneLine {
		colon = " "
	}
	if !foundComma {
		comma = colon
	}
	s.colon, s.comma = colon, comma
	return s
}

// isBlank reports whitespace that stays on one line.
func isBlank(b []byte) bool { return !bytes.ContainsAny(b, "\r\n") }

// detectIndent guesses the indent unit of a JSON document (the leading
// whitespace of its first indented line). Two spaces, as Claude Code
// writes, when there is none.
func detectIndent(data []byte) string {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(bytes.TrimSpace(trimmed)) == 0 || len(trimmed) == len(line) {
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

// Bytes is the document as it goes back to disk.
func (d *Document) Bytes() []byte {
	var b []byte
	if d.bom {
		b = append(b, utf8BOM...)
	}
	return append(b, d.root.Pack()...)
}

// Vacant reports whether the document is what install's layout of a new
// file leaves once its entries are removed — an empty object on two lines,
// "{\n}\n" — and so held nothing but what install put there.
func (d *Document) Vacant() bool {
	return string(d.Bytes()) == "{"+newFileStyle.nl+"}"+newFileStyle.nl
}

// IsTrue reports whether a top-level key holds true (disableAllHooks).
func (d *Document) IsTrue(key string) bool {
	lit, ok := member(d.rootObject(), key).(hujson.Literal)
	return ok && lit.Kind() == 't'
}

func (d *Document) rootObject() *hujson.Object { return d.root.Value.(*hujson.Object) }

// ---- reading the tree ----

// member returns the value of key in o (the last one, when a key repeats,
// as JavaScript reads it), or nil.
func member(o *hujson.Object, key string) hujson.ValueTrimmed {
	if i := memberIndex(o, key); i >= 0 {
		return o.Members[i].Value.Value
	}
	return nil
}

// memberIndex is the index of key's last occurrence in o, or -1.
func memberIndex(o *hujson.Object, key string) int {
	if o == nil {
		return -1
	}
	for i := len(o.Members) - 1; i >= 0; i-- {
		if lit, ok := o.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == key {
			return i
		}
	}
	return -1
}

// stringOf returns a JSON string's value.
func stringOf(v hujson.ValueTrimmed) (string, bool) {
	lit, ok := v.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// numberOf returns a JSON number's value.
func numberOf(v hujson.ValueTrimmed) (float64, bool) {
	lit, ok := v.(hujson.Literal)
	if !ok || lit.Kind() != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	return f, err == nil
}

// leadingExtras are the places holding the whitespace before each element
// of a container (for an object, before each key).
func leadingExtras(v *hujson.Value) []*hujson.Extra {
	var out []*hujson.Extra
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			out = append(out, &c.Members[i].Name.BeforeExtra)
		}
	case *hujson.Array:
		for i := range c.Elements {
			out = append(out, &c.Elements[i].BeforeExtra)
		}
	}
	return out
}

// ---- changing the tree ----

// setMember gives key in o a new value, keeping the whitespace around the
// old one, or appends the key when o lacks it.
func (d *Document) setMember(o *hujson.Object, key string, v hujson.ValueTrimmed) {
	if i := memberIndex(o, key); i >= 0 {
		o.Members[i].Value.Value = v
		return
	}
	d.appendMember(o, key, hujson.Value{Value: v})
}

// appendMember appends key: v to o, laid out like its neighbours.
func (d *Document) appendMember(o *hujson.Object, key string, v hujson.Value) {
	colon := d.style.colon
	if n := len(o.Members); n > 0 && isBlank(o.Members[n-1].Value.BeforeExtra) {
		colon = string(o.Members[n-1].Value.BeforeExtra)
	}
	lead := d.place(o, &v)
	v.BeforeExtra = hujson.Extra(colon)
	o.Members = append(o.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: lead, Value: hujson.String(key)},
		Value: v,
	})
}

// appendElement appends v to a, laid out like its neighbours.
func (d *Document) appendElement(a *hujson.Array, v hujson.Value) {
	v.BeforeExtra = d.place(a, &v)
	a.Elements = append(a.Elements, v)
}

// place lays out v, about to be appended to the container c, and returns
// the whitespace to put before it. Next to an element, v goes where a
// further element would go (on its own line, or after ", " on one line)
// and copies the element's shape: which levels of it sit on one line. In
// an empty container v goes on a line of its own one level in, unless the
// file is written on one line.
func (d *Document) place(c hujson.ValueTrimmed, v *hujson.Value) hujson.Extra {
	d.root.UpdateOffsets()
	text := d.root.Pack()
	cv := d.valueOf(c)
	leads := leadingExtras(cv)
	if len(leads) == 0 {
		base := lineIndent(text, cv.StartOffset)
		if d.style.oneLine {
			d.layout(v, base, nil)
			return nil
		}
		setClosing(c, hujson.Extra(d.style.nl+base))
		d.layout(v, base+d.style.indent, nil)
		return hujson.Extra(d.style.nl + base + d.style.indent)
	}
	last := lastValue(cv)
	lead := append(hujson.Extra(nil), *leads[len(leads)-1]...)
	if len(leads) == 1 && isBlank(lead) {
		lead = hujson.Extra(d.style.comma)
	}
	base := lineIndent(text, last.StartOffset)
	if i := bytes.LastIndexByte(lead, '\n'); i >= 0 {
		base = string(lead[i+1:])
	}
	d.layout(v, base, shapeOf(last))
	return lead
}

// valueOf finds the value holding container c.
func (d *Document) valueOf(c hujson.ValueTrimmed) *hujson.Value {
	for v := range d.root.All() {
		if v.Value == c {
			return v
		}
	}
	panic("settings: container not in the document")
}

// lastValue is the last element of a container (for an object, the last
// member's value).
func lastValue(cv *hujson.Value) *hujson.Value {
	switch c := cv.Value.(type) {
	case *hujson.Object:
		return &c.Members[len(c.Members)-1].Value
	case *hujson.Array:
		return &c.Elements[len(c.Elements)-1]
	}
	return nil
}

// setClosing sets the whitespace before a container's closing bracket.
func setClosing(c hujson.ValueTrimmed, e hujson.Extra) {
	switch c := c.(type) {
	case *hujson.Object:
		c.AfterExtra = e
	case *hujson.Array:
		c.AfterExtra = e
	}
}

// lineIndent is the leading whitespace of the line holding text[off].
func lineIndent(text []byte, off int) string {
	start := bytes.LastIndexByte(text[:off], '\n') + 1
	end := start
	for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
		end++
	}
	return string(text[start:end])
}

// shapeOf says, level by level down its first nested containers, whether
// v is written on one line: [false, true] for a list with one object a
// line. It stops at the first one-line level, below which all is on that
// line, and at an empty container or a literal, which tell nothing.
func shapeOf(v *hujson.Value) []bool {
	var shape []bool
	for v != nil {
		var next *hujson.Value
		for _, child := range children(v) {
			if _, lit := child.Value.(hujson.Literal); !lit {
				next = child
				break
			}
		}
		if len(children(v)) == 0 {
			return shape
		}
		oneLine := !bytes.ContainsRune(hujson.Value{Value: v.Value}.Pack(), '\n')
		shape = append(shape, oneLine)
		if oneLine {
			return shape
		}
		v = next
	}
	return shape
}

// children are a container's element values (for an object, its members'
// values).
func children(v *hujson.Value) []*hujson.Value {
	var out []*hujson.Value
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			out = append(out, &c.Members[i].Value)
		}
	case *hujson.Array:
		for i := range c.Elements {
			out = append(out, &c.Elements[i])
		}
	}
	return out
}

// layout sets all whitespace inside a new value v whose line is indented
// by base. shape (see shapeOf) says which levels go on one line; past it
// the file's own habit decides: all on one line for a one-line file, else
// one element a line, as JSON.stringify(value, null, indent) writes.
func (d *Document) layout(v *hujson.Value, base string, shape []bool) {
	oneLine := d.style.oneLine
	if len(shape) > 0 {
		oneLine, shape = shape[0], shape[1:]
	}
	inner := base + d.style.indent
	for i, lead := range leadingExtras(v) {
		switch {
		case oneLine && i == 0:
			*lead = nil
		case oneLine:
			*lead = hujson.Extra(d.style.comma)
		default:
			*lead = hujson.Extra(d.style.nl + inner)
		}
	}
	if o, ok := v.Value.(*hujson.Object); ok {
		for i := range o.Members {
			o.Members[i].Name.AfterExtra = nil
			o.Members[i].Value.BeforeExtra = hujson.Extra(d.style.colon)
		}
	}
	for _, child := range children(v) {
		child.AfterExtra = nil
		if oneLine {
			d.layout(child, "", []bool{true})
		} else {
			d.layout(child, inner, shape)
		}
	}
	closing := hujson.Extra(nil)
	if !oneLine && len(children(v)) > 0 {
		closing = hujson.Extra(d.style.nl + base)
	}
	setClosing(v.Value, closing)
}

// removeMember removes o's i-th member and the whitespace it brought.
func removeMember(o *hujson.Object, i int) {
	n := len(o.Members)
	switch {
	case i < n-1:
		o.Members[i+1].Name.BeforeExtra = o.Members[i].Name.BeforeExtra
	case i > 0:
		o.AfterExtra = append(append(hujson.Extra(nil), o.Members[i-1].Value.AfterExtra...), o.AfterExtra...)
		o.Members[i-1].Value.AfterExtra = nil
	}
	o.Members = append(o.Members[:i], o.Members[i+1:]...)
}

// removeElement removes a's i-th element and the whitespace it brought.
func removeElement(a *hujson.Array, i int) {
	n := len(a.Elements)
	switch {
	case i < n-1:
		a.Elements[i+1].BeforeExtra = a.Elements[i].BeforeExtra
	case i > 0:
		a.AfterExtra = append(append(hujson.Extra(nil), a.Elements[i-1].AfterExtra...), a.AfterExtra...)
		a.Elements[i-1].AfterExtra = nil
	}
	a.Elements = append(a.Elements[:i], a.Elements[i+1:]...)
}

// newValue turns a Go value into a tree to lay out, encoded the way
// JSON.stringify encodes (no HTML escaping of <, > and &).
func newValue(x any) hujson.Value {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		panic(err) // our own structs always encode
	}
	v, err := hujson.Parse([]byte(b.String()))
	if err != nil {
		panic(err)
	}
	v.BeforeExtra, v.AfterExtra = nil, nil
	return v
}
