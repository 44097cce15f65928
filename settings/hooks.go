package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// ourSubcommands are the sub-commands that make a hook entry ours; a
// client that runs one of its own adds it when it registers (Client.Sub).
var ourSubcommands = map[string]bool{"precompact": true, "postcompact": true, "watch": true}

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
	// Foreign says why the handler, as it stands, is not one install
	// writes (IN-21), "" when it is; uninstall removes only those.
	// Unmanaged says why install cannot make it one by updating it in
	// place (IN-6), "" when it can: install leaves such an entry alone.
	Foreign, Unmanaged string

	// Where it is: the event's list, the matcher group, the handler.
	list    *hujson.Array
	group   *hujson.Object
	handler *hujson.Object
	cmd     parsedCommand
}

// TimeoutSeconds is the timeout as a number, false when it is missing or
// not a number.
func (e Entry) TimeoutSeconds() (float64, bool) { return numberOf(member(e.handler, "timeout")) }

// Entries lists every handler of compact-guard's in the document, in file
// order. self is the running binary, which counts as compact-guard under
// any name.
func (d *Document) Entries(self string) []Entry {
	hooks, _ := member(d.rootObject(), "hooks").(*hujson.Object)
	if hooks == nil {
		return nil
	}
	var out []Entry
	for _, ev := range hooks.Members {
		list, ok := ev.Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		event, _ := stringOf(ev.Name.Value)
		for _, g := range list.Elements {
			group, _ := g.Value.(*hujson.Object)
			handlers, _ := member(group, "hooks").(*hujson.Array)
			if handlers == nil {
				continue
			}
			matcher := member(group, "matcher")
			for _, hv := range handlers.Elements {
				h, _ := hv.Value.(*hujson.Object)
				if e, ok := entryOf(h, self); ok {
					e.Event, e.list, e.group = event, list, group
					_, _, e.Foreign = d.installForm(h, event, false)
					if e.Foreign != "" {
						e.Unmanaged = d.updateProblem(e, self)
					}
					e.Matcher, _ = stringOf(matcher)
					e.HasMatcher = matcher != nil
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// entryOf takes apart a handler and reports whether it is ours.
func entryOf(h *hujson.Object, self string) (Entry, bool) {
	if h == nil {
		return Entry{}, false
	}
	if t := member(h, "type"); t != nil {
		if s, ok := stringOf(t); !ok || s != "command" {
			return Entry{}, false
		}
	}
	command, ok := stringOf(member(h, "command"))
	if !ok {
		return Entry{}, false
	}
	e := Entry{Command: command, handler: h, If: member(h, "if") != nil}
	if a, ok := member(h, "async").(hujson.Literal); ok && a.Kind() == 't' {
		e.Async = true
	}
	if t, ok := member(h, "timeout").(hujson.Literal); ok {
		e.Timeout = string(t)
	}
	if args, ok := member(h, "args").(*hujson.Array); ok {
		e.ExecArgs = []string{}
		for _, a := range args.Elements {
			s, _ := stringOf(a.Value)
			e.ExecArgs = append(e.ExecArgs, s)
		}
	}
	e.cmd, ok = ParseHookCommand(e.Command, e.ExecArgs)
	if !ok || e.cmd.Sub == "" || !IsOurProgram(e.cmd.Program, self) {
		return Entry{}, false
	}
	e.Program, e.Args, e.Sub = e.cmd.Program, e.cmd.Args, e.cmd.Sub
	return e, true
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

// surelyRunsFor reports whether Claude Code surely runs e's group for a
// hook call whose matcher value is value (PL-31): the trigger at PreCompact
// and PostCompact, the source at SessionStart, "" when the payload does not
// give it (a tool's name at PostToolUse, which the payload reader does not
// keep). A group without a matcher, or with "" or "*", runs for every call;
// UserPromptSubmit and Stop take no matcher, and the client ignores one. A
// matcher that is not a string, or one that needs a value the call does not
// give, is not known to run.
func (e Entry) surelyRunsFor(value string) bool {
	if !e.HasMatcher {
		return true
	}
	m, ok := stringOf(member(e.group, "matcher"))
	switch {
	case !ok:
		return false
	case e.Event == "UserPromptSubmit" || e.Event == "Stop":
		return true
	case m == "" || m == "*":
		return true
	case value == "":
		return false
	}
	return MatcherSurelyMatches(m, value)
}

// MatcherSurelyMatches reports whether every Claude Code release that runs
// the plugin reads matcher m as matching value (PL-31). A list of words
// separated by | is exact in every release. A comma or hyphen made the
// matcher a JavaScript pattern before 2.1.191 and 2.1.195, and spaces may be
// kept or trimmed, so such a matcher counts only when it matches read both
// ways. A pattern counts only when it has no backslash and no (? group,
// where RE2 and JavaScript may read it apart, and RE2 finds value in it.
func MatcherSurelyMatches(m, value string) bool {
	words, simple := MatcherValues(m)
	inList := simple && slices.Contains(words, value)
	if simple && !strings.ContainsAny(m, ", -") {
		return inList
	}
	if simple && !inList || strings.Contains(m, `\`) || strings.Contains(m, "(?") {
		return false
	}
	re, err := regexp.Compile(m)
	return err == nil && re.MatchString(value)
}

// sameMatcher reports whether two simple matchers name the same values, so
// that "auto|manual" is left as the user wrote it; "" and "*" both match
// everything.
func sameMatcher(a, b string) bool {
	if matchesAll(a) || matchesAll(b) {
		return matchesAll(a) && matchesAll(b)
	}
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

func matchesAll(m string) bool { return m == "" || m == "*" }

// Change describes one change to a settings file, for the user; String
// gives its line in install's and uninstall's output.
type Change struct {
	Verb string // "added", "updated", "removed"
	Hook Hook
	What string
}

func (c Change) String() string {
	m := c.Hook.Matcher
	if m == "" {
		m = "*" // no matcher matches everything, as doctor shows it
	}
	s := fmt.Sprintf("%-7s %s [%s] %s", c.Verb, c.Hook.Event, m, c.Hook.Sub)
	if c.What != "" {
		s += " (" + c.What + ")"
	}
	return s
}

// handlerJSON and groupJSON are the entries install writes, their keys in
// this order.
type handlerJSON struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

type groupJSON struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []any  `json:"hooks"`
}

// Install merges compact-guard's registrations for the binary exe into the
// document (IN-6) and returns what it changed; no change means the file is
// up to date. client is the Claude Code release the hooks are for ("" when
// not known): a registration for an event it does not know is left out,
// and one of ours already there is removed (IN-18). carry says whose
// flags, timeout and statusMessage an entry already there keeps (IN-31);
// CarryNotes says afterwards what was carried over or left out.
func (d *Document) Install(exe, client string, carry Carry) ([]Change, error) {
	d.carryNotes = nil
	root := d.rootObject()
	switch hooks := member(root, "hooks").(type) {
	case nil:
	case *hujson.Object:
		for _, s := range HooksFor(d.agent) {
			if ev := member(hooks, s.Event); ev != nil {
				if _, ok := ev.(*hujson.Array); !ok {
					return nil, fmt.Errorf(`"hooks.%s" is not an array`, s.Event)
				}
			}
		}
	default:
		return nil, errors.New(`"hooks" is not an object`)
	}
	var changes []Change
	drop := map[*hujson.Object]bool{}
	trusted := d.trustedBefore(exe, carry)
	for _, s := range HooksFor(d.agent) {
		if !s.KnownTo(client) {
			for _, e := range d.Entries(exe) {
				if e.Event == s.Event && e.Sub == s.Sub && d.updatable(e, exe) {
					drop[e.handler] = true
					changes = append(changes, Change{Verb: "removed", Hook: s,
						What: fmt.Sprintf("Claude Code %s does not know %s (it came in %s) and would load no hook from this file", client, s.Event, s.Since)})
				}
			}
			continue
		}
		c, ok, err := d.installOne(s, exe, carry, trusted)
		if err != nil {
			return nil, err
		}
		if ok {
			changes = append(changes, c)
		}
	}
	if len(drop) > 0 {
		d.removeHandlers(drop)
	}
	return changes, nil
}

// installOne brings one registration up to date. Only entries it can make
// its own count (IN-6, IN-21): a foreign one stays as it is. The entry it
// keeps keeps its own flags, timeout and statusMessage only when carry
// carries them (IN-31); otherwise it becomes install's bare handler.
func (d *Document) installOne(s Hook, exe string, carry Carry, trusted map[*hujson.Object]bool) (Change, bool, error) {
	var found []Entry
	for _, e := range d.Entries(exe) {
		if e.Event == s.Event && e.Sub == s.Sub && d.updatable(e, exe) {
			found = append(found, e)
		}
	}
	if len(found) == 0 {
		group := groupJSON{Matcher: s.Matcher, Hooks: []any{handlerJSON{Type: "command", Command: Command(exe, s.Sub), Timeout: s.Timeout}}}
		d.addGroup(s.Event, newValue(group))
		return Change{Verb: "added", Hook: s, What: Command(exe, s.Sub) + ", timeout " + d.agent.timeoutText(s.Timeout)}, true, nil
	}

	// Keep the entry that already has the right matcher, if any; the
	// others are duplicates.
	keep := 0
	for i, f := range found {
		if hasMatcher(f, s.Matcher) {
			keep = i
			break
		}
	}
	first := found[keep]
	drop := map[*hujson.Object]bool{}
	for i, e := range found {
		if i != keep {
			drop[e.handler] = true
		}
	}

	var what []string
	h := first.handler
	want, err := updatedCommand(first, exe)
	if err != nil {
		return Change{}, false, err
	}
	own := carry.carries(first, trusted)
	d.noteCarry(first, s, carry, own)
	if !own {
		want = Command(exe, s.Sub)
		what = append(what, d.bareHandler(h, s, first.Timeout)...)
	}
	if member(h, "type") == nil {
		d.setMember(h, "type", hujson.String("command"))
	}
	if first.Command != want {
		what = append(what, fmt.Sprintf("command %s -> %s", first.Command, want))
		d.setMember(h, "command", hujson.String(want))
	}
	if i := memberIndex(h, "args"); i >= 0 {
		for ; i >= 0; i = memberIndex(h, "args") {
			removeMember(h, i)
		}
		what = append(what, "exec-form args moved into the command")
	}
	if !d.agent.plausibleTimeout(s.Sub, member(h, "timeout")) {
		old := "none"
		if first.Timeout != "" {
			old = first.Timeout
		}
		what = append(what, fmt.Sprintf("timeout %s -> %d", old, s.Timeout))
		d.setMember(h, "timeout", hujson.Int(int64(s.Timeout)))
	}
	if len(drop) > 0 {
		what = append(what, fmt.Sprintf("%d duplicate(s) removed", len(drop)))
	}

	var moved *hujson.Value
	if !hasMatcher(first, s.Matcher) {
		old := strconv.Quote(first.Matcher)
		if !first.HasMatcher {
			old = "none"
		}
		if ownsGroupAlone(first.group, h, drop) {
			d.setMember(first.group, "matcher", hujson.String(s.Matcher))
			what = append(what, fmt.Sprintf("matcher %s -> %q", old, s.Matcher))
		} else {
			// The group holds foreign handlers that want their matcher:
			// move ours out into a group of its own.
			drop[h] = true
			v := newValue(groupJSON{Matcher: s.Matcher, Hooks: []any{json.RawMessage(hujson.Value{Value: h}.Pack())}})
			moved = &v
			what = append(what, fmt.Sprintf("moved out of the group with matcher %s", old))
		}
	}
	d.removeHandlers(drop)
	if moved != nil {
		d.addGroup(s.Event, *moved)
	}
	if len(what) == 0 {
		return Change{}, false, nil
	}
	return Change{Verb: "updated", Hook: s, What: strings.Join(what, "; ")}, true, nil
}

// hasMatcher reports whether entry e's group has the matcher m: the same
// values, or, for a matcher that matches everything, no matcher key at all.
func hasMatcher(e Entry, m string) bool {
	if !e.HasMatcher {
		return matchesAll(m)
	}
	return sameMatcher(e.Matcher, m)
}

// addGroup appends a matcher group to an event's list, creating the list
// and the "hooks" object at the end of their parents when missing.
func (d *Document) addGroup(event string, group hujson.Value) {
	root := d.rootObject()
	hooks, _ := member(root, "hooks").(*hujson.Object)
	if hooks == nil {
		hooks = &hujson.Object{}
		d.appendMember(root, "hooks", hujson.Value{Value: hooks})
	}
	if list, _ := member(hooks, event).(*hujson.Array); list != nil {
		d.appendElement(list, group)
		return
	}
	d.appendMember(hooks, event, hujson.Value{Value: &hujson.Array{Elements: []hujson.Value{group}}})
}

// updatedCommand is the command an entry of ours gets from install: the
// program becomes exe, and the words after it — global flags, the
// sub-command and the flags after it (README tells users to add flags
// there) — stay, each written as syntax.Quote writes it for POSIX sh (as
// is when no shell reads anything into it), one space apart. An exec-form
// entry becomes shell form with the same arguments. Words whose text
// depends on the shell ($HOME, *.md) cannot be rewritten so: updatable
// turns such an entry down.
func updatedCommand(h Entry, exe string) (string, error) {
	if !h.cmd.static {
		return "", errors.New("an argument holds what the shell expands")
	}
	parts := []string{QuotePath(exe)}
	for _, a := range h.Args {
		q, err := shellArg(a)
		if err != nil {
			return "", fmt.Errorf("argument %q cannot be written as a shell word: %w", a, err)
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

// ownsGroupAlone reports whether h is the only handler of group once the
// handlers in drop are gone.
func ownsGroupAlone(group, h *hujson.Object, drop map[*hujson.Object]bool) bool {
	handlers, _ := member(group, "hooks").(*hujson.Array)
	for _, x := range handlers.Elements {
		if o, _ := x.Value.(*hujson.Object); o != h && !drop[o] {
			return false
		}
	}
	return true
}

// removeHandlers removes the handlers in drop, then the matcher groups,
// event lists and "hooks" object that this left empty; containers that were
// empty already stay, and so do those install's trace says the user had
// (IN-77).
func (d *Document) removeHandlers(drop map[*hujson.Object]bool) {
	if len(drop) == 0 {
		return
	}
	root := d.rootObject()
	hooks, _ := member(root, "hooks").(*hujson.Object)
	for ei := len(hooks.Members) - 1; ei >= 0; ei-- {
		list, _ := hooks.Members[ei].Value.Value.(*hujson.Array)
		if list == nil || len(list.Elements) == 0 {
			continue
		}
		for gi := len(list.Elements) - 1; gi >= 0; gi-- {
			group, _ := list.Elements[gi].Value.(*hujson.Object)
			handlers, _ := member(group, "hooks").(*hujson.Array)
			if handlers == nil || len(handlers.Elements) == 0 {
				continue
			}
			for hi := len(handlers.Elements) - 1; hi >= 0; hi-- {
				if h, _ := handlers.Elements[hi].Value.(*hujson.Object); drop[h] {
					removeElement(handlers, hi)
				}
			}
			if len(handlers.Elements) == 0 {
				removeElement(list, gi)
			}
		}
		if name, _ := stringOf(hooks.Members[ei].Name.Value); len(list.Elements) == 0 && d.mayDrop("hooks/"+name) {
			removeMember(hooks, ei)
		}
	}
	if len(hooks.Members) == 0 && d.mayDrop("hooks") {
		removeMember(root, memberIndex(root, "hooks"))
	}
}

// Uninstall removes every handler install writes (IN-21), for this binary
// or another compact-guard, and the groups, event lists and "hooks" object
// that only this left empty (IN-12). A foreign entry stays.
func (d *Document) Uninstall(self string) []Change {
	var changes []Change
	drop := map[*hujson.Object]bool{}
	for _, e := range d.Entries(self) {
		if !e.Installed() {
			continue
		}
		drop[e.handler] = true
		changes = append(changes, Change{Verb: "removed", Hook: Hook{Event: e.Event, Matcher: e.Matcher, Sub: e.Sub}, What: e.Command})
	}
	d.removeHandlers(drop)
	return changes
}
