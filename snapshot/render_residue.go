package snapshot

import (
	"golang.org/x/text/feature/plural"
)

// RenderMarkdownWithResidue is RenderMarkdown (RenderFullMarkdown when
// full) with, before the notes, what the compaction's summary kept of the
// record's facts and what the residue gave back (specs/residue.md RS-25):
// show prints it when the snapshot has a residue record.
func RenderMarkdownWithResidue(r *Record, lang Lang, full bool, res *Residue) []byte {
	return renderWith(r, lang, full, res)
}

// residueKinds are the kinds of fact in the order show lists them.
func residueKinds() []string {
	return []string{"prompt", "file", "command", "failure", "task", "change", "next_step"}
}

// kindLabel names a kind of fact for the section.
func (w *mdWriter) kindLabel(kind string) string {
	switch kind {
	case "prompt":
		return w.t("Prompts")
	case "file":
		return w.t("Files")
	case "command":
		return w.t("Commands")
	case "failure":
		return w.t("Error lines of failed commands")
	case "task":
		return w.t("Open tasks")
	case "change":
		return w.t("Uncommitted changes")
	}
	return w.t("Next step")
}

// sourceLabel names where the model holds a fact.
func (w *mdWriter) sourceLabel(source string) string {
	switch source {
	case "summary":
		return w.t("summary")
	case "pointer":
		return w.t("pointer")
	}
	return w.t("tail")
}

// residue writes the section: per kind, how many facts the summary, the
// pointer and the kept tail held, how many were dropped and given back;
// the dropped facts not given back; and the hand-over (RS-25). In --full,
// every fact with its verdict.
func (w *mdWriter) residue(res *Residue) {
	w.heading(2, w.t("What the compaction's summary kept"))
	source := w.t("compared with the summary PostCompact received")
	if res.Source == ResidueFromTranscript {
		source = w.t("compared with the summary the transcript holds")
	}
	w.item(0, w.t("%s, %d characters, at %s", source, res.SummaryChars, w.when(res.At)))
	_, counts := res.CountsBy()
	for _, kind := range residueKinds() {
		c, ok := counts[kind]
		if !ok {
			continue
		}
		w.item(0, w.t("%s: %d of %d kept (summary %d, pointer %d, kept messages %d), %d dropped, %d given back",
			w.kindLabel(kind), c.Facts-c.Dropped, c.Facts, c.Summary, c.Pointer, c.Tail, c.Dropped, c.Given))
	}
	var lost []string
	for _, f := range res.Facts {
		if f.Kept == "" && !f.Given {
			lost = append(lost, w.oneLine(f.Text, oneLineChars))
		}
	}
	if res.Given != nil && len(lost) > 0 {
		w.item(0, w.t("Dropped and not given back (%d):", len(lost)))
		for _, l := range lost {
			w.item(1, l)
		}
	}
	switch g := res.Given; {
	case g == nil:
		w.item(0, w.t("Residue: not handed over yet (the next prompt or tool call of the session hands it over)"))
	case g.Facts == 0 && counts[""].Dropped > 0:
		w.item(0, w.t("Residue: nothing given back (%s)", g.Event))
	case g.Facts == 0:
		// Nothing given back means the model holds every fact: the
		// summary's share is on the lines above, so this line says where
		// the rest is rather than "nothing dropped" under "0 of 1 kept".
		w.item(0, w.t("Residue: none needed, the summary, the pointer and the kept messages hold every fact (%s)", g.Event))
	default:
		line := w.t("Residue: %d facts given back with %s at %s, %d characters", g.Facts, g.Event, w.when(g.At), g.Chars)
		if g.Omitted > 0 {
			line += w.t("; %d did not fit", g.Omitted)
		}
		if !g.Supersedes.IsZero() {
			line += w.t("; it replaces the list of %s", w.when(g.Supersedes))
		}
		w.item(0, line)
	}
	if w.full {
		w.blank()
		for _, f := range res.Facts {
			verdict := w.t("dropped")
			switch {
			case f.Kept != "":
				verdict = w.t("kept by the %s (%s)", w.sourceLabel(f.Kept), w.code(f.Rule))
			case f.Given:
				verdict = w.t("dropped, given back")
			}
			w.item(0, w.t("%s %s: %s", w.code(f.Key), verdict, w.oneLine(f.Text, oneLineChars)))
		}
	}
	w.item(0, w.t("Record: %s", inlineCode(res.Snapshot+ResidueSuffix)))
	w.blank()
}

// residueHeadingEntries are the section's texts.
func residueHeadingEntries() []entry {
	return []entry{
		{key: "What the compaction's summary kept", ru: str("Что сохранила сводка сжатия")},
		{key: "compared with the summary PostCompact received", ru: str("сравнение со сводкой, полученной PostCompact")},
		{key: "compared with the summary the transcript holds", ru: str("сравнение со сводкой из транскрипта")},
		{key: "%s, %d characters, at %s", ru: str("%s, символов: %d, в %s")},
		{key: "Prompts", ru: str("Запросы")},
		{key: "Files", ru: str("Файлы")},
		{key: "Commands", ru: str("Команды")},
		{key: "Error lines of failed commands", ru: str("Строки ошибок команд")},
		{key: "Open tasks", ru: str("Открытые задачи")},
		{key: "Uncommitted changes", ru: str("Незафиксированные изменения")},
		{key: "Next step", ru: str("Следующий шаг")},
		{key: "%s: %d of %d kept (summary %d, pointer %d, kept messages %d), %d dropped, %d given back",
			ru: str("%s: сохранено %d из %d (сводка %d, указатель %d, сохранённые сообщения %d), потеряно %d, возвращено %d")},
		{key: "Dropped and not given back (%d):", ru: str("Потеряно и не возвращено (%d):")},
		{key: "Residue: not handed over yet (the next prompt or tool call of the session hands it over)",
			ru: str("Остаток: ещё не передан (его передаст следующий запрос или вызов инструмента сессии)")},
		{key: "Residue: nothing given back (%s)", ru: str("Остаток: ничего не возвращено (%s)")},
		{key: "Residue: none needed, the summary, the pointer and the kept messages hold every fact (%s)",
			ru: str("Остаток: не нужен, сводка, указатель и сохранённые сообщения содержат все факты (%s)")},
		{key: "Residue: %d facts given back with %s at %s, %d characters",
			en: plural.Selectf(1, "%d", "one", "Residue: %d fact given back with %s at %s, %d characters", "other", "Residue: %d facts given back with %s at %s, %d characters"),
			ru: str("Остаток: возвращено фактов: %d, с %s в %s, символов: %d")},
		{key: "; %d did not fit", ru: str("; не поместилось: %d")},
		{key: "; it replaces the list of %s", ru: str("; заменяет список от %s")},
		{key: "dropped", ru: str("потерян")},
		{key: "dropped, given back", ru: str("потерян, возвращён")},
		{key: "kept by the %s (%s)", ru: str("сохранён: %s (%s)")},
		{key: "summary", ru: str("сводка")},
		{key: "pointer", ru: str("указатель")},
		{key: "tail", ru: str("сохранённые сообщения")},
		{key: "%s %s: %s", ru: str("%s %s: %s")},
		{key: "Record: %s", ru: str("Запись: %s")},
	}
}
