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

// codexShape is a rollout line's top level for the line handler.
var codexShape = facts.TopShape{Keys: codexTopKeys, Type: cxType, Time: cxTimestamp, Interesting: codexInteresting}

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
	if len(line) > facts.MaxLineBytes {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCodexTop]jsonspan.Span
	_, ok := jsonspan.TopFields(line, codexTopKeys, cxType, func([]byte) bool { return true }, true, top[:])
	return ok && top[cxType].StrEq(line, "compacted")
}

// codexIDTime is a rollout line's timestamp; its lines have no id.
func codexIDTime(line []byte) (string, time.Time) {
	var top [nCodexTop]jsonspan.Span
	if _, ok := jsonspan.TopFields(bytes.TrimSuffix(line, []byte("\r")), codexTopKeys, cxType, func([]byte) bool { return true }, true, top[:]); !ok {
		return "", time.Time{}
	}
	t, _ := top[cxTimestamp].Time(line)
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
	if len(line) > facts.MaxLineBytes {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	var top [nCodexTop]jsonspan.Span
	if _, ok := jsonspan.TopFields(line, codexTopKeys, cxType, func([]byte) bool { return true }, true, top[:]); !ok ||
		!top[cxType].StrEq(line, "response_item") {
		return time.Time{}, false
	}
	var p [2]jsonspan.Span
	if !top[cxPayload].Fields(line, []string{"type", "role"}, p[:]) {
		return time.Time{}, false
	}
	typ, _ := p[0].Str(line)
	if !codexModelItems[typ] || typ == "message" && !p[1].StrEq(line, "assistant") {
		return time.Time{}, false
	}
	var m [1]jsonspan.Span
	if top[cxMetadata].OK() && top[cxMetadata].Fields(line, []string{"compaction_output"}, m[:]) && m[0].IsTrue(line) {
		return time.Time{}, false
	}
	return top[cxTimestamp].Time(line)
}

// lines turns a Codex rollout's lines into facts.
type lines struct {
	*facts.Builder
	// model is the model a turn_context named, for its usage; and
	// afterCompaction says a compaction came after the last usage (TR-43).
	model           string
	afterCompaction bool
}

// Line handles one rollout line (TR-38..TR-43).
func (x *lines) Line(line []byte, last bool) {
	var top [nCodexTop]jsonspan.Span
	line, t, ok := x.OpenLine(line, last, &codexShape, top[:])
	if !ok {
		return
	}
	p := top[cxPayload]
	switch {
	case top[cxType].StrEq(line, "session_meta"):
		var f [2]jsonspan.Span
		if p.Fields(line, []string{"cwd", "git"}, f[:]) {
			x.NoteCwd(line, f[0])
			var g [1]jsonspan.Span
			if f[1].OK() && line[f[1].S] == '{' && f[1].Fields(line, []string{"branch"}, g[:]) {
				if s, ok := g[0].Str(line); ok {
					x.NoteBranch(s)
				}
			}
		}
	case top[cxType].StrEq(line, "turn_context"):
		var f [2]jsonspan.Span
		if p.Fields(line, []string{"cwd", "model"}, f[:]) {
			x.NoteCwd(line, f[0])
			if s, ok := f[1].Str(line); ok && s != "" {
				x.model = s
			}
		}
	case top[cxType].StrEq(line, "compacted"):
		x.Compaction()
		x.SetUsage(nil)
		x.afterCompaction = true
	case top[cxType].StrEq(line, "event_msg"):
		var f [4]jsonspan.Span
		if !p.Fields(line, []string{"type", "item", "info", "started_at_ms"}, f[:]) {
			return
		}
		switch {
		case f[0].StrEq(line, "item_completed") && f[1].OK() && line[f[1].S] == '{':
			if ms, ok := f[3].Int64(line); ok && ms > 0 {
				t = time.UnixMilli(ms).UTC()
			}
			x.item(line, f[1], t)
		case f[0].StrEq(line, "token_count") && f[2].OK() && line[f[2].S] == '{':
			x.tokens(line, f[2])
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

// item handles an item_completed event's item (TR-41, TR-42).
func (x *lines) item(line []byte, item jsonspan.Span, t time.Time) {
	var f [nCodexItem]jsonspan.Span
	if !item.Fields(line, codexItemKeys, f[:]) {
		return
	}
	status, _ := f[ciStatus].Str(line)
	switch {
	case f[ciType].StrEq(line, "UserMessage"):
		x.prompt(line, f[ciContent], t)
	case f[ciType].StrEq(line, "FileChange"):
		x.fileChange(line, f, status, t)
	case f[ciType].StrEq(line, "CommandExecution"):
		x.command(line, f, status, t)
	case f[ciType].StrEq(line, "McpToolCall"):
		if status == "failed" {
			tool, _ := f[ciTool].Str(line)
			server, _ := f[ciServer].Str(line)
			in, inTail := facts.ShortInput(line, f[ciArguments], nil)
			errLine, errTail := facts.ErrorSummary(facts.ResultTextOf(line, f[ciError]))
			x.Fail(facts.Failure{Tool: "mcp:" + server + "/" + tool, Input: in, Error: errLine, Time: t}, inTail, errTail)
		}
	}
}

// prompt records a UserMessage item's text elements (TR-41).
func (x *lines) prompt(line []byte, content jsonspan.Span, t time.Time) {
	if !content.OK() || line[content.S] != '[' {
		return
	}
	const limit = facts.MaxPromptChars + facts.TailChars
	var parts, texts []string
	total, more, any := 0, false, false
	var f [2]jsonspan.Span
	jsonspan.EachElem(line[:content.E], content.S, func(vs, ve int) bool {
		if !(jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"type", "text"}, f[:]) {
			return true
		}
		var piece string
		switch {
		case f[0].StrEq(line, "text"):
			if total > limit {
				more = true
				return true
			}
			s, m := facts.Cut(line, f[1], limit)
			more = more || m
			any = any || strings.TrimSpace(s) != ""
			piece = s
			kept, _ := textcut.Runes(s, facts.MaxPromptChars)
			texts = append(texts, kept)
		case f[0].StrEq(line, "image"), f[0].StrEq(line, "local_image"):
			piece, any = "[image]", true
		default:
			return true
		}
		parts = append(parts, piece)
		total += len([]rune(piece)) + 1
		return true
	})
	if any {
		x.KeepPrompt(parts, texts, more, t)
	}
}

// fileChange records the files an apply_patch changed (TR-42).
func (x *lines) fileChange(line []byte, f [nCodexItem]jsonspan.Span, status string, t time.Time) {
	ch := f[ciChanges]
	if !ch.OK() || line[ch.S] != '{' {
		return
	}
	var paths []string
	var mv [1]jsonspan.Span
	jsonspan.EachField(line[:ch.E], ch.S, func(key []byte, vs, ve int) bool {
		p, more := textcut.Runes(string(key), facts.MaxPathChars)
		paths = append(paths, textcut.Marked(p, more))
		if (jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"move_path"}, mv[:]) {
			if s, ok := mv[0].Str(line); ok && s != "" {
				s, more := textcut.Runes(s, facts.MaxPathChars)
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
			x.EditFile(p, "apply_patch", t)
		}
	case "failed", "declined":
		text := facts.ResultTextOf(line, f[ciStderr])
		if strings.TrimSpace(text) == "" {
			text = facts.ResultTextOf(line, f[ciStdout])
		}
		errLine, errTail := facts.ErrorSummary(text)
		in, inTail := facts.Clip(paths[0], facts.MaxFailureInputChars)
		x.Fail(facts.Failure{Tool: "apply_patch", Input: in, Error: errLine, Rejected: status == "declined",
			Time: t}, inTail, errTail)
	}
}

// command records a CommandExecution item (TR-42).
func (x *lines) command(line []byte, f [nCodexItem]jsonspan.Span, status string, t time.Time) {
	text, more, tail := codexCommandText(line, f[ciCommand])
	if text == "" {
		return
	}
	c := &facts.Command{Tool: "exec_command", Command: textcut.Marked(text, more), Truncated: more,
		Outcome: facts.OutcomeUnknown, Time: t}
	facts.SetCommandTail(c, tail)
	code, hasCode := f[ciExitCode].Int64(line)
	switch {
	case status == "declined":
		c.Outcome = facts.OutcomeRejected
	case status == "failed" || hasCode && code != 0:
		c.Outcome = facts.OutcomeError
		if hasCode {
			n := int(code)
			c.ExitCode = &n
		}
		errLine, errTail := facts.OutputErrorLine(line, f[ciOutput])
		facts.SetErrorLine(c, errLine, errTail)
	case status == "completed":
		c.Outcome = facts.OutcomeOK
	}
	x.AddCommand(c)
	if c.Outcome == facts.OutcomeError || c.Outcome == facts.OutcomeRejected {
		in, inTail := facts.Clip(text, facts.MaxFailureInputChars)
		e := c.ErrorLine
		if c.ExitCode != nil {
			e = "Exit code " + strconv.Itoa(*c.ExitCode)
			if c.ErrorLine != "" {
				e += ": " + c.ErrorLine
			}
		}
		e, et := facts.Clip(e, facts.MaxErrorChars)
		x.Fail(facts.Failure{Tool: c.Tool, Input: in, Error: e, Rejected: c.Outcome == facts.OutcomeRejected, Time: t}, inTail, et)
	}
}

// codexCommandText is the command a CommandExecution ran: the script of a
// shell's -c (["/bin/bash","-lc","cat x"] is "cat x"), else the words
// joined by spaces.
func codexCommandText(line []byte, cmd jsonspan.Span) (string, bool, string) {
	if cmd.IsString(line) {
		return facts.CutTail(line, cmd, facts.MaxCommandChars)
	}
	if !cmd.OK() || line[cmd.S] != '[' {
		return "", false, ""
	}
	var words []jsonspan.Span
	jsonspan.EachElem(line[:cmd.E], cmd.S, func(vs, ve int) bool {
		words = append(words, jsonspan.Span{S: vs, E: ve})
		return len(words) <= 64
	})
	if len(words) == 3 {
		flag, _ := words[1].Str(line)
		switch flag {
		case "-c", "-lc", "-ic", "-lic", "-facts.Command", "/c", "/C":
			return facts.CutTail(line, words[2], facts.MaxCommandChars)
		}
	}
	var b strings.Builder
	for i, w := range words {
		s, _ := facts.Cut(line, w, facts.MaxCommandChars+facts.TailChars)
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		if b.Len() > 4*(facts.MaxCommandChars+facts.TailChars) {
			break
		}
	}
	return facts.SplitTail(b.String(), len(words) > 64, facts.MaxCommandChars)
}

// tokens takes the context fill from a token_count event (TR-43):
// last_token_usage.input_tokens (cached_input_tokens are part of it) of
// model_context_window; after a compaction, a count with no input tokens
// gives total_tokens, the client's estimate of the compacted context.
func (x *lines) tokens(line []byte, info jsonspan.Span) {
	var f [2]jsonspan.Span
	if !info.Fields(line, []string{"last_token_usage", "model_context_window"}, f[:]) {
		return
	}
	var u [3]jsonspan.Span
	if !f[0].OK() || line[f[0].S] != '{' || !f[0].Fields(line, []string{"input_tokens", "cached_input_tokens", "total_tokens"}, u[:]) {
		return
	}
	in, _ := u[0].Int64(line)
	cached, _ := u[1].Int64(line)
	total, _ := u[2].Int64(line)
	window, _ := f[1].Int64(line)
	switch {
	case in > 0:
		x.SetUsage(&facts.Usage{Tokens: in, InputTokens: in - cached, CacheRead: cached, Model: x.model, Window: window})
		x.afterCompaction = false
	case x.afterCompaction && total > 0:
		x.SetUsage(&facts.Usage{Tokens: total, Model: x.model, Window: window, FromBoundary: true})
	}
}
