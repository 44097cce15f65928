package snapshot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// fitBudget is the size fitRecord brings a record under: MaxRecordBytes
// less room for the name's suffix and the warning that says what was cut.
const fitBudget = MaxRecordBytes - 16<<10

// fitStep is one round of cuts; each round cuts more than the one before.
type fitStep struct {
	// text bounds the free texts that have no limit of their own: custom
	// instructions, the payload error, each warning (characters).
	text, warnings int
	// files, todos (and tasks), commands, failures, gitChanges bound the
	// lists; pathChars bounds each path in them; promptChars each prompt.
	files, todos, commands, failures, gitChanges int
	pathChars, promptChars                       int
}

var fitSteps = []fitStep{
	{text: transcript.MaxPromptChars, warnings: 50, files: transcript.MaxFiles, todos: transcript.MaxTasks, commands: transcript.MaxCommands, failures: transcript.MaxFailures, gitChanges: MaxGitChanges, pathChars: transcript.MaxPathChars, promptChars: transcript.MaxPromptChars},
	{text: transcript.MaxPromptChars, warnings: 50, files: 100, todos: transcript.MaxTasks, commands: transcript.MaxCommands, failures: transcript.MaxFailures, gitChanges: MaxGitChanges, pathChars: 1000, promptChars: transcript.MaxPromptChars},
	{text: 1000, warnings: 20, files: 10, todos: 10, commands: 5, failures: transcript.MaxFailures, gitChanges: 10, pathChars: 500, promptChars: transcript.MaxPromptChars},
	{text: 300, warnings: 5, files: 0, todos: 0, commands: 0, failures: 0, gitChanges: 0, pathChars: 300, promptChars: 500},
}

// fitRecord cuts r until its JSON is under fitBudget, so that a record
// that would be over the MaxRecordBytes Load reads (a payload carrying
// megabytes of custom instructions, a thousand edited files with 4,096-
// character paths) is still written, trimmed, rather than not at all. Each
// step cuts more; what was cut is said in a warning the record keeps, and
// returned for the log (RB-22).
func fitRecord(r *Record) []string {
	if recordSize(r) <= fitBudget {
		return nil
	}
	before := recordSize(r)
	var cuts []string
	for _, st := range fitSteps {
		cuts = st.apply(r, cuts)
		if recordSize(r) <= fitBudget {
			break
		}
	}
	w := fmt.Sprintf("record trimmed to fit the %d-byte limit (it was %d bytes): %s", MaxRecordBytes, before, strings.Join(cuts, "; "))
	r.Warnings = append(r.Warnings, w)
	return []string{w}
}

func recordSize(r *Record) int {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return 0
	}
	return len(js) + 1
}

// apply makes the step's cuts on r and adds to cuts what each changed.
func (st fitStep) apply(r *Record, cuts []string) []string {
	note := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		for _, c := range cuts {
			if c == s {
				return
			}
		}
		cuts = append(cuts, s)
	}
	cutText := func(s *string, n int, what string) {
		if t, cut := textcut.Runes(*s, n); cut {
			*s = textcut.Marked(t, true)
			note("%s cut at %d characters", what, n)
		}
	}
	if r.CustomInstructions != nil {
		cutText(r.CustomInstructions, st.text, "custom instructions")
	}
	cutText(&r.PayloadError, st.text, "payload error")
	if n := len(r.Warnings); n > st.warnings {
		r.Warnings = r.Warnings[n-st.warnings:]
		note("warnings: the last %d of %d kept", st.warnings, n)
	}
	for i := range r.Warnings {
		cutText(&r.Warnings[i], st.text, "warnings")
	}
	for i := range r.Prompts {
		if t, cut := textcut.Runes(r.Prompts[i].Text, st.promptChars); cut {
			r.Prompts[i].Text, r.Prompts[i].Truncated = textcut.Marked(t, true), true
			note("prompts cut at %d characters", st.promptChars)
		}
	}
	if n := len(r.Files); n > st.files {
		r.Files = r.Files[:st.files]
		note("files: the %d most recent of %d kept", st.files, n)
	}
	for i := range r.Files {
		cutText(&r.Files[i].Path, st.pathChars, "file paths")
	}
	r.Todos = cutList(r.Todos, st.todos, "todos", note)
	r.Tasks = cutList(r.Tasks, st.todos, "tasks", note)
	if n := len(r.Commands); n > st.commands {
		r.Commands = r.Commands[n-st.commands:]
		note("commands: the last %d of %d kept", st.commands, n)
	}
	if n := len(r.Failures); n > st.failures {
		r.Failures = r.Failures[n-st.failures:]
		note("failures: the last %d of %d kept", st.failures, n)
	}
	if r.Git != nil {
		if n := len(r.Git.Changes); n > st.gitChanges {
			r.Git.Changes = r.Git.Changes[:st.gitChanges]
			note("git changes: %d of %d listed", st.gitChanges, n)
		}
		for i := range r.Git.Changes {
			cutText(&r.Git.Changes[i].Path, st.pathChars, "git paths")
			cutText(&r.Git.Changes[i].From, st.pathChars, "git paths")
		}
	}
	return cuts
}

// cutList keeps the first n tasks (the list's order), saying so.
func cutList(ts []transcript.Task, n int, what string, note func(string, ...any)) []transcript.Task {
	if len(ts) <= n {
		return ts
	}
	note("%s: the first %d of %d kept", what, n, len(ts))
	return ts[:n]
}
