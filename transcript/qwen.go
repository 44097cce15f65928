package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

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

// qwenInteresting are the record types that can hold a fact.
func qwenInteresting(typ []byte) bool {
	switch string(typ) {
	case "user", "assistant", "tool_result", "system":
		return true
	}
	return false
}

// qwenTop walks a record's top level (strict: the whole line is checked).
func qwenTop(line []byte, strict bool, top *[nQwenTop]span) (skipped, ok bool) {
	return topFields(line, qwenTopKeys, qwType, qwenInteresting, strict, top[:])
}

// isQwenBoundary reports whether line is a compaction of a chat record
// file: a complete JSON object of at most MaxLineBytes, type "system",
// subtype "chat_compression" (TR-45).
func isQwenBoundary(line []byte) bool {
	if len(line) > MaxLineBytes {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nQwenTop]span
	skipped, ok := qwenTop(line, true, &top)
	return ok && !skipped && top[qwType].strEq(line, "system") && top[qwSubtype].strEq(line, "chat_compression")
}

// qwenIDTime is a record's uuid and timestamp.
func qwenIDTime(line []byte) (string, time.Time) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nQwenTop]span
	if _, ok := qwenTop(line, true, &top); !ok {
		return "", time.Time{}
	}
	id, _ := top[qwUUID].str(line)
	s, _ := top[qwTimestamp].str(line)
	t, _ := time.Parse(time.RFC3339Nano, s)
	return id, t
}

// qwenResponse reports whether line is a model response (TR-46): type
// "assistant" with a timestamp, which it returns. The compaction's summary
// is no such record (the client writes only telemetry for it).
func qwenResponse(line []byte) (time.Time, bool) {
	if len(line) > MaxLineBytes {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nQwenTop]span
	if skipped, ok := qwenTop(line, true, &top); !ok || skipped || !top[qwType].strEq(line, "assistant") {
		return time.Time{}, false
	}
	s, ok := top[qwTimestamp].str(line)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// qwenLines turns Qwen Code's chat records into facts.
type qwenLines struct {
	*builder
	// model and window are the model and context window the newest
	// response named, for the usage.
	model  string
	window int64
}

// line handles one chat record (TR-44..TR-49).
func (x *qwenLines) line(line []byte, last bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if skipSpace(line, 0) == len(line) {
		return
	}
	var top [nQwenTop]span
	skipped, ok := qwenTop(line, last, &top)
	if !ok {
		x.bad(last)
		return
	}
	if skipped || !top[qwType].isString(line) {
		return
	}
	x.st.Decoded++
	t := x.noteTime(line, top[qwTimestamp])
	x.noteCwd(line, top[qwCwd])
	if s, ok := top[qwGitBranch].str(line); ok && s != "" {
		x.gitBranch = s
	}
	switch {
	case top[qwType].strEq(line, "user"):
		if !top[qwSubtype].ok() && (!top[qwProvenance].ok() || top[qwProvenance].strEq(line, "real_user")) {
			x.qwenPrompt(line, &top, t)
		}
	case top[qwType].strEq(line, "assistant"):
		x.qwenAssistant(line, &top, t)
	case top[qwType].strEq(line, "tool_result"):
		x.qwenToolResult(line, &top, t)
	case top[qwType].strEq(line, "system") && top[qwSubtype].strEq(line, "chat_compression"):
		x.compactions++
		model := x.model
		x.usage = nil
		var info, n [1]span
		if top[qwSystemPayload].fields(line, []string{"info"}, info[:]) &&
			info[0].fields(line, []string{"newTokenCount"}, n[:]) {
			if v, ok := n[0].int64(line); ok && v >= 0 {
				x.usage = &Usage{Tokens: v, Model: model, Window: x.window, FromBoundary: true}
			}
		}
	}
}

// qwenParts returns the parts array of a record's message.
func qwenParts(line []byte, msg span) span {
	var p [1]span
	if !msg.ok() || line[msg.s] != '{' || !msg.fields(line, []string{"parts"}, p[:]) || !p[0].ok() || line[p[0].s] != '[' {
		return span{}
	}
	return p[0]
}

// qwenHookContext starts the text part the client appends to a prompt for
// a UserPromptSubmit hook's context; it is not the user's.
const qwenHookContext = "<qwen:"

// qwenPrompt records a typed prompt (TR-47): systemPayload.displayText
// when the record has it (the text as typed), else the text parts that are
// not the client's own (<qwen:…> hook context); inline data becomes
// [image].
func (x *qwenLines) qwenPrompt(line []byte, top *[nQwenTop]span, t time.Time) {
	const limit = MaxPromptChars + TailChars
	var d [1]span
	if top[qwSystemPayload].ok() && line[top[qwSystemPayload].s] == '{' &&
		top[qwSystemPayload].fields(line, []string{"displayText"}, d[:]) && d[0].isString(line) {
		s, more := cut(line, d[0], limit)
		if strings.TrimSpace(s) != "" {
			kept, _ := textcut.Runes(s, MaxPromptChars)
			x.keepPrompt([]string{s}, []string{kept}, more, t)
		}
		return
	}
	parts := qwenParts(line, top[qwMessage])
	if !parts.ok() {
		return
	}
	var pieces, texts []string
	total, more, any := 0, false, false
	var f [4]span
	eachElem(line[:parts.e], parts.s, func(vs, ve int) bool {
		if !(span{vs, ve}).fields(line, []string{"text", "inlineData", "fileData", "functionResponse"}, f[:]) {
			return true
		}
		var piece string
		switch {
		case f[3].ok():
			any, pieces = false, nil // a tool response is no prompt
			return false
		case f[0].isString(line):
			if total > limit {
				more = true
				return true
			}
			s, m := cut(line, f[0], limit)
			if strings.HasPrefix(strings.TrimSpace(s), qwenHookContext) {
				return true
			}
			more = more || m
			any = any || strings.TrimSpace(s) != ""
			piece = s
			kept, _ := textcut.Runes(s, MaxPromptChars)
			texts = append(texts, kept)
		case f[1].ok(), f[2].ok():
			piece, any = "[image]", true
		default:
			return true
		}
		pieces = append(pieces, piece)
		total += len([]rune(piece)) + 1
		return true
	})
	if any {
		x.keepPrompt(pieces, texts, more, t)
	}
}

var qwenUsageKeys = []string{"promptTokenCount", "cachedContentTokenCount"}

// qwenAssistant takes the context fill and the tool calls of a model
// response (TR-48, TR-49).
func (x *qwenLines) qwenAssistant(line []byte, top *[nQwenTop]span, t time.Time) {
	model, _ := top[qwModel].str(line)
	if model != "" {
		x.model = model
	}
	if w, ok := top[qwWindow].int64(line); ok && w > 0 {
		x.window = w
	}
	var u [2]span
	if top[qwUsage].ok() && line[top[qwUsage].s] == '{' && top[qwUsage].fields(line, qwenUsageKeys, u[:]) {
		if in, ok := u[0].int64(line); ok && in > 0 {
			cached, _ := u[1].int64(line)
			x.usage = &Usage{Tokens: in, InputTokens: in - cached, CacheRead: cached, Model: x.model, Window: x.window}
		}
	}
	parts := qwenParts(line, top[qwMessage])
	if !parts.ok() {
		return
	}
	var fc [1]span
	var call [3]span
	eachElem(line[:parts.e], parts.s, func(vs, ve int) bool {
		if (span{vs, ve}).fields(line, []string{"functionCall"}, fc[:]) && fc[0].ok() && line[fc[0].s] == '{' &&
			fc[0].fields(line, []string{"id", "name", "args"}, call[:]) {
			id, _ := call[0].str(line)
			name, _ := call[1].str(line)
			x.qwenCall(line, id, name, call[2], t)
		}
		return true
	})
}

// qwenCall starts waiting for a tool call's result (TR-29's bounds apply).
func (x *qwenLines) qwenCall(line []byte, id, name string, args span, t time.Time) {
	pc, in, ok := x.startCall(line, id, name, args, t)
	if !ok {
		return
	}
	switch name {
	case "write_file", "edit", "replace", "notebook_edit":
		p, more := cut(line, in[iFilePath], MaxPathChars)
		if p == "" {
			p, more = cut(line, in[iNotebookPath], MaxPathChars)
		}
		pc.path = textcut.Marked(p, more)
	case "run_shell_command":
		x.startCommand(line, pc, name, in, t)
		var bg [1]span
		if args.fields(line, []string{"is_background"}, bg[:]) {
			pc.bg = bg[0].isTrue(line)
		}
	case "todo_write":
		pc.todos, pc.todoOK = todoList(line, in[iTodos])
	}
	x.waitFor(id, name, pc)
}

var qwenResultKeys = []string{"callId", "status", "resultDisplay", "error"}

// qwenToolResult settles the call a tool result answers (TR-49):
// toolCallResult.status "success", "error", or "cancelled" (declined or
// aborted: counted as rejected); a shell result's resultDisplay gives the
// exit code and the output.
func (x *qwenLines) qwenToolResult(line []byte, top *[nQwenTop]span, t time.Time) {
	var r [4]span
	tr := top[qwToolResult]
	if !tr.ok() || line[tr.s] != '{' || !tr.fields(line, qwenResultKeys, r[:]) {
		return
	}
	id, _ := r[0].str(line)
	pc, ok := x.pending[id]
	if !ok {
		return
	}
	x.settle(id, pc)
	status, _ := r[1].str(line)
	rejected := status == "cancelled"
	failed := status == "error"
	var code *int
	var output span
	disp := r[2]
	if disp.ok() && line[disp.s] == '{' {
		var d [2]span
		if disp.fields(line, []string{"exitCode", "output"}, d[:]) {
			if n, ok := d[0].int64(line); ok {
				v := int(n)
				code = &v
				failed = failed || n != 0
			}
			output = d[1]
		}
	}
	errText := ""
	if failed || rejected {
		errText = resultTextOf(line, r[3])
		if strings.TrimSpace(errText) == "" {
			errText = qwenResponseText(line, top[qwMessage])
		}
	}
	if c := pc.cmd; c != nil {
		switch {
		case rejected:
			c.Outcome = OutcomeRejected
		case failed:
			c.Outcome = OutcomeError
			c.ExitCode = code
			c.ErrorLine, c.errorTail = outputErrorLine(line, output)
			if c.ErrorLine == "" && !output.ok() {
				// No shell result (the call failed before it ran): the
				// response's error says why.
				c.ErrorLine, c.errorTail = errorSummary(errText)
			}
		case pc.bg:
			c.Outcome = OutcomeBackground
		default:
			c.Outcome = OutcomeOK
		}
	}
	if failed || rejected {
		e, et := errorSummary(errText)
		if c := pc.cmd; c != nil && c.ExitCode != nil {
			e = "Exit code " + strconv.Itoa(*c.ExitCode)
			if c.ErrorLine != "" {
				e += ": " + c.ErrorLine
			}
			e, et = clip(e, MaxErrorChars)
		}
		x.addFailure(Failure{Tool: pc.tool, Input: pc.input, Error: e, Rejected: rejected, Time: pc.time,
			inputTail: pc.inTail, errorTail: et})
		return
	}
	switch {
	case pc.path != "":
		x.editFile(pc.path, pc.tool, pc.time)
	case pc.tool == "todo_write" && pc.todoOK:
		x.todos = pc.todos
	}
}

// qwenResponseText is the start of a tool result's functionResponse text
// (its response's error, else its output).
func qwenResponseText(line []byte, msg span) string {
	parts := qwenParts(line, msg)
	if !parts.ok() {
		return ""
	}
	out := ""
	var fr, resp [1]span
	var eo [2]span
	eachElem(line[:parts.e], parts.s, func(vs, ve int) bool {
		if (span{vs, ve}).fields(line, []string{"functionResponse"}, fr[:]) && fr[0].ok() && line[fr[0].s] == '{' &&
			fr[0].fields(line, []string{"response"}, resp[:]) && resp[0].ok() && line[resp[0].s] == '{' &&
			resp[0].fields(line, []string{"error", "output"}, eo[:]) {
			if out = resultTextOf(line, eo[0]); out == "" {
				out = resultTextOf(line, eo[1])
			}
			return false
		}
		return true
	})
	return out
}
