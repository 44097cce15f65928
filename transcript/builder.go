package transcript

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/textcut"
	"golang.org/x/text/unicode/norm"
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

// builder holds what every reader builds Facts from: the bounded lists,
// the pending tool calls and the counts. A reader's line handler feeds it;
// it keeps no line, so a line's buffer may be reused.
type builder struct {
	st Stats

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
	cwd         string
	gitBranch   string
	lastTime    time.Time

	pending      map[string]*pendingCall
	pendingBytes int      // sum of pendingCall.size
	order        []string // pending ids, oldest first (may hold answered ids)
	// done holds the ids of the last MaxPending answered calls, so that a
	// call written twice (a preserved segment re-emitted after a
	// compaction) counts once.
	done     map[string]struct{}
	doneList []string
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

// newBuilder returns a builder that continues from seed (see NewExtractor).
func newBuilder(seed *Facts) *builder {
	x := &builder{
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

// addStats adds the counts of an earlier pass whose facts seeded x, so
// that Stats cover every byte read (a seed's stats are otherwise not
// carried: a chain's earlier snapshot read other bytes in another run).
func (x *builder) addStats(s Stats) {
	x.st.BytesRead += s.BytesRead
	x.st.Lines += s.Lines
	x.st.Decoded += s.Decoded
	x.st.SkippedLong += s.SkippedLong
	x.st.Corrupt += s.Corrupt
}

func (x *builder) bad(last bool) {
	if last {
		x.st.TornLastLine = true
		return
	}
	x.st.Corrupt++
}

// sameAsTyped compares ignoring whitespace: Claude Code 2.1.328 writes
// lastPrompt with every line break turned into a space, while the user entry
// keeps the prompt as typed.
func (x *builder) sameAsTyped(text string) bool {
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

// startCall begins a tool call of any transcript format: nil, false for a
// call without an id, or one already answered or waiting (the same call
// written again before its result: the first stands). in holds the spans
// of the input's keys the readers use.
func (x *builder) startCall(line []byte, id, name string, input span, t time.Time) (pc *pendingCall, in [nInput]span, ok bool) {
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
func (x *builder) startCommand(line []byte, pc *pendingCall, tool string, in [nInput]span, t time.Time) {
	c, more, ctail := cutTail(line, in[iCommand], MaxCommandChars)
	d, dmore, dtail := cutTail(line, in[iDescription], MaxDescriptionChars)
	pc.cmd = &Command{Tool: tool, Command: textcut.Marked(c, more), Truncated: more,
		Description: textcut.Marked(d, dmore), Outcome: OutcomeUnknown, Time: t,
		commandTail: ctail, descriptionTail: dtail}
	x.addCommand(pc.cmd)
}

// waitFor queues a started call for its result, counting what it holds
// against MaxPendingBytes (TR-29).
func (x *builder) waitFor(id, name string, pc *pendingCall) {
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
func (x *builder) prunePending() {
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

func (x *builder) trimCommands() {
	if n := len(x.commands); n > MaxCommands {
		x.commands = slices.Delete(x.commands, 0, n-MaxCommands)
	}
}

func (x *builder) trimPrompts() {
	if n := len(x.prompts); n > MaxPrompts {
		x.prompts = slices.Delete(x.prompts, 0, n-MaxPrompts)
	}
}

// keepPrompt records a typed prompt made of parts (texts: its text parts
// alone, each cut at MaxPromptChars), read up to MaxPromptChars+TailChars
// characters each (more: there was more): cut, deduplicated against a
// re-emitted copy and the last-prompt stand-in, counted (TR-17, TR-18).
func (x *builder) keepPrompt(parts, texts []string, more bool, t time.Time) {
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

// addFailure records a failed or rejected call (TR-24).
func (x *builder) addFailure(f Failure) {
	x.failures = append(x.failures, f)
	x.totals.Failures++
	if n := len(x.failures); n > MaxFailures {
		x.failures = slices.Delete(x.failures, 0, n-MaxFailures)
	}
}

// editFile records one successful edit of path (TR-19).
func (x *builder) editFile(path, tool string, t time.Time) {
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
func (x *builder) addCommand(c *Command) {
	x.commands = append(x.commands, c)
	x.totals.Commands++
	x.trimCommands()
}

func (x *builder) updateTask(u taskUpdate) {
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

func (x *builder) pruneFiles() {
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

// facts returns what has been built so far, as a fresh value the caller
// may keep; the builder can go on being fed.
func (x *builder) facts() *Facts {
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

// noteTime parses a line's timestamp and keeps the latest (TR-28).
func (x *builder) noteTime(line []byte, sp span) time.Time {
	s, ok := sp.str(line)
	if !ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	if t.After(x.lastTime) {
		x.lastTime = t
	}
	return t
}

// noteCwd keeps a non-empty working directory.
func (x *builder) noteCwd(line []byte, sp span) {
	if s, ok := sp.str(line); ok && s != "" {
		x.cwd = s
	}
}

// outputErrorLine is the line of a string value (a command's output, stdout
// and stderr mixed) that says what failed (chooseErrorLine, TR-42), else
// its last non-empty line (the error is usually at the end), with terminal
// colours removed, cut at MaxErrorChars; only its last 16 KiB are decoded.
func outputErrorLine(line []byte, sp span) (string, string) {
	if !sp.isString(line) {
		return "", ""
	}
	inner := line[sp.s+1 : sp.e-1]
	const window = 16 << 10
	from := max(0, len(inner)-window)
	// Start decoding after a line break escape, so that no escape is cut.
	seg := inner[from:]
	if from > 0 {
		i := nextNewlineEscape(seg)
		if i < 0 {
			return "", ""
		}
		seg = seg[i+2:]
	}
	s, ok := unquote(append(append([]byte{'"'}, seg...), '"'))
	if !ok {
		return "", ""
	}
	if l := chooseErrorLine(outputLines(s), true); l != "" {
		return clip(l, MaxErrorChars)
	}
	return "", ""
}

// nextNewlineEscape returns the index of the first `\n` escape in the
// inside of a JSON string (a backslash that is not itself escaped, then n).
func nextNewlineEscape(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		// Count the run of backslashes: an even run escapes itself.
		j := i
		for j < len(b) && b[j] == '\\' {
			j++
		}
		if (j-i)%2 == 1 && j < len(b) && b[j] == 'n' {
			return j - 1
		}
		i = j - 1
	}
	return -1
}

// resultTextOf returns the first 4,000 characters of a string value, or of
// the message of an {"message": …} object.
func resultTextOf(line []byte, sp span) string {
	if sp.ok() && line[sp.s] == '{' {
		var m [1]span
		if sp.fields(line, []string{"message"}, m[:]) {
			sp = m[0]
		}
	}
	s, _ := cut(line, sp, 4000)
	return s
}

// settle takes an answered call off the pending list and remembers its id
// (TR-29).
func (x *builder) settle(id string, pc *pendingCall) {
	delete(x.pending, id)
	x.pendingBytes -= pc.size
	x.done[id] = struct{}{}
	x.doneList = append(x.doneList, id)
	if len(x.doneList) > MaxPending {
		delete(x.done, x.doneList[0])
		x.doneList = x.doneList[1:]
	}
}
