package settings

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
	"mvdan.cc/sh/v3/syntax"
)

// What install writes is one shape only (IN-21): a handler
// {"type": "command", "command": "\"<binary>\" <sub-command> [flags]",
// "timeout": N} under an event install registers that sub-command for. A
// handler of that shape is install's, whoever wrote it, because running it
// runs compact-guard and nothing else; any other handler that merely starts
// with a program named compact-guard (`compact-guard precompact; curl … | sh`,
// `LD_PRELOAD=… compact-guard …`, a repository's own ./tools/compact-guard) is
// someone else's. Install trusts (Codex, IN-20), uninstall removes and doctor
// vouches for the first kind only; the second is left as it is and reported.

// hookFlag reports whether name (--keep) is a flag of hook sub-command sub
// that install keeps in a command of its own (IN-6: README tells users to
// add them there), and whether it takes a value. A switch, not a map:
// package initialisation is paid by every hook process (PF-16).
// TestHookFlagsAreTheCommands checks the list against the commands' flag
// sets, so a flag added there must be added here.
func hookFlag(sub, name string) (takesValue, known bool) {
	switch sub + " " + name {
	case "precompact --keep", "precompact --state-file", "precompact --timeout", "precompact --git-timeout",
		"precompact --earlier-budget", "precompact --settle", "postcompact --settle",
		"postcompact --max-age", "postcompact --max-chars", "postcompact --state-file", "postcompact --timeout",
		"watch --thresholds", "watch --window", "watch --state-file", "watch --max-chars", "watch --timeout":
		return true, true
	case "precompact --no-redact", "precompact --no-hint", "watch --stop-gate":
		return false, true
	}
	return false, false
}

// HookFlags returns, for each hook sub-command, the flags install keeps in
// a command of its own (hookFlag) among names, true for one that takes a
// value, for the test that compares them with the commands; global flags
// (globalValueFlags) are not listed.
func HookFlags(sub string, names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		if v, ok := hookFlag(sub, n); ok {
			out[n] = v
		}
	}
	return out
}

// installKey reports the keys of a handler install writes; statusMessage
// is the user's, which install keeps (IN-6) and which changes nothing of
// what runs.
func installKey(k string) bool {
	switch k {
	case "type", "command", "timeout", "statusMessage":
		return true
	}
	return false
}

// installForm says why handler h under event is not one install writes
// (IN-21), "" when it is, and the program (an absolute path, as the shell
// reads it) and sub-command it runs. typeMissingOK accepts a handler
// without "type", which install adds when it updates one.
func (d *Document) installForm(h *hujson.Object, event string, typeMissingOK bool) (prog, sub, why string) {
	if h == nil {
		return "", "", "not an object"
	}
	seen := map[string]bool{}
	for _, m := range h.Members {
		k, _ := stringOf(m.Name.Value)
		switch {
		case seen[k]:
			return "", "", fmt.Sprintf("the key %q appears twice", k)
		case !installKey(k):
			return "", "", fmt.Sprintf("it has %q, which install does not write", k)
		}
		seen[k] = true
	}
	switch t, ok := stringOf(member(h, "type")); {
	case ok && t == "command":
	case member(h, "type") == nil && typeMissingOK:
	default:
		return "", "", `its "type" is not "command"`
	}
	if v := member(h, "statusMessage"); v != nil {
		if _, ok := stringOf(v); !ok {
			return "", "", `its "statusMessage" is not a string`
		}
	}
	if v := member(h, "timeout"); v != nil {
		if _, ok := numberOf(v); !ok {
			return "", "", `its "timeout" is not a number`
		}
	}
	command, ok := stringOf(member(h, "command"))
	if !ok {
		return "", "", `its "command" is not a string`
	}
	if prog, sub, why = commandForm(command); why != "" {
		return "", "", why
	}
	for _, s := range HooksFor(d.agent) {
		if s.Event == event && s.Sub == sub {
			return prog, sub, ""
		}
	}
	return "", "", fmt.Sprintf("install does not register compact-guard %s for %s", sub, event)
}

// commandForm says why a shell-form command is not one install writes, ""
// when it is: the program as QuotePath writes an absolute path, then its
// words separated by one space, each written as syntax.Quote writes it for
// POSIX sh and meaning the same text in any environment, made of global
// flags, the sub-command and that sub-command's flags (hookFlags) with
// their values.
func commandForm(command string) (prog, sub, why string) {
	words, ok := commandWords(command)
	if !ok {
		return "", "", "its command is not one simple command"
	}
	if why := extraSyntax(command); why != "" {
		return "", "", why
	}
	prog = words[0].Text
	if !filepath.IsAbs(filepath.FromSlash(prog)) {
		return "", "", fmt.Sprintf("its program %s is not an absolute path", prog)
	}
	texts := make([]string, 0, len(words)-1)
	quoted := []string{QuotePath(prog)}
	for _, w := range words[1:] {
		q, err := shellArg(w.Text)
		if !w.Static || err != nil {
			return "", "", fmt.Sprintf("the shell reads something into %s", command[w.Start:w.End])
		}
		texts, quoted = append(texts, w.Text), append(quoted, q)
	}
	if strings.Join(quoted, " ") != command {
		return "", "", "it is not written as install writes it (the program's path in double quotes, each word quoted only where the shell needs it, one space between words)"
	}
	sub, why = flagsForm(texts)
	return prog, sub, why
}

// flagsForm checks the words after the program: global flags (--dir V,
// --lang V, or --dir=V), the sub-command, then its own flags.
func flagsForm(words []string) (sub, why string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, _, hasValue := strings.Cut(w, "=")
		if !strings.HasPrefix(w, "--") {
			switch {
			case sub != "":
				return "", fmt.Sprintf("%s is not a flag of compact-guard %s", w, sub)
			case !ourSubcommands[w]:
				return "", fmt.Sprintf("%s is not a hook sub-command of compact-guard", w)
			}
			sub = w
			continue
		}
		takesValue, known := true, globalValueFlags[name] // --dir, --lang: anywhere
		if sub != "" && !known {
			takesValue, known = hookFlag(sub, name)
		}
		switch {
		case !known && sub == "":
			return "", fmt.Sprintf("%s is not a flag install keeps before the sub-command", w)
		case !known:
			return "", fmt.Sprintf("%s is not a flag of compact-guard %s", name, sub)
		case takesValue && !hasValue:
			if i+1 == len(words) || strings.HasPrefix(words[i+1], "-") {
				return "", fmt.Sprintf("%s has no value", w)
			}
			i++
		case !takesValue && hasValue && strings.TrimPrefix(w, name+"=") != "true" && strings.TrimPrefix(w, name+"=") != "false":
			return "", fmt.Sprintf("%s takes no value", name)
		}
	}
	if sub == "" {
		return "", "it names no sub-command"
	}
	return sub, ""
}

// extraSyntax says what a command holds besides one simple command's
// words: more commands, assignments, redirections, comments.
func extraSyntax(command string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(command), "")
	if err != nil {
		return "its command does not parse"
	}
	switch {
	case len(f.Stmts) != 1:
		return "it runs more than one command"
	case len(f.Last) > 0 || len(f.Stmts[0].Comments) > 0:
		return "it holds a comment"
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || st.Disown {
		return "it runs compact-guard in the background or negated"
	}
	if len(st.Redirs) > 0 {
		return "it redirects input or output"
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	switch {
	case !ok:
		return "it runs more than compact-guard (after ;, &&, || or |)"
	case len(call.Assigns) > 0:
		return "it sets " + call.Assigns[0].Name.Value + "= for the program"
	}
	return ""
}

// Installed reports whether e is, as it stands, a handler install writes
// (IN-21), for this compact-guard or another: uninstall removes those.
func (e Entry) Installed() bool { return e.Foreign == "" }

// updatable reports whether install can make e one of its own by updating
// it in place (IN-6).
func (d *Document) updatable(e Entry, exe string) bool { return d.updateProblem(e, exe) == "" }

// updateProblem says why install cannot make e one of its own by updating
// it in place (IN-6), "" when it can: with its program replaced by exe,
// exec-form args moved into the command, a missing type added and an
// implausible timeout replaced, it must be a handler install writes for
// e's sub-command.
func (d *Document) updateProblem(e Entry, exe string) string {
	if e.ExecArgs == nil {
		if why := extraSyntax(e.Command); why != "" {
			return why // VAR=value, a redirection, a; b: not install's to rewrite
		}
		if words, ok := commandWords(e.Command); ok {
			for _, w := range words[1:] {
				if !w.Static {
					return fmt.Sprintf("the shell reads something into %s", e.Command[w.Start:w.End])
				}
			}
		}
	}
	want, err := updatedCommand(e, exe)
	if err != nil {
		return err.Error()
	}
	probe := &hujson.Object{}
	for _, m := range e.handler.Members {
		switch k, _ := stringOf(m.Name.Value); k {
		case "args", "timeout":
			continue // moved into the command; set by install when implausible
		case "command":
			m.Value = hujson.Value{Value: hujson.String(want)}
		}
		probe.Members = append(probe.Members, m)
	}
	_, sub, why := d.installForm(probe, e.Event, true)
	if why == "" && sub != e.Sub {
		why = "its sub-command is not the first word after the global flags"
	}
	return why
}
