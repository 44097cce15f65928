package restore

// The pointer's lines, one function per clause of specs/postcompact.md,
// called by render in the clauses' order.

import (
	"strconv"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// compactedLine is the first line: how and when the context was compacted,
// and where the snapshot is (PO-1).
func compactedLine(p *message.Printer, in PointerInput, rec *snapshot.Record) string {
	trigger := p.Sprintf(mTriggerUnknown)
	switch rec.Trigger {
	case "manual":
		trigger = p.Sprintf(mTriggerManual)
	case "auto":
		trigger = p.Sprintf(mTriggerAuto)
	}
	at := p.Sprintf(mTimeUnknown)
	if !rec.CreatedAt.IsZero() {
		at = rec.CreatedAt.Format(TimeLayout)
	}
	compacted := mCompacted
	if takenAtCompaction(rec) {
		compacted = mCompactedAt
	}
	return p.Sprintf(compacted, trigger, at, oneLine(in.MDPath, 1<<12))
}

// promptLines quote the last typed prompts (PO-2); gapped says the
// transcript was not read whole, so that none found is said of the part read.
func promptLines(p *message.Printer, rec *snapshot.Record, l limits, gapped bool, line func(string)) {
	prompts := rec.Prompts
	if len(prompts) > Prompts {
		prompts = prompts[len(prompts)-Prompts:]
	}
	switch {
	case len(prompts) == 0 && gapped:
		line(p.Sprintf(mNoPromptsPart))
	case len(prompts) == 0:
		line(p.Sprintf(mNoPrompts))
	default:
		line(p.Sprintf(mPromptsHeader, len(prompts)))
		for i, pr := range prompts {
			line(p.Sprintf(mPromptN, i+1))
			text, cut := textcut.Runes(pr.Text, l.promptChars)
			if text != "" {
				line(quote(text))
			}
			if cut {
				line(p.Sprintf(mPromptCut, l.promptChars))
			}
		}
	}
}

// fileLines list the edited files relative to the project (PO-3).
func fileLines(p *message.Printer, in PointerInput, rec *snapshot.Record, l limits, gapped bool, line func(string)) {
	dir := in.ProjectDir
	if dir == "" {
		dir = rec.Cwd
	}
	switch {
	case len(rec.Files) == 0 && gapped:
		line(p.Sprintf(mNoFilesPart))
	case len(rec.Files) == 0:
		line(p.Sprintf(mNoFiles))
	default:
		line(p.Sprintf(mFilesHeader, len(rec.Files)))
		shown := min(len(rec.Files), l.files)
		for _, f := range rec.Files[:shown] {
			line("- " + inline(relPath(f.Path, dir), l.itemChars))
		}
		if more := len(rec.Files) - shown; more > 0 {
			line(p.Sprintf(mMore, more))
		}
	}
}

// taskLines list the open tasks, in progress first (PO-4).
func taskLines(p *message.Printer, rec *snapshot.Record, l limits, line func(string)) {
	open := openTasks(rec)
	if len(open) == 0 {
		return
	}
	line(p.Sprintf(mTasksHeader, len(open)))
	shown := min(len(open), l.tasks)
	for _, t := range open[:shown] {
		status := p.Sprintf(mPending)
		if t.Status == "in_progress" {
			status = p.Sprintf(mInProgress)
		}
		line("- [" + status + "] " + inline(t.Subject, l.itemChars))
	}
	if more := len(open) - shown; more > 0 {
		line(p.Sprintf(mMore, more))
	}
}

// failedCommandLines quote the last command when it failed, with its error
// line (PO-6).
func failedCommandLines(p *message.Printer, rec *snapshot.Record, l limits, line func(string)) {
	n := len(rec.Commands)
	if n == 0 || rec.Commands[n-1].Outcome != transcript.OutcomeError {
		return
	}
	c := rec.Commands[n-1]
	tool := ident(c.Tool, 40)
	if c.Tool == "" {
		tool = "Bash"
	}
	if c.ExitCode != nil {
		line(p.Sprintf(mCmdFailedCode, tool, strconv.Itoa(*c.ExitCode)))
	} else {
		line(p.Sprintf(mCmdFailed, tool))
	}
	line(quote(textcut.Marked(textcut.Runes(c.Command, l.cmdChars))))
	if first := firstLine(c.ErrorLine); first != "" {
		line(p.Sprintf(mCmdErrLine))
		line(quote(textcut.Marked(textcut.Runes(first, l.itemChars))))
	}
}

// stateFileLines say where the state file is, or where it was looked for
// (PO-7): the one looked up now, else the one in the record.
func stateFileLines(p *message.Printer, in PointerInput, rec *snapshot.Record, l limits, line func(string)) {
	sf := in.StateFile
	if sf.Name == "" && sf.Path == "" && len(sf.Searched) == 0 {
		sf = rec.StateFile
	}
	name := sf.Name
	if name == "" {
		name = DefaultStateFileName
	}
	switch {
	case sf.Path != "":
		line(p.Sprintf(mStateFound, inline(sf.Path, 1<<12)))
	case len(sf.Searched) == 0:
		line(p.Sprintf(mStateMissingNone, oneLine(name, l.itemChars)))
	default:
		line(p.Sprintf(mStateMissing, oneLine(name, l.itemChars)))
		shown := min(len(sf.Searched), l.searched)
		for _, d := range sf.Searched[:shown] {
			line("- " + inline(d, l.itemChars))
		}
		if more := len(sf.Searched) - shown; more > 0 {
			line(p.Sprintf(mMoreFolders, more))
		}
	}
	if sf.Path == "" && sf.Unanswered != "" {
		line(p.Sprintf(mStateUnanswered, inline(sf.Unanswered, l.itemChars)))
	}
}
