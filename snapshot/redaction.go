package snapshot

import (
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/snapshot/redact"
	"github.com/compact-guard/compact-guard/transcript"
)

// RedactRecord redacts, in place, every free-text field of a record: prompts,
// custom instructions, commands with their tools, descriptions and error
// lines, failures with their tools (an MCP tool's name is its server's
// choice), the plan, todo and task subjects, statuses and active forms, the
// trigger, prompt id and hook event the payload gave, the git subject and
// error, the payload error and warnings. A text the transcript cut is
// redacted together with what followed the cut (transcript.TailChars), then
// cut again, so that a secret straddling the cut leaves no prefix.
// Identifiers and paths (session id, names, file paths, cwd, branch) are
// left alone. It returns the number of replacements.
func RedactRecord(r *Record) int {
	if r == nil {
		return 0
	}
	n := 0
	red := func(p *string) {
		if p == nil {
			return
		}
		out, k := redact.Text(*p)
		*p = out
		n += k
	}
	rw := func(full string, keep int) string {
		out, k := redact.Text(full)
		n += k
		if keep < 0 {
			return out
		}
		cut, k := redact.Cut(out, keep, utf8.RuneCountInString(full)-keep >= transcript.TailChars)
		n += k
		return cut
	}
	red(&r.Trigger)
	red(&r.PromptID)
	red(&r.HookEvent)
	red(r.CustomInstructions)
	red(&r.PayloadError)
	for i := range r.Prompts {
		r.Prompts[i].Rewrite(rw)
	}
	for i := range r.Commands {
		r.Commands[i].Rewrite(rw)
	}
	for _, tasks := range [][]transcript.Task{r.Todos, r.Tasks} {
		for i := range tasks {
			tasks[i].Rewrite(rw)
		}
	}
	for i := range r.Failures {
		r.Failures[i].Rewrite(rw)
	}
	if r.Plan != nil {
		r.Plan.Rewrite(rw)
	}
	if r.Git != nil {
		red(&r.Git.Subject)
		red(&r.Git.Error)
	}
	for i := range r.Warnings {
		red(&r.Warnings[i])
	}
	return n + RedactPreparation(r.Preparation)
}

// RedactPreparation redacts the free text of a record's preparation (the
// handoff block's heading and next step) and returns how many secrets it
// replaced. precompact adds the preparation after RedactRecord ran, so it
// redacts it on its own (PC-26, PC-15).
func RedactPreparation(p *Preparation) int {
	if p == nil || p.Handoff == nil {
		return 0
	}
	n := 0
	for _, f := range []*string{&p.Handoff.Heading, &p.Handoff.NextStep} {
		out, k := redact.Text(*f)
		*f, n = out, n+k
	}
	return n
}
