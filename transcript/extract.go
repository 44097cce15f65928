package transcript

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// entry is what classify records of a line: the spans of the top-level
// keys and, from one descent into "message", of the fields the extractor
// uses there, so that no part of a line is walked more often than needed.
type entry struct {
	top     [nTop]span
	model   span // message.model
	usage   span // message.usage
	content span // message.content
	blocks  []block
}

// maxBlocks bounds the content blocks looked at in one message.
const maxBlocks = 1000

// block is one message content block, as spans into the line.
type block struct {
	typ     span
	text    span // text blocks
	id      span // tool_use
	useID   span // tool_result: tool_use_id
	name    span // tool_use
	input   span // tool_use
	isError bool // tool_result
	content span // tool_result
}

// Top-level keys the extractor looks at, in x.top.
const (
	kType = iota
	kSubtype
	kSidechain
	kMeta
	kCompactSummary
	kAPIError
	kMessage
	kToolUseResult
	kTimestamp
	kCwd
	kGitBranch
	kPromptSource
	kOrigin
	kCompactMetadata
	kLastPrompt
	kUUID
	kVersion
	nTop
)

// interesting reports whether an entry type can hold a fact; everything else
// (attachment, progress, api-request*, file-history-*, queue-operation, ...)
// is passed over as soon as its type is known.
func interesting(typ []byte) bool {
	switch string(typ) {
	case "user", "assistant", "system", "last-prompt":
		return true
	}
	return false
}

// claudeLines turns Claude Code's entries into facts.
type claudeLines struct {
	*builder
	// boundaryIDs are the uuids of the boundaries counted, so that one
	// written twice counts once.
	boundaryIDs map[string]bool
	e           entry // the line being handled
}

// line handles one entry line (specs/transcript.md).
func (x *claudeLines) line(line []byte, last bool) {
	switch classify(line, last, &x.e) {
	case lineCorrupt:
		x.bad(last)
		return
	case lineEntry:
	default:
		return
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	top := &x.e.top
	if top[kSidechain].isTrue(line) {
		return
	}
	x.st.Decoded++
	t := x.note(line)
	switch {
	case top[kType].strEq(line, "user"):
		x.user(line, t)
	case top[kType].strEq(line, "assistant"):
		x.assistant(line, t)
	case top[kType].strEq(line, "system"):
		if top[kSubtype].strEq(line, "compact_boundary") {
			x.boundary(line)
		}
	case top[kType].strEq(line, "last-prompt"):
		x.lastPromptEntry(line)
	}
}

// lineClass is what classify found.
type lineClass int

const (
	lineBlank   lineClass = iota // white space only
	lineCorrupt                  // not JSON
	lineOther                    // JSON, but no entry of an interesting type
	lineEntry                    // an entry of an interesting type; e is filled
)

// classify walks the top level of a line (a trailing '\r' allowed), filling
// e with the spans of the keys the extractor uses. As soon as the type is
// known to hold no fact it stops, unless strict asks for the whole line to be
// checked. Values are skipped, never decoded; "message" is descended into
// instead of skipped, since the type that says whether it matters may come
// after it.
func classify(line []byte, strict bool, e *entry) lineClass {
	line = bytes.TrimSuffix(line, []byte("\r"))
	i := skipSpace(line, 0)
	if i == len(line) {
		return lineBlank
	}
	if line[i] != '{' {
		// Valid JSON that is not an object is no entry; anything else is
		// damage.
		end, err := skipValue(line, i)
		if err != nil || skipSpace(line, end) != len(line) {
			return lineCorrupt
		}
		return lineOther
	}
	e.top = [nTop]span{}
	e.model, e.usage, e.content = span{}, span{}, span{}
	e.blocks = e.blocks[:0]
	typed, skipped := false, false
	end, err := walkObject(line, i, func(key []byte, vs int) (int, error) {
		k := topKey(key)
		if k == kMessage && line[vs] == '{' && !skipped {
			ve, err := e.message(line, vs)
			e.top[k] = span{vs, ve}
			return ve, err
		}
		ve, err := skipValue(line, vs)
		if err != nil || k < 0 {
			return ve, err
		}
		if k == kType {
			// The first type decides, so that every reader of a line with
			// duplicate keys reaches the same verdict.
			if typed {
				return ve, nil
			}
			typed = true
			if !interesting(unquoteRawKey(line[vs:ve])) {
				skipped = true
				if !strict {
					return -1, nil
				}
			}
		}
		e.top[k] = span{vs, ve}
		return ve, nil
	})
	if err != nil || end >= 0 && skipSpace(line, end) != len(line) {
		return lineCorrupt
	}
	if skipped || !e.top[kType].isString(line) {
		return lineOther
	}
	return lineEntry
}

// message walks the message object at b[i], recording model, usage, content
// and the content blocks; it returns the index past the object.
func (e *entry) message(b []byte, i int) (int, error) {
	e.model, e.usage, e.content = span{}, span{}, span{}
	e.blocks = e.blocks[:0]
	return walkObject(b, i, func(key []byte, vs int) (int, error) {
		switch string(key) {
		case "content":
			if b[vs] == '[' {
				ve, err := e.contentBlocks(b, vs)
				e.content = span{vs, ve}
				return ve, err
			}
			ve, err := skipValue(b, vs)
			e.content = span{vs, ve}
			return ve, err
		case "model":
			ve, err := skipValue(b, vs)
			e.model = span{vs, ve}
			return ve, err
		case "usage":
			ve, err := skipValue(b, vs)
			e.usage = span{vs, ve}
			return ve, err
		}
		return skipValue(b, vs)
	})
}

func (e *entry) contentBlocks(b []byte, i int) (int, error) {
	e.blocks = e.blocks[:0]
	return walkArray(b, i, func(vs int) (int, error) {
		if b[vs] != '{' || len(e.blocks) >= maxBlocks {
			return skipValue(b, vs)
		}
		var bl block
		ve, err := walkObject(b, vs, func(key []byte, vs int) (int, error) {
			ve, err := skipValue(b, vs)
			sp := span{vs, ve}
			switch string(key) {
			case "type":
				bl.typ = sp
			case "text":
				bl.text = sp
			case "id":
				bl.id = sp
			case "tool_use_id":
				bl.useID = sp
			case "name":
				bl.name = sp
			case "input":
				bl.input = sp
			case "is_error":
				bl.isError = sp.isTrue(b)
			case "content":
				bl.content = sp
			}
			return ve, err
		})
		if err == nil {
			e.blocks = append(e.blocks, bl)
		}
		return ve, err
	})
}

// unquoteRawKey returns the bytes of a string value for a type comparison,
// unescaping only when needed.
func unquoteRawKey(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return nil
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, _ := unquote(v)
	return []byte(s)
}

func topKey(key []byte) int {
	switch string(key) {
	case "type":
		return kType
	case "subtype":
		return kSubtype
	case "isSidechain":
		return kSidechain
	case "isMeta":
		return kMeta
	case "isCompactSummary":
		return kCompactSummary
	case "isApiErrorMessage":
		return kAPIError
	case "message":
		return kMessage
	case "toolUseResult":
		return kToolUseResult
	case "timestamp":
		return kTimestamp
	case "cwd":
		return kCwd
	case "gitBranch":
		return kGitBranch
	case "promptSource":
		return kPromptSource
	case "origin":
		return kOrigin
	case "compactMetadata":
		return kCompactMetadata
	case "uuid":
		return kUUID
	case "version":
		return kVersion
	case "lastPrompt":
		return kLastPrompt
	}
	return -1
}

// note records cwd, git branch and time from an entry and returns its time.
func (x *claudeLines) note(line []byte) time.Time {
	top := &x.e.top
	if s, ok := top[kCwd].str(line); ok && s != "" {
		x.cwd = s
	}
	if s, ok := top[kGitBranch].str(line); ok && s != "" {
		x.gitBranch = s
	}
	var t time.Time
	if s, ok := top[kTimestamp].str(line); ok {
		if v, err := time.Parse(time.RFC3339Nano, s); err == nil {
			t = v
			if t.After(x.lastTime) {
				x.lastTime = t
			}
		}
	}
	return t
}

// boundary handles a compact_boundary: one more compaction, and the usage
// before it no longer describes the context.
func (x *claudeLines) boundary(line []byte) {
	// The same boundary entry written twice (seen with 2.1.119 writing a
	// session's transcript late) is one compaction (TR-27).
	if id, ok := x.e.top[kUUID].str(line); ok && id != "" {
		if x.boundaryIDs == nil {
			x.boundaryIDs = map[string]bool{}
		}
		if x.boundaryIDs[id] {
			return
		}
		x.boundaryIDs[id] = true
	}
	x.compactions++
	model := ""
	if x.usage != nil {
		model = x.usage.Model
	}
	x.usage = nil
	var f [1]span
	if x.e.top[kCompactMetadata].fields(line, []string{"postTokens"}, f[:]) {
		if n, ok := f[0].int64(line); ok && n >= 0 {
			x.usage = &Usage{Tokens: n, Model: model, FromBoundary: true}
		}
	}
}

func (x *claudeLines) lastPromptEntry(line []byte) {
	s, more, ok := unquotePrefix(x.e.top[kLastPrompt].raw(line), MaxPromptChars+TailChars)
	if !ok || strings.TrimSpace(s) == "" {
		return
	}
	s, more, tail := splitTail(s, more, MaxPromptChars)
	text := textcut.Marked(s, more)
	if x.sameAsTyped(text) {
		x.lpText, x.lpTrunc, x.lpTail = "", false, ""
		return
	}
	x.lpText, x.lpTrunc, x.lpTail = text, more, tail
}

func (x *claudeLines) assistant(line []byte, t time.Time) {
	e := &x.e
	model, _ := e.model.str(line)
	if e.usage.ok() && model != "<synthetic>" && !e.top[kAPIError].isTrue(line) {
		var u [3]span
		if e.usage.fields(line, usageKeys, u[:]) {
			in, _ := u[0].int64(line)
			cc, _ := u[1].int64(line)
			cr, _ := u[2].int64(line)
			x.usage = &Usage{Tokens: in + cc + cr, InputTokens: in, CacheCreation: cc, CacheRead: cr, Model: model}
		}
	}
	for _, b := range e.blocks {
		if b.typ.strEq(line, "tool_use") {
			id, _ := b.id.str(line)
			name, _ := b.name.str(line)
			x.toolUse(line, id, name, b.input, t)
		}
	}
}

var usageKeys = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}

func (x *claudeLines) toolUse(line []byte, id, name string, input span, t time.Time) {
	pc, in, ok := x.startCall(line, id, name, input, t)
	if !ok {
		return
	}
	switch name {
	case "Write", "Edit", "MultiEdit":
		p, more := cut(line, in[iFilePath], MaxPathChars)
		pc.path = textcut.Marked(p, more)
	case "NotebookEdit":
		p, more := cut(line, in[iNotebookPath], MaxPathChars)
		pc.path = textcut.Marked(p, more)
	case "Bash", "PowerShell":
		x.startCommand(line, pc, name, in, t)
		pc.bg = in[iBackground].isTrue(line)
	case "TodoWrite":
		pc.todos, pc.todoOK = todoList(line, in[iTodos])
	case "TaskCreate":
		s, more, stail := cutTail(line, in[iSubject], MaxTaskChars)
		a, amore, atail := cutTail(line, in[iActiveForm], MaxTaskChars)
		pc.task = &Task{Subject: textcut.Marked(s, more), Status: "pending", ActiveForm: textcut.Marked(a, amore),
			subjectTail: stail, activeFormTail: atail}
	case "TaskUpdate":
		u := &taskUpdate{id: idString(line, in[iTaskID])}
		u.status, _ = cut(line, in[iStatus], MaxTaskChars)
		s, more, stail := cutTail(line, in[iSubject], MaxTaskChars)
		u.subject, u.subjectTail = textcut.Marked(s, more), stail
		a, amore, atail := cutTail(line, in[iActiveForm], MaxTaskChars)
		u.activeForm, u.activeFormTail = textcut.Marked(a, amore), atail
		pc.upd = u
	case "ExitPlanMode":
		if in[iPlan].isString(line) {
			p, more, tail := cutTail(line, in[iPlan], MaxPlanChars)
			pc.plan = &Plan{Text: textcut.Marked(p, more), Truncated: more, Time: t, tail: tail}
		}
	}
	x.waitFor(id, name, pc)
}

func (x *claudeLines) user(line []byte, t time.Time) {
	e := &x.e
	if !e.content.ok() {
		return
	}
	if e.content.isString(line) {
		x.maybePrompt(line, []block{{text: e.content}}, t)
		return
	}
	results := 0
	for _, b := range e.blocks {
		if b.typ.strEq(line, "tool_result") {
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
		tur = span{}
	}
	for _, b := range e.blocks {
		if b.typ.strEq(line, "tool_result") {
			id, _ := b.useID.str(line)
			x.toolResult(line, id, b.isError, b.content, tur, t)
		}
	}
}

// harnessMarkers start user text that the harness wrote, not the user
// (reference §4.5 point 4).
var harnessMarkers = []string{
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
	for _, m := range harnessMarkers {
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
func (x *claudeLines) maybePrompt(line []byte, blocks []block, t time.Time) {
	top := &x.e.top
	if top[kMeta].isTrue(line) || top[kCompactSummary].isTrue(line) || top[kToolUseResult].ok() {
		return
	}
	if top[kPromptSource].strEq(line, "system") {
		return
	}
	if top[kOrigin].ok() {
		var k [1]span
		if top[kOrigin].fields(line, []string{"kind"}, k[:]) && k[0].strEq(line, "task-notification") {
			return
		}
	}
	// Blocks are read up to the limit plus the tail (see TailChars).
	const limit = MaxPromptChars + TailChars
	var parts, texts []string
	total, more, first, content := 0, false, true, false
	for _, b := range blocks {
		var piece string
		switch {
		case !b.typ.ok() || b.typ.strEq(line, "text"):
			if total > limit {
				more = true
				continue
			}
			s, m := cut(line, b.text, limit)
			if first && isHarnessText(s) {
				return
			}
			first, more = false, more || m
			content = content || strings.TrimSpace(s) != ""
			piece = s
			kept, _ := textcut.Runes(s, MaxPromptChars)
			texts = append(texts, kept)
		case b.typ.strEq(line, "image"):
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
	x.keepPrompt(parts, texts, more, t)
}

var resultKeys = []string{"interrupted", "backgroundTaskId", "task", "taskId", "success"}

func (x *claudeLines) toolResult(line []byte, id string, isError bool, content, tur span, t time.Time) {
	pc, ok := x.pending[id]
	if !ok {
		return
	}
	x.settle(id, pc)

	turStr := ""
	if tur.isString(line) {
		turStr, _ = cut(line, tur, 2000)
	}
	var r [5]span
	if tur.ok() && line[tur.s] == '{' && (pc.cmd != nil || pc.task != nil || pc.upd != nil) {
		// Only these calls need the structured result, which can be as
		// large as the output itself.
		tur.fields(line, resultKeys, r[:])
	}
	failed := isError || strings.HasPrefix(turStr, "Error") || strings.HasPrefix(turStr, "InputValidationError")
	// A successful result is only looked at for an interruption marker; the
	// text of a failure is needed whole (its first lines).
	n := 40
	if failed {
		n = ErrorOutputChars
	}
	errText := resultText(line, content, n)
	if errText == "" {
		errText = turStr
	}
	lead := strings.TrimLeft(errText, " \t\r\n")
	rejected := strings.HasPrefix(lead, "The user doesn't want to") ||
		turStr == "User rejected tool use" ||
		strings.HasPrefix(turStr, "Error: The user doesn't want to")
	interrupted := r[0].isTrue(line) || strings.HasPrefix(lead, "[Request interrupted")
	ok = !failed && !rejected && !interrupted

	if pc.cmd != nil {
		c := pc.cmd
		switch {
		case rejected:
			c.Outcome = OutcomeRejected
		case interrupted:
			c.Outcome = OutcomeInterrupted
		case failed:
			c.Outcome = OutcomeError
			c.ExitCode, c.ErrorLine, c.errorTail = exitCode(errText)
		case pc.bg || r[1].ok() && string(r[1].raw(line)) != "null":
			c.Outcome = OutcomeBackground
		default:
			c.Outcome = OutcomeOK
		}
	}
	if (failed || rejected) && !interrupted {
		errLine, errTail := errorSummary(errText)
		x.addFailure(Failure{Tool: pc.tool, Input: pc.input,
			Error: errLine, Rejected: rejected, Time: pc.time, inputTail: pc.inTail, errorTail: errTail})
	}
	if !ok {
		return
	}
	switch {
	case pc.path != "":
		x.editFile(pc.path, pc.tool, pc.time)
	case pc.tool == "TodoWrite" && pc.todoOK:
		x.todos = pc.todos
	case pc.task != nil:
		task := *pc.task
		var f [1]span
		if r[2].fields(line, []string{"id"}, f[:]) {
			task.ID = idString(line, f[0])
		}
		x.tasks = append(x.tasks, task)
		if n := len(x.tasks); n > MaxTasks {
			x.tasks = slices.Delete(x.tasks, 0, n-MaxTasks)
		}
	case pc.upd != nil:
		if string(r[4].raw(line)) == "false" {
			return
		}
		u := *pc.upd
		if u.id == "" {
			u.id = idString(line, r[3])
		}
		x.updateTask(u)
	case pc.plan != nil:
		x.plan = pc.plan
	}
}

// resultText returns the first n runes of a tool_result's text: the string
// content, or the first text block of an array content.
func resultText(line []byte, content span, n int) string {
	if content.isString(line) {
		s, _ := cut(line, content, n)
		return s
	}
	if !content.ok() || line[content.s] != '[' {
		return ""
	}
	var out string
	var f [2]span
	eachElem(line[:content.e], content.s, func(vs, ve int) bool {
		if (span{vs, ve}).fields(line, []string{"type", "text"}, f[:]) && f[0].strEq(line, "text") {
			out, _ = cut(line, f[1], n)
			return false
		}
		return true
	})
	return out
}

// exitCode reads "Exit code N" at the start of an error output, and the
// line of the output that says what failed (TR-21, chooseErrorLine).
func exitCode(text string) (*int, string, string) {
	lines := nonEmptyLines(text, 1)
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
	s, tail := clip(chooseErrorLine(outputLines(text), false), MaxErrorChars)
	return code, s, tail
}
