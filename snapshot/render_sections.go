package snapshot

// The Markdown's sections, one per fact list: prompts, files, commands,
// tasks, failures, the plan and git; split from render.go by topic.

import (
	"strings"

	"github.com/compact-guard/compact-guard/transcript"
)

func (w *mdWriter) none() {
	w.line(w.t("None recorded."))
	w.blank()
}

// prompts lists the prompts the record kept, each whole (the summary has
// an excerpt of the last).
func (w *mdWriter) prompts(r *Record) {
	ps, total := r.Prompts, totals(r).Prompts
	if len(ps) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Prompts, newest last (%s)", w.count(len(ps), total)))
	if len(ps) == 0 {
		w.none()
		return
	}
	first := total - len(ps) + 1
	for i, p := range ps {
		w.heading(3, w.t("Prompt %d of %d", first+i, total)+w.at(p.Time))
		w.block("text", p.Text)
		if p.Truncated && w.full {
			w.line(w.t("[…cut at %d characters]", transcript.MaxPromptChars))
			w.blank()
		}
		if p.FromLastPrompt {
			w.line(w.t("Taken from the transcript's last-prompt entry: the prompt itself was not written yet."))
			w.blank()
		}
	}
}

func (w *mdWriter) files(fs []transcript.FileEdit) {
	if len(fs) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Files edited, most recent first (%s)", w.count(len(fs), len(fs))))
	if len(fs) == 0 {
		w.none()
		return
	}
	for _, f := range fs {
		s := w.t("%s — %d edits, last %s", w.oneLine(w.rel(f.Path), oneLineChars), f.Edits, w.code(f.LastTool))
		if w.full {
			s = w.t("%s — %d edits, last %s", w.code(w.rel(f.Path)), f.Edits, w.code(f.LastTool))
		}
		if !f.LastTime.IsZero() {
			s = w.t("%s at %s", s, w.when(f.LastTime))
		}
		w.item(0, s)
	}
	w.blank()
}

// outcome renders a command's outcome for its heading in --full; anything
// but ok and background is marked with ✗ so that failed commands stand out.
func (w *mdWriter) outcome(c transcript.Command) string {
	switch c.Outcome {
	case transcript.OutcomeOK:
		return "✓ " + w.t("ok")
	case transcript.OutcomeError:
		if c.ExitCode != nil {
			return "✗ " + w.t("FAILED, exit code %d", *c.ExitCode)
		}
		return "✗ " + w.t("FAILED")
	case transcript.OutcomeRejected:
		return "✗ " + w.t("REJECTED by the user")
	case transcript.OutcomeInterrupted:
		return "✗ " + w.t("INTERRUPTED")
	case transcript.OutcomeBackground:
		return w.t("started in the background")
	}
	return w.t("outcome unknown")
}

// shortOutcome is the outcome at the start of a command's one line.
func (w *mdWriter) shortOutcome(c transcript.Command) string {
	switch c.Outcome {
	case transcript.OutcomeOK:
		return "✓"
	case transcript.OutcomeError:
		if c.ExitCode != nil {
			return "✗ " + w.t("exit %d", *c.ExitCode)
		}
		return "✗ " + w.t("failed")
	case transcript.OutcomeRejected:
		return "✗ " + w.t("rejected")
	case transcript.OutcomeInterrupted:
		return "✗ " + w.t("interrupted")
	case transcript.OutcomeBackground:
		return "↻ " + w.t("background")
	}
	return "? " + w.t("outcome unknown")
}

// commandLine is a command in one line: outcome, the command's first line,
// time, and the error line when there is one.
func (w *mdWriter) commandLine(c transcript.Command) string {
	s := w.shortOutcome(c) + "  " + w.oneLine(c.Command, oneLineChars)
	if t := w.when(c.Time); t != "" {
		s += "  " + t
	}
	if c.ErrorLine != "" {
		s += " — " + w.oneLine(c.ErrorLine, oneLineErrChars)
	}
	return s
}

func (w *mdWriter) commands(r *Record) {
	cs := r.Commands
	if len(cs) == 0 && !w.full {
		return
	}
	total := totals(r).Commands
	w.heading(2, w.t("Commands, newest last (%s)", w.count(len(cs), total)))
	if len(cs) == 0 {
		w.none()
		return
	}
	if !w.full {
		for _, c := range cs {
			w.item(0, w.commandLine(c))
		}
		w.blank()
		return
	}
	first := total - len(cs) + 1
	for i, c := range cs {
		w.heading(3, w.t("Command %d of %d", first+i, total)+" · "+w.outcome(c)+w.at(c.Time))
		w.item(0, w.t("Tool: %s", w.code(c.Tool)))
		if c.Description != "" {
			w.item(0, w.t("Description: %s", w.code(c.Description)))
		}
		if c.ErrorLine != "" {
			w.item(0, w.t("Error: %s", w.code(c.ErrorLine)))
		}
		if c.Truncated {
			w.item(0, w.t("[…cut at %d characters]", transcript.MaxCommandChars))
		}
		w.blank()
		info := "sh"
		if strings.EqualFold(c.Tool, "PowerShell") {
			info = "powershell"
		}
		w.block(info, c.Command)
	}
}

func (w *mdWriter) status(s string) string {
	switch s {
	case "pending":
		return "[ ] " + w.t("pending")
	case "in_progress":
		return "[~] " + w.t("in progress")
	case "completed":
		return "[x] " + w.t("completed")
	case "deleted":
		return "[-] " + w.t("deleted")
	}
	return "[?] " + w.code(s)
}

func (w *mdWriter) taskList(heading string, ts []transcript.Task) {
	if len(ts) == 0 && !w.full {
		return
	}
	w.heading(3, heading)
	if len(ts) == 0 {
		w.none()
		return
	}
	for _, t := range ts {
		s := w.status(t.Status) + " " + w.code(t.Subject)
		if t.ID != "" {
			s += " " + w.t("(id %s)", inlineCode(t.ID))
		}
		if t.ActiveForm != "" && t.Status == "in_progress" {
			s += " — " + w.code(t.ActiveForm)
		}
		w.item(0, s)
	}
	w.blank()
}

func (w *mdWriter) tasks(todos, tasks []transcript.Task) {
	if len(todos) == 0 && len(tasks) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Tasks"))
	w.taskList(w.t("Todo list (TodoWrite)"), todos)
	w.taskList(w.t("Tasks (TaskCreate, TaskUpdate)"), tasks)
}

func (w *mdWriter) failures(r *Record) {
	fs := r.Failures
	if len(fs) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Failures and rejections, newest last (%s)", w.count(len(fs), totals(r).Failures)))
	if len(fs) == 0 {
		w.none()
		return
	}
	for _, f := range fs {
		what := w.t("failed")
		if f.Rejected {
			what = w.t("rejected by the user")
		}
		s := "✗ " + w.code(f.Tool) + " " + what
		if !w.full {
			if f.Input != "" {
				s += "  " + w.oneLine(w.failureInput(f), oneLineChars)
			}
			if t := w.when(f.Time); t != "" {
				s += "  " + t
			}
			if f.Error != "" {
				s += " — " + w.oneLine(f.Error, oneLineErrChars)
			}
			w.item(0, s)
			continue
		}
		w.item(0, s+w.at(f.Time))
		if f.Input != "" {
			w.item(1, w.t("Input: %s", w.code(f.Input)))
		}
		if f.Error != "" {
			w.item(1, w.t("Error: %s", w.code(f.Error)))
		}
	}
	w.blank()
}

// failureInput is a failure's input, a path relative to the working
// directory when a file tool failed on a file inside it.
func (w *mdWriter) failureInput(f transcript.Failure) string {
	switch f.Tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit":
		return w.rel(f.Input)
	}
	return f.Input
}

func (w *mdWriter) plan(p *transcript.Plan) {
	if p == nil && !w.full {
		return
	}
	w.heading(2, w.t("Plan (last approved)"))
	if p == nil {
		w.none()
		return
	}
	if !p.Time.IsZero() {
		w.line(w.t("Approved at %s.", w.when(p.Time)))
		w.blank()
	}
	w.block("markdown", p.Text)
	if p.Truncated && w.full {
		w.line(w.t("[…cut at %d characters]", transcript.MaxPlanChars))
		w.blank()
	}
}

// porcelain shows a status code as git status --short does ("M " staged,
// " M" not, "??" untracked); a code that is not two status letters is shown
// as code.
func porcelain(code string) (string, bool) {
	if len(code) != 2 {
		return "", false
	}
	for i := 0; i < 2; i++ {
		if strings.IndexByte(".MTADRCU?!", code[i]) < 0 {
			return "", false
		}
	}
	return strings.ReplaceAll(code, ".", " "), true
}

func (w *mdWriter) change(c GitChange) string {
	code, ok := porcelain(c.Code)
	if !ok {
		code = w.code(c.Code)
	}
	if c.From != "" {
		return code + " " + w.code(c.From) + " → " + w.code(c.Path)
	}
	return code + " " + w.code(c.Path)
}

// git lists the uncommitted changes (the summary has the rest); --full adds
// everything git and the transcript said.
func (w *mdWriter) git(g *Git, transcriptBranch string) {
	if !w.full {
		if g == nil || !g.Repo || len(g.Changes) == 0 {
			return
		}
		if g.ChangeCount > len(g.Changes) {
			w.heading(2, w.t("Uncommitted changes (%d of %d)", len(g.Changes), g.ChangeCount))
		} else {
			w.heading(2, w.t("Uncommitted changes (%d)", len(g.Changes)))
		}
		for _, c := range g.Changes {
			w.item(0, w.change(c))
		}
		w.blank()
		return
	}
	w.heading(2, w.t("Git"))
	switch {
	case g == nil:
		w.item(0, w.t("Not recorded."))
	case !g.Repo:
		w.item(0, w.t("Not a git repository."))
	default:
		if g.Root != "" {
			w.item(0, w.t("Repository: %s", w.code(g.Root)))
		}
		switch {
		case g.Detached:
			w.item(0, w.t("Branch: %s", w.t("detached HEAD")))
		case g.Branch != "":
			w.item(0, w.t("Branch: %s", w.code(g.Branch)))
		default:
			w.item(0, w.t("Branch: %s", w.t("unknown")))
		}
		head := w.orUnknown(g.Head)
		if g.Subject != "" {
			head += " " + w.code(g.Subject)
		}
		w.item(0, w.t("HEAD: %s", head))
		if g.ChangeCount < 0 {
			w.item(0, w.t("Uncommitted changes: %s", w.t("unknown")))
		} else {
			w.item(0, w.t("Uncommitted changes: %d", g.ChangeCount))
		}
		for _, c := range g.Changes {
			w.item(1, w.change(c))
		}
		if more := g.ChangeCount - len(g.Changes); g.ChangeCount >= 0 && more > 0 {
			w.item(1, w.t("and %d more", more))
		}
		if g.Source != "" {
			w.item(0, w.t("Read with: %s", w.code(g.Source)))
		}
	}
	if g != nil && g.Error != "" {
		w.item(0, w.t("Error: %s", w.code(g.Error)))
	}
	if transcriptBranch != "" {
		w.item(0, w.t("Branch the transcript recorded: %s", w.code(transcriptBranch)))
	}
	w.blank()
}
