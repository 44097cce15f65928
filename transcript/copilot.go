package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/textcut"
)

// GitHub Copilot CLI session events (specs/transcript.md TR-65..TR-71):
// ~/.copilot/session-state/<session>/events.jsonl, one event a line,
// {"type","data","id","timestamp","parentId"}, append-only; a compaction
// keeps the lines before it. This file is the whole reader: its rules row
// in formatRules and its case in Extractor.feed are all that name it, so
// that it moves as one piece behind the readers' interface (issue 21).

// FormatCopilot is GitHub Copilot CLI's events.jsonl (TR-65..TR-71).
const FormatCopilot Format = "copilot"

var copilotTopKeys = []string{"type", "timestamp", "data", "id"}

const (
	cpType = iota
	cpTimestamp
	cpData
	cpID
	nCopilotTop
)

// copilotBoundaryType is the event that says a compaction was applied
// (TR-67): session.compaction_start comes before PreCompact and may end
// in nothing; only a complete with success true replaced the history.
const copilotBoundaryType = "session.compaction_complete"

// copilotInteresting are the event types that can hold a fact; the rest
// (hook.*, model.*, whose model.messages_snapshot holds the whole
// conversation, assistant.turn_*) are dropped as soon as their type is read.
func copilotInteresting(typ []byte) bool {
	switch string(typ) {
	case "session.start", "session.resume", "user.message", "tool.execution_start", "tool.execution_complete",
		"session.usage_record", "session.compaction_start", copilotBoundaryType:
		return true
	}
	return false
}

// copilotTop walks an event's top level.
func copilotTop(line []byte, strict bool, top *[nCopilotTop]span) (skipped, ok bool) {
	return topFields(line, copilotTopKeys, cpType, copilotInteresting, strict, top[:])
}

// isCopilotBoundary reports whether line is an applied compaction: a
// complete JSON object of at most MaxLineBytes, type
// session.compaction_complete, data.success true (TR-67).
func isCopilotBoundary(line []byte) bool {
	if len(line) > MaxLineBytes {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCopilotTop]span
	skipped, ok := copilotTop(line, true, &top)
	if !ok || skipped || !top[cpType].strEq(line, copilotBoundaryType) {
		return false
	}
	var s [1]span
	return top[cpData].ok() && line[top[cpData].s] == '{' && top[cpData].fields(line, []string{"success"}, s[:]) && s[0].isTrue(line)
}

// copilotIDTime is an event's id and timestamp.
func copilotIDTime(line []byte) (string, time.Time) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCopilotTop]span
	if _, ok := topFields(line, copilotTopKeys, cpType, func([]byte) bool { return true }, true, top[:]); !ok {
		return "", time.Time{}
	}
	id, _ := top[cpID].str(line)
	s, _ := top[cpTimestamp].str(line)
	t, _ := time.Parse(time.RFC3339Nano, s)
	return id, t
}

// copilotResponse reports whether line is a model response (TR-68): an
// assistant.message with a timestamp, which it returns.
func copilotResponse(line []byte) (time.Time, bool) {
	if len(line) > MaxLineBytes {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCopilotTop]span
	if _, ok := topFields(line, copilotTopKeys, cpType, func(t []byte) bool { return string(t) == "assistant.message" }, true, top[:]); !ok ||
		!top[cpType].strEq(line, "assistant.message") {
		return time.Time{}, false
	}
	s, ok := top[cpTimestamp].str(line)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// copilotLine handles one event (TR-65..TR-71).
func (x *Extractor) copilotLine(line []byte, last bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if skipSpace(line, 0) == len(line) {
		return
	}
	var top [nCopilotTop]span
	skipped, ok := copilotTop(line, last, &top)
	if !ok {
		x.bad(last)
		return
	}
	if skipped || !top[cpType].isString(line) {
		return
	}
	x.st.Decoded++
	t := x.noteTime(line, top[cpTimestamp])
	d := top[cpData]
	if !d.ok() || line[d.s] != '{' {
		return
	}
	typ := string(unquoteRawKey(line[top[cpType].s:top[cpType].e]))
	switch typ {
	case "session.start", "session.resume":
		var f [2]span
		if d.fields(line, []string{"context", "selectedModel"}, f[:]) {
			if s, ok := f[1].str(line); ok && s != "" {
				x.model = s
			}
			var c [2]span
			if f[0].ok() && line[f[0].s] == '{' && f[0].fields(line, []string{"cwd", "branch"}, c[:]) {
				x.noteCwd(line, c[0])
				if s, ok := c[1].str(line); ok && s != "" {
					x.gitBranch = s
				}
			}
		}
	case "user.message":
		var c [1]span
		if d.fields(line, []string{"content"}, c[:]) && c[0].isString(line) {
			const limit = MaxPromptChars + TailChars
			s, more := cut(line, c[0], limit)
			if strings.TrimSpace(s) != "" {
				kept, _ := textcut.Runes(s, MaxPromptChars)
				x.keepPrompt([]string{s}, []string{kept}, more, t)
			}
		}
	case "tool.execution_start":
		var f [3]span
		if d.fields(line, []string{"toolCallId", "toolName", "arguments"}, f[:]) {
			id, _ := f[0].str(line)
			name, _ := f[1].str(line)
			x.copilotCall(line, id, name, f[2], t)
		}
	case "tool.execution_complete":
		x.copilotResult(line, d)
	case "session.usage_record":
		x.copilotUsage(line, d)
	case "session.compaction_start":
		var f [1]span
		if d.fields(line, []string{"tokenLimit"}, f[:]) {
			if v, ok := f[0].int64(line); ok && v > 0 {
				x.window = v
				if x.usage != nil {
					x.usage.Window = v // the window of the fill it follows
				}
			}
		}
	case copilotBoundaryType:
		var f [2]span
		if !d.fields(line, []string{"success", "postCompactionTokens"}, f[:]) || !f[0].isTrue(line) {
			return // a failed compaction replaced nothing (TR-67)
		}
		x.compactions++
		x.usage = nil
		if v, ok := f[1].int64(line); ok && v >= 0 {
			x.usage = &Usage{Tokens: v, Model: x.model, Window: x.window, FromBoundary: true}
		}
	}
}

// copilotCall starts a tool call (TR-69): create and edit change the file
// at arguments.path; bash and powershell run arguments.command.
func (x *Extractor) copilotCall(line []byte, id, name string, args span, t time.Time) {
	pc, in, ok := x.startCall(line, id, name, args, t)
	if !ok {
		return
	}
	switch name {
	case "create", "edit", "str_replace_editor", "write":
		p, more := cut(line, in[iPath], MaxPathChars)
		pc.path = textcut.Marked(p, more)
	case "bash", "powershell":
		x.startCommand(line, pc, name, in, t)
	}
	x.waitFor(id, name, pc)
}

// copilotResult settles the call a tool.execution_complete answers
// (TR-70): success false is a failure (its error.message or result says
// why), and a shell call's data.shellExecution.exitCode other than 0 is a
// failed command even when success is true, as the client writes it.
func (x *Extractor) copilotResult(line []byte, d span) {
	var f [4]span
	if !d.fields(line, []string{"toolCallId", "success", "shellExecution", "result"}, f[:]) {
		return
	}
	id, _ := f[0].str(line)
	pc, ok := x.pending[id]
	if !ok {
		return
	}
	x.settle(id, pc)
	failed := !f[1].isTrue(line)
	var code *int
	if f[2].ok() && line[f[2].s] == '{' {
		var e [1]span
		if f[2].fields(line, []string{"exitCode"}, e[:]) {
			if n, ok := e[0].int64(line); ok {
				v := int(n)
				code = &v
				failed = failed || n != 0
			}
		}
	}
	var output span
	if f[3].ok() && line[f[3].s] == '{' {
		var c [1]span
		if f[3].fields(line, []string{"content"}, c[:]) {
			output = c[0]
		}
	}
	if c := pc.cmd; c != nil {
		switch {
		case failed:
			c.Outcome = OutcomeError
			c.ExitCode = code
			c.ErrorLine, c.errorTail = outputErrorLine(line, output)
		default:
			c.Outcome = OutcomeOK
		}
	}
	if failed {
		e, et := errorSummary(resultTextOf(line, output))
		if c := pc.cmd; c != nil && c.ExitCode != nil {
			e = "Exit code " + strconv.Itoa(*c.ExitCode)
			if c.ErrorLine != "" {
				e += ": " + c.ErrorLine
			}
			e, et = clip(e, MaxErrorChars)
		}
		x.addFailure(Failure{Tool: pc.tool, Input: pc.input, Error: e, Time: pc.time, inputTail: pc.inTail, errorTail: et})
		return
	}
	if pc.path != "" {
		x.editFile(pc.path, pc.tool, pc.time)
	}
}

// copilotUsage keeps a model call's usage (TR-71): the client's own
// inputTokens, which for the OpenAI-style providers it reports count the
// cached tokens too, so cacheReadTokens is kept beside them, not added;
// maxPromptTokens is the window the client compacts by.
func (x *Extractor) copilotUsage(line []byte, d span) {
	var u [1]span
	if !d.fields(line, []string{"usage"}, u[:]) || !u[0].ok() || line[u[0].s] != '{' {
		return
	}
	var f [4]span
	if !u[0].fields(line, []string{"inputTokens", "cacheReadTokens", "model", "maxPromptTokens"}, f[:]) {
		return
	}
	if w, ok := f[3].int64(line); ok && w > 0 {
		x.window = w
	}
	in, ok := f[0].int64(line)
	if !ok || in < 0 {
		return
	}
	cr, _ := f[1].int64(line)
	model, _ := f[2].str(line)
	if model == "" {
		model = x.model
	}
	x.usage = &Usage{Tokens: in, InputTokens: in, CacheRead: cr, Model: model, Window: x.window}
}
