package facts

import (
	"slices"
	"time"
)

// A LineHandler turns one format's lines, fed in file order, into facts
// built in a Builder: each reader under transcript/ returns one.
type LineHandler interface {
	// Line handles one line, without its '\n' and at most MaxLineBytes
	// long (a trailing '\r' is the handler's to ignore); last is set for
	// a final line without '\n', torn when it is not complete JSON.
	Line(line []byte, last bool)
}

// LineRule is what a backward scan looks for: a needle that every
// candidate line holds (the byte before it must be '"'), and the
// whole-line test, which returns the line's id ("" for none) and time.
type LineRule struct {
	Needle []byte
	Match  func(line []byte) (id string, t time.Time, ok bool)
}

// CountLine counts a line read.
func (x *Builder) CountLine() { x.st.Lines++ }

// SkipLong counts a line over MaxLineBytes passed over unread.
func (x *Builder) SkipLong() {
	x.st.Lines++
	x.st.SkippedLong++
}

// AddBytes counts n bytes read.
func (x *Builder) AddBytes(n int64) { x.st.BytesRead += n }

// Decoded counts a line decoded as a record of its format.
func (x *Builder) Decoded() { x.st.Decoded++ }

// Compaction counts one compaction.
func (x *Builder) Compaction() { x.compactions++ }

// Usage is the newest context fill, nil for none.
func (x *Builder) Usage() *Usage { return x.usage }

// SetUsage replaces the context fill (nil: unknown since a compaction).
func (x *Builder) SetUsage(u *Usage) { x.usage = u }

// NoteBranch keeps a non-empty git branch.
func (x *Builder) NoteBranch(s string) {
	if s != "" {
		x.gitBranch = s
	}
}

// SetTodos replaces the todo list.
func (x *Builder) SetTodos(t []Task) { x.todos = t }

// SetPlan replaces the approved plan.
func (x *Builder) SetPlan(p *Plan) { x.plan = p }

// AddTask records a created task, the newest MaxTasks kept.
func (x *Builder) AddTask(t Task) {
	x.tasks = append(x.tasks, t)
	if n := len(x.tasks); n > MaxTasks {
		x.tasks = slices.Delete(x.tasks, 0, n-MaxTasks)
	}
}

// Pending is the call id waits for its result, if it does.
func (x *Builder) Pending(id string) (*Call, bool) {
	pc, ok := x.pending[id]
	return pc, ok
}

// Fail records a failed or rejected call (TR-24) with the tails of its
// input and error (see TailChars).
func (x *Builder) Fail(f Failure, inputTail, errorTail string) {
	f.inputTail, f.errorTail = inputTail, errorTail
	x.addFailure(f)
}

// LastPrompt records the text of a last-prompt entry (cut: more, with its
// tail), unless it is the newest typed prompt (TR-18).
func (x *Builder) LastPrompt(text string, more bool, tail string) {
	if x.sameAsTyped(text) {
		x.lpText, x.lpTrunc, x.lpTail = "", false, ""
		return
	}
	x.lpText, x.lpTrunc, x.lpTail = text, more, tail
}

// Held is what the builder holds of pending calls and edited files: the
// calls waiting, the length of their queue, the bytes they hold, the
// files; tests check it stays bounded (TR-29).
func (x *Builder) Held() (pending, queued, bytes, files int) {
	return len(x.pending), len(x.order), x.pendingBytes, len(x.files)
}

// SetCommandTail keeps the tail of a command cut at its limit (see
// TailChars).
func SetCommandTail(c *Command, tail string) { c.commandTail = tail }

// SetErrorLine sets a command's error line and its tail.
func SetErrorLine(c *Command, line, tail string) { c.ErrorLine, c.errorTail = line, tail }

// TaskWithTails is t with the tails of its subject and active form.
func TaskWithTails(t Task, subjectTail, activeFormTail string) Task {
	t.subjectTail, t.activeFormTail = subjectTail, activeFormTail
	return t
}

// PlanWithTail is p with the tail of its text.
func PlanWithTail(p Plan, tail string) Plan {
	p.tail = tail
	return p
}
