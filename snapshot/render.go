package snapshot

import (
	"bytes"
	"path/filepath"
	"strings"
	"time"

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
