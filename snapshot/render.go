package snapshot

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/transcript"
)

// SessionLinePrefix starts the header line that names the session. It is
// never translated so that tools and people can find it; the first line of a
// snapshot's Markdown that starts with it is the header's (SF-21).
const SessionLinePrefix = "Session: "

// RenderMarkdown renders a record as the snapshot's Markdown, headings in
// lang. Text that came from the transcript, the payload or git is placed only
// inside fenced blocks or inline code spans, with control characters shown
// escaped, so that it can never add a heading, a Session line or any other
// structure to the document (SF-20 to SF-24).
func RenderMarkdown(r *Record, lang Lang) []byte {
	w := &mdWriter{p: newPrinter(lang)}
	w.header(r)
	w.prompts(r.Prompts)
	w.files(r.Files)
	w.commands(r.Commands)
	w.tasks(r.Todos, r.Tasks)
	w.failures(r.Failures)
	w.plan(r.Plan)
	w.git(r.Git, r.GitBranch)
	w.notes(r)
	return w.b.Bytes()
}

type mdWriter struct {
	b bytes.Buffer
	p *message.Printer
}

// t translates a catalog key (messages.go); keys are English format strings.
func (w *mdWriter) t(key string, args ...any) string { return w.p.Sprintf(key, args...) }

func (w *mdWriter) line(parts ...string) {
	for _, s := range parts {
		w.b.WriteString(s)
	}
	w.b.WriteByte('\n')
}

func (w *mdWriter) blank() { w.b.WriteByte('\n') }

// heading writes a heading made only of catalog text and values the renderer
// formatted itself (numbers, times), never of untrusted text.
func (w *mdWriter) heading(level int, text string) {
	w.line(strings.Repeat("#", level), " ", text)
	w.blank()
}

// item writes a list item; text must already be safe (see code).
func (w *mdWriter) item(indent int, text string) {
	w.line(strings.Repeat("  ", indent), "- ", text)
}

// code renders untrusted single-line text as an inline code span; empty text
// is shown as a translated "(empty)".
func (w *mdWriter) code(s string) string {
	if s == "" {
		return w.t("(empty)")
	}
	return inlineCode(s)
}

// orUnknown renders an optional untrusted value: unknown when empty or
// Unknown, else as code.
func (w *mdWriter) orUnknown(s string) string {
	if s == "" || s == Unknown {
		return w.t("unknown")
	}
	return inlineCode(s)
}

// block writes untrusted multi-line text as a fenced block at column 0.
func (w *mdWriter) block(info, text string) {
	body := escapeBlock(text)
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	w.line(fence, info)
	if body != "" {
		w.b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			w.b.WriteByte('\n')
		}
	}
	w.line(fence)
	w.blank()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// at renders " · <time>" or nothing.
func at(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " · " + stamp(t)
}

// safeSessionID reports whether a session id can stand bare on the Session
// line: 1 to 256 of [A-Za-z0-9._:@+-]. A loop, not a regexp: x{1,256}
// compiles to 256 copies and cost every process 1 ms at start.
func safeSessionID(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:@+-", c) >= 0) {
			return false
		}
	}
	return true
}

func (w *mdWriter) header(r *Record) {
	w.heading(1, w.t("compact-guard snapshot"))

	switch {
	case r.SessionID == "":
		w.line(SessionLinePrefix, Unknown)
	case safeSessionID(r.SessionID):
		w.line(SessionLinePrefix, r.SessionID)
	default:
		w.line(SessionLinePrefix, inlineCode(r.SessionID))
	}
	w.blank()

	w.item(0, w.t("Trigger: %s", w.trigger(r.Trigger)))
	if r.CreatedAt.IsZero() {
		w.item(0, w.t("Time: %s", w.t("unknown")))
	} else {
		w.item(0, w.t("Time: %s", stamp(r.CreatedAt)))
	}
	cwd := w.orUnknown(r.Cwd)
	switch source := r.CwdSource; {
	case r.Cwd == "" || r.Cwd == Unknown:
	case source == "transcript":
		cwd = w.t("%s (from the transcript)", cwd)
	case source == "payload":
		cwd = w.t("%s (from the hook payload)", cwd)
	case source == "process":
		cwd = w.t("%s (the hook's own working directory)", cwd)
	}
	w.item(0, w.t("Working directory: %s", cwd))
	w.item(0, w.t("Context: %s", w.context(r.Context)))
	w.item(0, w.t("Earlier compactions in this session: %d", r.EarlierCompactions))
	switch {
	case r.CustomInstructions == nil && r.PayloadError != "":
		w.item(0, w.t("Custom instructions: %s", w.t("unknown")))
	case r.CustomInstructions == nil || *r.CustomInstructions == "":
		w.item(0, w.t("Custom instructions: %s", w.t("none")))
	default:
		w.item(0, w.t("Custom instructions: %s", w.t("below")))
	}
	if r.PayloadError != "" {
		w.item(0, w.t("Hook payload could not be parsed: %s; what it would have given is shown as unknown", w.code(r.PayloadError)))
	}
	w.blank()
	if r.CustomInstructions != nil && *r.CustomInstructions != "" {
		w.block("text", *r.CustomInstructions)
	}
}

func (w *mdWriter) trigger(s string) string {
	switch s {
	case "manual":
		return w.t("manual")
	case "auto":
		return w.t("auto")
	case "", Unknown:
		return w.t("unknown")
	}
	return inlineCode(s)
}

func (w *mdWriter) context(u *transcript.Usage) string {
	if u == nil {
		return w.t("unknown")
	}
	s := w.t("%d tokens", u.Tokens)
	if u.FromBoundary {
		s = w.t("%s (from the last compaction boundary)", s)
	} else {
		s = w.t("%s (input %d, cache creation %d, cache read %d)", s, u.InputTokens, u.CacheCreation, u.CacheRead)
	}
	if u.Model != "" {
		s = w.t("%s, model %s", s, inlineCode(u.Model))
	}
	return s
}

func (w *mdWriter) none() {
	w.line(w.t("None recorded."))
	w.blank()
}

func (w *mdWriter) prompts(ps []transcript.Prompt) {
	w.heading(2, w.t("Prompts (newest last)"))
	if len(ps) == 0 {
		w.none()
		return
	}
	for i, p := range ps {
		w.heading(3, w.t("Prompt %d of %d", i+1, len(ps))+at(p.Time))
		w.block("text", p.Text)
		if p.Truncated {
			w.line(w.t("Cut at %d characters.", transcript.MaxPromptChars))
			w.blank()
		}
		if p.FromLastPrompt {
			w.line(w.t("Taken from the transcript's last-prompt entry: the prompt itself was not written yet."))
			w.blank()
		}
	}
}

func (w *mdWriter) files(fs []transcript.FileEdit) {
	w.heading(2, w.t("Files edited (most recent first)"))
	if len(fs) == 0 {
		w.none()
		return
	}
	for _, f := range fs {
		s := w.t("%s — %d edits, last %s", w.code(f.Path), f.Edits, w.code(f.LastTool))
		if !f.LastTime.IsZero() {
			s = w.t("%s at %s", s, stamp(f.LastTime))
		}
		w.item(0, s)
	}
	w.blank()
}

// outcome renders a command's outcome; anything but ok and background is
// marked with ✗ so that failed commands stand out.
func (w *mdWriter) outcome(c transcript.Command) string {
	switch c.Outcome {
	case transcript.OutcomeOK:
		return "✓ " + w.t("ok")
	case transcript.OutcomeError:
		if c.ExitCode != nil {
			return "✗ " + w.t("FAILED, exit code %d", *c.ExitCode)
		}
		return "✗ " + w.t("FAILED")
	case transcript.OutcomeRejected:
		return "✗ " + w.t("REJECTED by the user")
	case transcript.OutcomeInterrupted:
		return "✗ " + w.t("INTERRUPTED")
	case transcript.OutcomeBackground:
		return w.t("started in the background")
	}
	return w.t("outcome unknown")
}

func (w *mdWriter) commands(cs []transcript.Command) {
	w.heading(2, w.t("Commands (newest last)"))
	if len(cs) == 0 {
		w.none()
		return
	}
	for i, c := range cs {
		w.heading(3, w.t("Command %d of %d", i+1, len(cs))+" · "+w.outcome(c)+at(c.Time))
		w.item(0, w.t("Tool: %s", w.code(c.Tool)))
		if c.Description != "" {
			w.item(0, w.t("Description: %s", w.code(c.Description)))
		}
		if c.ErrorLine != "" {
			w.item(0, w.t("Error: %s", w.code(c.ErrorLine)))
		}
		if c.Truncated {
			w.item(0, w.t("Cut at %d characters.", transcript.MaxCommandChars))
		}
		w.blank()
		info := "sh"
		if strings.EqualFold(c.Tool, "PowerShell") {
			info = "powershell"
		}
		w.block(info, c.Command)
	}
}

func (w *mdWriter) status(s string) string {
	switch s {
	case "pending":
		return "[ ] " + w.t("pending")
	case "in_progress":
		return "[~] " + w.t("in progress")
	case "completed":
		return "[x] " + w.t("completed")
	case "deleted":
		return "[-] " + w.t("deleted")
	}
	return "[?] " + w.code(s)
}

func (w *mdWriter) taskList(ts []transcript.Task) {
	if len(ts) == 0 {
		w.none()
		return
	}
	for _, t := range ts {
		s := w.status(t.Status) + " " + w.code(t.Subject)
		if t.ID != "" {
			s += " " + w.t("(id %s)", inlineCode(t.ID))
		}
		if t.ActiveForm != "" && t.Status == "in_progress" {
			s += " — " + w.code(t.ActiveForm)
		}
		w.item(0, s)
	}
	w.blank()
}

func (w *mdWriter) tasks(todos, tasks []transcript.Task) {
	w.heading(2, w.t("Tasks"))
	w.heading(3, w.t("Todo list (TodoWrite)"))
	w.taskList(todos)
	w.heading(3, w.t("Tasks (TaskCreate, TaskUpdate)"))
	w.taskList(tasks)
}

func (w *mdWriter) failures(fs []transcript.Failure) {
	w.heading(2, w.t("Failures and rejections (newest last)"))
	if len(fs) == 0 {
		w.none()
		return
	}
	for _, f := range fs {
		what := w.t("failed")
		if f.Rejected {
			what = w.t("rejected by the user")
		}
		s := "✗ " + w.code(f.Tool) + " " + what
		if !f.Time.IsZero() {
			s += " · " + stamp(f.Time)
		}
		w.item(0, s)
		if f.Input != "" {
			w.item(1, w.t("Input: %s", w.code(f.Input)))
		}
		if f.Error != "" {
			w.item(1, w.t("Error: %s", w.code(f.Error)))
		}
	}
	w.blank()
}

func (w *mdWriter) plan(p *transcript.Plan) {
	w.heading(2, w.t("Plan (last approved)"))
	if p == nil {
		w.none()
		return
	}
	if !p.Time.IsZero() {
		w.line(w.t("Approved at %s.", stamp(p.Time)))
		w.blank()
	}
	w.block("markdown", p.Text)
	if p.Truncated {
		w.line(w.t("Cut at %d characters.", transcript.MaxPlanChars))
		w.blank()
	}
}

func (w *mdWriter) git(g *Git, transcriptBranch string) {
	w.heading(2, w.t("Git"))
	switch {
	case g == nil:
		w.item(0, w.t("Not recorded."))
	case !g.Repo:
		w.item(0, w.t("Not a git repository."))
	default:
		if g.Root != "" {
			w.item(0, w.t("Repository: %s", w.code(g.Root)))
		}
		switch {
		case g.Detached:
			w.item(0, w.t("Branch: %s", w.t("detached HEAD")))
		case g.Branch != "":
			w.item(0, w.t("Branch: %s", w.code(g.Branch)))
		default:
			w.item(0, w.t("Branch: %s", w.t("unknown")))
		}
		head := w.orUnknown(g.Head)
		if g.Subject != "" {
			head += " " + w.code(g.Subject)
		}
		w.item(0, w.t("HEAD: %s", head))
		if g.ChangeCount < 0 {
			w.item(0, w.t("Uncommitted changes: %s", w.t("unknown")))
		} else {
			w.item(0, w.t("Uncommitted changes: %d", g.ChangeCount))
		}
		for _, c := range g.Changes {
			s := w.code(c.Code) + " " + w.code(c.Path)
			if c.From != "" {
				s = w.code(c.Code) + " " + w.code(c.From) + " → " + w.code(c.Path)
			}
			w.item(1, s)
		}
		if more := g.ChangeCount - len(g.Changes); g.ChangeCount >= 0 && more > 0 {
			w.item(1, w.t("and %d more", more))
		}
		if g.Source != "" {
			w.item(0, w.t("Read with: %s", w.code(g.Source)))
		}
	}
	if g != nil && g.Error != "" {
		w.item(0, w.t("Error: %s", w.code(g.Error)))
	}
	if transcriptBranch != "" {
		w.item(0, w.t("Branch the transcript recorded: %s", w.code(transcriptBranch)))
	}
	w.blank()
}

func (w *mdWriter) notes(r *Record) {
	w.heading(2, w.t("Notes"))
	w.item(0, w.t("Transcript: %s", w.orUnknown(r.TranscriptPath)))
	c := r.Coverage
	w.item(0, w.t("Read from byte %d to byte %d.", c.ReadFrom, c.TranscriptSize))
	if c.SegmentStart >= 0 {
		w.item(0, w.t("The last compaction boundary starts at byte %d.", c.SegmentStart))
	} else {
		w.item(0, w.t("The transcript holds no compaction boundary."))
	}
	if c.Previous != "" {
		w.item(0, w.t("The part before byte %d is covered by the previous snapshot %s.", c.ReadFrom, w.code(c.Previous)))
	}
	if c.Partial {
		w.item(0, w.t("Coverage is partial: part of the transcript before byte %d was neither read nor covered by a previous snapshot.", c.ReadFrom))
	}
	if c.Incomplete {
		w.item(0, w.t("The transcript was not read to its end: no later snapshot continues from this one."))
	}
	st := r.Stats
	w.item(0, w.t("Lines: %d read, %d decoded.", st.Lines, st.Decoded))
	if st.SkippedLong > 0 {
		w.item(0, w.t("Lines skipped as too long: %d.", st.SkippedLong))
	}
	if st.Corrupt > 0 {
		w.item(0, w.t("Corrupt lines skipped: %d.", st.Corrupt))
	}
	if st.TornLastLine {
		w.item(0, w.t("The last line was torn (still being written) and was skipped."))
	}
	sf := r.StateFile
	name := sf.Name
	if name == "" {
		name = "SESSION-STATE.md"
	}
	switch {
	case sf.Path != "" && !sf.ModTime.IsZero():
		w.item(0, w.t("State file: %s, modified %s.", w.code(sf.Path), stamp(sf.ModTime)))
	case sf.Path != "":
		w.item(0, w.t("State file: %s.", w.code(sf.Path)))
	default:
		w.item(0, w.t("No %s found.", w.code(name)))
		for _, d := range sf.Searched {
			w.item(1, w.t("Looked in %s", w.code(d)))
		}
	}
	w.item(0, w.t("Secrets redacted: %d.", r.Redactions))
	if len(r.Warnings) > 0 {
		w.item(0, w.t("Warnings:"))
		for _, s := range r.Warnings {
			w.item(1, w.code(s))
		}
	}
	if r.HookEvent != "" {
		w.item(0, w.t("Hook event: %s.", w.code(r.HookEvent)))
	}
	if r.PromptID != "" {
		w.item(0, w.t("Prompt id: %s.", w.code(r.PromptID)))
	}
	if r.Compaction != nil {
		w.item(0, w.t("Compaction confirmed complete at %s (summary of %d characters).", stamp(r.Compaction.At), r.Compaction.SummaryChars))
	} else {
		w.item(0, w.t("Compaction not confirmed (no PostCompact record)."))
	}
	if r.Name != "" {
		w.item(0, w.t("Record: %s, schema %d.", w.code(r.Name+".json"), r.Schema))
	}
}

// inlineCode renders untrusted text as one inline code span: control
// characters escaped (so it stays on one line), delimited by a backtick run
// longer than any inside it, padded with a space when the text starts or ends
// with a backtick or a space (CommonMark strips one of each).
func inlineCode(s string) string {
	s = escapeInline(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.Trim(s, " ") != "" && (s[0] == '`' || s[len(s)-1] == '`' || s[0] == ' ' || s[len(s)-1] == ' ') {
		s = " " + s + " "
	}
	return fence + s + fence
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}

// escapeInline escapes everything that could end a line or hide text:
// newlines and tabs included.
func escapeInline(s string) string { return escapeText(s, false) }

// escapeBlock keeps \n and \t (CRLF becomes \n) and escapes every other
// control character, since a lone \r also ends a line in Markdown.
func escapeBlock(s string) string {
	return escapeText(strings.ReplaceAll(s, "\r\n", "\n"), true)
}

func escapeText(s string, multiline bool) string {
	if !needsEscape(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case escapedRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return true
		}
		if r < 0x20 || r == 0x7f || escapedRune(r) {
			if !(multiline && (r == '\n' || r == '\t')) {
				return true
			}
		}
		i += size
	}
	return false
}

// escapedRune reports the non-ASCII characters shown as \uXXXX: C1
// controls, the Unicode line and paragraph separators, and the bidirectional
// embedding, override and isolate controls that can make text read in
// another order than it is stored.
func escapedRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0xfeff:
		return true
	}
	return false
}
