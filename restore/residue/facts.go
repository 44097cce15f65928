// Package residue decides, fact by fact, whether a compaction's summary
// kept what the session's snapshot recorded: the typed prompts, the files
// edited, the commands and their failures, the open tasks, the uncommitted
// changes and the handoff's next step (specs/residue.md RS-1 to RS-18). What
// the summary dropped is the residue, which compact-guard hands back to the
// model once. The package holds pure functions: it reads nothing, and it
// knows the snapshot record and the transcript's types, not how either is
// stored or how the hooks run.
package residue

import (
	"strconv"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Kinds of fact (RS-4).
const (
	KindPrompt   = "prompt"
	KindFile     = "file"
	KindCommand  = "command"
	KindFailure  = "failure"
	KindTask     = "task"
	KindChange   = "change"
	KindNextStep = "next_step"
)

// Bounds of the facts compared (RS-4).
const (
	// Prompts is how many of the last typed prompts are compared: all the
	// record keeps.
	Prompts = transcript.MaxPrompts
	// Commands is how many of the last commands are compared.
	Commands = 10
	// Files is how many of the most recently edited files are compared.
	Files = 50
	// Changes is how many uncommitted changes are compared.
	Changes = 30
	// Tasks is how many open tasks are compared.
	Tasks = 20
	// PromptChars is how much of a prompt, a task and the next step must be
	// held: their first 200 characters.
	PromptChars = 200
	// CommandChars is how much of a command must be held.
	CommandChars = 200
	// ErrorChars is how much of a failed command's error line must be held.
	ErrorChars = 120
)

// Fact is one mechanically recorded fact of a snapshot.
type Fact struct {
	Kind string
	// Key names the fact within its record, stable across runs: the kind
	// and the index in the record's list ("prompt:4", "command:17").
	Key string
	// Text is what must be held: the prompt, the path, the command, the
	// error line, the task's subject, the change's path, the next step.
	Text string
	// Index is the fact's position in its record list (rec.Prompts,
	// rec.Files, rec.Commands, the open tasks, git's changes); -1 for the
	// next step.
	Index int
}

// Input is what the facts are taken from.
type Input struct {
	Record *snapshot.Record
	// NextStep is the NEXT STEP section of the current handoff block, ""
	// when there is none (a block that is not current is not the next
	// step of this compaction).
	NextStep string
}

// FactsOf lists the record's facts in a fixed order (RS-4): the last
// Prompts prompts (oldest first), the Files most recently edited files
// (most recent first), the last Commands commands (oldest first), right
// after each failed command the failure of its error line, the open tasks,
// the uncommitted changes and the next step.
func FactsOf(in Input) []Fact {
	rec := in.Record
	if rec == nil {
		return nil
	}
	var out []Fact
	add := func(kind string, i int, text string) {
		if text == "" {
			return
		}
		out = append(out, Fact{Kind: kind, Key: kind + ":" + strconv.Itoa(i), Text: text, Index: i})
	}
	for i := max(0, len(rec.Prompts)-Prompts); i < len(rec.Prompts); i++ {
		add(KindPrompt, i, rec.Prompts[i].Text)
	}
	for i := 0; i < len(rec.Files) && i < Files; i++ {
		add(KindFile, i, rec.Files[i].Path)
	}
	for i := max(0, len(rec.Commands)-Commands); i < len(rec.Commands); i++ {
		c := rec.Commands[i]
		add(KindCommand, i, c.Command)
		if c.Outcome == transcript.OutcomeError {
			add(KindFailure, i, c.ErrorLine)
		}
	}
	for i, t := range OpenTasks(rec) {
		if i >= Tasks {
			break
		}
		add(KindTask, i, t.Subject)
	}
	if g := rec.Git; g != nil {
		for i := 0; i < len(g.Changes) && i < Changes; i++ {
			add(KindChange, i, g.Changes[i].Path)
		}
	}
	if in.NextStep != "" {
		out = append(out, Fact{Kind: KindNextStep, Key: KindNextStep, Text: in.NextStep, Index: -1})
	}
	return out
}

// OpenTasks lists the record's tasks in progress, then the pending ones,
// the TodoWrite list before TaskCreate tasks within each: the order of the
// pointer's open tasks (postcompact.md PO-4).
func OpenTasks(rec *snapshot.Record) []transcript.Task {
	var open []transcript.Task
	for _, status := range []string{"in_progress", "pending"} {
		for _, list := range [][]transcript.Task{rec.Todos, rec.Tasks} {
			for _, t := range list {
				if t.Status == status {
					open = append(open, t)
				}
			}
		}
	}
	return open
}
