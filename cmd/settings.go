package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file holds the settings-file logic shared by install, uninstall and
// doctor: an order-keeping JSON tree, recognising compact-guard's hook
// entries, merging them in and out, and writing the file safely.

// hookSpec is one hook registration compact-guard owns.
type hookSpec struct {
	Event   string
	Matcher string
	Sub     string
	Timeout int // seconds
}

// ourHooks are the registrations install writes, in the order it adds them.
// PostCompact only confirms that a compaction completed (Record.Compaction);
// the restore pointer comes from SessionStart(compact).
var ourHooks = []hookSpec{
	{Event: "PreCompact", Matcher: "manual|auto", Sub: "precompact", Timeout: 60},
	{Event: "SessionStart", Matcher: "compact", Sub: "postcompact", Timeout: 15},
	{Event: "PostCompact", Matcher: "manual|auto", Sub: "postcompact", Timeout: 15},
}

// ourSubcommands are the sub-commands that make a hook entry ours.
var ourSubcommands = map[string]bool{"precompact": true, "postcompact": true}

// globalValueFlags are the global flags that take a separate value, which
// may stand between the program and its sub-command.
var globalValueFlags = map[string]bool{"--dir": true, "--lang": true}

// binaryBaseName is the base name that marks a hook command as ours.
const binaryBaseName = "compact-guard"

// ---- order-keeping JSON ----

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

// jsonSyntaxError is invalid JSON, located by line and column (both from 1,
// the column counted in characters).
type jsonSyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *jsonSyntaxError) Error() string {
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
			return nil, &jsonSyntaxError{Line: line, Col: col, Msg: se.Error()}
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

// ---- hook commands ----

// shellQuote quotes a path for the shell Claude Code runs shell-form hooks
// with: sh -c on macOS and Linux, Git Bash by default on Windows. Double
// quotes, with \ " $ ` escaped, read the same in both. On Windows the path
// uses forward slashes, which Git Bash and Windows both accept and which
// need no escaping.
func shellQuote(path string) string {
	if runtime.GOOS == "windows" {
		path = filepath.ToSlash(path)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range path {
		switch r {
		case '\\', '"', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// hookCommand is the shell-form command line of one registration.
func hookCommand(exe, sub string) string { return shellQuote(exe) + " " + sub }

// splitShellWords splits a shell-form command into words, undoing single
// quotes, double quotes and backslash escapes. It stops at the first
// unquoted control operator (; & | newline), since only the first simple
// command can be compact-guard's. It reports false on an unterminated
// quote.
func splitShellWords(s string) ([]string, bool) {
	ws, ok := shellWords(s)
	if !ok {
		return nil, false
	}
	words := make([]string, len(ws))
	for i, w := range ws {
		words[i] = w.Text
	}
	return words, true
}

// shellWord is one word of a shell-form command: its text with quotes
// undone, and where it stands in the command (byte offsets), so that install
// can replace the program and leave the rest as the user wrote it.
type shellWord struct {
	Text       string
	Start, End int
}

// shellWords is splitShellWords with each word's place in s.
func shellWords(s string) ([]shellWord, bool) {
	var words []shellWord
	var cur strings.Builder
	inWord := false
	start := 0
	// Offsets are counted in runes while scanning and turned into bytes
	// at the end.
	flush := func(end int) {
		if inWord {
			words = append(words, shellWord{Text: cur.String(), Start: start, End: end})
			cur.Reset()
			inWord = false
		}
	}
	begin := func(i int) {
		if !inWord {
			inWord, start = true, i
		}
	}
	rs := []rune(s)
	toBytes := func() []shellWord {
		off := make([]int, len(rs)+1)
		for i, r := range rs {
			off[i+1] = off[i] + utf8.RuneLen(r)
		}
		for i := range words {
			words[i].Start, words[i].End = off[words[i].Start], off[words[i].End]
		}
		return words
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			flush(i)
		case r == ';' || r == '&' || r == '|' || r == '\n':
			flush(i)
			return toBytes(), true
		case r == '\'':
			begin(i)
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, false
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			begin(i)
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\\\"$`\n", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, false
			}
			i = j
		case r == '\\' && i+1 < len(rs):
			begin(i)
			i++
			cur.WriteRune(rs[i])
		default:
			begin(i)
			cur.WriteRune(r)
		}
	}
	flush(len(rs))
	return toBytes(), true
}

// shellArg quotes one argument for a shell-form command: as it is when it
// holds only characters no shell treats specially, else in double quotes
// (see shellQuote; unlike a program path, slashes are left alone).
func shellArg(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,/:@%+", r))
	}) < 0 {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range a {
		switch r {
		case '\\', '"', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// parsedCommand is a hook command taken apart.
type parsedCommand struct {
	Program string   // as written, quotes removed
	Args    []string // the words after it (exec-form args included)
	Sub     string   // the first of Args that is one of our sub-commands
}

// parseHookCommand takes apart a handler's command (and exec-form args).
func parseHookCommand(handler *jsonNode) (parsedCommand, bool) {
	cmdNode := handler.get("command")
	if !cmdNode.isString() {
		return parsedCommand{}, false
	}
	var pc parsedCommand
	if args := handler.get("args"); args.isArray() {
		// Exec form: command is the program itself, unquoted.
		pc.Program = cmdNode.stringVal()
		for _, a := range args.elems {
			if a.isString() {
				pc.Args = append(pc.Args, a.stringVal())
			}
		}
	} else {
		words, ok := splitShellWords(cmdNode.stringVal())
		if !ok {
			return parsedCommand{}, false
		}
		// Skip VAR=value assignments in front of the program.
		for len(words) > 0 && isAssignment(words[0]) {
			words = words[1:]
		}
		if len(words) == 0 {
			return parsedCommand{}, false
		}
		pc.Program, pc.Args = words[0], words[1:]
	}
	for i := 0; i < len(pc.Args); i++ {
		a := pc.Args[i]
		if ourSubcommands[a] {
			pc.Sub = a
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		if globalValueFlags[a] {
			i++ // its value
		}
	}
	return pc, true
}

func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for j, r := range w[:i] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || j > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// isOurProgram reports whether a hook's program is compact-guard: its base
// name is compact-guard (compact-guard.exe), or it is the running binary
// under another name.
func isOurProgram(program, self string) bool {
	base := program
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if strings.EqualFold(base, binaryBaseName+".exe") || base == binaryBaseName {
		return true
	}
	if self == "" {
		return false
	}
	p, q := filepath.Clean(filepath.FromSlash(program)), filepath.Clean(self)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(p, q)
	}
	return p == q
}

// ourHandler locates one handler of ours inside a settings tree.
type ourHandler struct {
	Event   string
	Group   int // index in hooks[Event]
	Index   int // index in hooks[Event][Group].hooks
	Matcher string
	// HasMatcher is false when the group has no matcher key (matches all).
	HasMatcher bool
	Cmd        parsedCommand
	Node       *jsonNode
}

// findOurHandlers lists every handler of ours in a settings tree, in file
// order.
func findOurHandlers(root *jsonNode, self string) []ourHandler {
	return findOurHandlersIn(root.get("hooks"), self)
}

// findOurHandlersIn is findOurHandlers for the "hooks" object itself.
func findOurHandlersIn(hooks *jsonNode, self string) []ourHandler {
	if !hooks.isObject() {
		return nil
	}
	var out []ourHandler
	for _, ev := range hooks.members {
		if !ev.val.isArray() {
			continue
		}
		for gi, group := range ev.val.elems {
			handlers := group.get("hooks")
			if !handlers.isArray() {
				continue
			}
			m := group.get("matcher")
			for hi, h := range handlers.elems {
				if !h.isObject() {
					continue
				}
				if t := h.get("type"); t != nil && (!t.isString() || t.stringVal() != "command") {
					continue
				}
				pc, ok := parseHookCommand(h)
				if !ok || pc.Sub == "" || !isOurProgram(pc.Program, self) {
					continue
				}
				out = append(out, ourHandler{
					Event: ev.key, Group: gi, Index: hi,
					Matcher: m.stringValOr(""), HasMatcher: m != nil,
					Cmd: pc, Node: h,
				})
			}
		}
	}
	return out
}

func (n *jsonNode) stringValOr(def string) string {
	if n.isString() {
		return n.text
	}
	return def
}

// matcherTokens returns the exact values a matcher of letters, digits, _,
// -, space, comma and | stands for, or false when Claude Code would read it
// as a regular expression.
func matcherTokens(m string) ([]string, bool) {
	for _, r := range m {
		if !(r == '_' || r == '-' || r == ' ' || r == ',' || r == '|' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return nil, false
		}
	}
	var out []string
	for f := range strings.FieldsFuncSeq(m, func(r rune) bool { return r == '|' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out, true
}

// sameMatcher reports whether two simple matchers name the same values, so
// that "auto|manual" is left as the user wrote it.
func sameMatcher(a, b string) bool {
	ta, oka := matcherTokens(a)
	tb, okb := matcherTokens(b)
	if !oka || !okb {
		return a == b
	}
	set := map[string]bool{}
	for _, t := range ta {
		set[t] = true
	}
	other := map[string]bool{}
	for _, t := range tb {
		if !set[t] {
			return false
		}
		other[t] = true
	}
	return len(set) == len(other)
}

// ---- merging ----

// settingsChange describes one change to a settings file, for the user.
type settingsChange struct {
	Verb string // "added", "updated", "removed"
	Spec hookSpec
	What string
}

func (c settingsChange) String() string {
	s := fmt.Sprintf("%-7s %s [%s] %s", c.Verb, c.Spec.Event, c.Spec.Matcher, c.Spec.Sub)
	if c.What != "" {
		s += " (" + c.What + ")"
	}
	return s
}

// mergeError is a settings file whose shape leaves no safe place for our
// hooks (for example "hooks" is an array).
type mergeError struct{ msg string }

func (e *mergeError) Error() string { return e.msg }

// installHooks merges our registrations for the binary exe into root and
// returns what it changed; no change means the file is up to date.
func installHooks(root *jsonNode, exe string) ([]settingsChange, error) {
	if !root.isObject() {
		return nil, &mergeError{"the top-level value is not an object"}
	}
	hooks := root.get("hooks")
	if hooks == nil {
		hooks = newObject()
	} else if !hooks.isObject() {
		return nil, &mergeError{`"hooks" is not an object`}
	}
	for _, s := range ourHooks {
		if ev := hooks.get(s.Event); ev != nil && !ev.isArray() {
			return nil, &mergeError{fmt.Sprintf(`"hooks.%s" is not an array`, s.Event)}
		}
	}
	var changes []settingsChange
	for _, s := range ourHooks {
		if c, ok := installOne(hooks, s, exe); ok {
			changes = append(changes, c)
		}
	}
	if len(changes) > 0 && root.get("hooks") == nil {
		root.set("hooks", hooks)
	}
	return changes, nil
}

func ourGroup(s hookSpec, exe string) *jsonNode {
	g := newObject()
	g.set("matcher", newString(s.Matcher))
	hs := newArray()
	hs.elems = append(hs.elems, ourHandlerNode(s, exe))
	g.set("hooks", hs)
	return g
}

func ourHandlerNode(s hookSpec, exe string) *jsonNode {
	h := newObject()
	h.set("type", newString("command"))
	h.set("command", newString(hookCommand(exe, s.Sub)))
	h.set("timeout", newNumberInt(s.Timeout))
	return h
}

func installOne(hooks *jsonNode, s hookSpec, exe string) (settingsChange, bool) {
	ev := hooks.get(s.Event)
	var found []ourHandler
	for _, h := range findOurHandlersIn(hooks, exe) {
		if h.Event == s.Event && h.Cmd.Sub == s.Sub {
			found = append(found, h)
		}
	}
	if len(found) == 0 {
		if ev == nil {
			ev = newArray()
			hooks.set(s.Event, ev)
		}
		ev.elems = append(ev.elems, ourGroup(s, exe))
		return settingsChange{Verb: "added", Spec: s, What: hookCommand(exe, s.Sub) + fmt.Sprintf(", timeout %ds", s.Timeout)}, true
	}

	// Keep the entry that already has the right matcher, if any; the
	// others are duplicates.
	keep := 0
	for i, f := range found {
		if f.HasMatcher && sameMatcher(f.Matcher, s.Matcher) {
			keep = i
			break
		}
	}
	first := found[keep]
	drop := map[*jsonNode]bool{}
	for i, d := range found {
		if i != keep {
			drop[d.Node] = true
		}
	}

	var what []string
	h := first.Node
	want := updatedCommand(first, exe)
	if h.get("type") == nil {
		h.set("type", newString("command"))
	}
	if c := h.get("command"); c.stringValOr("") != want {
		what = append(what, fmt.Sprintf("command %s -> %s", c.stringValOr(""), want))
		h.set("command", newString(want))
	}
	if h.del("args") {
		what = append(what, "exec-form args moved into the command")
	}
	if !plausibleTimeout(s.Sub, h.get("timeout")) {
		old := "none"
		if tn := h.get("timeout"); tn != nil {
			old = tn.text
		}
		what = append(what, fmt.Sprintf("timeout %s -> %d", old, s.Timeout))
		h.set("timeout", newNumberInt(s.Timeout))
	}
	if len(drop) > 0 {
		what = append(what, fmt.Sprintf("%d duplicate(s) removed", len(drop)))
	}

	var moved *jsonNode
	group := ev.elems[first.Group]
	if !first.HasMatcher || !sameMatcher(first.Matcher, s.Matcher) {
		old := strconv.Quote(first.Matcher)
		if !first.HasMatcher {
			old = "none"
		}
		if ownsGroupAlone(group, h, drop) {
			group.set("matcher", newString(s.Matcher))
			what = append(what, fmt.Sprintf("matcher %s -> %q", old, s.Matcher))
		} else {
			// The group holds foreign handlers that want their matcher:
			// move ours out into a group of its own.
			drop[h] = true
			moved = ourGroup(s, exe)
			moved.get("hooks").elems[0] = h
			what = append(what, fmt.Sprintf("moved out of the group with matcher %s", old))
		}
	}
	removeHandlers(ev, drop)
	if moved != nil {
		ev.elems = append(ev.elems, moved)
	}
	if len(what) == 0 {
		return settingsChange{}, false
	}
	return settingsChange{Verb: "updated", Spec: s, What: strings.Join(what, "; ")}, true
}

// updatedCommand is the command an entry of ours gets from install: the
// program becomes exe, and everything else the user wrote — VAR=value
// words, global flags, the sub-command and the flags after it (README
// tells users to add flags there) — stays as written. An exec-form entry
// becomes shell form with the same arguments.
func updatedCommand(h ourHandler, exe string) string {
	if h.Node.get("args").isArray() {
		parts := []string{shellQuote(exe)}
		for _, a := range h.Cmd.Args {
			parts = append(parts, shellArg(a))
		}
		return strings.Join(parts, " ")
	}
	cmdline := h.Node.get("command").stringValOr("")
	if words, ok := shellWords(cmdline); ok {
		for _, w := range words {
			if !isAssignment(w.Text) {
				return cmdline[:w.Start] + shellQuote(exe) + cmdline[w.End:]
			}
		}
	}
	return hookCommand(exe, h.Cmd.Sub) // not reached: h was parsed from cmdline
}

// Timeouts install leaves alone: the user may have chosen another one. Below
// the lower bound a precompact run may be cut off; above ten minutes the
// number is probably milliseconds.
const (
	minPrecompactTimeout  = 5
	minPostcompactTimeout = 1
	maxHookTimeout        = 600
)

// plausibleTimeout reports whether a user's timeout (seconds) for sub is
// one install keeps.
func plausibleTimeout(sub string, n *jsonNode) bool {
	t, ok := n.number()
	if !ok {
		return false
	}
	lo := float64(minPostcompactTimeout)
	if sub == "precompact" {
		lo = minPrecompactTimeout
	}
	return t >= lo && t <= maxHookTimeout
}

// ownsGroupAlone reports whether h is the only handler of group once the
// handlers in drop are gone.
func ownsGroupAlone(group, h *jsonNode, drop map[*jsonNode]bool) bool {
	for _, x := range group.get("hooks").elems {
		if x != h && !drop[x] {
			return false
		}
	}
	return true
}

// removeHandlers removes the handlers in drop from an event's groups and
// then every group that this left without handlers. It reports how many
// handlers it removed.
func removeHandlers(ev *jsonNode, drop map[*jsonNode]bool) int {
	removed := 0
	groups := ev.elems[:0]
	for _, g := range ev.elems {
		hs := g.get("hooks")
		if !hs.isArray() {
			groups = append(groups, g)
			continue
		}
		before := len(hs.elems)
		kept := hs.elems[:0]
		for _, h := range hs.elems {
			if drop[h] {
				continue
			}
			kept = append(kept, h)
		}
		hs.elems = kept
		removed += before - len(kept)
		if len(kept) == 0 && before > 0 {
			continue // emptied by us
		}
		groups = append(groups, g)
	}
	ev.elems = groups
	return removed
}

// uninstallHooks removes every handler of ours (any event) and the groups,
// event lists and "hooks" object that only this left empty.
func uninstallHooks(root *jsonNode, self string) []settingsChange {
	hooks := root.get("hooks")
	if !hooks.isObject() {
		return nil
	}
	found := findOurHandlers(root, self)
	if len(found) == 0 {
		return nil
	}
	var changes []settingsChange
	byEvent := map[string]map[*jsonNode]bool{}
	for _, h := range found {
		if byEvent[h.Event] == nil {
			byEvent[h.Event] = map[*jsonNode]bool{}
		}
		byEvent[h.Event][h.Node] = true
		changes = append(changes, settingsChange{Verb: "removed", Spec: hookSpec{Event: h.Event, Matcher: h.Matcher, Sub: h.Cmd.Sub}, What: h.Node.get("command").stringValOr("")})
	}
	kept := hooks.members[:0]
	for _, ev := range hooks.members {
		drop := byEvent[ev.key]
		if drop != nil && ev.val.isArray() {
			before := len(ev.val.elems)
			removeHandlers(ev.val, drop)
			if len(ev.val.elems) == 0 && before > 0 {
				continue
			}
		}
		kept = append(kept, ev)
	}
	hooks.members = kept
	if len(hooks.members) == 0 {
		root.del("hooks")
	}
	return changes
}

// ---- files ----

// settingsFile is a settings file as read from disk.
type settingsFile struct {
	Path   string // the path written to (symlinks resolved)
	Exists bool
	Data   []byte
	Mode   os.FileMode
	Root   *jsonNode
}

// readSettings reads and parses a settings file; a missing file is an empty
// object. A symlinked file (dotfile managers) is followed, so that the link
// survives the rewrite.
func readSettings(path string) (*settingsFile, error) {
	sf := &settingsFile{Path: path, Mode: 0o600}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		sf.Path = real
	}
	data, err := os.ReadFile(sf.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		sf.Root = newObject()
		return sf, nil
	case err != nil:
		return nil, err
	}
	st, err := os.Stat(sf.Path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	sf.Exists, sf.Data, sf.Mode = true, data, st.Mode().Perm()
	root, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !root.isObject() {
		return nil, fmt.Errorf("%s: the top-level value is not an object", path)
	}
	sf.Root = root
	return sf, nil
}

// render encodes the (changed) tree in the file's own indent style.
func (sf *settingsFile) render() []byte {
	indent, nl := "  ", true
	if sf.Exists {
		indent = detectIndent(sf.Data)
		nl = bytes.HasSuffix(sf.Data, []byte("\n"))
	}
	return encodeJSON(sf.Root, indent, nl)
}

// backupName is the backup path for path at t (local time).
func backupName(path string, t time.Time) string {
	return path + ".bak-" + t.Format("20060102-150405")
}

// writeBackup copies the file's current content next to it, never
// overwriting an earlier backup.
func writeBackup(sf *settingsFile, now time.Time) (string, error) {
	base := backupName(sf.Path, now)
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, sf.Mode)
		if errors.Is(err, os.ErrExist) && i < 100 {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("backup: %w", err)
		}
		_, werr := f.Write(sf.Data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(name)
			return "", fmt.Errorf("backup: %w", werr)
		}
		return name, nil
	}
}

// ---- diff ----

// unifiedDiff returns a unified diff of a and b with three lines of
// context, or "" when they are equal. Settings files are small; past a
// size where the quadratic table would be costly the whole new text is
// shown instead.
func unifiedDiff(aName, bName string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	al, bl := splitLines(a), splitLines(b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", aName, bName)
	if len(al)*len(bl) > 4_000_000 {
		for _, l := range bl {
			out.WriteString("+" + l + "\n")
		}
		return out.String()
	}
	// lcs[i][j] = length of the LCS of al[i:] and bl[j:].
	n, m := len(al), len(bl)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int
		bi   int
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			ops = append(ops, op{' ', al[i], i, j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', al[i], i, j})
			i++
		default:
			ops = append(ops, op{'+', bl[j], i, j})
			j++
		}
	}
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start, last := max(k-ctx, 0), k
		for p := k + 1; p < len(ops); p++ {
			if ops[p].kind != ' ' {
				last = p
			} else if p-last > 2*ctx {
				break
			}
		}
		end := min(last+ctx+1, len(ops))
		var aCount, bCount int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aCount++
			}
			if o.kind != '-' {
				bCount++
			}
		}
		aStart, bStart := ops[start].ai+1, ops[start].bi+1
		if aCount == 0 {
			aStart--
		}
		if bCount == 0 {
			bStart--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", aStart, aCount, bStart, bCount)
		for _, o := range ops[start:end] {
			out.WriteString(string(o.kind) + o.line + "\n")
		}
		k = end
	}
	return out.String()
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ---- where settings live ----

// Settings scopes, as Claude Code names them.
const (
	scopeUser    = "user"
	scopeProject = "project"
	scopeLocal   = "local"
)

// hostEnv is what locating settings files asks of the machine; tests
// substitute it.
type hostEnv struct {
	Getenv func(string) string
	Home   func() (string, error)
	Getwd  func() (string, error)
}

func defaultHostEnv() hostEnv {
	return hostEnv{Getenv: os.Getenv, Home: os.UserHomeDir, Getwd: os.Getwd}
}

// userSettingsPath is $CLAUDE_CONFIG_DIR/settings.json, else
// ~/.claude/settings.json.
func userSettingsPath(h hostEnv) (string, error) {
	if d := h.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(filepath.Join(d, "settings.json"))
	}
	home, err := h.Home()
	if err != nil {
		return "", fmt.Errorf("cannot find the home folder: %w", err)
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// projectDir is the folder whose .claude/ holds project and local settings:
// $CLAUDE_PROJECT_DIR when set (inside a Claude Code session), else the
// current folder, since Claude Code reads .claude/ in the folder it was
// started in.
func projectDir(h hostEnv) (string, error) {
	if d := h.Getenv("CLAUDE_PROJECT_DIR"); d != "" {
		return filepath.Abs(d)
	}
	return h.Getwd()
}

// settingsPathFor resolves a scope (or an explicit --settings path) to a
// file path.
func settingsPathFor(scope, explicit string, h hostEnv) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	switch scope {
	case scopeUser:
		return userSettingsPath(h)
	case scopeProject, scopeLocal:
		dir, err := projectDir(h)
		if err != nil {
			return "", err
		}
		name := "settings.json"
		if scope == scopeLocal {
			name = "settings.local.json"
		}
		return filepath.Join(dir, ".claude", name), nil
	}
	return "", usageError{fmt.Errorf("invalid scope %q: want user, project or local", scope)}
}

// gitRootAbove returns the nearest folder at or above dir holding .git, or
// "".
func gitRootAbove(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// selfExecutable is the running binary's absolute path with symlinks
// resolved, so that the hook keeps working when a symlink moves.
func selfExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the running binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return filepath.Abs(exe)
}

// isTemporaryBuild reports a binary built by "go run" or "go test", which
// disappears when the command ends.
func isTemporaryBuild(exe string) bool {
	return strings.Contains(filepath.ToSlash(exe), "/go-build")
}
