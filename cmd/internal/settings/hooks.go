package settings

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ourSubcommands are the sub-commands that make a hook entry ours.
var ourSubcommands = map[string]bool{"precompact": true, "postcompact": true}

// globalValueFlags are the global flags that take a separate value, which
// may stand between the program and its sub-command.
var globalValueFlags = map[string]bool{"--dir": true, "--lang": true}

// binaryBaseName is the base name that marks a hook command as ours.
const binaryBaseName = "compact-guard"

// Entry is one hook handler of compact-guard's in a settings file (IN-5).
type Entry struct {
	Event   string
	Matcher string
	// HasMatcher is false when the group has no matcher key (matches all).
	HasMatcher bool
	// Program is the program as written, quotes removed; Args the words
	// after it (exec-form args included); Sub the first of them that is
	// one of compact-guard's sub-commands.
	Program string
	Args    []string
	Sub     string
	// Command is the handler's "command" as written, and ExecArgs its
	// exec-form "args" (nil in shell form).
	Command  string
	ExecArgs []string
	// Timeout is the literal text of "timeout", "" when it has none.
	Timeout string
	// If and Async report an "if" key and "async": true.
	If, Async bool

	group int // index in hooks[Event]
	node  *jsonNode
	cmd   parsedCommand
}

// TimeoutSeconds is the timeout as a number, false when it is missing or
// not a number.
func (e Entry) TimeoutSeconds() (float64, bool) { return e.node.get("timeout").number() }

// Entries lists every handler of compact-guard's in the document, in file
// order. self is the running binary, which counts as compact-guard under
// any name.
func (d *Document) Entries(self string) []Entry {
	return entriesIn(d.root.get("hooks"), self)
}

// entriesIn is Entries for the "hooks" object itself.
func entriesIn(hooks *jsonNode, self string) []Entry {
	if !hooks.isObject() {
		return nil
	}
	var out []Entry
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
			for _, h := range handlers.elems {
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
				e := Entry{
					Event: ev.key, Matcher: m.stringValOr(""), HasMatcher: m != nil,
					Program: pc.Program, Args: pc.Args, Sub: pc.Sub,
					Command: h.get("command").stringValOr(""),
					If:      h.get("if") != nil, Async: h.get("async").isTrue(),
					group: gi, node: h, cmd: pc,
				}
				if a := h.get("args"); a.isArray() {
					e.ExecArgs = []string{}
					for _, x := range a.elems {
						e.ExecArgs = append(e.ExecArgs, x.stringValOr(""))
					}
				}
				if t := h.get("timeout"); t != nil {
					e.Timeout = t.text
				}
				out = append(out, e)
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

// MatcherValues returns the exact values a matcher of letters, digits, _,
// -, space, comma and | stands for, or false when Claude Code would read it
// as a regular expression.
func MatcherValues(m string) ([]string, bool) {
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

// MatcherMatches applies Claude Code's matcher rules to a value: "", "*"
// match all; a matcher of letters, digits, _ - space , | is an exact list;
// anything else an unanchored regular expression (RE2 here, JavaScript
// there; close enough for the patterns people write).
func MatcherMatches(m, value string) (bool, error) {
	if m == "" || m == "*" {
		return true, nil
	}
	if toks, ok := MatcherValues(m); ok {
		for _, t := range toks {
			if t == value {
				return true, nil
			}
		}
		return false, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return false, err
	}
	return re.MatchString(value), nil
}

// sameMatcher reports whether two simple matchers name the same values, so
// that "auto|manual" is left as the user wrote it.
func sameMatcher(a, b string) bool {
	ta, oka := MatcherValues(a)
	tb, okb := MatcherValues(b)
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

// Change describes one change to a settings file, for the user; String
// gives its line in install's and uninstall's output.
type Change struct {
	Verb string // "added", "updated", "removed"
	Hook Hook
	What string
}

func (c Change) String() string {
	s := fmt.Sprintf("%-7s %s [%s] %s", c.Verb, c.Hook.Event, c.Hook.Matcher, c.Hook.Sub)
	if c.What != "" {
		s += " (" + c.What + ")"
	}
	return s
}

// Install merges compact-guard's registrations for the binary exe into the
// document (IN-6) and returns what it changed; no change means the file is
// up to date.
func (d *Document) Install(exe string) ([]Change, error) {
	root := d.root
	hooks := root.get("hooks")
	if hooks == nil {
		hooks = newObject()
	} else if !hooks.isObject() {
		return nil, errors.New(`"hooks" is not an object`)
	}
	for _, s := range Hooks {
		if ev := hooks.get(s.Event); ev != nil && !ev.isArray() {
			return nil, fmt.Errorf(`"hooks.%s" is not an array`, s.Event)
		}
	}
	var changes []Change
	for _, s := range Hooks {
		c, ok, err := installOne(hooks, s, exe)
		if err != nil {
			return nil, err
		}
		if ok {
			changes = append(changes, c)
		}
	}
	if len(changes) > 0 && root.get("hooks") == nil {
		root.set("hooks", hooks)
	}
	return changes, nil
}

func ourGroup(s Hook, exe string) *jsonNode {
	g := newObject()
	g.set("matcher", newString(s.Matcher))
	hs := newArray()
	hs.elems = append(hs.elems, ourHandlerNode(s, exe))
	g.set("hooks", hs)
	return g
}

func ourHandlerNode(s Hook, exe string) *jsonNode {
	h := newObject()
	h.set("type", newString("command"))
	h.set("command", newString(Command(exe, s.Sub)))
	h.set("timeout", newNumberInt(s.Timeout))
	return h
}

func installOne(hooks *jsonNode, s Hook, exe string) (Change, bool, error) {
	ev := hooks.get(s.Event)
	var found []Entry
	for _, h := range entriesIn(hooks, exe) {
		if h.Event == s.Event && h.Sub == s.Sub {
			found = append(found, h)
		}
	}
	if len(found) == 0 {
		if ev == nil {
			ev = newArray()
			hooks.set(s.Event, ev)
		}
		ev.elems = append(ev.elems, ourGroup(s, exe))
		return Change{Verb: "added", Hook: s, What: Command(exe, s.Sub) + fmt.Sprintf(", timeout %ds", s.Timeout)}, true, nil
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
			drop[d.node] = true
		}
	}

	var what []string
	h := first.node
	want, err := updatedCommand(first, exe)
	if err != nil {
		return Change{}, false, err
	}
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
	group := ev.elems[first.group]
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
		return Change{}, false, nil
	}
	return Change{Verb: "updated", Hook: s, What: strings.Join(what, "; ")}, true, nil
}

// updatedCommand is the command an entry of ours gets from install: the
// program becomes exe, and everything else the user wrote — VAR=value
// words, global flags, the sub-command and the flags after it (README
// tells users to add flags there) — stays as written. An exec-form entry
// becomes shell form with the same arguments.
func updatedCommand(h Entry, exe string) (string, error) {
	if h.ExecArgs == nil {
		return h.Command[:h.cmd.progStart] + QuotePath(exe) + h.Command[h.cmd.progEnd:], nil
	}
	parts := []string{QuotePath(exe)}
	for _, a := range h.Args {
		q, err := shellArg(a)
		if err != nil {
			return "", fmt.Errorf("exec-form argument %q cannot be written as a shell word: %w", a, err)
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " "), nil
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

// Uninstall removes every handler of compact-guard's (any event) and the
// groups, event lists and "hooks" object that only this left empty (IN-12).
func (d *Document) Uninstall(self string) []Change {
	root := d.root
	hooks := root.get("hooks")
	if !hooks.isObject() {
		return nil
	}
	found := d.Entries(self)
	if len(found) == 0 {
		return nil
	}
	var changes []Change
	byEvent := map[string]map[*jsonNode]bool{}
	for _, h := range found {
		if byEvent[h.Event] == nil {
			byEvent[h.Event] = map[*jsonNode]bool{}
		}
		byEvent[h.Event][h.node] = true
		changes = append(changes, Change{Verb: "removed", Hook: Hook{Event: h.Event, Matcher: h.Matcher, Sub: h.Sub}, What: h.node.get("command").stringValOr("")})
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
