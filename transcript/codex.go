package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Codex CLI rollout files (specs/transcript.md TR-38..TR-43): one JSON
// object a line, {"timestamp","ordinal","type","payload"[,"metadata"]},
// append-only, the lines before a compaction kept.

// Top-level keys of a rollout line, in codexTop order.
var codexTopKeys = []string{"type", "timestamp", "payload", "metadata"}

const (
	cxType = iota
	cxTimestamp
	cxPayload
	cxMetadata
	nCodexTop
)

// codexInteresting are the record types that can hold a fact; the rest
// (world_state, token_usage_record, response_item, ...) are dropped as soon
// as their type is read (TR-38).
func codexInteresting(typ []byte) bool {
	switch string(typ) {
	case "session_meta", "turn_context", "event_msg", "compacted":
		return true
	}
	return false
}

// isCodexBoundary reports whether line is a compaction of a rollout: a
// complete JSON object of at most MaxLineBytes whose first type is
// "compacted" (TR-39).
func isCodexBoundary(line []byte) bool {
	if len(line) > MaxLineBytes {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCodexTop]span
	_, ok := topFields(line, codexTopKeys, cxType, func([]byte) bool { return true }, true, top[:])
	return ok && top[cxType].strEq(line, "compacted")
}

// codexIDTime is a rollout line's timestamp; its lines have no id.
func codexIDTime(line []byte) (string, time.Time) {
	var top [nCodexTop]span
	if _, ok := topFields(bytes.TrimSuffix(line, []byte("\r")), codexTopKeys, cxType, func([]byte) bool { return true }, true, top[:]); !ok {
		return "", time.Time{}
	}
	s, _ := top[cxTimestamp].str(line)
	t, _ := time.Parse(time.RFC3339Nano, s)
	return "", t
}

// codexModelItems are the response items a model writes: its messages (role
// assistant), reasoning and tool calls; not tool outputs, not the user's or
// the harness's messages.
var codexModelItems = map[string]bool{
	"message": true, "reasoning": true, "function_call": true, "custom_tool_call": true,
	"local_shell_call": true, "web_search_call": true, "tool_search_call": true,
}

// codexResponse reports whether line is a model response of the session
// (TR-40) and returns its timestamp: a response_item the model wrote that
// is not the compaction's own summary (metadata.compaction_output).
func codexResponse(line []byte) (time.Time, bool) {
	if len(line) > MaxLineBytes {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCodexTop]span
	if _, ok := topFields(line, codexTopKeys, cxType, func([]byte) bool { return true }, true, top[:]); !ok ||
		!top[cxType].strEq(line, "response_item") {
		return time.Time{}, false
	}
	var p [2]span
	if !top[cxPayload].fields(line, []string{"type", "role"}, p[:]) {
		return time.Time{}, false
	}
	typ, _ := p[0].str(line)
	if !codexModelItems[typ] || typ == "message" && !p[1].strEq(line, "assistant") {
		return time.Time{}, false
	}
	var m [1]span
	if top[cxMetadata].ok() && top[cxMetadata].fields(line, []string{"compaction_output"}, m[:]) && m[0].isTrue(line) {
		return time.Time{}, false
	}
	s, ok := top[cxTimestamp].str(line)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// codexLines turns a Codex rollout's lines into facts.
type codexLines struct {
	*builder
	// model is the model a turn_context named, for its usage; and
	// afterCompaction says a compaction came after the last usage (TR-43).
	model           string
	afterCompaction bool
}

// line handles one rollout line (TR-38..TR-43).
func (x *codexLines) line(line []byte, last bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if i := skipSpace(line, 0); i == len(line) {
		return
	}
	var top [nCodexTop]span
	skipped, ok := topFields(line, codexTopKeys, cxType, codexInteresting, last, top[:])
	if !ok {
		x.bad(last)
		return
	}
	if skipped || !top[cxType].isString(line) {
		return
	}
	x.st.Decoded++
	t := x.noteTime(line, top[cxTimestamp])
	p := top[cxPayload]
	switch {
	case top[cxType].strEq(line, "session_meta"):
		var f [2]span
		if p.fields(line, []string{"cwd", "git"}, f[:]) {
			x.noteCwd(line, f[0])
			var g [1]span
			if f[1].ok() && line[f[1].s] == '{' && f[1].fields(line, []string{"branch"}, g[:]) {
				if s, ok := g[0].str(line); ok && s != "" {
					x.gitBranch = s
				}
			}
		}
	case top[cxType].strEq(line, "turn_context"):
		var f [2]span
		if p.fields(line, []string{"cwd", "model"}, f[:]) {
			x.noteCwd(line, f[0])
			if s, ok := f[1].str(line); ok && s != "" {
				x.model = s
			}
		}
	case top[cxType].strEq(line, "compacted"):
		x.compactions++
		x.usage = nil
		x.afterCompaction = true
	case top[cxType].strEq(line, "event_msg"):
		var f [4]span
		if !p.fields(line, []string{"type", "item", "info", "started_at_ms"}, f[:]) {
			return
		}
		switch {
		case f[0].strEq(line, "item_completed") && f[1].ok() && line[f[1].s] == '{':
			if ms, ok := f[3].int64(line); ok && ms > 0 {
				t = time.UnixMilli(ms).UTC()
			}
			x.codexItem(line, f[1], t)
		case f[0].strEq(line, "token_count") && f[2].ok() && line[f[2].s] == '{':
			x.codexTokens(line, f[2])
		}
	}
}

var codexItemKeys = []string{"type", "content", "changes", "status", "command", "exit_code",
	"aggregated_output", "stderr", "stdout", "tool", "server", "error", "arguments"}

const (
	ciType = iota
	ciContent
	ciChanges
	ciStatus
	ciCommand
	ciExitCode
	ciOutput
	ciStderr
	ciStdout
	ciTool
	ciServer
	ciError
	ciArguments
	nCodexItem
)

// codexItem handles an item_completed event's item (TR-41, TR-42).
func (x *codexLines) codexItem(line []byte, item span, t time.Time) {
	var f [nCodexItem]span
	if !item.fields(line, codexItemKeys, f[:]) {
		return
	}
	status, _ := f[ciStatus].str(line)
	switch {
	case f[ciType].strEq(line, "UserMessage"):
		x.codexPrompt(line, f[ciContent], t)
	case f[ciType].strEq(line, "FileChange"):
		x.codexFileChange(line, f, status, t)
	case f[ciType].strEq(line, "CommandExecution"):
		x.codexCommand(line, f, status, t)
	case f[ciType].strEq(line, "McpToolCall"):
		if status == "failed" {
			tool, _ := f[ciTool].str(line)
			server, _ := f[ciServer].str(line)
			in, inTail := shortInput(line, f[ciArguments], nil)
			errLine, errTail := errorSummary(resultTextOf(line, f[ciError]))
			x.addFailure(Failure{Tool: "mcp:" + server + "/" + tool, Input: in, Error: errLine, Time: t,
				inputTail: inTail, errorTail: errTail})
		}
	}
}

// codexPrompt records a UserMessage item's text elements (TR-41).
func (x *codexLines) codexPrompt(line []byte, content span, t time.Time) {
	if !content.ok() || line[content.s] != '[' {
		return
	}
	const limit = MaxPromptChars + TailChars
	var parts, texts []string
	total, more, any := 0, false, false
	var f [2]span
	eachElem(line[:content.e], content.s, func(vs, ve int) bool {
		if !(span{vs, ve}).fields(line, []string{"type", "text"}, f[:]) {
			return true
		}
		var piece string
		switch {
		case f[0].strEq(line, "text"):
			if total > limit {
				more = true
				return true
			}
			s, m := cut(line, f[1], limit)
			more = more || m
			any = any || strings.TrimSpace(s) != ""
			piece = s
			kept, _ := textcut.Runes(s, MaxPromptChars)
			texts = append(texts, kept)
		case f[0].strEq(line, "image"), f[0].strEq(line, "local_image"):
			piece, any = "[image]", true
		default:
			return true
		}
		parts = append(parts, piece)
		total += len([]rune(piece)) + 1
		return true
	})
	if any {
		x.keepPrompt(parts, texts, more, t)
	}
}

// codexFileChange records the files an apply_patch changed (TR-42).
func (x *codexLines) codexFileChange(line []byte, f [nCodexItem]span, status string, t time.Time) {
	ch := f[ciChanges]
	if !ch.ok() || line[ch.s] != '{' {
		return
	}
	var paths []string
	var mv [1]span
	eachField(line[:ch.e], ch.s, func(key []byte, vs, ve int) bool {
		p, more := textcut.Runes(string(key), MaxPathChars)
		paths = append(paths, textcut.Marked(p, more))
		if (span{vs, ve}).fields(line, []string{"move_path"}, mv[:]) {
			if s, ok := mv[0].str(line); ok && s != "" {
				s, more := textcut.Runes(s, MaxPathChars)
				paths = append(paths, textcut.Marked(s, more))
			}
		}
		return true
	})
	if len(paths) == 0 {
		return
	}
	switch status {
	case "completed":
		for _, p := range paths {
			x.editFile(p, "apply_patch", t)
		}
	case "failed", "declined":
		text := resultTextOf(line, f[ciStderr])
		if strings.TrimSpace(text) == "" {
			text = resultTextOf(line, f[ciStdout])
		}
		errLine, errTail := errorSummary(text)
		in, inTail := clip(paths[0], MaxFailureInputChars)
		x.addFailure(Failure{Tool: "apply_patch", Input: in, Error: errLine, Rejected: status == "declined",
			Time: t, inputTail: inTail, errorTail: errTail})
	}
}

// codexCommand records a CommandExecution item (TR-42).
func (x *codexLines) codexCommand(line []byte, f [nCodexItem]span, status string, t time.Time) {
	text, more, tail := codexCommandText(line, f[ciCommand])
	if text == "" {
		return
	}
	c := &Command{Tool: "exec_command", Command: textcut.Marked(text, more), Truncated: more,
		Outcome: OutcomeUnknown, Time: t, commandTail: tail}
	code, hasCode := f[ciExitCode].int64(line)
	switch {
	case status == "declined":
		c.Outcome = OutcomeRejected
	case status == "failed" || hasCode && code != 0:
		c.Outcome = OutcomeError
		if hasCode {
			n := int(code)
			c.ExitCode = &n
		}
		c.ErrorLine, c.errorTail = outputErrorLine(line, f[ciOutput])
	case status == "completed":
		c.Outcome = OutcomeOK
	}
	x.addCommand(c)
	if c.Outcome == OutcomeError || c.Outcome == OutcomeRejected {
		in, inTail := clip(text, MaxFailureInputChars)
		e := c.ErrorLine
		if c.ExitCode != nil {
			e = "Exit code " + strconv.Itoa(*c.ExitCode)
			if c.ErrorLine != "" {
				e += ": " + c.ErrorLine
			}
		}
		e, et := clip(e, MaxErrorChars)
		x.addFailure(Failure{Tool: c.Tool, Input: in, Error: e, Rejected: c.Outcome == OutcomeRejected, Time: t,
			inputTail: inTail, errorTail: et})
	}
}

// codexCommandText is the command a CommandExecution ran: the script of a
// shell's -c (["/bin/bash","-lc","cat x"] is "cat x"), else the words
// joined by spaces.
func codexCommandText(line []byte, cmd span) (string, bool, string) {
	if cmd.isString(line) {
		return cutTail(line, cmd, MaxCommandChars)
	}
	if !cmd.ok() || line[cmd.s] != '[' {
		return "", false, ""
	}
	var words []span
	eachElem(line[:cmd.e], cmd.s, func(vs, ve int) bool {
		words = append(words, span{vs, ve})
		return len(words) <= 64
	})
	if len(words) == 3 {
		flag, _ := words[1].str(line)
		switch flag {
		case "-c", "-lc", "-ic", "-lic", "-Command", "/c", "/C":
			return cutTail(line, words[2], MaxCommandChars)
		}
	}
	var b strings.Builder
	for i, w := range words {
		s, _ := cut(line, w, MaxCommandChars+TailChars)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		if b.Len() > 4*(MaxCommandChars+TailChars) {
			break
		}
	}
	return splitTail(b.String(), len(words) > 64, MaxCommandChars)
}

// codexTokens takes the context fill from a token_count event (TR-43):
// last_token_usage.input_tokens (cached_input_tokens are part of it) of
// model_context_window; after a compaction, a count with no input tokens
// gives total_tokens, the client's estimate of the compacted context.
func (x *codexLines) codexTokens(line []byte, info span) {
	var f [2]span
	if !info.fields(line, []string{"last_token_usage", "model_context_window"}, f[:]) {
		return
	}
	var u [3]span
	if !f[0].ok() || line[f[0].s] != '{' || !f[0].fields(line, []string{"input_tokens", "cached_input_tokens", "total_tokens"}, u[:]) {
		return
	}
	in, _ := u[0].int64(line)
	cached, _ := u[1].int64(line)
	total, _ := u[2].int64(line)
	window, _ := f[1].int64(line)
	switch {
	case in > 0:
		x.usage = &Usage{Tokens: in, InputTokens: in - cached, CacheRead: cached, Model: x.model, Window: window}
		x.afterCompaction = false
	case x.afterCompaction && total > 0:
		x.usage = &Usage{Tokens: total, Model: x.model, Window: window, FromBoundary: true}
	}
}
