package snapshot

import (
	"slices"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// entry is one catalog message. The key is the English format string; en is
// set only where English needs plural forms, ru is always set.
type entry struct {
	key string
	en  catalog.Message
	ru  catalog.Message
}

func str(s string) catalog.Message { return catalog.String(s) }

// headingEntries are the snapshot Markdown's texts. The package keeps its
// own catalog (never message.DefaultCatalog, where other packages register
// theirs); TestCatalogComplete checks that every key render.go uses is here.
// They are made when the catalog is built, not at package initialisation,
// which every process pays (PF-16).
func headingEntries() []entry {
	return slices.Concat(summaryEntries(), sectionEntries(), notesEntries(), residueHeadingEntries())
}

// summaryEntries are the texts of the summary block (render_summary.go).
func summaryEntries() []entry {
	return []entry{
		{key: "compact-guard snapshot", ru: str("Снимок compact-guard")},
		{key: "Time: %s (all times UTC)", ru: str("Время: %s (все времена в UTC)")},
		{key: "Trigger: %s, %d earlier compactions in this session",
			en: plural.Selectf(2, "%d", "one", "Trigger: %s, %d earlier compaction in this session", "other", "Trigger: %s, %d earlier compactions in this session"),
			ru: str("Запуск сжатия: %s; сжатий ранее в этой сессии: %d")},
		{key: "manual", ru: str("вручную")},
		{key: "auto", ru: str("автоматически")},
		{key: "unknown", ru: str("неизвестно")},
		{key: "Time: %s", ru: str("Время: %s")},
		{key: "Working directory: %s", ru: str("Рабочий каталог: %s")},
		{key: "%s (from the transcript)", ru: str("%s (из транскрипта)")},
		{key: "%s (from the hook payload)", ru: str("%s (из данных хука)")},
		{key: "%s (the hook's own working directory)", ru: str("%s (рабочий каталог самого хука)")},
		{key: "Context: %s", ru: str("Контекст: %s")},
		{key: "Planned compaction: handoff block %s dated %s, in %s line %d",
			ru: str("Плановое сжатие: блок передачи %s от %s, в %s, строка %d")},
		{key: "Emergency compaction: automatic, %s; %s", ru: str("Аварийное сжатие: автоматическое, %s; %s")},
		{key: "Unplanned compaction: %s, %s; %s", ru: str("Внеплановое сжатие: %s, %s; %s")},
		{key: "context fill unknown", ru: str("заполнение контекста неизвестно")},
		{key: "context at %d%% of the window (%d of %d tokens)", ru: str("контекст заполнен на %d%% окна (%d из %d токенов)")},
		{key: "context at %d tokens", ru: str("в контексте %d токенов")},
		{key: "the newest handoff block (%s, line %d) is incomplete", ru: str("последний блок передачи (%s, строка %d) заполнен не полностью")},
		{key: "no handoff %s (the newest block is dated %s)", ru: str("передачи нет %s (последний блок датирован %s)")},
		{key: "no handoff %s", ru: str("передачи нет %s")},
		{key: "since the first threshold was crossed at %s", ru: str("с пересечения первого порога в %s")},
		{key: "since the compaction at %s", ru: str("с момента сжатия в %s")},
		{key: "since the previous snapshot at %s", ru: str("с момента предыдущего снимка в %s")},
		{key: "since the session started at %s", ru: str("с начала сессии в %s")},
		{key: "since %s", ru: str("с %s")},
		{key: "no handoff block of this session (blocks in the state file not its own: %d)", ru: str("блока передачи этой сессии нет (чужих блоков в файле состояния: %d)")},
		{key: "no handoff block", ru: str("блока передачи нет")},
		{key: "%d tokens",
			en: plural.Selectf(1, "%d", "one", "%d token", "other", "%d tokens"),
			ru: plural.Selectf(1, "%d", "one", "%d токен", "few", "%d токена", "other", "%d токенов")},
		{key: "%s (from the last compaction boundary)", ru: str("%s (по последней границе сжатия)")},
		{key: "%s, model %s", ru: str("%s, модель %s")},
		{key: "Custom instructions: %s", ru: str("Дополнительные инструкции: %s")},
		{key: "none", ru: str("нет")},
		{key: "below", ru: str("ниже")},
		{key: "Transcript not read whole (%d bytes): %s.",
			en: plural.Selectf(1, "%d", "one", "Transcript not read whole (%d byte): %s.", "other", "Transcript not read whole (%d bytes): %s."),
			ru: plural.Selectf(1, "%d", "one", "Транскрипт прочитан не целиком (%d байт): %s.", "few", "Транскрипт прочитан не целиком (%d байта): %s.", "other", "Транскрипт прочитан не целиком (%d байт): %s.")},
		{key: "Transcript not read whole: %s.", ru: str("Транскрипт прочитан не целиком: %s.")},
		{key: "part of the bytes before byte %d was neither read nor covered by an earlier snapshot", ru: str("часть байтов до байта %d не прочитана и не покрыта прежним снимком")},
		{key: "bytes %d to %d were not read, the newest having been read first", ru: str("байты с %d по %d не прочитаны: сначала прочитаны новейшие")},
		{key: "bytes %d to %d were not read either", ru: str("байты с %d по %d тоже не прочитаны")},
		{key: "nothing was read, so the snapshot holds no facts from it", ru: str("ничего не прочитано, фактов из него в снимке нет")},
		{key: "reading stopped at byte %d, so the newest facts are missing", ru: str("чтение остановлено на байте %d, новейших фактов в снимке нет")},
		{key: "reading stopped before the end, so the newest facts may be missing", ru: str("чтение остановлено до конца, новейших фактов в снимке может не быть")},
		{key: "Hook payload could not be parsed: %s; what it would have given is shown as unknown",
			ru: str("Не удалось разобрать данные хука: %s; то, что они дали бы, показано как неизвестное")},
		{key: "(empty)", ru: str("(пусто)")},
		{key: "None recorded.", ru: str("Ничего не записано.")},
		{key: "none recorded", ru: str("ничего не записано")},
		{key: "last %d of %d", ru: str("последние %d из %d")},
		{key: "%d", ru: str("%d")},
		{key: "and %d more below", ru: str("и ещё %d ниже")},
		{key: "[…cut at %d characters]",
			en: plural.Selectf(1, "%d", "one", "[…cut at %d character]", "other", "[…cut at %d characters]"),
			ru: plural.Selectf(1, "%d", "one", "[…обрезано до %d символа]", "other", "[…обрезано до %d символов]")},

		{key: "Files edited: %s", ru: str("Изменённые файлы: %s")},
		{key: "Files edited: %d (%d edits)",
			en: plural.Selectf(2, "%d", "one", "Files edited: %d (%d edit)", "other", "Files edited: %d (%d edits)"),
			ru: str("Изменено файлов: %d (правок: %d)")},
		{key: "%s — %d edits",
			en: plural.Selectf(2, "%d", "one", "%s — %d edit", "other", "%s — %d edits"),
			ru: plural.Selectf(2, "%d", "one", "%s — %d правка", "few", "%s — %d правки", "other", "%s — %d правок")},
		{key: "Commands: %s", ru: str("Команды: %s")},
		{key: "Failed commands: %d of the last %d", ru: str("Неудачных команд: %d из последних %d")},
		{key: "Failed commands: %d of %d", ru: str("Неудачных команд: %d из %d")},
		{key: "Git: %s", ru: str("Git: %s")},
		{key: "not recorded", ru: str("не записан")},
		{key: "not a repository", ru: str("не репозиторий")},
		{key: "Git: %s, %s, %s", ru: str("Git: %s, %s, %s")},
		{key: "branch %s", ru: str("ветка %s")},
		{key: "no commits yet", ru: str("коммитов ещё нет")},
		{key: "HEAD %s", ru: str("HEAD %s")},
		{key: "%d uncommitted changes",
			en: plural.Selectf(1, "%d", "one", "%d uncommitted change", "other", "%d uncommitted changes"),
			ru: plural.Selectf(1, "%d", "one", "%d незафиксированное изменение", "few", "%d незафиксированных изменения", "other", "%d незафиксированных изменений")},
		{key: "no uncommitted changes", ru: str("незафиксированных изменений нет")},
		{key: "uncommitted changes unknown", ru: str("незафиксированные изменения неизвестны")},
		{key: "%s; git reported %s", ru: str("%s; git сообщил: %s")},
		{key: "Last prompt: %s", ru: str("Последний запрос: %s")},
		{key: "Custom instructions:", ru: str("Дополнительные инструкции:")},
		{key: "Last prompt:", ru: str("Последний запрос:")},
		{key: "Last prompt, %s:", ru: str("Последний запрос, %s:")},
	}
}

// sectionEntries are the texts of the sections, prompts to git
// (render_sections.go).
func sectionEntries() []entry {
	return []entry{
		{key: "Prompts, newest last (%s)", ru: str("Запросы, новые внизу (%s)")},
		{key: "Prompt %d of %d", ru: str("Запрос %d из %d")},
		{key: "Taken from the transcript's last-prompt entry: the prompt itself was not written yet.",
			ru: str("Взято из записи last-prompt транскрипта: сам запрос ещё не был записан.")},

		{key: "Files edited, most recent first (%s)", ru: str("Изменённые файлы, последние вверху (%s)")},
		{key: "%s — %d edits, last %s",
			en: plural.Selectf(2, "%d", "one", "%s — %d edit, last %s", "other", "%s — %d edits, last %s"),
			ru: plural.Selectf(2, "%d", "one", "%s — %d правка, последняя: %s", "few", "%s — %d правки, последняя: %s", "other", "%s — %d правок, последняя: %s")},
		{key: "%s at %s", ru: str("%s в %s")},

		{key: "Commands, newest last (%s)", ru: str("Команды, новые внизу (%s)")},
		{key: "exit %d", ru: str("код выхода %d")},
		{key: "rejected", ru: str("отклонено")},
		{key: "interrupted", ru: str("прервано")},
		{key: "background", ru: str("в фоне")},
		{key: "Command %d of %d", ru: str("Команда %d из %d")},
		{key: "ok", ru: str("успешно")},
		{key: "FAILED, exit code %d", ru: str("ОШИБКА, код выхода %d")},
		{key: "FAILED", ru: str("ОШИБКА")},
		{key: "REJECTED by the user", ru: str("ОТКЛОНЕНО пользователем")},
		{key: "INTERRUPTED", ru: str("ПРЕРВАНО")},
		{key: "started in the background", ru: str("запущено в фоне")},
		{key: "outcome unknown", ru: str("результат неизвестен")},
		{key: "Tool: %s", ru: str("Инструмент: %s")},
		{key: "Description: %s", ru: str("Описание: %s")},
		{key: "Error: %s", ru: str("Ошибка: %s")},

		{key: "Tasks", ru: str("Задачи")},
		{key: "Todo list (TodoWrite)", ru: str("Список дел (TodoWrite)")},
		{key: "Tasks (TaskCreate, TaskUpdate)", ru: str("Задачи (TaskCreate, TaskUpdate)")},
		{key: "pending", ru: str("ожидает")},
		{key: "in progress", ru: str("в работе")},
		{key: "completed", ru: str("выполнено")},
		{key: "deleted", ru: str("удалено")},
		{key: "(id %s)", ru: str("(id %s)")},

		{key: "Failures and rejections, newest last (%s)", ru: str("Сбои и отказы, новые внизу (%s)")},
		{key: "failed", ru: str("завершился ошибкой")},
		{key: "rejected by the user", ru: str("отклонён пользователем")},
		{key: "Input: %s", ru: str("Ввод: %s")},

		{key: "Plan (last approved)", ru: str("План (последний одобренный)")},
		{key: "Approved at %s.", ru: str("Одобрен в %s.")},

		{key: "Git", ru: str("Git")},
		{key: "Not recorded.", ru: str("Не записано.")},
		{key: "Not a git repository.", ru: str("Не git-репозиторий.")},
		{key: "Repository: %s", ru: str("Репозиторий: %s")},
		{key: "Branch: %s", ru: str("Ветка: %s")},
		{key: "detached HEAD", ru: str("отсоединённый HEAD")},
		{key: "HEAD: %s", ru: str("HEAD: %s")},
		{key: "Uncommitted changes: %d", ru: str("Незафиксированных изменений: %d")},
		{key: "Uncommitted changes: %s", ru: str("Незафиксированных изменений: %s")},
		{key: "and %d more", ru: str("и ещё %d")},
		{key: "Uncommitted changes (%d of %d)", ru: str("Незафиксированные изменения (%d из %d)")},
		{key: "Uncommitted changes (%d)", ru: str("Незафиксированные изменения (%d)")},
		{key: "Read with: %s", ru: str("Прочитано через: %s")},
		{key: "Branch the transcript recorded: %s", ru: str("Ветка по транскрипту: %s")},
	}
}

// notesEntries are the texts of the notes (render_notes.go).
func notesEntries() []entry {
	return []entry{
		{key: "Notes", ru: str("Примечания")},
		{key: "Transcript: %s", ru: str("Транскрипт: %s")},
		{key: "Read from byte %d to byte %d of %d.", ru: str("Прочитано с байта %d по байт %d из %d.")},
		{key: "Read from byte %d of %d; where reading stopped is not recorded.", ru: str("Прочитано с байта %d из %d; где чтение остановилось, не записано.")},
		{key: "The search for the last compaction boundary was cut short by the deadline: where the last segment starts is unknown, and the count of earlier compactions is a lower bound.",
			ru: str("Поиск последней границы сжатия прерван по сроку: где начинается последний сегмент, неизвестно, а число прежних сжатий — нижняя оценка.")},
		{key: "Bytes %d to %d were not read: the deadline left time to read the newest bytes first.",
			ru: str("Байты с %d по %d не прочитаны: до срока хватило времени прочитать сначала новейшие байты.")},
		{key: "Reading stopped at byte %d of %d: no later snapshot continues from this one.",
			ru: str("Чтение остановлено на байте %d из %d: следующие снимки не продолжают цепочку от этого.")},
		{key: "The last compaction boundary starts at byte %d.", ru: str("Последняя граница сжатия начинается с байта %d.")},
		{key: "The transcript holds no compaction boundary.", ru: str("В транскрипте нет границы сжатия.")},
		{key: "The part before byte %d is covered by the previous snapshot %s.", ru: str("Часть до байта %d покрыта предыдущим снимком %s.")},
		{key: "Coverage is partial: part of the transcript before byte %d was neither read nor covered by a previous snapshot.",
			ru: str("Покрытие неполное: часть транскрипта до байта %d не прочитана и не покрыта предыдущим снимком.")},
		{key: "The transcript was not read to its end: no later snapshot continues from this one.",
			ru: str("Транскрипт прочитан не до конца: следующие снимки не продолжают цепочку от этого.")},
		{key: "Lines: %d read, %d decoded.", ru: str("Строк: прочитано %d, разобрано %d.")},
		{key: "Context tokens: input %d, cache creation %d, cache read %d.", ru: str("Токены контекста: вход %d, запись в кэш %d, чтение из кэша %d.")},
		{key: "Lines skipped as too long: %d.", ru: str("Пропущено слишком длинных строк: %d.")},
		{key: "Corrupt lines skipped: %d.", ru: str("Пропущено повреждённых строк: %d.")},
		{key: "The last line was torn (still being written) and was skipped.", ru: str("Последняя строка оборвана (ещё записывалась) и пропущена.")},
		{key: "State file: %s, modified %s.", ru: str("Файл состояния: %s, изменён %s.")},
		{key: "State file: %s.", ru: str("Файл состояния: %s.")},
		{key: "No %s found.", ru: str("%s не найден.")},
		{key: "Looked in %s", ru: str("Искали в %s")},
		{key: "Not looked in %s and the folders after it: its file system did not answer by the deadline",
			ru: str("Не искали в %s и следующих папках: его файловая система не ответила до срока")},
		{key: "Secrets redacted: %d.", ru: str("Скрыто секретов: %d.")},
		{key: "Warnings:", ru: str("Предупреждения:")},
		{key: "Hook event: %s.", ru: str("Событие хука: %s.")},
		{key: "Prompt id: %s.", ru: str("Id запроса: %s.")},
		{key: "Compaction confirmed complete at %s (summary of %d characters).",
			en: plural.Selectf(2, "%d", "one", "Compaction confirmed complete at %s (summary of %d character).", "other", "Compaction confirmed complete at %s (summary of %d characters)."),
			ru: plural.Selectf(2, "%d", "one", "Сжатие подтверждено: завершено в %s (сводка из %d символа).", "other", "Сжатие подтверждено: завершено в %s (сводка из %d символов).")},
		{key: "Compaction not confirmed (no PostCompact record).", ru: str("Сжатие не подтверждено (нет записи PostCompact).")},
		{key: "Record: %s, schema %d.", ru: str("Запись: %s, схема %d.")},
		{key: "Everything the record holds: %s.", ru: str("Всё, что есть в записи: %s.")},
	}
}

var headingCatalog = sync.OnceValue(func() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, e := range headingEntries() {
		if e.en != nil {
			mustSet(b.Set(language.English, e.key, e.en))
		}
		mustSet(b.Set(language.Russian, e.key, e.ru))
	}
	return b
})

func mustSet(err error) {
	if err != nil {
		panic("snapshot: bad message catalog entry: " + err.Error())
	}
}

// newPrinter formats the snapshot's texts in lang from this package's own
// catalog.
func newPrinter(lang Lang) *message.Printer {
	return message.NewPrinter(lang.Tag(), message.Catalog(headingCatalog()))
}
