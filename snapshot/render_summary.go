package snapshot

// The Markdown's summary block, the lines a reader sees first; split from
// render.go by topic.

import (
	"strings"

	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

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
