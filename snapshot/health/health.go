// Package health is what a doctor check returns: one line of the report,
// with its status and the fix. It imports nothing of the project, so that
// every package that owns something doctor checks (the settings editors,
// the snapshot store, selection, the hint) can return its own lines, and
// cmd only runs the checks and prints them (specs/install.md DR-*).
package health

import (
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// Status is how a line counts: the order is the severity, so that the
// worst of several problems decides a line's mark (max).
type Status int

// The statuses, from least to most severe. Warn does not change doctor's
// exit status; Fail does.
const (
	OK Status = iota
	Info
	Warn
	Fail
)

// Result is one line of doctor's report; Fix, when set, is the repair
// printed under it. The zero Result (OK, no text) means "nothing to say"
// where a check returns one.
type Result struct {
	Status Status
	Text   string
	Fix    string
}

// Check is one check of doctor's list: it returns its lines, none when it
// has nothing to say.
type Check func() []Result

// ShellQuote quotes a path for a fix line the user pastes into a POSIX
// shell (as is when the shell reads nothing into it).
func ShellQuote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil {
		return q
	}
	return strconv.Quote(s)
}
