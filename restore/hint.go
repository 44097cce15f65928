package restore

import (
	"strconv"
	"strings"

	"golang.org/x/text/message"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// The summary hint (specs/precompact.md PC-27 to PC-30): one paragraph
// precompact prints for Claude Code's summarizer, which appends it to the
// summarization request as "Additional Instructions". After a manual
// /compact the user reads it under the command and the next model request
// holds it too, so it is written to read well to all three.
const (
	// HintMaxChars caps the hint in UTF-16 units, as Claude Code counts:
	// well under the 1,000 a short hint is meant to stay under, and far
	// below the 10,000 at which Claude Code 2.1.328 cuts hook output.
	HintMaxChars = 900
	// HintFiles is how many of the files in work the hint names at most.
	HintFiles = 3
	// HintCommands is how many of the last commands are looked at for the
	// failing one.
	HintCommands = 5
)

// Message ids of the hint. Statements of fact, like the pointer's: the
// summarizer reads them among the user's own instructions, and imperative
// "system" phrasing trips injection defences (PO-9).
const (
	mHintSaved    = "hint-saved"
	mHintPrompt   = "hint-prompt"
	mHintFiles    = "hint-files"
	mHintFilesOf  = "hint-files-of"
	mHintCmdCode  = "hint-cmd-code"
	mHintCmd      = "hint-cmd"
	mHintCmdErr   = "hint-cmd-err"
	mHintNext     = "hint-next"
	mHintKeep     = "hint-keep"
	mHintKeepPath = "hint-keep-path"
)

// hintEntries are the hint's messages in both languages; the catalog holds
// them beside the pointer's.
func hintEntries() []entry {
	return []entry{
		{mHintSaved,
			s("compact-guard saved a mechanical snapshot of this session before the compaction: %s."),
			s("compact-guard сохранил механический снимок этой сессии перед сжатием: %s.")},
		{mHintPrompt, s("The user's last request, verbatim: %s."), s("Последний запрос пользователя, дословно: %s.")},
		{mHintFiles, s("Files in work, newest first: %s."), s("Файлы в работе, последние первыми: %s.")},
		{mHintFilesOf, s("Files in work, newest first: %s (%d edited in this session)."),
			s("Файлы в работе, последние первыми: %s (всего изменено в этой сессии: %d).")},
		{mHintCmdCode, s("The last failing command (exit code %s): %s."), s("Последняя команда с ошибкой (код выхода %s): %s.")},
		{mHintCmd, s("The last failing command: %s."), s("Последняя команда с ошибкой: %s.")},
		{mHintCmdErr, s("Its error: %s."), s("Её ошибка: %s.")},
		{mHintNext, s("The handoff's next step: %s."), s("Следующий шаг из блока передачи: %s.")},
		{mHintKeep, s("These facts are best kept verbatim in the summary."), s("Эти факты лучше сохранить в сводке дословно.")},
		{mHintKeepPath, s("The path is best kept verbatim in the summary."), s("Этот путь лучше сохранить в сводке дословно.")},
	}
}

// HintInput is what the summary hint is made from.
type HintInput struct {
	// Record is the snapshot just saved, already redacted by precompact
	// (unless the user chose --no-redact, which the hint honours, PO-13).
	Record *snapshot.Record
	// MDPath is the absolute path of the snapshot's .md.
	MDPath string
	// ProjectDir is the folder files are shown relative to; empty means
	// the record's cwd.
	ProjectDir string
	Lang       snapshot.Lang
}

// hintLimits are what the hint shrinks, in order, until it fits: UTF-16
// units of quoted text per piece (0 leaves the piece out) and the number of
// files.
type hintLimits struct {
	prompt, files, file, command, errLine, next int
}

var hintSteps = []hintLimits{
	{300, HintFiles, 80, 160, 100, 200},
	{200, HintFiles, 60, 120, 80, 150},
	{120, 2, 60, 80, 0, 100},
	{60, 1, 40, 60, 0, 60},
	{0, 0, 0, 0, 0, 0},
}

// Hint renders the summary hint: statements of fact in the order of
// specs/precompact.md PC-28, every piece of transcript, repository or
// file-system text inside a quote it cannot close (PC-30), at most
// HintMaxChars UTF-16 units (PC-29). It is "" when there is no record or
// not even the snapshot's path fits: no hint is better than a broken one.
func Hint(in HintInput) string {
	if in.Record == nil || in.MDPath == "" {
		return ""
	}
	for _, l := range hintSteps {
		if text := renderHint(in, l); textcut.UTF16Len(text) <= HintMaxChars {
			if t := strings.TrimLeft(text, " \t\r\n"); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
				return "" // never JSON: Claude Code would parse it (PC-27)
			}
			return text
		}
	}
	return ""
}

func renderHint(in HintInput, l hintLimits) string {
	p := printer(in.Lang)
	rec := in.Record
	parts := []string{p.Sprintf(mHintSaved, inline(in.MDPath, 1<<16))}
	if n := len(rec.Prompts); n > 0 && l.prompt > 0 {
		parts = append(parts, p.Sprintf(mHintPrompt, inline(rec.Prompts[n-1].Text, l.prompt)))
	}
	if shown := min(len(rec.Files), l.files); shown > 0 {
		dir := in.ProjectDir
		if dir == "" {
			dir = rec.Cwd
		}
		quoted := make([]string, shown)
		for i, f := range rec.Files[:shown] {
			quoted[i] = inline(relPath(f.Path, dir), l.file)
		}
		if len(rec.Files) > shown {
			parts = append(parts, p.Sprintf(mHintFilesOf, strings.Join(quoted, ", "), len(rec.Files)))
		} else {
			parts = append(parts, p.Sprintf(mHintFiles, strings.Join(quoted, ", ")))
		}
	}
	if c := hintCommand(rec.Commands); c != nil && l.command > 0 {
		cmd := inline(c.Command, l.command)
		if c.ExitCode != nil {
			parts = append(parts, p.Sprintf(mHintCmdCode, strconv.Itoa(*c.ExitCode), cmd))
		} else {
			parts = append(parts, p.Sprintf(mHintCmd, cmd))
		}
		if first := firstLine(c.ErrorLine); first != "" && l.errLine > 0 {
			parts = append(parts, p.Sprintf(mHintCmdErr, inline(first, l.errLine)))
		}
	}
	if next := rec.Preparation.CurrentNextStep(); next != "" && l.next > 0 {
		parts = append(parts, p.Sprintf(mHintNext, inline(next, l.next)))
	}
	parts = append(parts, keepLine(p, len(parts) == 1))
	return strings.Join(parts, " ")
}

func keepLine(p *message.Printer, pathOnly bool) string {
	if pathOnly {
		return p.Sprintf(mHintKeepPath)
	}
	return p.Sprintf(mHintKeep)
}

// hintCommand is the failing command the hint names: the newest of the
// last HintCommands commands whose outcome is an error and that no later
// one of them ran again with success (such a failure was dealt with).
// Rejected, interrupted and background commands are not failures of the
// command (PO-6).
func hintCommand(cmds []transcript.Command) *transcript.Command {
	recent := cmds[max(0, len(cmds)-HintCommands):]
	for i := len(recent) - 1; i >= 0; i-- {
		if recent[i].Outcome == transcript.OutcomeError && !fixedLater(recent[i].Command, recent[i+1:]) {
			return &recent[i]
		}
	}
	return nil
}

func fixedLater(command string, later []transcript.Command) bool {
	for _, c := range later {
		if c.Outcome == transcript.OutcomeOK && c.Command == command {
			return true
		}
	}
	return false
}
