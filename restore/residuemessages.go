package restore

import "golang.org/x/text/feature/plural"

// Message ids of the residue (specs/residue.md RS-19 to RS-24): statements
// of fact, as the pointer's.
const (
	mRsHeader        = "rs-header"
	mRsSupersedes    = "rs-supersedes"
	mRsLastPrompt    = "rs-last-prompt"
	mRsFailedCode    = "rs-failed-code"
	mRsFailed        = "rs-failed"
	mRsErrLine       = "rs-err-line"
	mRsFiles         = "rs-files"
	mRsNextStep      = "rs-next-step"
	mRsPrompts       = "rs-prompts"
	mRsPromptAt      = "rs-prompt-at"
	mRsPrompt        = "rs-prompt"
	mRsCommands      = "rs-commands"
	mRsCmdOK         = "rs-cmd-ok"
	mRsCmdCode       = "rs-cmd-code"
	mRsCmdError      = "rs-cmd-error"
	mRsCmdRejected   = "rs-cmd-rejected"
	mRsCmdInterrupt  = "rs-cmd-interrupted"
	mRsCmdBackground = "rs-cmd-background"
	mRsCmdUnknown    = "rs-cmd-unknown"
	mRsCmdAt         = "rs-cmd-at"
	mRsTasks         = "rs-tasks"
	mRsChanges       = "rs-changes"
	mRsOmitted       = "rs-omitted"
	mRsCut           = "rs-cut"
)

// residueEntries are the residue's messages in English and Russian.
func residueEntries() []entry {
	return []entry{
		{mRsHeader,
			s("compact-guard: the summary of the compaction at %s leaves out these facts of snapshot %s; the summary, the pointer and the messages kept verbatim hold the rest."),
			s("compact-guard: в сводке сжатия в %s нет этих фактов снимка %s; остальное есть в сводке, в указателе и в сохранённых дословно сообщениях.")},
		{mRsSupersedes,
			s("This list replaces the one of %s, which the messages kept verbatim still hold."),
			s("Этот список заменяет список от %s, который остался в сохранённых дословно сообщениях.")},
		{mRsLastPrompt, s("The last typed prompt, verbatim:"), s("Последний введённый запрос, дословно:")},
		{mRsFailedCode, s("The last failed command (%s, exit code %s, %s):"), s("Последняя команда с ошибкой (%s, код %s, %s):")},
		{mRsFailed, s("The last failed command (%s, %s):"), s("Последняя команда с ошибкой (%s, %s):")},
		{mRsErrLine, s("Its error line:"), s("Строка её ошибки:")},
		{mRsFiles,
			plural.Selectf(1, "%d",
				"=1", "A file edited in this session that the summary does not name:",
				plural.Other, "%d files edited in this session that the summary does not name, most recent first:"),
			plural.Selectf(1, "%d",
				"=1", "Файл, изменённый в этой сессии, которого нет в сводке:",
				plural.One, "%d файл, изменённый в этой сессии, которого нет в сводке, последние первыми:",
				plural.Few, "%d файла, изменённых в этой сессии, которых нет в сводке, последние первыми:",
				plural.Other, "%d файлов, изменённых в этой сессии, которых нет в сводке, последние первыми:")},
		{mRsNextStep, s("The next step of handoff block %s, verbatim:"), s("Следующий шаг из блока передачи %s, дословно:")},
		{mRsPrompts,
			plural.Selectf(1, "%d",
				"=1", "An earlier typed prompt, verbatim:",
				plural.Other, "%d earlier typed prompts, oldest first, verbatim:"),
			plural.Selectf(1, "%d",
				"=1", "Более ранний введённый запрос, дословно:",
				plural.Few, "%d более ранних введённых запроса, от старых к новым, дословно:",
				plural.Other, "%d более ранних введённых запросов, от старых к новым, дословно:")},
		{mRsPromptAt, s("Prompt %d, %s:"), s("Запрос %d, %s:")},
		{mRsPrompt, s("Prompt %d:"), s("Запрос %d:")},
		{mRsCommands,
			plural.Selectf(1, "%d",
				"=1", "A command of the last %[2]d that the summary does not hold:",
				plural.Other, "%[1]d commands of the last %[2]d that the summary does not hold, oldest first:"),
			plural.Selectf(1, "%d",
				"=1", "Команда из последних %[2]d, которой нет в сводке:",
				plural.Few, "%[1]d команды из последних %[2]d, которых нет в сводке, от старых к новым:",
				plural.Other, "%[1]d команд из последних %[2]d, которых нет в сводке, от старых к новым:")},
		{mRsCmdOK, s("succeeded"), s("успешно")},
		{mRsCmdCode, s("exit code %s"), s("код %s")},
		{mRsCmdError, s("failed"), s("ошибка")},
		{mRsCmdRejected, s("rejected by the user"), s("отклонена пользователем")},
		{mRsCmdInterrupt, s("interrupted"), s("прервана")},
		{mRsCmdBackground, s("started in the background"), s("запущена в фоне")},
		{mRsCmdUnknown, s("outcome unknown"), s("исход неизвестен")},
		{mRsCmdAt, s("Command %d (%s, %s):"), s("Команда %d (%s, %s):")},
		{mRsTasks,
			plural.Selectf(1, "%d",
				"=1", "An open task that neither the summary nor the pointer holds:",
				plural.Other, "%d open tasks that neither the summary nor the pointer holds, in progress first:"),
			plural.Selectf(1, "%d",
				"=1", "Открытая задача, которой нет ни в сводке, ни в указателе:",
				plural.Few, "%d открытые задачи, которых нет ни в сводке, ни в указателе, сначала те, что в работе:",
				plural.Other, "%d открытых задач, которых нет ни в сводке, ни в указателе, сначала те, что в работе:")},
		{mRsChanges,
			plural.Selectf(1, "%d",
				"=1", "An uncommitted change the summary does not name (git status --short):",
				plural.Other, "%d uncommitted changes the summary does not name (git status --short):"),
			plural.Selectf(1, "%d",
				"=1", "Незафиксированное изменение, которого нет в сводке (git status --short):",
				plural.Few, "%d незафиксированных изменения, которых нет в сводке (git status --short):",
				plural.Other, "%d незафиксированных изменений, которых нет в сводке (git status --short):")},
		{mRsOmitted,
			plural.Selectf(1, "%d",
				"=1", "1 more fact the summary left out is in the snapshot.",
				plural.Other, "%d more facts the summary left out are in the snapshot."),
			plural.Selectf(1, "%d",
				"=1", "Ещё 1 факт, которого нет в сводке, есть в снимке.",
				plural.One, "Ещё %d факт, которого нет в сводке, есть в снимке.",
				plural.Few, "Ещё %d факта, которых нет в сводке, есть в снимке.",
				plural.Other, "Ещё %d фактов, которых нет в сводке, есть в снимке.")},
		{mRsCut,
			plural.Selectf(1, "%d",
				plural.One, "[…list cut at %d character]",
				plural.Other, "[…list cut at %d characters]"),
			plural.Selectf(1, "%d",
				plural.One, "[…список обрезан до %d символа]",
				plural.Other, "[…список обрезан до %d символов]")},
	}
}
