package reader

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/facts"
	"github.com/compact-guard/compact-guard/transcript/jsonspan"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// lines turns Claude Code's entries into facts.
type lines struct {
	*facts.Builder
	// boundaryIDs are the uuids of the boundaries counted, so that one
	// written twice counts once.
	boundaryIDs map[string]bool
	ent         entry // the line being handled
}

// Line handles one entry line (specs/transcript.md).
func (x *lines) Line(line []byte, last bool) {
	switch classify(line, last, &x.ent) {
	case lineCorrupt:
		x.Bad(last)
		return
	case lineEntry:
	default:
		return
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	top := &x.ent.top
	if top[kSidechain].IsTrue(line) {
		return
	}
	x.Decoded()
	t := x.note(line)
	switch {
	case top[kType].StrEq(line, "user"):
		x.user(line, t)
	case top[kType].StrEq(line, "assistant"):
		x.assistant(line, t)
	case top[kType].StrEq(line, "system"):
		if top[kSubtype].StrEq(line, "compact_boundary") {
			x.boundary(line)
		}
	case top[kType].StrEq(line, "last-prompt"):
		x.lastPromptEntry(line)
	}
}

// note records cwd, git branch and time from an entry and returns its time.
func (x *lines) note(line []byte) time.Time {
	top := &x.ent.top
	x.NoteCwd(line, top[kCwd])
	if s, ok := top[kGitBranch].Str(line); ok {
		x.NoteBranch(s)
	}
	return x.NoteTime(line, top[kTimestamp])
}

// boundary handles a compact_boundary: one more compaction, and the usage
// before it no longer describes the context.
func (x *lines) boundary(line []byte) {
	// The same boundary entry written twice (seen with 2.1.119 writing a
	// session's transcript late) is one compaction (TR-27).
	if id, ok := x.ent.top[kUUID].Str(line); ok && id != "" {
		if x.boundaryIDs == nil {
			x.boundaryIDs = map[string]bool{}
		}
		if x.boundaryIDs[id] {
			return
		}
		x.boundaryIDs[id] = true
	}
	x.Compaction()
	model := ""
	if u := x.Usage(); u != nil {
		model = u.Model
	}
	x.SetUsage(nil)
	var f [1]jsonspan.Span
	if x.ent.top[kCompactMetadata].Fields(line, []string{"postTokens"}, f[:]) {
		if n, ok := f[0].Int64(line); ok && n >= 0 {
			x.SetUsage(&facts.Usage{Tokens: n, Model: model, FromBoundary: true})
		}
	}
}

func (x *lines) lastPromptEntry(line []byte) {
	s, more, ok := jsonspan.UnquotePrefix(x.ent.top[kLastPrompt].Raw(line), facts.MaxPromptChars+facts.TailChars)
	if !ok || strings.TrimSpace(s) == "" {
		return
	}
	s, more, tail := facts.SplitTail(s, more, facts.MaxPromptChars)
	text := textcut.Marked(s, more)
	x.LastPrompt(text, more, tail)
}

func (x *lines) assistant(line []byte, t time.Time) {
	e := &x.ent
	model, _ := e.model.Str(line)
	if e.usage.OK() && model != "<synthetic>" && !e.top[kAPIError].IsTrue(line) {
		var u [3]jsonspan.Span
		if e.usage.Fields(line, usageKeys, u[:]) {
			in, _ := u[0].Int64(line)
			cc, _ := u[1].Int64(line)
			cr, _ := u[2].Int64(line)
			x.SetUsage(&facts.Usage{Tokens: in + cc + cr, InputTokens: in, CacheCreation: cc, CacheRead: cr, Model: model})
		}
	}
	for _, b := range e.blocks {
		if b.typ.StrEq(line, "tool_use") {
			id, _ := b.id.Str(line)
			name, _ := b.name.Str(line)
			x.toolUse(line, id, name, b.input, t)
		}
	}
}

var usageKeys = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}

func (x *lines) toolUse(line []byte, id, name string, input jsonspan.Span, t time.Time) {
	pc, in, ok := x.StartCall(line, id, name, input, t)
	if !ok {
		return
	}
	switch name {
	case "Write", "Edit", "MultiEdit":
		p, more := facts.Cut(line, in[facts.InFilePath], facts.MaxPathChars)
		pc.Path = textcut.Marked(p, more)
	case "NotebookEdit":
		p, more := facts.Cut(line, in[facts.InNotebookPath], facts.MaxPathChars)
		pc.Path = textcut.Marked(p, more)
	case "Bash", "PowerShell":
		x.StartCommand(line, pc, name, in, t)
		pc.Background = in[facts.InBackground].IsTrue(line)
	case "TodoWrite":
		pc.Todos, pc.TodosOK = facts.TodoList(line, in[facts.InTodos])
	case "TaskCreate":
		s, more, stail := facts.CutTail(line, in[facts.InSubject], facts.MaxTaskChars)
		a, amore, atail := facts.CutTail(line, in[facts.InActiveForm], facts.MaxTaskChars)
		pc.Task = new(facts.TaskWithTails(facts.Task{Subject: textcut.Marked(s, more), Status: "pending",
			ActiveForm: textcut.Marked(a, amore)}, stail, atail))
	case "TaskUpdate":
		u := &facts.TaskUpdate{ID: facts.IDString(line, in[facts.InTaskID])}
		u.Status, _ = facts.Cut(line, in[facts.InStatus], facts.MaxTaskChars)
		s, more, stail := facts.CutTail(line, in[facts.InSubject], facts.MaxTaskChars)
		u.Subject, u.SubjectTail = textcut.Marked(s, more), stail
		a, amore, atail := facts.CutTail(line, in[facts.InActiveForm], facts.MaxTaskChars)
		u.ActiveForm, u.ActiveFormTail = textcut.Marked(a, amore), atail
		pc.Update = u
	case "ExitPlanMode":
		if in[facts.InPlan].IsString(line) {
			p, more, tail := facts.CutTail(line, in[facts.InPlan], facts.MaxPlanChars)
			pc.Plan = new(facts.PlanWithTail(facts.Plan{Text: textcut.Marked(p, more), Truncated: more, Time: t}, tail))
		}
	}
	x.WaitFor(id, name, pc)
}

func (x *lines) user(line []byte, t time.Time) {
	e := &x.ent
	if !e.content.OK() {
		return
	}
	if e.content.IsString(line) {
		x.maybePrompt(line, []block{{text: e.content}}, t)
		return
	}
	results := 0
	for _, b := range e.blocks {
		if b.typ.StrEq(line, "tool_result") {
			results++
		}
	}
	if results == 0 {
		x.maybePrompt(line, e.blocks, t)
		return
	}
	// toolUseResult describes the line's result; with several results in
	// one line it cannot be attributed, so it is then left out.
	tur := e.top[kToolUseResult]
	if results > 1 {
		tur = jsonspan.Span{}
	}
	for _, b := range e.blocks {
		if b.typ.StrEq(line, "tool_result") {
			id, _ := b.useID.Str(line)
			x.toolResult(line, id, b.isError, b.content, tur, t)
		}
	}
}

// HarnessMarkers start user text that the harness wrote, not the user
// (reference §4.5 point 4).
var HarnessMarkers = []string{
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"Caveat: The messages below were generated by the user while running local commands",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<task-notification>",
	"[Request interrupted by user",
	"This session is being continued from a previous conversation",
	"Stop hook feedback:",
	"Implement the following plan:",
}

func isHarnessText(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, m := range HarnessMarkers {
		if strings.HasPrefix(s, m) {
			return true
		}
	}
	return false
}

// maybePrompt records a typed prompt when the entry is one (reference §4.5):
// not meta, not a compact summary, no toolUseResult, not written by the
// system (promptSource "system", origin task-notification), and not starting
// with a harness marker.
func (x *lines) maybePrompt(line []byte, blocks []block, t time.Time) {
	top := &x.ent.top
	if top[kMeta].IsTrue(line) || top[kCompactSummary].IsTrue(line) || top[kToolUseResult].OK() {
		return
	}
	if top[kPromptSource].StrEq(line, "system") {
		return
	}
	if top[kOrigin].OK() {
		var k [1]jsonspan.Span
		if top[kOrigin].Fields(line, []string{"kind"}, k[:]) && k[0].StrEq(line, "task-notification") {
			return
		}
	}
	// Blocks are read up to the limit plus the tail (see TailChars).
	const limit = facts.MaxPromptChars + facts.TailChars
	var parts, texts []string
	total, more, first, content := 0, false, true, false
	for _, b := range blocks {
		var piece string
		switch {
		case !b.typ.OK() || b.typ.StrEq(line, "text"):
			if total > limit {
				more = true
				continue
			}
			s, m := facts.Cut(line, b.text, limit)
			if first && isHarnessText(s) {
				return
			}
			first, more = false, more || m
			content = content || strings.TrimSpace(s) != ""
			piece = s
			kept, _ := textcut.Runes(s, facts.MaxPromptChars)
			texts = append(texts, kept)
		case b.typ.StrEq(line, "image"):
			piece, content = "[image]", true
		default:
			continue
		}
		parts = append(parts, piece)
		total += utf8.RuneCountInString(piece) + 1
	}
	if !content {
		return
	}
	x.KeepPrompt(parts, texts, more, t)
}

var resultKeys = []string{"interrupted", "backgroundTaskId", "task", "taskId", "success"}

func (x *lines) toolResult(line []byte, id string, isError bool, content, tur jsonspan.Span, t time.Time) {
	pc, ok := x.Pending(id)
	if !ok {
		return
	}
	x.Settle(id, pc)

	turStr := ""
	if tur.IsString(line) {
		turStr, _ = facts.Cut(line, tur, 2000)
	}
	var r [5]jsonspan.Span
	if tur.OK() && line[tur.S] == '{' && (pc.Cmd != nil || pc.Task != nil || pc.Update != nil) {
		// Only these calls need the structured result, which can be as
		// large as the output itself.
		tur.Fields(line, resultKeys, r[:])
	}
	failed := isError || strings.HasPrefix(turStr, "Error") || strings.HasPrefix(turStr, "InputValidationError")
	// A successful result is only looked at for an interruption marker; the
	// text of a failure is needed whole (its first lines).
	n := 40
	if failed {
		n = facts.ErrorOutputChars
	}
	errText := resultText(line, content, n)
	if errText == "" {
		errText = turStr
	}
	lead := strings.TrimLeft(errText, " \t\r\n")
	rejected := strings.HasPrefix(lead, "The user doesn't want to") ||
		turStr == "User rejected tool use" ||
		strings.HasPrefix(turStr, "Error: The user doesn't want to")
	interrupted := r[0].IsTrue(line) || strings.HasPrefix(lead, "[Request interrupted")
	ok = !failed && !rejected && !interrupted

	if pc.Cmd != nil {
		c := pc.Cmd
		switch {
		case rejected:
			c.Outcome = facts.OutcomeRejected
		case interrupted:
			c.Outcome = facts.OutcomeInterrupted
		case failed:
			c.Outcome = facts.OutcomeError
			code, line, tail := exitCode(errText)
			c.ExitCode = code
			facts.SetErrorLine(c, line, tail)
		case pc.Background || r[1].OK() && string(r[1].Raw(line)) != "null":
			c.Outcome = facts.OutcomeBackground
		default:
			c.Outcome = facts.OutcomeOK
		}
	}
	if (failed || rejected) && !interrupted {
		errLine, errTail := facts.ErrorSummary(errText)
		x.Fail(facts.Failure{Tool: pc.Tool, Input: pc.Input,
			Error: errLine, Rejected: rejected, Time: pc.Time}, pc.InputTail, errTail)
	}
	if !ok {
		return
	}
	switch {
	case pc.Path != "":
		x.EditFile(pc.Path, pc.Tool, pc.Time)
	case pc.Tool == "TodoWrite" && pc.TodosOK:
		x.SetTodos(pc.Todos)
	case pc.Task != nil:
		task := *pc.Task
		var f [1]jsonspan.Span
		if r[2].Fields(line, []string{"id"}, f[:]) {
			task.ID = facts.IDString(line, f[0])
		}
		x.AddTask(task)
	case pc.Update != nil:
		if string(r[4].Raw(line)) == "false" {
			return
		}
		u := *pc.Update
		if u.ID == "" {
			u.ID = facts.IDString(line, r[3])
		}
		x.UpdateTask(u)
	case pc.Plan != nil:
		x.SetPlan(pc.Plan)
	}
}

// resultText returns the first n runes of a tool_result's text: the string
// content, or the first text block of an array content.
func resultText(line []byte, content jsonspan.Span, n int) string {
	if content.IsString(line) {
		s, _ := facts.Cut(line, content, n)
		return s
	}
	if !content.OK() || line[content.S] != '[' {
		return ""
	}
	var out string
	var f [2]jsonspan.Span
	jsonspan.EachElem(line[:content.E], content.S, func(vs, ve int) bool {
		if (jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"type", "text"}, f[:]) && f[0].StrEq(line, "text") {
			out, _ = facts.Cut(line, f[1], n)
			return false
		}
		return true
	})
	return out
}

// exitCode reads "Exit code N" at the start of an error output, and the
// line of the output that says what failed (TR-21, chooseErrorLine).
func exitCode(text string) (*int, string, string) {
	lines := facts.NonEmptyLines(text, 1)
	if len(lines) == 0 {
		return nil, "", ""
	}
	var code *int
	first := strings.TrimPrefix(lines[0], "Error: ")
	if rest, found := strings.CutPrefix(first, "Exit code "); found {
		if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
			code = &n
		}
	}
	s, tail := facts.Clip(facts.ChooseErrorLine(facts.OutputLines(text), false), facts.MaxErrorChars)
	return code, s, tail
}
