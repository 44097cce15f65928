package snapshot

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// SessionLinePrefix starts the header line that names the session. It is
// never translated so that tools and people can find it; the first line of a
// snapshot's Markdown that starts with it is the header's (SF-21).
const SessionLinePrefix = "Session: "

// Bounds of the summary and of the one-line forms (SF-20).
const (
	summaryFiles    = 5   // files listed in the summary
	summaryLines    = 8   // lines of the last prompt and custom instructions
	summaryChars    = 600 // characters of each of them
	summaryFailed   = 3   // failed commands listed in the summary
	oneLineChars    = 160 // a command, input or path on its one line
	oneLineErrChars = 120 // an error after it
	shortHead       = 7   // characters of HEAD in the summary
)

// RenderMarkdown renders a record as the snapshot's Markdown, the view
// stored beside the record and printed by show: a summary that fits one
// screen, then the detail, one line per command, file, task, failure and
// change, leaving out what is empty (SF-20). Text that came from the
// transcript, the payload or git is placed only inside fenced blocks or
// inline code spans, with control characters shown escaped, so that it can
// never add a heading, a Session line or any other structure to the document
// (SF-21 to SF-24).
func RenderMarkdown(r *Record, lang Lang) []byte { return render(r, lang, false) }

// RenderFullMarkdown renders everything the record holds, for show --full:
// the same summary, then every section (empty ones saying so) with each
// command's whole text, description and error, and every note (SF-28).
func RenderFullMarkdown(r *Record, lang Lang) []byte { return render(r, lang, true) }

func render(r *Record, lang Lang, full bool) []byte { return renderWith(r, lang, full, nil) }

func renderWith(r *Record, lang Lang, full bool, res *Residue) []byte {
	w := &mdWriter{p: newPrinter(lang), full: full, day: r.CreatedAt.UTC(), cwd: r.Cwd}
	if r.Cwd == Unknown {
		w.cwd = ""
	}
	w.summary(r)
	w.prompts(r)
	w.files(r.Files)
	w.commands(r)
	w.tasks(r.Todos, r.Tasks)
	w.failures(r)
	w.plan(r.Plan)
	w.git(r.Git, r.GitBranch)
	if res != nil {
		w.residue(res)
	}
	w.notes(r)
	return w.b.Bytes()
}

type mdWriter struct {
	b    bytes.Buffer
	p    *message.Printer
	full bool
	// day is the snapshot's time: times on its day are shown as HH:MM.
	day time.Time
	// cwd is the working directory paths inside it are shown relative to.
	cwd string
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

// oneLine renders the first line of untrusted text, cut at n characters, as
// code; the shared marker follows, outside the code, when anything was left
// out (a cut or further lines).
func (w *mdWriter) oneLine(s string, n int) string {
	first, rest := s, false
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		first, rest = s[:i], strings.TrimSpace(s[i:]) != ""
	}
	kept, cut := textcut.Runes(first, n)
	return textcut.Marked(w.code(kept), cut || rest)
}

// excerpt keeps what the summary shows of a text (the last prompt, the
// custom instructions): all of it in --full, else its first summaryLines
// lines and summaryChars characters, marked when anything was left out.
func (w *mdWriter) excerpt(s string) string {
	if w.full {
		return s
	}
	cut := false
	if lines := strings.SplitAfterN(s, "\n", summaryLines+1); len(lines) > summaryLines && strings.TrimSpace(lines[summaryLines]) != "" {
		s, cut = strings.TrimRight(strings.Join(lines[:summaryLines], ""), "\r\n"), true
	}
	kept, more := textcut.Runes(s, summaryChars)
	return textcut.Marked(kept, cut || more)
}

// rel shows a path inside the working directory relative to it.
func (w *mdWriter) rel(p string) string {
	if w.cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	r, err := filepath.Rel(w.cwd, p)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return p
	}
	return r
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

// at renders " · <time>" or nothing: the full time in --full, else clock's.
func (w *mdWriter) at(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " · " + w.when(t)
}

// when is the full time in --full, else clock's short form; "" when
// unknown.
func (w *mdWriter) when(t time.Time) string {
	if w.full || t.IsZero() {
		return stamp(t)
	}
	return w.clock(t)
}

// clock renders a time in UTC as HH:MM on the snapshot's day, else with its
// date; "" when unknown.
func (w *mdWriter) clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	if y, m, d := t.Date(); !w.day.IsZero() && y == w.day.Year() && m == w.day.Month() && d == w.day.Day() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02 15:04")
}

// count says how many a bounded list holds: "4", or "last 20 of 78" when
// the record kept only the newest of total.
func (w *mdWriter) count(listed, total int) string {
	if total > listed {
		return w.t("last %d of %d", listed, total)
	}
	return w.t("%d", listed)
}

// totals returns the record's totals; for a record written before it held
// them, the lists' own lengths (SF-6).
func totals(r *Record) transcript.Totals {
	t := transcript.Totals{}
	if r.Totals != nil {
		t = *r.Totals
	}
	t.Prompts = max(t.Prompts, len(r.Prompts))
	t.Commands = max(t.Commands, len(r.Commands))
	t.Failures = max(t.Failures, len(r.Failures))
	return t
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

// summary is the screen at the top: the title and Session line, one item
// each for time, trigger, how the compaction was prepared (when the record
// says), context, working directory, files edited, failed commands and git,
// then the custom instructions and the last prompt.
func (w *mdWriter) summary(r *Record) {
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

	if r.CreatedAt.IsZero() {
		w.item(0, w.t("Time: %s", w.t("unknown")))
	} else {
		w.item(0, w.t("Time: %s (all times UTC)", stamp(r.CreatedAt)))
	}
	w.item(0, w.t("Trigger: %s, %d earlier compactions in this session", w.trigger(r.Trigger), r.EarlierCompactions))
	if p := r.Preparation; p != nil {
		w.item(0, w.preparation(p, r.Trigger))
	}
	w.item(0, w.t("Context: %s", w.context(r.Context)))
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
	if gaps := r.Coverage.Gaps(); len(gaps) > 0 {
		w.item(0, w.gapsLine(r.Coverage.TranscriptSize, gaps))
	}
	w.summaryFiles(r.Files)
	w.summaryCommands(r)
	w.item(0, w.gitLine(r.Git))
	if len(r.Prompts) == 0 {
		w.item(0, w.t("Last prompt: %s", w.t("none recorded")))
	}
	w.blank()

	if r.CustomInstructions != nil && *r.CustomInstructions != "" {
		w.line(w.t("Custom instructions:"))
		w.blank()
		w.block("text", w.excerpt(*r.CustomInstructions))
	}
	if n := len(r.Prompts); n > 0 {
		p := r.Prompts[n-1]
		if p.Time.IsZero() {
			w.line(w.t("Last prompt:"))
		} else {
			w.line(w.t("Last prompt, %s:", w.when(p.Time)))
		}
		w.blank()
		w.block("text", w.excerpt(p.Text))
		if p.FromLastPrompt {
			w.line(w.t("Taken from the transcript's last-prompt entry: the prompt itself was not written yet."))
			w.blank()
		}
	}
}

// gapsLine says, before any fact, which parts of the transcript the facts
// miss (SF-20), so that "none recorded" below is read as "none in what was
// read".
func (w *mdWriter) gapsLine(size int64, gaps []Gap) string {
	clauses := make([]string, 0, len(gaps))
	between := 0
	for _, g := range gaps {
		switch {
		case g.Kind == GapBefore:
			clauses = append(clauses, w.t("part of the bytes before byte %d was neither read nor covered by an earlier snapshot", g.To))
		case g.Kind == GapBetween && between > 0:
			clauses = append(clauses, w.t("bytes %d to %d were not read either", g.From, g.To))
			between++
		case g.Kind == GapBetween:
			clauses = append(clauses, w.t("bytes %d to %d were not read, the newest having been read first", g.From, g.To))
			between++
		case g.Kind == GapAfter && g.From == 0:
			clauses = append(clauses, w.t("nothing was read, so the snapshot holds no facts from it"))
		case g.Kind == GapAfter:
			clauses = append(clauses, w.t("reading stopped at byte %d, so the newest facts are missing", g.From))
		default:
			clauses = append(clauses, w.t("reading stopped before the end, so the newest facts may be missing"))
		}
	}
	if size > 0 {
		return w.t("Transcript not read whole (%d bytes): %s.", size, strings.Join(clauses, "; "))
	}
	return w.t("Transcript not read whole: %s.", strings.Join(clauses, "; "))
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

// preparation says whether the compaction was planned (the handoff block:
// heading, file, line, date) or an emergency or unplanned (the fill, and
// since when no handoff was current) (SF-20, WA-12).
func (w *mdWriter) preparation(p *Preparation, trigger string) string {
	if p.Kind == Planned && p.Handoff != nil {
		h := p.Handoff
		return w.t("Planned compaction: handoff block %s dated %s, in %s line %d", inlineCode(h.Heading), w.when(h.Time), w.code(h.Path), h.Line)
	}
	fill := w.t("context fill unknown")
	switch pct := p.Percent(); {
	case pct >= 0:
		fill = w.t("context at %d%% of the window (%d of %d tokens)", pct, p.Fill, p.Window)
	case p.Fill > 0:
		fill = w.t("context at %d tokens", p.Fill)
	}
	var handoff string
	switch h := p.Handoff; {
	case h != nil && !h.Complete:
		handoff = w.t("the newest handoff block (%s, line %d) is incomplete", w.when(h.Time), h.Line)
	case h != nil && !p.Since.IsZero():
		handoff = w.t("no handoff %s (the newest block is dated %s)", w.since(p), w.when(h.Time))
	case h == nil && p.OtherBlocks > 0:
		handoff = w.t("no handoff block of this session (blocks in the state file not its own: %d)", p.OtherBlocks)
	case !p.Since.IsZero():
		handoff = w.t("no handoff %s", w.since(p))
	default:
		handoff = w.t("no handoff block")
	}
	if p.Kind == Emergency {
		return w.t("Emergency compaction: automatic, %s; %s", fill, handoff)
	}
	return w.t("Unplanned compaction: %s, %s; %s", w.trigger(trigger), fill, handoff)
}

// since says since when no handoff was current, naming what that moment
// was (SF-12's since_kind; handoff.md HO-4): never a crossing that was
// none.
func (w *mdWriter) since(p *Preparation) string {
	at := w.when(p.Since)
	switch p.SinceKind {
	case "crossing":
		return w.t("since the first threshold was crossed at %s", at)
	case "compaction":
		return w.t("since the compaction at %s", at)
	case "snapshot":
		return w.t("since the previous snapshot at %s", at)
	case "start":
		return w.t("since the session started at %s", at)
	}
	return w.t("since %s", at)
}

// context is the fill in tokens and the model; the split into input and
// cache tokens is a note of --full.
func (w *mdWriter) context(u *transcript.Usage) string {
	if u == nil {
		return w.t("unknown")
	}
	s := w.t("%d tokens", u.Tokens)
	if u.FromBoundary {
		s = w.t("%s (from the last compaction boundary)", s)
	}
	if u.Model != "" {
		s = w.t("%s, model %s", s, inlineCode(u.Model))
	}
	return s
}

func (w *mdWriter) summaryFiles(fs []transcript.FileEdit) {
	if len(fs) == 0 {
		w.item(0, w.t("Files edited: %s", w.t("none recorded")))
		return
	}
	edits := 0
	for _, f := range fs {
		edits += f.Edits
	}
	w.item(0, w.t("Files edited: %d (%d edits)", len(fs), edits))
	shown := min(len(fs), summaryFiles)
	for _, f := range fs[:shown] {
		w.item(1, w.t("%s — %d edits", w.oneLine(w.rel(f.Path), oneLineChars), f.Edits))
	}
	if more := len(fs) - shown; more > 0 {
		w.item(1, w.t("and %d more below", more))
	}
}

// summaryCommands counts the failed commands (outcome error) among those
// listed and shows the newest few.
func (w *mdWriter) summaryCommands(r *Record) {
	cs := r.Commands
	if len(cs) == 0 {
		w.item(0, w.t("Commands: %s", w.t("none recorded")))
		return
	}
	var failed []transcript.Command
	for _, c := range cs {
		if c.Outcome == transcript.OutcomeError {
			failed = append(failed, c)
		}
	}
	if total := totals(r).Commands; total > len(cs) {
		w.item(0, w.t("Failed commands: %d of the last %d", len(failed), len(cs)))
	} else {
		w.item(0, w.t("Failed commands: %d of %d", len(failed), len(cs)))
	}
	shown := min(len(failed), summaryFailed)
	for i := len(failed) - shown; i < len(failed); i++ {
		w.item(1, w.commandLine(failed[i]))
	}
	if more := len(failed) - shown; more > 0 {
		w.item(1, w.t("and %d more below", more))
	}
}

// gitLine is git in one line: branch, HEAD and subject, uncommitted changes,
// and git's error when it gave one.
func (w *mdWriter) gitLine(g *Git) string {
	var s string
	switch {
	case g == nil:
		return w.t("Git: %s", w.t("not recorded"))
	case !g.Repo:
		s = w.t("Git: %s", w.t("not a repository"))
	default:
		branch := w.t("branch %s", w.orUnknown(g.Branch))
		if g.Detached {
			branch = w.t("detached HEAD")
		}
		head := w.t("no commits yet")
		if g.Head != "" {
			h, _ := textcut.Runes(g.Head, shortHead)
			head = w.t("HEAD %s", inlineCode(h))
			if g.Subject != "" {
				head += " " + w.code(g.Subject)
			}
		}
		changes := w.t("%d uncommitted changes", g.ChangeCount)
		switch {
		case g.ChangeCount < 0:
			changes = w.t("uncommitted changes unknown")
		case g.ChangeCount == 0:
			changes = w.t("no uncommitted changes")
		}
		s = w.t("Git: %s, %s, %s", branch, head, changes)
	}
	if g.Error != "" {
		s = w.t("%s; git reported %s", s, w.oneLine(g.Error, oneLineErrChars))
	}
	return s
}

func (w *mdWriter) none() {
	w.line(w.t("None recorded."))
	w.blank()
}

// prompts lists the prompts the record kept, each whole (the summary has
// an excerpt of the last).
func (w *mdWriter) prompts(r *Record) {
	ps, total := r.Prompts, totals(r).Prompts
	if len(ps) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Prompts, newest last (%s)", w.count(len(ps), total)))
	if len(ps) == 0 {
		w.none()
		return
	}
	first := total - len(ps) + 1
	for i, p := range ps {
		w.heading(3, w.t("Prompt %d of %d", first+i, total)+w.at(p.Time))
		w.block("text", p.Text)
		if p.Truncated && w.full {
			w.line(w.t("[…cut at %d characters]", transcript.MaxPromptChars))
			w.blank()
		}
		if p.FromLastPrompt {
			w.line(w.t("Taken from the transcript's last-prompt entry: the prompt itself was not written yet."))
			w.blank()
		}
	}
}

func (w *mdWriter) files(fs []transcript.FileEdit) {
	if len(fs) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Files edited, most recent first (%s)", w.count(len(fs), len(fs))))
	if len(fs) == 0 {
		w.none()
		return
	}
	for _, f := range fs {
		s := w.t("%s — %d edits, last %s", w.oneLine(w.rel(f.Path), oneLineChars), f.Edits, w.code(f.LastTool))
		if w.full {
			s = w.t("%s — %d edits, last %s", w.code(w.rel(f.Path)), f.Edits, w.code(f.LastTool))
		}
		if !f.LastTime.IsZero() {
			s = w.t("%s at %s", s, w.when(f.LastTime))
		}
		w.item(0, s)
	}
	w.blank()
}

// outcome renders a command's outcome for its heading in --full; anything
// but ok and background is marked with ✗ so that failed commands stand out.
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

// shortOutcome is the outcome at the start of a command's one line.
func (w *mdWriter) shortOutcome(c transcript.Command) string {
	switch c.Outcome {
	case transcript.OutcomeOK:
		return "✓"
	case transcript.OutcomeError:
		if c.ExitCode != nil {
			return "✗ " + w.t("exit %d", *c.ExitCode)
		}
		return "✗ " + w.t("failed")
	case transcript.OutcomeRejected:
		return "✗ " + w.t("rejected")
	case transcript.OutcomeInterrupted:
		return "✗ " + w.t("interrupted")
	case transcript.OutcomeBackground:
		return "↻ " + w.t("background")
	}
	return "? " + w.t("outcome unknown")
}

// commandLine is a command in one line: outcome, the command's first line,
// time, and the error line when there is one.
func (w *mdWriter) commandLine(c transcript.Command) string {
	s := w.shortOutcome(c) + "  " + w.oneLine(c.Command, oneLineChars)
	if t := w.when(c.Time); t != "" {
		s += "  " + t
	}
	if c.ErrorLine != "" {
		s += " — " + w.oneLine(c.ErrorLine, oneLineErrChars)
	}
	return s
}

func (w *mdWriter) commands(r *Record) {
	cs := r.Commands
	if len(cs) == 0 && !w.full {
		return
	}
	total := totals(r).Commands
	w.heading(2, w.t("Commands, newest last (%s)", w.count(len(cs), total)))
	if len(cs) == 0 {
		w.none()
		return
	}
	if !w.full {
		for _, c := range cs {
			w.item(0, w.commandLine(c))
		}
		w.blank()
		return
	}
	first := total - len(cs) + 1
	for i, c := range cs {
		w.heading(3, w.t("Command %d of %d", first+i, total)+" · "+w.outcome(c)+w.at(c.Time))
		w.item(0, w.t("Tool: %s", w.code(c.Tool)))
		if c.Description != "" {
			w.item(0, w.t("Description: %s", w.code(c.Description)))
		}
		if c.ErrorLine != "" {
			w.item(0, w.t("Error: %s", w.code(c.ErrorLine)))
		}
		if c.Truncated {
			w.item(0, w.t("[…cut at %d characters]", transcript.MaxCommandChars))
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

func (w *mdWriter) taskList(heading string, ts []transcript.Task) {
	if len(ts) == 0 && !w.full {
		return
	}
	w.heading(3, heading)
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
	if len(todos) == 0 && len(tasks) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Tasks"))
	w.taskList(w.t("Todo list (TodoWrite)"), todos)
	w.taskList(w.t("Tasks (TaskCreate, TaskUpdate)"), tasks)
}

func (w *mdWriter) failures(r *Record) {
	fs := r.Failures
	if len(fs) == 0 && !w.full {
		return
	}
	w.heading(2, w.t("Failures and rejections, newest last (%s)", w.count(len(fs), totals(r).Failures)))
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
		if !w.full {
			if f.Input != "" {
				s += "  " + w.oneLine(w.failureInput(f), oneLineChars)
			}
			if t := w.when(f.Time); t != "" {
				s += "  " + t
			}
			if f.Error != "" {
				s += " — " + w.oneLine(f.Error, oneLineErrChars)
			}
			w.item(0, s)
			continue
		}
		w.item(0, s+w.at(f.Time))
		if f.Input != "" {
			w.item(1, w.t("Input: %s", w.code(f.Input)))
		}
		if f.Error != "" {
			w.item(1, w.t("Error: %s", w.code(f.Error)))
		}
	}
	w.blank()
}

// failureInput is a failure's input, a path relative to the working
// directory when a file tool failed on a file inside it.
func (w *mdWriter) failureInput(f transcript.Failure) string {
	switch f.Tool {
	case "Read", "Write", "Edit", "MultiEdit", "NotebookEdit":
		return w.rel(f.Input)
	}
	return f.Input
}

func (w *mdWriter) plan(p *transcript.Plan) {
	if p == nil && !w.full {
		return
	}
	w.heading(2, w.t("Plan (last approved)"))
	if p == nil {
		w.none()
		return
	}
	if !p.Time.IsZero() {
		w.line(w.t("Approved at %s.", w.when(p.Time)))
		w.blank()
	}
	w.block("markdown", p.Text)
	if p.Truncated && w.full {
		w.line(w.t("[…cut at %d characters]", transcript.MaxPlanChars))
		w.blank()
	}
}

// porcelain shows a status code as git status --short does ("M " staged,
// " M" not, "??" untracked); a code that is not two status letters is shown
// as code.
func porcelain(code string) (string, bool) {
	if len(code) != 2 {
		return "", false
	}
	for i := 0; i < 2; i++ {
		if strings.IndexByte(".MTADRCU?!", code[i]) < 0 {
			return "", false
		}
	}
	return strings.ReplaceAll(code, ".", " "), true
}

func (w *mdWriter) change(c GitChange) string {
	code, ok := porcelain(c.Code)
	if !ok {
		code = w.code(c.Code)
	}
	if c.From != "" {
		return code + " " + w.code(c.From) + " → " + w.code(c.Path)
	}
	return code + " " + w.code(c.Path)
}

// git lists the uncommitted changes (the summary has the rest); --full adds
// everything git and the transcript said.
func (w *mdWriter) git(g *Git, transcriptBranch string) {
	if !w.full {
		if g == nil || !g.Repo || len(g.Changes) == 0 {
			return
		}
		if g.ChangeCount > len(g.Changes) {
			w.heading(2, w.t("Uncommitted changes (%d of %d)", len(g.Changes), g.ChangeCount))
		} else {
			w.heading(2, w.t("Uncommitted changes (%d)", len(g.Changes)))
		}
		for _, c := range g.Changes {
			w.item(0, w.change(c))
		}
		w.blank()
		return
	}
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
			w.item(1, w.change(c))
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

// notes says what the record rests on. Without --full only what is out of
// the ordinary is said, and where everything is.
func (w *mdWriter) notes(r *Record) {
	w.heading(2, w.t("Notes"))
	w.item(0, w.t("Transcript: %s", w.orUnknown(r.TranscriptPath)))
	c := r.Coverage
	if w.full {
		switch {
		case c.ReadTo != nil:
			w.item(0, w.t("Read from byte %d to byte %d of %d.", c.ReadFrom, *c.ReadTo, c.TranscriptSize))
		case !c.Incomplete:
			w.item(0, w.t("Read from byte %d to byte %d of %d.", c.ReadFrom, c.TranscriptSize, c.TranscriptSize))
		default:
			w.item(0, w.t("Read from byte %d of %d; where reading stopped is not recorded.", c.ReadFrom, c.TranscriptSize))
		}
		switch {
		case c.SegmentStart >= 0:
			w.item(0, w.t("The last compaction boundary starts at byte %d.", c.SegmentStart))
		case !c.BoundaryUnknown:
			w.item(0, w.t("The transcript holds no compaction boundary."))
		}
		if c.Previous != "" {
			w.item(0, w.t("The part before byte %d is covered by the previous snapshot %s.", c.ReadFrom, w.code(c.Previous)))
		}
	}
	if c.BoundaryUnknown {
		w.item(0, w.t("The search for the last compaction boundary was cut short by the deadline: where the last segment starts is unknown, and the count of earlier compactions is a lower bound."))
	}
	if c.Partial {
		w.item(0, w.t("Coverage is partial: part of the transcript before byte %d was neither read nor covered by a previous snapshot.", c.ReadFrom))
	}
	for _, u := range c.Unread {
		w.item(0, w.t("Bytes %d to %d were not read: the deadline left time to read the newest bytes first.", u.From, u.To))
	}
	switch {
	case c.Incomplete && c.ReadTo != nil:
		w.item(0, w.t("Reading stopped at byte %d of %d: no later snapshot continues from this one.", *c.ReadTo, c.TranscriptSize))
	case c.Incomplete:
		w.item(0, w.t("The transcript was not read to its end: no later snapshot continues from this one."))
	}
	st := r.Stats
	if w.full {
		w.item(0, w.t("Lines: %d read, %d decoded.", st.Lines, st.Decoded))
		if u := r.Context; u != nil && !u.FromBoundary {
			w.item(0, w.t("Context tokens: input %d, cache creation %d, cache read %d.", u.InputTokens, u.CacheCreation, u.CacheRead))
		}
	}
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
		w.item(0, w.t("State file: %s, modified %s.", w.code(sf.Path), w.when(sf.ModTime)))
	case sf.Path != "":
		w.item(0, w.t("State file: %s.", w.code(sf.Path)))
	default:
		w.item(0, w.t("No %s found.", w.code(name)))
		for _, d := range sf.Searched {
			w.item(1, w.t("Looked in %s", w.code(d)))
		}
		if sf.Unanswered != "" {
			w.item(1, w.t("Not looked in %s and the folders after it: its file system did not answer by the deadline", w.code(sf.Unanswered)))
		}
	}
	if w.full || r.Redactions > 0 {
		w.item(0, w.t("Secrets redacted: %d.", r.Redactions))
	}
	if len(r.Warnings) > 0 {
		w.item(0, w.t("Warnings:"))
		for _, s := range r.Warnings {
			w.item(1, w.code(s))
		}
	}
	if w.full && r.HookEvent != "" {
		w.item(0, w.t("Hook event: %s.", w.code(r.HookEvent)))
	}
	if w.full && r.PromptID != "" {
		w.item(0, w.t("Prompt id: %s.", w.code(r.PromptID)))
	}
	if r.Compaction != nil {
		w.item(0, w.t("Compaction confirmed complete at %s (summary of %d characters).", w.when(r.Compaction.At), r.Compaction.SummaryChars))
	} else {
		w.item(0, w.t("Compaction not confirmed (no PostCompact record)."))
	}
	// The record's line comes last: a whole rendering ends with it.
	if r.Name != "" {
		if !w.full {
			w.item(0, w.t("Everything the record holds: %s.", inlineCode("compact-guard show --full "+r.Name)))
		}
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
