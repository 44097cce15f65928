package restore

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// ResidueMaxChars caps the residue's text, in UTF-16 units as the client
// counts (RS-22): with a pointer handed over late (at most 9,000) and a
// notice it stays under the client's 10,000 only with the pointer at its
// default 4,000, and it is meant to be read, not skimmed.
const ResidueMaxChars = 3000

// ResidueInput is what the residue's text is made from.
type ResidueInput struct {
	// Record is the compaction's snapshot; Verdicts the comparison of its
	// facts (residue.Compare): the text gives the dropped ones.
	Record   *snapshot.Record
	Verdicts []residue.Verdict
	// ProjectDir is the folder files are shown relative to; "" means the
	// record's cwd.
	ProjectDir string
	// Compacted is the compaction's time (its boundary's), Now the hand-over's.
	Compacted, Now time.Time
	// Supersedes is when the earlier pointer or residue that the kept tail
	// still holds was given; zero for none (RS-23).
	Supersedes time.Time
	Lang       snapshot.Lang
	// MaxChars caps the text (UTF-16 units); zero or less means
	// ResidueMaxChars.
	MaxChars int
}

// ResidueOutput is the residue's text and what it gave.
type ResidueOutput struct {
	// Text is "" when nothing was dropped (RS-19).
	Text string
	// Given are the keys of the facts the text gives; Omitted counts the
	// dropped facts that did not fit.
	Given   map[string]bool
	Omitted int
}

// residueLimits are the knobs shrunk, in order, until the text fits
// (RS-22): never below what the matching rules need held (200 characters
// of a prompt or a command, 120 of an error line, RS-6, RS-13, RS-14).
type residueLimits struct{ prompt, command, errLine int }

var residueSteps = []residueLimits{{500, 300, 200}, {300, 240, 160}, {residue.PromptChars, residue.CommandChars, residue.ErrorChars}}

// section is one block of the text: its facts, the most load-bearing
// first, each with its keys and its index in the record's list; render
// shows those kept, in the order a reader wants them.
type section struct {
	facts  []sectionFact
	render func(p *message.Printer, l residueLimits, kept []sectionFact) string
}

type sectionFact struct {
	keys []string
	idx  int
	text string
}

// Residue renders what the summary dropped (specs/residue.md RS-19 to
// RS-24): statements of fact, the most load-bearing first, every text of
// the transcript inside a quote it cannot close, at most MaxChars UTF-16
// units; no text at all when nothing was dropped.
func Residue(in ResidueInput) ResidueOutput {
	out := ResidueOutput{Given: map[string]bool{}}
	rec := in.Record
	if rec == nil {
		return out
	}
	sections := residueSections(in)
	total := 0
	dropped := 0
	for _, sec := range sections {
		total += len(sec.facts)
		for _, f := range sec.facts {
			dropped += len(f.keys)
		}
	}
	if total == 0 {
		return out
	}
	maxChars := in.MaxChars
	if maxChars <= 0 {
		maxChars = ResidueMaxChars
	}
	p := printer(in.Lang)
	var text string
	// The texts shrink first; then facts go, the least load-bearing first.
	for n := total; n > 0; n-- {
		for si, l := range residueSteps {
			if n < total && si < len(residueSteps)-1 {
				continue
			}
			var given []string
			text, given = renderResidue(p, in, sections, n, l, dropped)
			if textcut.UTF16Len(text) <= maxChars {
				for _, k := range given {
					out.Given[k] = true
				}
				out.Text, out.Omitted = text, dropped-len(given)
				return out
			}
		}
	}
	// Not even the first fact fits: cut it, and count nothing as given.
	marker := "\n" + p.Sprintf(mRsCut, maxChars)
	cut, _ := textcut.UTF16(text, max(0, maxChars-textcut.UTF16Len(marker)))
	if i := strings.LastIndexByte(cut, '\n'); i > len(cut)/2 {
		cut = cut[:i]
	}
	out.Text, out.Omitted = cut+marker, dropped
	return out
}

// renderResidue renders the first n facts of the sections, in order.
func renderResidue(p *message.Printer, in ResidueInput, sections []section, n int, l residueLimits, dropped int) (string, []string) {
	var b strings.Builder
	b.WriteString(p.Sprintf(mRsHeader, at(p, in.Compacted, in.Now), oneLine(in.Record.Name, 80)))
	if !in.Supersedes.IsZero() {
		b.WriteString("\n" + p.Sprintf(mRsSupersedes, at(p, in.Supersedes, in.Now)))
	}
	var given []string
	for _, sec := range sections {
		k := min(n, len(sec.facts))
		n -= k
		if k == 0 {
			continue
		}
		for _, f := range sec.facts[:k] {
			given = append(given, f.keys...)
		}
		b.WriteString("\n" + sec.render(p, l, sec.facts[:k]))
	}
	if more := dropped - len(given); more > 0 {
		b.WriteString("\n" + p.Sprintf(mRsOmitted, more))
	}
	return b.String(), given
}

// residueSections are the dropped facts, the most load-bearing first
// (RS-20): the last request, the last failed command of the last 10 with
// its error line, the files in work (most recent first), the next step,
// the other prompts of the last 5 and the other commands of the last 10
// (newest first, shown oldest first), the open tasks, the uncommitted
// changes.
func residueSections(in ResidueInput) []section {
	rec := in.Record
	dropped := map[string]residue.Verdict{}
	var order []residue.Verdict
	for _, v := range in.Verdicts {
		if !v.Kept() {
			dropped[v.Key] = v
			order = append(order, v)
		}
	}
	if len(order) == 0 {
		return nil
	}
	taken := map[string]bool{}
	take := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			if _, ok := dropped[k]; ok && !taken[k] {
				taken[k] = true
				out = append(out, k)
			}
		}
		return out
	}
	var secs []section
	add := func(sec section) {
		if len(sec.facts) > 0 {
			secs = append(secs, sec)
		}
	}
	dir := in.ProjectDir
	if dir == "" {
		dir = rec.Cwd
	}
	lastCmds := max(0, len(rec.Commands)-residue.Commands)

	// The last request.
	if n := len(rec.Prompts); n > 0 {
		if keys := take(key(residue.KindPrompt, n-1)); keys != nil {
			add(section{[]sectionFact{{keys, n - 1, ""}}, func(p *message.Printer, l residueLimits, kept []sectionFact) string {
				return p.Sprintf(mRsLastPrompt) + "\n" + quotePrompt(p, rec.Prompts[kept[0].idx].Text, l.prompt)
			}})
		}
	}
	// The last failed command, when it or its error line is dropped.
	for i := len(rec.Commands) - 1; i >= lastCmds; i-- {
		if rec.Commands[i].Outcome != transcript.OutcomeError {
			continue
		}
		if keys := take(key(residue.KindCommand, i), key(residue.KindFailure, i)); keys != nil {
			add(section{[]sectionFact{{keys, i, ""}}, func(p *message.Printer, l residueLimits, kept []sectionFact) string {
				c := rec.Commands[kept[0].idx]
				tool := ident(c.Tool, 40)
				if c.Tool == "" {
					tool = "Bash"
				}
				when := at(p, c.Time, in.Now)
				head := p.Sprintf(mRsFailed, tool, when)
				if c.ExitCode != nil {
					head = p.Sprintf(mRsFailedCode, tool, strconv.Itoa(*c.ExitCode), when)
				}
				return head + "\n" + quoteCut(c.Command, l.command) + errorLines(p, c.ErrorLine, l.errLine)
			}})
		}
		break
	}
	// The files in work, most recent first.
	files := section{render: func(p *message.Printer, l residueLimits, kept []sectionFact) string {
		var lines []string
		for _, f := range kept {
			lines = append(lines, relPath(f.text, dir))
		}
		return p.Sprintf(mRsFiles, len(kept)) + "\n" + quote(strings.Join(cutEach(lines, 240), "\n"))
	}}
	for _, v := range order {
		if v.Kind == residue.KindFile && take(v.Key) != nil {
			files.facts = append(files.facts, sectionFact{[]string{v.Key}, v.Index, v.Text})
		}
	}
	add(files)
	// The next step.
	if v, ok := dropped[residue.KindNextStep]; ok && take(v.Key) != nil {
		heading := ""
		if pr := rec.Preparation; pr != nil && pr.Handoff != nil {
			heading = pr.Handoff.Heading
		}
		add(section{[]sectionFact{{[]string{v.Key}, -1, v.Text}}, func(p *message.Printer, l residueLimits, kept []sectionFact) string {
			return p.Sprintf(mRsNextStep, inline(heading, 120)) + "\n" + quotePrompt(p, kept[0].text, l.prompt)
		}})
	}
	// The other prompts of the last 5, newest first; shown oldest first.
	prompts := section{render: func(p *message.Printer, l residueLimits, kept []sectionFact) string {
		var b strings.Builder
		b.WriteString(p.Sprintf(mRsPrompts, len(kept)))
		for n, f := range oldestFirst(kept) {
			pr := rec.Prompts[f.idx]
			if pr.Time.IsZero() {
				b.WriteString("\n" + p.Sprintf(mRsPrompt, n+1))
			} else {
				b.WriteString("\n" + p.Sprintf(mRsPromptAt, n+1, at(p, pr.Time, in.Now)))
			}
			b.WriteString("\n" + quotePrompt(p, pr.Text, l.prompt))
		}
		return b.String()
	}}
	for i := len(rec.Prompts) - 2; i >= max(0, len(rec.Prompts)-residue.Prompts); i-- {
		if keys := take(key(residue.KindPrompt, i)); keys != nil {
			prompts.facts = append(prompts.facts, sectionFact{keys, i, ""})
		}
	}
	add(prompts)
	// The other commands of the last 10, newest first; shown oldest first.
	cmds := section{render: func(p *message.Printer, l residueLimits, kept []sectionFact) string {
		var b strings.Builder
		b.WriteString(p.Sprintf(mRsCommands, len(kept), residue.Commands))
		for n, f := range oldestFirst(kept) {
			c := rec.Commands[f.idx]
			b.WriteString("\n" + p.Sprintf(mRsCmdAt, n+1, at(p, c.Time, in.Now), outcome(p, c)))
			b.WriteString("\n" + quoteCut(c.Command, l.command))
			if c.Outcome == transcript.OutcomeError {
				b.WriteString(errorLines(p, c.ErrorLine, l.errLine))
			}
		}
		return b.String()
	}}
	for i := len(rec.Commands) - 1; i >= lastCmds; i-- {
		if keys := take(key(residue.KindCommand, i), key(residue.KindFailure, i)); keys != nil {
			cmds.facts = append(cmds.facts, sectionFact{keys, i, ""})
		}
	}
	add(cmds)
	// The open tasks, then the uncommitted changes.
	tasks := section{render: func(p *message.Printer, l residueLimits, kept []sectionFact) string {
		var lines []string
		for _, f := range kept {
			lines = append(lines, f.text)
		}
		return p.Sprintf(mRsTasks, len(kept)) + "\n" + quote(strings.Join(cutEach(lines, l.prompt), "\n"))
	}}
	changes := section{render: func(p *message.Printer, l residueLimits, kept []sectionFact) string {
		var lines []string
		for _, f := range kept {
			code := "  "
			if g := rec.Git; g != nil && f.idx < len(g.Changes) {
				code = shortCode(g.Changes[f.idx].Code)
			}
			lines = append(lines, code+" "+f.text)
		}
		return p.Sprintf(mRsChanges, len(kept)) + "\n" + quote(strings.Join(cutEach(lines, 240), "\n"))
	}}
	for _, v := range order {
		switch {
		case v.Kind == residue.KindTask && take(v.Key) != nil:
			tasks.facts = append(tasks.facts, sectionFact{[]string{v.Key}, v.Index, v.Text})
		case v.Kind == residue.KindChange && take(v.Key) != nil:
			changes.facts = append(changes.facts, sectionFact{[]string{v.Key}, v.Index, v.Text})
		}
	}
	add(tasks)
	add(changes)
	return secs
}

func key(kind string, i int) string { return kind + ":" + strconv.Itoa(i) }

// oldestFirst is facts in the order of their index in the record.
func oldestFirst(fs []sectionFact) []sectionFact {
	out := append([]sectionFact(nil), fs...)
	slices.SortFunc(out, func(a, b sectionFact) int { return a.idx - b.idx })
	return out
}

// quotePrompt quotes a prompt cut at n characters, the cut said outside the
// quote as the pointer says it (PO-2).
func quotePrompt(p *message.Printer, text string, n int) string {
	cut, was := textcut.Runes(strings.TrimSuffix(text, textcut.Marker), n)
	out := quote(cut)
	if was {
		out += "\n" + p.Sprintf(mPromptCut, n)
	}
	return out
}

// at is a fact's time as HH:MM UTC (with the date on another day than
// now's), or that it is unknown.
func at(p *message.Printer, t, now time.Time) string {
	if t.IsZero() {
		return p.Sprintf(mTimeUnknown)
	}
	return clockUTC(t, now)
}

// quoteCut quotes a command cut at n characters, marked as every cut.
func quoteCut(text string, n int) string {
	return quote(textcut.Marked(textcut.Runes(strings.TrimSuffix(text, textcut.Marker), n)))
}

// errorLines is the error line of a failed command, quoted under its own
// statement; "" without one.
func errorLines(p *message.Printer, line string, n int) string {
	if strings.TrimSpace(line) == "" {
		return ""
	}
	return "\n" + p.Sprintf(mRsErrLine) + "\n" + quote(textcut.Marked(textcut.Runes(line, n)))
}

// outcome says in words how a command ended (SF-23's outcomes).
func outcome(p *message.Printer, c transcript.Command) string {
	switch c.Outcome {
	case transcript.OutcomeOK:
		return p.Sprintf(mRsCmdOK)
	case transcript.OutcomeError:
		if c.ExitCode != nil {
			return p.Sprintf(mRsCmdCode, strconv.Itoa(*c.ExitCode))
		}
		return p.Sprintf(mRsCmdError)
	case transcript.OutcomeRejected:
		return p.Sprintf(mRsCmdRejected)
	case transcript.OutcomeInterrupted:
		return p.Sprintf(mRsCmdInterrupt)
	case transcript.OutcomeBackground:
		return p.Sprintf(mRsCmdBackground)
	}
	return p.Sprintf(mRsCmdUnknown)
}

// shortCode shows a porcelain v2 code as git status --short does (SF-29).
func shortCode(code string) string {
	if len(code) != 2 {
		return "??"
	}
	return strings.ReplaceAll(code, ".", " ")
}

// cutEach cuts every text at n characters, marked.
func cutEach(texts []string, n int) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = textcut.Marked(textcut.Runes(t, n))
	}
	return out
}

// IsResidue reports whether a hook context is a residue compact-guard gave,
// in either language: a kept tail holding one makes the next say it
// replaces it (RS-23).
func IsResidue(text string) bool {
	for _, l := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		head := printer(l).Sprintf(mRsHeader, "\x00", "\x00")
		prefix, _, _ := strings.Cut(head, "\x00")
		if strings.HasPrefix(strings.TrimSpace(text), prefix) {
			return true
		}
	}
	return false
}
