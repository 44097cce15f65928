package facts

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/transcript/jsonspan"
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

// Builder holds what every reader builds Facts from: the bounded lists,
// the pending tool calls and the counts. A reader's line handler feeds it;
// it keeps no line, so a line's buffer may be reused.
type Builder struct {
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

	pending      map[string]*Call
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

// Call is a tool call waiting for its result.
type Call struct {
	size      int // bytes held, roughly
	Tool      string
	Input     string // short form for Failure.Input
	InputTail string // see TailChars
	Time      time.Time
	Path      string   // file tools
	Cmd       *Command // shell calls
	// Background is set for a call run in the background.
	Background bool
	Todos      []Task // a todo list's new state
	TodosOK    bool
	Task       *Task // a task created
	Update     *TaskUpdate
	Plan       *Plan // a plan approved
}

// TaskUpdate is what a task update call changes; empty fields stay.
type TaskUpdate struct {
	ID                          string
	Status                      string
	Subject                     string
	ActiveForm                  string
	SubjectTail, ActiveFormTail string
}

// NewBuilder returns a Builder that continues from seed, the facts of an
// earlier reading of the same session (nil: start empty); see
// transcript.NewExtractor for what is carried forward.
func NewBuilder(seed *Facts) *Builder {
	x := &Builder{
		files:   make(map[string]*fileRec),
		pending: make(map[string]*Call),
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

// AddStats adds the counts of an earlier pass whose facts seeded x, so
// that Stats cover every byte read (a seed's stats are otherwise not
// carried: a chain's earlier snapshot read other bytes in another run).
func (x *Builder) AddStats(s Stats) {
	x.st.BytesRead += s.BytesRead
	x.st.Lines += s.Lines
	x.st.Decoded += s.Decoded
	x.st.SkippedLong += s.SkippedLong
	x.st.Corrupt += s.Corrupt
}

// Bad counts a line that is not JSON; a final line without '\n' (last)
// is torn instead.
func (x *Builder) Bad(last bool) {
	if last {
		x.st.TornLastLine = true
		return
	}
	x.st.Corrupt++
}

// sameAsTyped compares ignoring whitespace: Claude Code 2.1.328 writes
// lastPrompt with every line break turned into a space, while the user entry
// keeps the prompt as typed.
func (x *Builder) sameAsTyped(text string) bool {
	t := WithoutSpace(text)
	return t == WithoutSpace(x.lastTyped) || t == WithoutSpace(x.lastTypedTx)
}

// inputKeys are the tool input fields read, in one walk of the input;
// the first iShort..nInput double as the short form of a failed call, in
// this order of preference.
var inputKeys = []string{"run_in_background", "todos", "activeForm", "status", "plan",
	"command", "file_path", "notebook_path", "pattern", "url", "query", "skill",
	"description", "subject", "taskId", "path"}

const (
	InBackground = iota
	InTodos
	InActiveForm
	InStatus
	InPlan
	InCommand // first short-form field
	InFilePath
	InNotebookPath
	InPattern
	InURL
	InQuery
	InSkill
	InDescription
	InSubject
	InTaskID
	InPath
	NInput
	iShort = InCommand
)

// StartCall begins a tool call of any transcript format: nil, false for a
// call without an id, or one already answered or waiting (the same call
// written again before its result: the first stands). in holds the spans
// of the input's keys the readers use.
func (x *Builder) StartCall(line []byte, id, name string, input jsonspan.Span, t time.Time) (pc *Call, in [NInput]jsonspan.Span, ok bool) {
	if id == "" {
		return nil, in, false
	}
	if _, seen := x.done[id]; seen {
		return nil, in, false
	}
	if _, waiting := x.pending[id]; waiting {
		return nil, in, false
	}
	input.Fields(line, inputKeys, in[:])
	pc = &Call{Tool: name, Time: t}
	pc.Input, pc.InputTail = ShortInput(line, input, in[iShort:])
	return pc, in, true
}

// StartCommand records a shell call's command, outcome unknown until its
// result comes.
func (x *Builder) StartCommand(line []byte, pc *Call, tool string, in [NInput]jsonspan.Span, t time.Time) {
	c, more, ctail := CutTail(line, in[InCommand], MaxCommandChars)
	d, dmore, dtail := CutTail(line, in[InDescription], MaxDescriptionChars)
	pc.Cmd = &Command{Tool: tool, Command: textcut.Marked(c, more), Truncated: more,
		Description: textcut.Marked(d, dmore), Outcome: OutcomeUnknown, Time: t,
		commandTail: ctail, descriptionTail: dtail}
	x.AddCommand(pc.Cmd)
}

// WaitFor queues a started call for its result, counting what it holds
// against MaxPendingBytes (TR-29).
func (x *Builder) WaitFor(id, name string, pc *Call) {
	pc.size = 64 + len(id) + len(name) + len(pc.Input) + len(pc.InputTail) + len(pc.Path)
	for _, td := range pc.Todos {
		pc.size += 48 + len(td.Subject) + len(td.Status) + len(td.ActiveForm) + len(td.subjectTail) + len(td.activeFormTail)
	}
	if pc.Plan != nil {
		pc.size += len(pc.Plan.Text) + len(pc.Plan.tail)
	}
	if pc.Cmd != nil {
		pc.size += len(pc.Cmd.Command) + len(pc.Cmd.Description) + len(pc.Cmd.commandTail) + len(pc.Cmd.descriptionTail)
	}
	x.order = append(x.order, id)
	x.pending[id] = pc
	x.pendingBytes += pc.size
	x.prunePending()
}

// prunePending forgets the oldest calls beyond MaxPending and compacts the
// order queue, which also holds ids already answered.
func (x *Builder) prunePending() {
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

func (x *Builder) trimCommands() {
	if n := len(x.commands); n > MaxCommands {
		x.commands = slices.Delete(x.commands, 0, n-MaxCommands)
	}
}

func (x *Builder) trimPrompts() {
	if n := len(x.prompts); n > MaxPrompts {
		x.prompts = slices.Delete(x.prompts, 0, n-MaxPrompts)
	}
}

// KeepPrompt records a typed prompt made of parts (texts: its text parts
// alone, each cut at MaxPromptChars), read up to MaxPromptChars+TailChars
// characters each (more: there was more): cut, deduplicated against a
// re-emitted copy and the last-prompt stand-in, counted (TR-17, TR-18).
func (x *Builder) KeepPrompt(parts, texts []string, more bool, t time.Time) {
	text, more, tail := SplitTail(strings.Join(parts, "\n"), more, MaxPromptChars)
	tail, _ = textcut.Runes(tail, TailChars)
	p := Prompt{Text: textcut.Marked(text, more), Time: t, Truncated: more, tail: tail}
	if !t.IsZero() && slices.ContainsFunc(x.prompts, func(q Prompt) bool { return q.Text == p.Text && q.Time.Equal(t) }) {
		// The same prompt at the same time: written again, not typed again.
		return
	}
	if n := len(x.prompts); n > 0 && x.prompts[n-1].FromLastPrompt && WithoutSpace(x.prompts[n-1].Text) == WithoutSpace(p.Text) {
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
func (x *Builder) addFailure(f Failure) {
	x.failures = append(x.failures, f)
	x.totals.Failures++
	if n := len(x.failures); n > MaxFailures {
		x.failures = slices.Delete(x.failures, 0, n-MaxFailures)
	}
}

// EditFile records one successful edit of path (TR-19).
func (x *Builder) EditFile(path, tool string, t time.Time) {
	x.fileSeq++
	if f, found := x.files[fileKey(path)]; found {
		f.Edits++
		f.LastTool, f.LastTime, f.seq = tool, t, x.fileSeq
		return
	}
	x.files[fileKey(path)] = &fileRec{FileEdit: FileEdit{Path: path, Edits: 1, LastTool: tool, LastTime: t}, seq: x.fileSeq}
	x.pruneFiles()
}

// AddCommand records a command call (TR-20); its outcome may be set later.
func (x *Builder) AddCommand(c *Command) {
	x.commands = append(x.commands, c)
	x.totals.Commands++
	x.trimCommands()
}

func (x *Builder) UpdateTask(u TaskUpdate) {
	i := slices.IndexFunc(x.tasks, func(t Task) bool { return t.ID == u.ID })
	if u.Status == "deleted" {
		if i >= 0 {
			x.tasks = slices.Delete(x.tasks, i, i+1)
		}
		return
	}
	if i < 0 {
		// Created in a part of the transcript that was not read.
		x.tasks = append(x.tasks, Task{ID: u.ID})
		i = len(x.tasks) - 1
		if n := len(x.tasks); n > MaxTasks {
			x.tasks = slices.Delete(x.tasks, 0, n-MaxTasks)
			i -= n - MaxTasks
		}
	}
	t := &x.tasks[i]
	if u.Status != "" {
		t.Status = u.Status
	}
	if u.Subject != "" {
		t.Subject, t.subjectTail = u.Subject, u.SubjectTail
	}
	if u.ActiveForm != "" {
		t.ActiveForm, t.activeFormTail = u.ActiveForm, u.ActiveFormTail
	}
}

// fileKey is the edited-file list's key for a path: its NFC form, so that
// one path written in two Unicode normal forms (macOS hands out NFD, people
// and editors type NFC) is one file; the spelling first seen is kept (RB-25).
func fileKey(path string) string { return norm.NFC.String(path) }

func byRecency(a, b *fileRec) int { return cmp.Compare(b.seq, a.seq) }

func (x *Builder) pruneFiles() {
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

// Facts returns what has been built so far, as a fresh value the caller
// may keep; the Builder can go on being fed.
func (x *Builder) Facts() *Facts {
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
		return WithoutSpace(p.Text) == WithoutSpace(x.lpText)
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

// NoteTime parses a line's timestamp and keeps the latest (TR-28).
func (x *Builder) NoteTime(line []byte, sp jsonspan.Span) time.Time {
	t, ok := sp.Time(line)
	if !ok {
		return time.Time{}
	}
	if t.After(x.lastTime) {
		x.lastTime = t
	}
	return t
}

// NoteCwd keeps a non-empty working directory.
func (x *Builder) NoteCwd(line []byte, sp jsonspan.Span) {
	if s, ok := sp.Str(line); ok && s != "" {
		x.cwd = s
	}
}

// Settle takes an answered call off the pending list and remembers its id
// (TR-29).
func (x *Builder) Settle(id string, pc *Call) {
	delete(x.pending, id)
	x.pendingBytes -= pc.size
	x.done[id] = struct{}{}
	x.doneList = append(x.doneList, id)
	if len(x.doneList) > MaxPending {
		delete(x.done, x.doneList[0])
		x.doneList = x.doneList[1:]
	}
}
