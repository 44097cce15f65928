// Package reader reads GitHub Copilot CLI's session events (specs/
// transcript.md TR-65..TR-71): ~/.copilot/session-state/<session>/
// events.jsonl, one event a line, {"type","data","id","timestamp",
// "parentId"}, append-only; a compaction keeps the lines before it.
package reader

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/transcript/facts"
	"github.com/compact-guard/compact-guard/transcript/jsonspan"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

var topKeys = []string{"type", "timestamp", "data", "id"}

const (
	cpType = iota
	cpTimestamp
	cpData
	cpID
	nTop
)

// boundaryType is the event that says a compaction was applied (TR-67):
// session.compaction_start comes before PreCompact and may end in nothing;
// only a complete with success true replaced the history.
const boundaryType = "session.compaction_complete"

// shape is an event's top level for the line handler.
var shape = facts.TopShape{Keys: topKeys, Type: cpType, Time: cpTimestamp, Interesting: interesting}

// interesting are the event types that can hold a fact; the rest (hook.*,
// model.*, whose model.messages_snapshot holds the whole conversation,
// assistant.turn_*) are dropped as soon as their type is read.
func interesting(typ []byte) bool {
	switch string(typ) {
	case "session.start", "session.resume", "user.message", "tool.execution_start", "tool.execution_complete",
		"session.usage_record", "session.compaction_start", boundaryType:
		return true
	}
	return false
}

func top(line []byte, strict bool, t *[nTop]jsonspan.Span) (skipped, ok bool) {
	return jsonspan.TopFields(line, topKeys, cpType, interesting, strict, t[:])
}

// isBoundary reports whether line is an applied compaction: a complete
// JSON object of at most MaxLineBytes, type session.compaction_complete,
// data.success true (TR-67).
func isBoundary(line []byte) bool {
	if len(line) > facts.MaxLineBytes {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var t [nTop]jsonspan.Span
	skipped, ok := top(line, true, &t)
	if !ok || skipped || !t[cpType].StrEq(line, boundaryType) {
		return false
	}
	var s [1]jsonspan.Span
	return t[cpData].OK() && line[t[cpData].S] == '{' && t[cpData].Fields(line, []string{"success"}, s[:]) && s[0].IsTrue(line)
}

// idTime is an event's id and timestamp.
func idTime(line []byte) (string, time.Time) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	var t [nTop]jsonspan.Span
	if _, ok := jsonspan.TopFields(line, topKeys, cpType, func([]byte) bool { return true }, true, t[:]); !ok {
		return "", time.Time{}
	}
	id, _ := t[cpID].Str(line)
	ts, _ := t[cpTimestamp].Time(line)
	return id, ts
}

// response reports whether line is a model response (TR-68): an
// assistant.message with a timestamp, which it returns.
func response(line []byte) (time.Time, bool) {
	if len(line) > facts.MaxLineBytes {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var t [nTop]jsonspan.Span
	if _, ok := jsonspan.TopFields(line, topKeys, cpType, func(typ []byte) bool { return string(typ) == "assistant.message" }, true, t[:]); !ok ||
		!t[cpType].StrEq(line, "assistant.message") {
		return time.Time{}, false
	}
	return t[cpTimestamp].Time(line)
}

// lines turns Copilot CLI's events into facts.
type lines struct {
	*facts.Builder
	// model and window are the session's model and the prompt limit the
	// client compacts by, for the usage.
	model  string
	window int64
}

// Line handles one event (TR-65..TR-71).
func (x *lines) Line(line []byte, last bool) {
	var t [nTop]jsonspan.Span
	line, ts, ok := x.OpenLine(line, last, &shape, t[:])
	if !ok {
		return
	}
	d := t[cpData]
	if !d.OK() || line[d.S] != '{' {
		return
	}
	typ, _ := t[cpType].Str(line)
	switch typ {
	case "session.start", "session.resume":
		var f [2]jsonspan.Span
		if d.Fields(line, []string{"context", "selectedModel"}, f[:]) {
			if s, ok := f[1].Str(line); ok && s != "" {
				x.model = s
			}
			var c [2]jsonspan.Span
			if f[0].OK() && line[f[0].S] == '{' && f[0].Fields(line, []string{"cwd", "branch"}, c[:]) {
				x.NoteCwd(line, c[0])
				if s, ok := c[1].Str(line); ok {
					x.NoteBranch(s)
				}
			}
		}
	case "user.message":
		// TR-66: content is the prompt as typed; transformedContent, what
		// the model got, holds hook context and the date.
		var c [1]jsonspan.Span
		if d.Fields(line, []string{"content"}, c[:]) && c[0].IsString(line) {
			const limit = facts.MaxPromptChars + facts.TailChars
			s, more := facts.Cut(line, c[0], limit)
			if strings.TrimSpace(s) != "" {
				kept, _ := textcut.Runes(s, facts.MaxPromptChars)
				x.KeepPrompt([]string{s}, []string{kept}, more, ts)
			}
		}
	case "tool.execution_start":
		var f [3]jsonspan.Span
		if d.Fields(line, []string{"toolCallId", "toolName", "arguments"}, f[:]) {
			id, _ := f[0].Str(line)
			name, _ := f[1].Str(line)
			x.call(line, id, name, f[2], ts)
		}
	case "tool.execution_complete":
		x.result(line, d)
	case "session.usage_record":
		x.usage(line, d)
	case "session.compaction_start":
		var f [1]jsonspan.Span
		if d.Fields(line, []string{"tokenLimit"}, f[:]) {
			if v, ok := f[0].Int64(line); ok && v > 0 {
				x.window = v
				if u := x.Usage(); u != nil {
					u.Window = v // the window of the fill it follows
				}
			}
		}
	case boundaryType:
		var f [2]jsonspan.Span
		if !d.Fields(line, []string{"success", "postCompactionTokens"}, f[:]) || !f[0].IsTrue(line) {
			return // a failed compaction replaced nothing (TR-67)
		}
		x.Compaction()
		x.SetUsage(nil)
		if v, ok := f[1].Int64(line); ok && v >= 0 {
			x.SetUsage(&facts.Usage{Tokens: v, Model: x.model, Window: x.window, FromBoundary: true})
		}
	}
}

// call starts a tool call (TR-69): create and edit change the file at
// arguments.path; bash and powershell run arguments.command.
func (x *lines) call(line []byte, id, name string, args jsonspan.Span, t time.Time) {
	pc, in, ok := x.StartCall(line, id, name, args, t)
	if !ok {
		return
	}
	switch name {
	case "create", "edit", "str_replace_editor", "write":
		p, more := facts.Cut(line, in[facts.InPath], facts.MaxPathChars)
		pc.Path = textcut.Marked(p, more)
	case "bash", "powershell":
		x.StartCommand(line, pc, name, in, t)
	}
	x.WaitFor(id, name, pc)
}

// result settles the call a tool.execution_complete answers (TR-70):
// success false is a failure, and a shell call's
// data.shellExecution.exitCode other than 0 is a failed command even when
// success is true, as the client writes it.
func (x *lines) result(line []byte, d jsonspan.Span) {
	var f [4]jsonspan.Span
	if !d.Fields(line, []string{"toolCallId", "success", "shellExecution", "result"}, f[:]) {
		return
	}
	id, _ := f[0].Str(line)
	pc, ok := x.Pending(id)
	if !ok {
		return
	}
	x.Settle(id, pc)
	failed := !f[1].IsTrue(line)
	var code *int
	if f[2].OK() && line[f[2].S] == '{' {
		var e [1]jsonspan.Span
		if f[2].Fields(line, []string{"exitCode"}, e[:]) {
			if n, ok := e[0].Int64(line); ok {
				v := int(n)
				code = &v
				failed = failed || n != 0
			}
		}
	}
	var output jsonspan.Span
	if f[3].OK() && line[f[3].S] == '{' {
		var c [1]jsonspan.Span
		if f[3].Fields(line, []string{"content"}, c[:]) {
			output = c[0]
		}
	}
	if c := pc.Cmd; c != nil {
		if failed {
			c.Outcome = facts.OutcomeError
			c.ExitCode = code
			errLine, errTail := facts.OutputErrorLine(line, output)
			facts.SetErrorLine(c, errLine, errTail)
		} else {
			c.Outcome = facts.OutcomeOK
		}
	}
	if failed {
		e, et := facts.ErrorSummary(facts.ResultTextOf(line, output))
		if c := pc.Cmd; c != nil && c.ExitCode != nil {
			e = "Exit code " + strconv.Itoa(*c.ExitCode)
			if c.ErrorLine != "" {
				e += ": " + c.ErrorLine
			}
			e, et = facts.Clip(e, facts.MaxErrorChars)
		}
		x.Fail(facts.Failure{Tool: pc.Tool, Input: pc.Input, Error: e, Time: pc.Time}, pc.InputTail, et)
		return
	}
	if pc.Path != "" {
		x.EditFile(pc.Path, pc.Tool, pc.Time)
	}
}

// usage keeps a model call's usage (TR-71): the client's own inputTokens,
// which for the OpenAI-style providers it reports count the cached tokens
// too, so cacheReadTokens is kept beside them, not added; maxPromptTokens
// is the window the client compacts by.
func (x *lines) usage(line []byte, d jsonspan.Span) {
	var u [1]jsonspan.Span
	if !d.Fields(line, []string{"usage"}, u[:]) || !u[0].OK() || line[u[0].S] != '{' {
		return
	}
	var f [4]jsonspan.Span
	if !u[0].Fields(line, []string{"inputTokens", "cacheReadTokens", "model", "maxPromptTokens"}, f[:]) {
		return
	}
	if w, ok := f[3].Int64(line); ok && w > 0 {
		x.window = w
	}
	in, ok := f[0].Int64(line)
	if !ok || in < 0 {
		return
	}
	cr, _ := f[1].Int64(line)
	model, _ := f[2].Str(line)
	if model == "" {
		model = x.model
	}
	x.SetUsage(&facts.Usage{Tokens: in, InputTokens: in, CacheRead: cr, Model: model, Window: x.window})
}
