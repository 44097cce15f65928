// Package restore writes what a compacted session is handed back: a short,
// factual pointer to its snapshot, or a notice that none was written, and
// the SessionStart hook output that carries either.
package restore

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Defaults and bounds of the pointer.
const (
	DefaultMaxChars = 4000
	// Prompts is how many of the last typed prompts are quoted.
	Prompts = 3
	// PromptChars is where each quoted prompt is cut.
	PromptChars = 500
	// Files and Tasks bound the lists.
	Files = 8
	Tasks = 5
)

// DefaultStateFileName is the state file looked for when none is named.
const DefaultStateFileName = "SESSION-STATE.md"

// TimeLayout shows the compaction time with its offset, so that the text
// does not depend on the machine that renders it.
const TimeLayout = "2006-01-02 15:04:05 -07:00"

// PointerInput is what the pointer is made from.
type PointerInput struct {
	// Record is the selected snapshot, already redacted by precompact.
	Record *snapshot.Record
	// MDPath is the absolute path of the snapshot's .md.
	MDPath string
	// ProjectDir is the folder edited files are shown relative to; empty
	// means the record's cwd.
	ProjectDir string
	// StateFile is the state file as looked up now; a zero value means the
	// one in the record.
	StateFile snapshot.StateFile
	Lang      snapshot.Lang
	// MaxChars caps the text in characters as Claude Code counts them,
	// UTF-16 units (an emoji is 2); zero or negative means DefaultMaxChars.
	MaxChars int
	// Taken is set when postcompact took the snapshot itself at
	// SessionStart (PO-18); Supersedes is when the earlier pointer still in
	// the context was made (PO-19), zero for none.
	Taken      *Taken
	Supersedes time.Time
}

// limits are the knobs shrunk, in order, until the text fits.
type limits struct {
	promptChars int // per prompt
	files       int
	tasks       int
	itemChars   int // per path, task subject, branch, error
	cmdChars    int // the failed command
	searched    int // folders listed when the state file is missing
}

// steps: prompts shrink first, then the lists and items.
var steps = []limits{
	{PromptChars, Files, Tasks, 240, 300, 5},
	{250, Files, Tasks, 240, 300, 5},
	{100, Files, Tasks, 240, 300, 5},
	{30, Files, Tasks, 240, 300, 5},
	{30, 3, 2, 120, 120, 2},
	{0, 0, 0, 60, 60, 1},
}

// Pointer renders the text injected after a compaction: statements of fact
// in the order of specs/postcompact.md (PO-1 to PO-8), never longer than
// MaxChars UTF-16 units and always valid UTF-8.
func Pointer(in PointerInput) string {
	maxChars := in.MaxChars
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	rec := in.Record
	if rec == nil {
		rec = &snapshot.Record{}
	}
	var text string
	for _, l := range steps {
		text = render(in, rec, l)
		if textcut.UTF16Len(text) <= maxChars {
			return text
		}
	}
	return hardCut(text, maxChars, in.Lang)
}

// hardCut cuts at a character boundary and says so, within max UTF-16
// units.
func hardCut(text string, max int, lang snapshot.Lang) string {
	marker := "\n" + printer(lang).Sprintf(mPointerCut, max)
	m := textcut.UTF16Len(marker)
	if max <= m {
		cut, _ := textcut.UTF16(text, max)
		return cut
	}
	cut, _ := textcut.UTF16(text, max-m)
	// End on a whole line where one ends in the second half, so that no
	// half statement or half marker is left before ours.
	if i := strings.LastIndexByte(cut, '\n'); i > len(cut)/2 {
		cut = cut[:i]
	}
	return cut + marker
}

func render(in PointerInput, rec *snapshot.Record, l limits) string {
	p := printer(in.Lang)
	var b strings.Builder
	line := func(s string) { b.WriteString(s); b.WriteByte('\n') }

	// PO-1
	trigger := p.Sprintf(mTriggerUnknown)
	switch rec.Trigger {
	case "manual":
		trigger = p.Sprintf(mTriggerManual)
	case "auto":
		trigger = p.Sprintf(mTriggerAuto)
	}
	at := p.Sprintf(mTimeUnknown)
	if !rec.CreatedAt.IsZero() {
		at = rec.CreatedAt.Format(TimeLayout)
	}
	compacted := mCompacted
	if takenAtCompaction(rec) {
		compacted = mCompactedAt
	}
	line(p.Sprintf(compacted, trigger, at, oneLine(in.MDPath, 1<<12)))
	kindLines(p, in, line) // PO-18, PO-19

	// PO-15
	if rec.Preparation != nil {
		line(preparationLine(p, rec.Preparation, rec.Trigger, rec.CreatedAt, l.itemChars))
	}

	// PO-14
	gaps := rec.Coverage.Gaps()
	if len(gaps) > 0 {
		line(gapsLine(p, rec.Coverage.TranscriptSize, gaps))
	}

	// PO-2
	prompts := rec.Prompts
	if len(prompts) > Prompts {
		prompts = prompts[len(prompts)-Prompts:]
	}
	switch {
	case len(prompts) == 0 && len(gaps) > 0:
		line(p.Sprintf(mNoPromptsPart))
	case len(prompts) == 0:
		line(p.Sprintf(mNoPrompts))
	default:
		line(p.Sprintf(mPromptsHeader, len(prompts)))
		for i, pr := range prompts {
			line(p.Sprintf(mPromptN, i+1))
			text, cut := textcut.Runes(pr.Text, l.promptChars)
			if text != "" {
				line(quote(text))
			}
			if cut {
				line(p.Sprintf(mPromptCut, l.promptChars))
			}
		}
	}

	// PO-3
	dir := in.ProjectDir
	if dir == "" {
		dir = rec.Cwd
	}
	switch {
	case len(rec.Files) == 0 && len(gaps) > 0:
		line(p.Sprintf(mNoFilesPart))
	case len(rec.Files) == 0:
		line(p.Sprintf(mNoFiles))
	default:
		line(p.Sprintf(mFilesHeader, len(rec.Files)))
		shown := min(len(rec.Files), l.files)
		for _, f := range rec.Files[:shown] {
			line("- " + inline(relPath(f.Path, dir), l.itemChars))
		}
		if more := len(rec.Files) - shown; more > 0 {
			line(p.Sprintf(mMore, more))
		}
	}

	// PO-4
	open := openTasks(rec)
	if len(open) > 0 {
		line(p.Sprintf(mTasksHeader, len(open)))
		shown := min(len(open), l.tasks)
		for _, t := range open[:shown] {
			status := p.Sprintf(mPending)
			if t.Status == "in_progress" {
				status = p.Sprintf(mInProgress)
			}
			line("- [" + status + "] " + inline(t.Subject, l.itemChars))
		}
		if more := len(open) - shown; more > 0 {
			line(p.Sprintf(mMore, more))
		}
	}

	// PO-5
	line(gitLine(p, rec.Git, l.itemChars))

	// PO-6
	if n := len(rec.Commands); n > 0 && rec.Commands[n-1].Outcome == transcript.OutcomeError {
		c := rec.Commands[n-1]
		tool := ident(c.Tool, 40)
		if c.Tool == "" {
			tool = "Bash"
		}
		if c.ExitCode != nil {
			line(p.Sprintf(mCmdFailedCode, tool, strconv.Itoa(*c.ExitCode)))
		} else {
			line(p.Sprintf(mCmdFailed, tool))
		}
		line(quote(textcut.Marked(textcut.Runes(c.Command, l.cmdChars))))
		if first := firstLine(c.ErrorLine); first != "" {
			line(p.Sprintf(mCmdErrLine))
			line(quote(textcut.Marked(textcut.Runes(first, l.itemChars))))
		}
	}

	// PO-7
	sf := in.StateFile
	if sf.Name == "" && sf.Path == "" && len(sf.Searched) == 0 {
		sf = rec.StateFile
	}
	name := sf.Name
	if name == "" {
		name = DefaultStateFileName
	}
	switch {
	case sf.Path != "":
		line(p.Sprintf(mStateFound, inline(sf.Path, 1<<12)))
	case len(sf.Searched) == 0:
		line(p.Sprintf(mStateMissingNone, oneLine(name, l.itemChars)))
	default:
		line(p.Sprintf(mStateMissing, oneLine(name, l.itemChars)))
		shown := min(len(sf.Searched), l.searched)
		for _, d := range sf.Searched[:shown] {
			line("- " + inline(d, l.itemChars))
		}
		if more := len(sf.Searched) - shown; more > 0 {
			line(p.Sprintf(mMoreFolders, more))
		}
	}
	if sf.Path == "" && sf.Unanswered != "" {
		line(p.Sprintf(mStateUnanswered, inline(sf.Unanswered, l.itemChars)))
	}
	b.WriteString(p.Sprintf(mAuthority))
	return b.String()
}

// gapsLine states, in one line, the parts of the transcript the snapshot's
// facts miss (PO-14, snapshot-format.md SF-11).
func gapsLine(p *message.Printer, size int64, gaps []snapshot.Gap) string {
	clauses := make([]string, 0, len(gaps))
	between := 0
	for _, g := range gaps {
		switch {
		case g.Kind == snapshot.GapBefore:
			clauses = append(clauses, p.Sprintf(mGapBefore, g.To))
		case g.Kind == snapshot.GapBetween && between > 0:
			clauses = append(clauses, p.Sprintf(mGapBetweenMore, g.From, g.To))
			between++
		case g.Kind == snapshot.GapBetween:
			clauses = append(clauses, p.Sprintf(mGapBetween, g.From, g.To))
			between++
		case g.Kind == snapshot.GapAfter && g.From == 0:
			clauses = append(clauses, p.Sprintf(mGapNothing))
		case g.Kind == snapshot.GapAfter:
			clauses = append(clauses, p.Sprintf(mGapAfter, g.From))
		default:
			clauses = append(clauses, p.Sprintf(mGapEnd))
		}
	}
	if size > 0 {
		return p.Sprintf(mGaps, size, strings.Join(clauses, "; "))
	}
	return p.Sprintf(mGapsNoSize, strings.Join(clauses, "; "))
}

// openTasks lists in-progress tasks, then pending ones, from the TodoWrite
// list and from TaskCreate tasks.
func openTasks(rec *snapshot.Record) []transcript.Task {
	var open []transcript.Task
	for _, status := range []string{"in_progress", "pending"} {
		for _, list := range [][]transcript.Task{rec.Todos, rec.Tasks} {
			for _, t := range list {
				if t.Status == status {
					open = append(open, t)
				}
			}
		}
	}
	return open
}

func gitLine(p *message.Printer, g *snapshot.Git, itemChars int) string {
	sprintf := p.Sprintf
	switch {
	case g == nil:
		return sprintf(mGitNone)
	case !g.Repo && g.Error != "":
		return sprintf(mGitFailed, inline(firstLine(g.Error), itemChars))
	case !g.Repo:
		return sprintf(mGitNoRepo)
	}
	changes := sprintf(mGitChanges, g.ChangeCount)
	branch := sprintf(mUnknown)
	if g.Branch != "" {
		branch = inline(g.Branch, itemChars)
	}
	h, _ := textcut.Runes(g.Head, 7)
	head := oneLine(h, 7)
	var s string
	switch {
	case g.Head == "":
		s = sprintf(mGitNoCommits, branch, changes)
	case g.Detached:
		s = sprintf(mGitDetached, head, changes)
	default:
		s = sprintf(mGitBranch, branch, head, changes)
	}
	if g.Error != "" {
		s += sprintf(mGitError, inline(firstLine(g.Error), itemChars))
	}
	return s + "."
}

// relPath shows p relative to dir when it lies inside it.
func relPath(p, dir string) string {
	if dir == "" || !filepath.IsAbs(p) {
		return p
	}
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return p
	}
	return r
}

// Bounds of the failure notice, in UTF-16 units of the escaped text: the
// reason's first line and the log's path. With the fixed text around them
// the notice stays far below Claude Code's 10,000 (RB-20).
const (
	noticeReasonChars = 300
	noticePathChars   = 1000
)

// FailureNotice is the two-line text injected when precompact wrote no
// snapshot for this compaction (f is its failure marker): when and why, and
// where the log is, or that no log could be written and where it was tried.
func FailureNotice(f snapshot.Failure, lang snapshot.Lang) string {
	p := printer(lang)
	when := p.Sprintf(mTimeUnknown)
	if !f.Time.IsZero() {
		when = f.Time.Format(TimeLayout)
	}
	reason := p.Sprintf(mReasonUnknown)
	if r := firstLine(f.Reason); r != "" {
		reason = inline(r, noticeReasonChars)
	}
	second := p.Sprintf(mFailNoLog)
	switch {
	case f.LogPath != "" && f.LogError != "":
		second = p.Sprintf(mFailLogUnwritten, oneLine(f.LogPath, noticePathChars), inline(firstLine(f.LogError), noticeReasonChars))
	case f.LogPath != "":
		second = p.Sprintf(mFailLog, oneLine(f.LogPath, noticePathChars))
	}
	return p.Sprintf(mFailNotice, when, reason) + "\n" + second
}

// FailureMessage is FailureNotice on one line, for the user: the
// systemMessage beside the notice the model gets (PO-16).
func FailureMessage(f snapshot.Failure, lang snapshot.Lang) string {
	first, second, _ := strings.Cut(FailureNotice(f, lang), "\n")
	if strings.HasSuffix(first, ".") {
		return first + " " + second
	}
	return first + ". " + second
}
