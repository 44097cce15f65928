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

// Qwen Code chat record files (specs/transcript.md TR-44..TR-49): one record
// a line, {"uuid","parentUuid","sessionId","timestamp","type","provenance",
// "cwd","version","gitBranch",…}, with Gemini-style message parts.

var qwenTopKeys = []string{"type", "timestamp", "subtype", "provenance", "cwd", "gitBranch", "model",
	"message", "usageMetadata", "contextWindowSize", "toolCallResult", "systemPayload", "uuid"}

const (
	qwType = iota
	qwTimestamp
	qwSubtype
	qwProvenance
	qwCwd
	qwGitBranch
	qwModel
	qwMessage
	qwUsage
	qwWindow
	qwToolResult
	qwSystemPayload
	qwUUID
	nQwenTop
)

// qwenShape is a chat record's top level for the line handler.
var qwenShape = facts.TopShape{Keys: qwenTopKeys, Type: qwType, Time: qwTimestamp, Interesting: qwenInteresting}

// qwenInteresting are the record types that can hold a fact.
func qwenInteresting(typ []byte) bool {
	switch string(typ) {
	case "user", "assistant", "tool_result", "system":
		return true
	}
	return false
}

// qwenTop walks a record's top level (strict: the whole line is checked).
func qwenTop(line []byte, strict bool, top *[nQwenTop]jsonspan.Span) (skipped, ok bool) {
	return jsonspan.TopFields(line, qwenTopKeys, qwType, qwenInteresting, strict, top[:])
}

// isQwenBoundary reports whether line is a compaction of a chat record
// file: a complete JSON object of at most MaxLineBytes, type "system",
// subtype "chat_compression" (TR-45).
func isQwenBoundary(line []byte) bool {
	if len(line) > facts.MaxLineBytes {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nQwenTop]jsonspan.Span
	skipped, ok := qwenTop(line, true, &top)
	return ok && !skipped && top[qwType].StrEq(line, "system") && top[qwSubtype].StrEq(line, "chat_compression")
}

// qwenIDTime is a record's uuid and timestamp.
func qwenIDTime(line []byte) (string, time.Time) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nQwenTop]jsonspan.Span
	if _, ok := qwenTop(line, true, &top); !ok {
		return "", time.Time{}
	}
	id, _ := top[qwUUID].Str(line)
	t, _ := top[qwTimestamp].Time(line)
	return id, t
}

// qwenResponse reports whether line is a model response (TR-46): type
// "assistant" with a timestamp, which it returns. The compaction's summary
// is no such record (the client writes only telemetry for it).
func qwenResponse(line []byte) (time.Time, bool) {
	if len(line) > facts.MaxLineBytes {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nQwenTop]jsonspan.Span
	if skipped, ok := qwenTop(line, true, &top); !ok || skipped || !top[qwType].StrEq(line, "assistant") {
		return time.Time{}, false
	}
	return top[qwTimestamp].Time(line)
}

// lines turns Qwen Code's chat records into facts.
type lines struct {
	*facts.Builder
	// model and window are the model and context window the newest
	// response named, for the usage.
	model  string
	window int64
}

// Line handles one chat record (TR-44..TR-49).
func (x *lines) Line(line []byte, last bool) {
	var top [nQwenTop]jsonspan.Span
	line, t, ok := x.OpenLine(line, last, &qwenShape, top[:])
	if !ok {
		return
	}
	x.NoteCwd(line, top[qwCwd])
	if s, ok := top[qwGitBranch].Str(line); ok {
		x.NoteBranch(s)
	}
	switch {
	case top[qwType].StrEq(line, "user"):
		if !top[qwSubtype].OK() && (!top[qwProvenance].OK() || top[qwProvenance].StrEq(line, "real_user")) {
			x.prompt(line, &top, t)
		}
	case top[qwType].StrEq(line, "assistant"):
		x.assistant(line, &top, t)
	case top[qwType].StrEq(line, "tool_result"):
		x.toolResult(line, &top, t)
	case top[qwType].StrEq(line, "system") && top[qwSubtype].StrEq(line, "chat_compression"):
		x.Compaction()
		model := x.model
		x.SetUsage(nil)
		var info, n [1]jsonspan.Span
		if top[qwSystemPayload].Fields(line, []string{"info"}, info[:]) &&
			info[0].Fields(line, []string{"newTokenCount"}, n[:]) {
			if v, ok := n[0].Int64(line); ok && v >= 0 {
				x.SetUsage(&facts.Usage{Tokens: v, Model: model, Window: x.window, FromBoundary: true})
			}
		}
	}
}

// qwenParts returns the parts array of a record's message.
func qwenParts(line []byte, msg jsonspan.Span) jsonspan.Span {
	var p [1]jsonspan.Span
	if !msg.OK() || line[msg.S] != '{' || !msg.Fields(line, []string{"parts"}, p[:]) || !p[0].OK() || line[p[0].S] != '[' {
		return jsonspan.Span{}
	}
	return p[0]
}

// qwenHookContext starts the text part the client appends to a prompt for
// a UserPromptSubmit hook's context; it is not the user's.
const qwenHookContext = "<qwen:"

// prompt records a typed prompt (TR-47): systemPayload.displayText
// when the record has it (the text as typed), else the text parts that are
// not the client's own (<qwen:…> hook context); inline data becomes
// [image].
func (x *lines) prompt(line []byte, top *[nQwenTop]jsonspan.Span, t time.Time) {
	const limit = facts.MaxPromptChars + facts.TailChars
	var d [1]jsonspan.Span
	if top[qwSystemPayload].OK() && line[top[qwSystemPayload].S] == '{' &&
		top[qwSystemPayload].Fields(line, []string{"displayText"}, d[:]) && d[0].IsString(line) {
		s, more := facts.Cut(line, d[0], limit)
		if strings.TrimSpace(s) != "" {
			kept, _ := textcut.Runes(s, facts.MaxPromptChars)
			x.KeepPrompt([]string{s}, []string{kept}, more, t)
		}
		return
	}
	parts := qwenParts(line, top[qwMessage])
	if !parts.OK() {
		return
	}
	var pieces, texts []string
	total, more, any := 0, false, false
	var f [4]jsonspan.Span
	jsonspan.EachElem(line[:parts.E], parts.S, func(vs, ve int) bool {
		if !(jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"text", "inlineData", "fileData", "functionResponse"}, f[:]) {
			return true
		}
		var piece string
		switch {
		case f[3].OK():
			any, pieces = false, nil // a tool response is no prompt
			return false
		case f[0].IsString(line):
			if total > limit {
				more = true
				return true
			}
			s, m := facts.Cut(line, f[0], limit)
			if strings.HasPrefix(strings.TrimSpace(s), qwenHookContext) {
				return true
			}
			more = more || m
			any = any || strings.TrimSpace(s) != ""
			piece = s
			kept, _ := textcut.Runes(s, facts.MaxPromptChars)
			texts = append(texts, kept)
		case f[1].OK(), f[2].OK():
			piece, any = "[image]", true
		default:
			return true
		}
		pieces = append(pieces, piece)
		total += len([]rune(piece)) + 1
		return true
	})
	if any {
		x.KeepPrompt(pieces, texts, more, t)
	}
}

var qwenUsageKeys = []string{"promptTokenCount", "cachedContentTokenCount"}

// assistant takes the context fill and the tool calls of a model
// response (TR-48, TR-49).
func (x *lines) assistant(line []byte, top *[nQwenTop]jsonspan.Span, t time.Time) {
	model, _ := top[qwModel].Str(line)
	if model != "" {
		x.model = model
	}
	if w, ok := top[qwWindow].Int64(line); ok && w > 0 {
		x.window = w
	}
	var u [2]jsonspan.Span
	if top[qwUsage].OK() && line[top[qwUsage].S] == '{' && top[qwUsage].Fields(line, qwenUsageKeys, u[:]) {
		if in, ok := u[0].Int64(line); ok && in > 0 {
			cached, _ := u[1].Int64(line)
			x.SetUsage(&facts.Usage{Tokens: in, InputTokens: in - cached, CacheRead: cached, Model: x.model, Window: x.window})
		}
	}
	parts := qwenParts(line, top[qwMessage])
	if !parts.OK() {
		return
	}
	var fc [1]jsonspan.Span
	var call [3]jsonspan.Span
	jsonspan.EachElem(line[:parts.E], parts.S, func(vs, ve int) bool {
		if (jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"functionCall"}, fc[:]) && fc[0].OK() && line[fc[0].S] == '{' &&
			fc[0].Fields(line, []string{"id", "name", "args"}, call[:]) {
			id, _ := call[0].Str(line)
			name, _ := call[1].Str(line)
			x.call(line, id, name, call[2], t)
		}
		return true
	})
}

// call starts waiting for a tool call's result (TR-29's bounds apply).
func (x *lines) call(line []byte, id, name string, args jsonspan.Span, t time.Time) {
	pc, in, ok := x.StartCall(line, id, name, args, t)
	if !ok {
		return
	}
	switch name {
	case "write_file", "edit", "replace", "notebook_edit":
		p, more := facts.Cut(line, in[facts.InFilePath], facts.MaxPathChars)
		if p == "" {
			p, more = facts.Cut(line, in[facts.InNotebookPath], facts.MaxPathChars)
		}
		pc.Path = textcut.Marked(p, more)
	case "run_shell_command":
		x.StartCommand(line, pc, name, in, t)
		var bg [1]jsonspan.Span
		if args.Fields(line, []string{"is_background"}, bg[:]) {
			pc.Background = bg[0].IsTrue(line)
		}
	case "todo_write":
		pc.Todos, pc.TodosOK = facts.TodoList(line, in[facts.InTodos])
	}
	x.WaitFor(id, name, pc)
}

var qwenResultKeys = []string{"callId", "status", "resultDisplay", "error"}

// toolResult settles the call a tool result answers (TR-49):
// toolCallResult.status "success", "error", or "cancelled" (declined or
// aborted: counted as rejected); a shell result's resultDisplay gives the
// exit code and the output.
func (x *lines) toolResult(line []byte, top *[nQwenTop]jsonspan.Span, t time.Time) {
	var r [4]jsonspan.Span
	tr := top[qwToolResult]
	if !tr.OK() || line[tr.S] != '{' || !tr.Fields(line, qwenResultKeys, r[:]) {
		return
	}
	id, _ := r[0].Str(line)
	pc, ok := x.Pending(id)
	if !ok {
		return
	}
	x.Settle(id, pc)
	status, _ := r[1].Str(line)
	rejected := status == "cancelled"
	failed := status == "error"
	var code *int
	var output jsonspan.Span
	disp := r[2]
	if disp.OK() && line[disp.S] == '{' {
		var d [2]jsonspan.Span
		if disp.Fields(line, []string{"exitCode", "output"}, d[:]) {
			if n, ok := d[0].Int64(line); ok {
				v := int(n)
				code = &v
				failed = failed || n != 0
			}
			output = d[1]
		}
	}
	errText := ""
	if failed || rejected {
		errText = facts.ResultTextOf(line, r[3])
		if strings.TrimSpace(errText) == "" {
			errText = qwenResponseText(line, top[qwMessage])
		}
	}
	if c := pc.Cmd; c != nil {
		switch {
		case rejected:
			c.Outcome = facts.OutcomeRejected
		case failed:
			c.Outcome = facts.OutcomeError
			c.ExitCode = code
			errLine, errTail := facts.OutputErrorLine(line, output)
			facts.SetErrorLine(c, errLine, errTail)
			if c.ErrorLine == "" && !output.OK() {
				// No shell result (the call failed before it ran): the
				// response's error says why.
				errLine, errTail := facts.ErrorSummary(errText)
				facts.SetErrorLine(c, errLine, errTail)
			}
		case pc.Background:
			c.Outcome = facts.OutcomeBackground
		default:
			c.Outcome = facts.OutcomeOK
		}
	}
	if failed || rejected {
		e, et := facts.ErrorSummary(errText)
		if c := pc.Cmd; c != nil && c.ExitCode != nil {
			e = "Exit code " + strconv.Itoa(*c.ExitCode)
			if c.ErrorLine != "" {
				e += ": " + c.ErrorLine
			}
			e, et = facts.Clip(e, facts.MaxErrorChars)
		}
		x.Fail(facts.Failure{Tool: pc.Tool, Input: pc.Input, Error: e, Rejected: rejected, Time: pc.Time}, pc.InputTail, et)
		return
	}
	switch {
	case pc.Path != "":
		x.EditFile(pc.Path, pc.Tool, pc.Time)
	case pc.Tool == "todo_write" && pc.TodosOK:
		x.SetTodos(pc.Todos)
	}
}

// qwenResponseText is the start of a tool result's functionResponse text
// (its response's error, else its output).
func qwenResponseText(line []byte, msg jsonspan.Span) string {
	parts := qwenParts(line, msg)
	if !parts.OK() {
		return ""
	}
	out := ""
	var fr, resp [1]jsonspan.Span
	var eo [2]jsonspan.Span
	jsonspan.EachElem(line[:parts.E], parts.S, func(vs, ve int) bool {
		if (jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"functionResponse"}, fr[:]) && fr[0].OK() && line[fr[0].S] == '{' &&
			fr[0].Fields(line, []string{"response"}, resp[:]) && resp[0].OK() && line[resp[0].S] == '{' &&
			resp[0].Fields(line, []string{"error", "output"}, eo[:]) {
			if out = facts.ResultTextOf(line, eo[0]); out == "" {
				out = facts.ResultTextOf(line, eo[1])
			}
			return false
		}
		return true
	})
	return out
}
