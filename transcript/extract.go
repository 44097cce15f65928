package transcript

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/compact-guard/compact-guard/snapshot/textcut"
)

// Further limits of what an Extractor keeps, so memory stays flat whatever
// the transcript holds.
const (
	// MaxFiles bounds the session-wide edited-file list (most recent kept).
	MaxFiles = 1000
	// MaxTasks bounds the TodoWrite list and the TaskCreate tasks.
	MaxTasks = 100
	// MaxErrorChars bounds an error line (Command.ErrorLine, Failure.Error).
	MaxErrorChars = 300
	// MaxFailureInputChars bounds Failure.Input.
	MaxFailureInputChars = 200
	// MaxDescriptionChars bounds Command.Description.
	MaxDescriptionChars = 300
	// MaxTaskChars bounds a task's subject and active form.
	MaxTaskChars = 500
	// MaxPending bounds the tool calls waiting for their result, and
	// MaxPendingBytes what they hold (todo lists, plans); the oldest call is
	// forgotten first (its result, if it ever comes, is then ignored).
	MaxPending      = 4096
	MaxPendingBytes = 8 << 20
	// MaxPathChars bounds a file path (longer ones are cut with the marker).
	MaxPathChars = 4096
)

// Extractor turns transcript lines, fed in file order, into Facts. It keeps
// only the bounded facts and the pending tool calls, never a line: Feed may be
// given a buffer that is reused afterwards. The zero value is not usable;
// call NewExtractor.
type Extractor struct {
	st     Stats
	format Format // FormatClaude unless NewExtractorFor said otherwise

	// boundaryIDs are the uuids of the boundaries counted, so that one
	// written twice counts once.
	boundaryIDs map[string]bool

	prompts     []Prompt
	lastTyped   string // text of the newest typed prompt, for last-prompt comparison
	lastTypedTx string // same, text blocks only (no "[image]")
	lpText      string // newer last-prompt text not yet seen as a typed prompt
	lpTrunc     bool
	lpTail      string

	files   map[string]*fileRec
	fileSeq int64

	commands []*Command
	totals   Totals
	todos    []Task
	tasks    []Task
	failures []Failure
	plan     *Plan
	usage    *Usage

	compactions int
	// model is the model a Codex turn_context named, for its usage; and
	// afterCompaction says a compaction came after the last usage (TR-43).
	model           string
	window          int64
	afterCompaction bool
	cwd             string
	gitBranch       string
	lastTime        time.Time

	pending      map[string]*pendingCall
	pendingBytes int      // sum of pendingCall.size
	order        []string // pending ids, oldest first (may hold answered ids)
	// done holds the ids of the last MaxPending answered calls, so that a
	// call written twice (a preserved segment re-emitted after a
	// compaction) counts once.
	done     map[string]struct{}
	doneList []string

	e entry // the line being handled
}

type fileRec struct {
	FileEdit
	seq int64
}

// pendingCall is a tool_use waiting for its tool_result.
type pendingCall struct {
	size   int // bytes held, roughly
	tool   string
	input  string // short form for Failure.Input
	inTail string // see TailChars
	time   time.Time
	path   string   // file tools
	cmd    *Command // Bash, PowerShell
	bg     bool     // run_in_background
	todos  []Task   // TodoWrite
	todoOK bool
	task   *Task // TaskCreate
	upd    *taskUpdate
	plan   *Plan // ExitPlanMode
}

type taskUpdate struct {
	id                          string
	status                      string
	subject                     string
	activeForm                  string
	subjectTail, activeFormTail string
}

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

// NewExtractor returns an Extractor that continues from seed, the facts of
// an earlier reading of the same session (nil: start empty). Seed's prompts,
// files, commands, todos, tasks, failures, plan, compaction count, cwd, git
// branch, last time and totals are carried forward (totals at least the
// lengths of its lists, for a seed that predates them); its usage and stats
// are not.
func NewExtractor(seed *Facts) *Extractor {
	x := &Extractor{
		format:  FormatClaude,
		files:   make(map[string]*fileRec),
		pending: make(map[string]*pendingCall),
		done:    make(map[string]struct{}),
	}
	if seed == nil {
		return x
	}
	for _, p := range seed.Prompts {
		x.prompts = append(x.prompts, p)
	}
	x.trimPrompts()
	if n := len(x.prompts); n > 0 {
		x.lastTyped = x.prompts[n-1].Text
		x.lastTypedTx = x.lastTyped
	}
	for i := len(seed.Files) - 1; i >= 0; i-- {
		f := seed.Files[i]
		x.fileSeq++
		if r, ok := x.files[fileKey(f.Path)]; ok {
			r.Edits += f.Edits
			r.LastTool, r.LastTime, r.seq = f.LastTool, f.LastTime, x.fileSeq
			continue
		}
		x.files[fileKey(f.Path)] = &fileRec{FileEdit: f, seq: x.fileSeq}
	}
	for _, c := range seed.Commands {
		x.commands = append(x.commands, new(c))
	}
	x.trimCommands()
	x.todos = slices.Clone(seed.Todos)
	x.tasks = slices.Clone(seed.Tasks)
	x.failures = slices.Clone(seed.Failures)
	if seed.Plan != nil {
		x.plan = new(*seed.Plan)
	}
	x.compactions = seed.Compactions
	x.totals = Totals{
		Prompts:  max(seed.Totals.Prompts, len(seed.Prompts)),
		Commands: max(seed.Totals.Commands, len(seed.Commands)),
		Failures: max(seed.Totals.Failures, len(seed.Failures)),
	}
	x.cwd, x.gitBranch, x.lastTime = seed.Cwd, seed.GitBranch, seed.LastTime
	return x
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

// Feed takes one line of the transcript, without its '\n' (a trailing '\r'
// is ignored). Blank lines are ignored; a line longer than MaxLineBytes is
// counted as skipped without being looked at; a line that is not JSON is
// counted as corrupt.
func (x *Extractor) Feed(line []byte) { x.feed(line, false) }

// FeedLast takes the final line of a transcript when it has no '\n': it is
// used like any line when it is complete JSON, and otherwise treated as torn
// (the writer was mid-line) and flagged in Stats.TornLastLine, not counted as
// corrupt.
func (x *Extractor) FeedLast(line []byte) { x.feed(line, true) }

// SkipLong counts a line over MaxLineBytes that the caller passed over
// without reading it.
func (x *Extractor) SkipLong() {
	x.st.Lines++
	x.st.SkippedLong++
}

// addStats adds the counts of an earlier pass whose facts seeded x, so
// that Stats cover every byte read (a seed's stats are otherwise not
// carried: a chain's earlier snapshot read other bytes in another run).
func (x *Extractor) addStats(s Stats) {
	x.st.BytesRead += s.BytesRead
	x.st.Lines += s.Lines
	x.st.Decoded += s.Decoded
	x.st.SkippedLong += s.SkippedLong
	x.st.Corrupt += s.Corrupt
}

func (x *Extractor) feed(line []byte, last bool) {
	if len(line) > MaxLineBytes {
		x.SkipLong()
		return
	}
	x.st.Lines++
	switch x.format {
	case FormatCodex:
		x.codexLine(line, last)
		return
	case FormatQwen:
		x.qwenLine(line, last)
		return
	case FormatCopilot:
		x.copilotLine(line, last)
		return
	}
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

func (x *Extractor) bad(last bool) {
	if last {
		x.st.TornLastLine = true
		return
	}
	x.st.Corrupt++
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
func (x *Extractor) note(line []byte) time.Time {
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
func (x *Extractor) boundary(line []byte) {
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

func (x *Extractor) lastPromptEntry(line []byte) {
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

// sameAsTyped compares ignoring whitespace: Claude Code 2.1.328 writes
// lastPrompt with every line break turned into a space, while the user entry
// keeps the prompt as typed.
func (x *Extractor) sameAsTyped(text string) bool {
	t := withoutSpace(text)
	return t == withoutSpace(x.lastTyped) || t == withoutSpace(x.lastTypedTx)
}

func withoutSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func (x *Extractor) assistant(line []byte, t time.Time) {
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

// cut unquotes at most n runes of a string value; more reports the rest.
func cut(line []byte, sp span, n int) (string, bool) {
	if !sp.isString(line) {
		return "", false
	}
	s, more, ok := unquotePrefix(sp.raw(line), n)
	if !ok {
		return "", false
	}
	return s, more
}

// cutTail is cut that also returns up to TailChars characters that follow
// the cut.
func cutTail(line []byte, sp span, n int) (string, bool, string) {
	s, more := cut(line, sp, n+TailChars)
	return splitTail(s, more, n)
}

// splitTail cuts s, read up to n+TailChars characters (more: there was
// more), at n characters, and returns what follows as the tail.
func splitTail(s string, more bool, n int) (string, bool, string) {
	kept, cut := textcut.Runes(s, n)
	if !cut {
		return s, more, ""
	}
	return kept, true, s[len(kept):]
}

// inputKeys are the tool input fields read, in one walk of the input;
// the first iShort..nInput double as the short form of a failed call, in
// this order of preference.
var inputKeys = []string{"run_in_background", "todos", "activeForm", "status", "plan",
	"command", "file_path", "notebook_path", "pattern", "url", "query", "skill",
	"description", "subject", "taskId", "path"}

const (
	iBackground = iota
	iTodos
	iActiveForm
	iStatus
	iPlan
	iCommand // first short-form field
	iFilePath
	iNotebookPath
	iPattern
	iURL
	iQuery
	iSkill
	iDescription
	iSubject
	iTaskID
	iPath
	nInput
	iShort = iCommand
)

func (x *Extractor) toolUse(line []byte, id, name string, input span, t time.Time) {
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

// startCall begins a tool call of any transcript format: nil, false for a
// call without an id, or one already answered or waiting (the same call
// written again before its result: the first stands). in holds the spans
// of the input's keys the readers use.
func (x *Extractor) startCall(line []byte, id, name string, input span, t time.Time) (pc *pendingCall, in [nInput]span, ok bool) {
	if id == "" {
		return nil, in, false
	}
	if _, seen := x.done[id]; seen {
		return nil, in, false
	}
	if _, waiting := x.pending[id]; waiting {
		return nil, in, false
	}
	input.fields(line, inputKeys, in[:])
	pc = &pendingCall{tool: name, time: t}
	pc.input, pc.inTail = shortInput(line, input, in[iShort:])
	return pc, in, true
}

// startCommand records a shell call's command, outcome unknown until its
// result comes.
func (x *Extractor) startCommand(line []byte, pc *pendingCall, tool string, in [nInput]span, t time.Time) {
	c, more, ctail := cutTail(line, in[iCommand], MaxCommandChars)
	d, dmore, dtail := cutTail(line, in[iDescription], MaxDescriptionChars)
	pc.cmd = &Command{Tool: tool, Command: textcut.Marked(c, more), Truncated: more,
		Description: textcut.Marked(d, dmore), Outcome: OutcomeUnknown, Time: t,
		commandTail: ctail, descriptionTail: dtail}
	x.addCommand(pc.cmd)
}

// waitFor queues a started call for its result, counting what it holds
// against MaxPendingBytes (TR-29).
func (x *Extractor) waitFor(id, name string, pc *pendingCall) {
	pc.size = 64 + len(id) + len(name) + len(pc.input) + len(pc.inTail) + len(pc.path)
	for _, td := range pc.todos {
		pc.size += 48 + len(td.Subject) + len(td.Status) + len(td.ActiveForm) + len(td.subjectTail) + len(td.activeFormTail)
	}
	if pc.plan != nil {
		pc.size += len(pc.plan.Text) + len(pc.plan.tail)
	}
	if pc.cmd != nil {
		pc.size += len(pc.cmd.Command) + len(pc.cmd.Description) + len(pc.cmd.commandTail) + len(pc.cmd.descriptionTail)
	}
	x.order = append(x.order, id)
	x.pending[id] = pc
	x.pendingBytes += pc.size
	x.prunePending()
}

// prunePending forgets the oldest calls beyond MaxPending and compacts the
// order queue, which also holds ids already answered.
func (x *Extractor) prunePending() {
	for (len(x.pending) > MaxPending || x.pendingBytes > MaxPendingBytes) && len(x.order) > 0 {
		id := x.order[0]
		x.order = x.order[1:]
		if pc, ok := x.pending[id]; ok {
			x.pendingBytes -= pc.size
			delete(x.pending, id)
		}
	}
	if len(x.order) > 2*MaxPending {
		kept := make([]string, 0, len(x.pending))
		for _, id := range x.order {
			if _, ok := x.pending[id]; ok {
				kept = append(kept, id)
			}
		}
		x.order = kept
	}
}

// idString reads an id that may be written as a string or a number.
func idString(line []byte, sp span) string {
	if s, ok := sp.str(line); ok {
		return s
	}
	if sp.ok() && (line[sp.s] == '-' || line[sp.s] >= '0' && line[sp.s] <= '9') {
		return string(sp.raw(line))
	}
	return ""
}

// shortInput renders a tool input for the failure list: its most telling
// field when it has one, else the start of its JSON; and its tail (see
// TailChars).
func shortInput(line []byte, input span, preferred []span) (string, string) {
	if !input.ok() {
		return "", ""
	}
	for _, sp := range preferred {
		if s, more, tail := cutTail(line, sp, MaxFailureInputChars); s != "" {
			return textcut.Marked(s, more), tail
		}
	}
	raw := input.raw(line)
	// Past the limit, the tail's bytes tell Bytes whether a character
	// straddles it, without copying a megabyte input.
	raw = raw[:min(len(raw), MaxFailureInputChars+TailChars*utf8.UTFMax)]
	kept, cut := textcut.Bytes(string(raw), MaxFailureInputChars)
	if !cut {
		return kept, ""
	}
	tail, _ := textcut.Runes(string(raw[len(kept):]), TailChars)
	return textcut.Marked(kept, cut), tail
}

func todoList(line []byte, sp span) ([]Task, bool) {
	if !sp.ok() || line[sp.s] != '[' {
		return nil, false
	}
	todos := []Task{}
	var f [3]span
	_, err := eachElem(line[:sp.e], sp.s, func(vs, ve int) bool {
		if len(todos) >= MaxTasks {
			return false
		}
		if (span{vs, ve}).fields(line, []string{"content", "status", "activeForm"}, f[:]) {
			c, more, ctail := cutTail(line, f[0], MaxTaskChars)
			st, _ := cut(line, f[1], MaxTaskChars)
			a, amore, atail := cutTail(line, f[2], MaxTaskChars)
			todos = append(todos, Task{Subject: textcut.Marked(c, more), Status: st, ActiveForm: textcut.Marked(a, amore),
				subjectTail: ctail, activeFormTail: atail})
		}
		return true
	})
	return todos, err == nil
}

func (x *Extractor) trimCommands() {
	if n := len(x.commands); n > MaxCommands {
		x.commands = slices.Delete(x.commands, 0, n-MaxCommands)
	}
}

func (x *Extractor) trimPrompts() {
	if n := len(x.prompts); n > MaxPrompts {
		x.prompts = slices.Delete(x.prompts, 0, n-MaxPrompts)
	}
}

func (x *Extractor) user(line []byte, t time.Time) {
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
func (x *Extractor) maybePrompt(line []byte, blocks []block, t time.Time) {
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

// keepPrompt records a typed prompt made of parts (texts: its text parts
// alone, each cut at MaxPromptChars), read up to MaxPromptChars+TailChars
// characters each (more: there was more): cut, deduplicated against a
// re-emitted copy and the last-prompt stand-in, counted (TR-17, TR-18).
func (x *Extractor) keepPrompt(parts, texts []string, more bool, t time.Time) {
	text, more, tail := splitTail(strings.Join(parts, "\n"), more, MaxPromptChars)
	tail, _ = textcut.Runes(tail, TailChars)
	p := Prompt{Text: textcut.Marked(text, more), Time: t, Truncated: more, tail: tail}
	if !t.IsZero() && slices.ContainsFunc(x.prompts, func(q Prompt) bool { return q.Text == p.Text && q.Time.Equal(t) }) {
		// The same prompt at the same time: written again, not typed again.
		return
	}
	if n := len(x.prompts); n > 0 && x.prompts[n-1].FromLastPrompt && withoutSpace(x.prompts[n-1].Text) == withoutSpace(p.Text) {
		x.prompts[n-1] = p
	} else {
		x.prompts = append(x.prompts, p)
		x.totals.Prompts++
		x.trimPrompts()
	}
	x.lastTyped, x.lastTypedTx = p.Text, strings.Join(texts, "\n")
	x.lpText, x.lpTrunc, x.lpTail = "", false, ""
}

var resultKeys = []string{"interrupted", "backgroundTaskId", "task", "taskId", "success"}

func (x *Extractor) toolResult(line []byte, id string, isError bool, content, tur span, t time.Time) {
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

// addFailure records a failed or rejected call (TR-24).
func (x *Extractor) addFailure(f Failure) {
	x.failures = append(x.failures, f)
	x.totals.Failures++
	if n := len(x.failures); n > MaxFailures {
		x.failures = slices.Delete(x.failures, 0, n-MaxFailures)
	}
}

// editFile records one successful edit of path (TR-19).
func (x *Extractor) editFile(path, tool string, t time.Time) {
	x.fileSeq++
	if f, found := x.files[fileKey(path)]; found {
		f.Edits++
		f.LastTool, f.LastTime, f.seq = tool, t, x.fileSeq
		return
	}
	x.files[fileKey(path)] = &fileRec{FileEdit: FileEdit{Path: path, Edits: 1, LastTool: tool, LastTime: t}, seq: x.fileSeq}
	x.pruneFiles()
}

// addCommand records a command call (TR-20); its outcome may be set later.
func (x *Extractor) addCommand(c *Command) {
	x.commands = append(x.commands, c)
	x.totals.Commands++
	x.trimCommands()
}

func (x *Extractor) updateTask(u taskUpdate) {
	i := slices.IndexFunc(x.tasks, func(t Task) bool { return t.ID == u.id })
	if u.status == "deleted" {
		if i >= 0 {
			x.tasks = slices.Delete(x.tasks, i, i+1)
		}
		return
	}
	if i < 0 {
		// Created in a part of the transcript that was not read.
		x.tasks = append(x.tasks, Task{ID: u.id})
		i = len(x.tasks) - 1
		if n := len(x.tasks); n > MaxTasks {
			x.tasks = slices.Delete(x.tasks, 0, n-MaxTasks)
			i -= n - MaxTasks
		}
	}
	t := &x.tasks[i]
	if u.status != "" {
		t.Status = u.status
	}
	if u.subject != "" {
		t.Subject, t.subjectTail = u.subject, u.subjectTail
	}
	if u.activeForm != "" {
		t.ActiveForm, t.activeFormTail = u.activeForm, u.activeFormTail
	}
}

// fileKey is the edited-file list's key for a path: its NFC form, so that
// one path written in two Unicode normal forms (macOS hands out NFD, people
// and editors type NFC) is one file; the spelling first seen is kept (RB-25).
func fileKey(path string) string { return norm.NFC.String(path) }

func byRecency(a, b *fileRec) int { return cmp.Compare(b.seq, a.seq) }

func (x *Extractor) pruneFiles() {
	if len(x.files) <= 2*MaxFiles {
		return
	}
	recs := make([]*fileRec, 0, len(x.files))
	for _, f := range x.files {
		recs = append(recs, f)
	}
	slices.SortFunc(recs, byRecency)
	for _, f := range recs[MaxFiles:] {
		delete(x.files, fileKey(f.Path))
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

// errorSummary is the first line of an error, with "Exit code N" joined to
// the line of the output that says what failed (TR-24, chooseErrorLine).
func errorSummary(text string) (string, string) {
	lines := nonEmptyLines(text, 2)
	if len(lines) == 0 {
		return "", ""
	}
	s := lines[0]
	if strings.HasPrefix(strings.TrimPrefix(s, "Error: "), "Exit code ") && len(lines) > 1 {
		if l := chooseErrorLine(outputLines(text), false); l != "" {
			s += ": " + l
		}
	}
	return clip(s, MaxErrorChars)
}

// clip cuts s at n runes with the marker, and returns the tail (see
// TailChars).
func clip(s string, n int) (string, string) {
	kept, cut := textcut.Runes(s, n)
	if !cut {
		return s, ""
	}
	tail, _ := textcut.Runes(s[len(kept):], TailChars)
	return textcut.Marked(kept, true), tail
}

// nonEmptyLines returns up to n non-empty lines of s, with tool_use_error
// tags and terminal escape sequences removed.
func nonEmptyLines(s string, n int) []string {
	var out []string
	for l := range strings.Lines(s) {
		l = stripANSI(l)
		l = strings.ReplaceAll(l, "<tool_use_error>", "")
		l = strings.ReplaceAll(l, "</tool_use_error>", "")
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		out = append(out, l)
		if len(out) == n {
			break
		}
	}
	return out
}

// stripANSI removes CSI escape sequences (colours) from terminal output.
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Facts returns what has been extracted so far, as a fresh value the caller
// may keep; the Extractor can go on being fed.
func (x *Extractor) Facts() *Facts {
	f := &Facts{
		Prompts:     slices.Clone(x.prompts),
		Files:       make([]FileEdit, 0, len(x.files)),
		Commands:    make([]Command, 0, len(x.commands)),
		Failures:    slices.Clone(x.failures),
		Todos:       slices.Clone(x.todos),
		Tasks:       slices.Clone(x.tasks),
		Compactions: x.compactions,
		Totals:      x.totals,
		Cwd:         x.cwd,
		GitBranch:   x.gitBranch,
		LastTime:    x.lastTime,
		Stats:       x.st,
	}
	if f.Prompts == nil {
		f.Prompts = []Prompt{}
	}
	if f.Failures == nil {
		f.Failures = []Failure{}
	}
	if x.lpText != "" && !slices.ContainsFunc(f.Prompts, func(p Prompt) bool {
		return withoutSpace(p.Text) == withoutSpace(x.lpText)
	}) {
		f.Prompts = append(f.Prompts, Prompt{Text: x.lpText, Truncated: x.lpTrunc, FromLastPrompt: true, tail: x.lpTail})
		f.Totals.Prompts++
		if n := len(f.Prompts); n > MaxPrompts {
			f.Prompts = slices.Delete(f.Prompts, 0, n-MaxPrompts)
		}
	}
	recs := make([]*fileRec, 0, len(x.files))
	for _, r := range x.files {
		recs = append(recs, r)
	}
	slices.SortFunc(recs, byRecency)
	for i, r := range recs {
		if i == MaxFiles {
			break
		}
		f.Files = append(f.Files, r.FileEdit)
	}
	for _, c := range x.commands {
		f.Commands = append(f.Commands, *c)
	}
	if x.plan != nil {
		f.Plan = new(*x.plan)
	}
	if x.usage != nil {
		f.Usage = new(*x.usage)
	}
	return f
}
