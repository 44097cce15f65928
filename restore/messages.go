package restore

import (
	"slices"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"

	"github.com/compact-guard/compact-guard/snapshot"
)

// Message ids. The texts are statements of fact: the pointer reaches the
// model as a system reminder, and imperative "system" phrasing trips
// prompt-injection defences.
const (
	mCompacted        = "compacted"
	mTriggerManual    = "trigger-manual"
	mTriggerAuto      = "trigger-auto"
	mTriggerUnknown   = "trigger-unknown"
	mTimeUnknown      = "time-unknown"
	mPromptsHeader    = "prompts-header"
	mPromptN          = "prompt-n"
	mPromptCut        = "prompt-cut"
	mNoPrompts        = "no-prompts"
	mFilesHeader      = "files-header"
	mNoFiles          = "no-files"
	mMore             = "more"
	mMoreFolders      = "more-folders"
	mTasksHeader      = "tasks-header"
	mInProgress       = "status-in-progress"
	mPending          = "status-pending"
	mGitNone          = "git-none"
	mGitNoRepo        = "git-no-repo"
	mGitFailed        = "git-failed"
	mGitBranch        = "git-branch"
	mGitDetached      = "git-detached"
	mGitError         = "git-error"
	mGitChanges       = "git-changes"
	mGitNoCommits     = "git-no-commits"
	mUnknown          = "branch-unknown"
	mCmdFailedCode    = "cmd-failed-code"
	mCmdFailed        = "cmd-failed"
	mCmdErrLine       = "cmd-err-line"
	mStateFound       = "state-found"
	mStateMissing     = "state-missing"
	mStateMissingNone = "state-missing-nowhere"
	mAuthority        = "authority"
	mPointerCut       = "pointer-cut"
	mFailNotice       = "fail-notice"
	mFailLog          = "fail-log"
	mFailNoLog        = "fail-no-log"
	mFailLogUnwritten = "fail-log-not-written"
	mReasonUnknown    = "reason-unknown"
	mGaps             = "gaps"
	mGapsNoSize       = "gaps-no-size"
	mGapBefore        = "gap-before"
	mGapBetween       = "gap-between"
	mGapBetweenMore   = "gap-between-more"
	mGapAfter         = "gap-after"
	mGapNothing       = "gap-nothing"
	mGapEnd           = "gap-end"
	mNoPromptsPart    = "no-prompts-part"
	mNoFilesPart      = "no-files-part"
	mStateUnanswered  = "state-unanswered"

	// watch (specs/watch.md WA-6, WA-10, WA-11) and the pointer's line on
	// how the compaction was prepared (PO-15)
	mWatchFill          = "watch-fill"
	mWatchCrossed       = "watch-crossed"
	mWatchCrossing      = "watch-crossing"
	mWatchAuto          = "watch-auto"
	mWatchAutoOff       = "watch-auto-off"
	mHandoffCurrent     = "handoff-current"
	mHandoffOlder       = "handoff-older"
	mHandoffIncomplete  = "handoff-incomplete"
	mHandoffNoBlock     = "handoff-no-block"
	mHandoffNoFile      = "handoff-no-file"
	mWatchHow           = "watch-how"
	mStopHeld           = "stop-held"
	mLate               = "late"
	mLateNoRecord       = "late-no-record"
	mLateResumed        = "late-resumed"
	mLateOldClient      = "late-old-client"
	mLateNotDelivered   = "late-not-delivered"
	mPlanned            = "planned"
	mEmergency          = "emergency"
	mUnplanned          = "unplanned"
	mAtPercent          = "at-percent"
	mAtTokens           = "at-tokens"
	mFillUnknown        = "fill-unknown"
	mNoHandoffSince     = "no-handoff-since"
	mNoHandoffOlder     = "no-handoff-older"
	mHandoffBlockBroken = "handoff-block-incomplete"
	mNoHandoffBlock     = "no-handoff-block"
)

type entry struct {
	id     string
	en, ru catalog.Message
}

func s(text string) catalog.Message { return catalog.String(text) }

// entries is the catalog: every id in English and Russian. Russian plural
// forms follow CLDR (one: 1, 21…; few: 2–4, 22…; many: 5–20, 25…). They are
// made when the catalog is built, not at package initialisation (PF-16).
// Each part of the pointer has its own function, so that no table grows
// past what a reader takes in at once.
func entries() []entry {
	return slices.Concat(headEntries(), gitStateEntries(), gapEntries(), watchEntries(),
		residueEntries(), hintEntries(), ownEntries())
}

// headEntries are the pointer's first line and its prompts, files and tasks.
func headEntries() []entry {
	return []entry{
		{mCompacted,
			s("The context was compacted (%s, %s); a mechanical snapshot taken just before is at %s"),
			s("Контекст был сжат (%s, %s); механический снимок, сделанный непосредственно перед этим, лежит в %s")},
		{mTriggerManual, s("manual"), s("вручную")},
		{mTriggerAuto, s("automatic"), s("автоматически")},
		{mTriggerUnknown, s("trigger unknown"), s("причина неизвестна")},
		{mTimeUnknown, s("time unknown"), s("время неизвестно")},
		{mPromptsHeader,
			plural.Selectf(1, "%d",
				"=1", "The last typed prompt, verbatim:",
				plural.Other, "The last %d typed prompts, oldest first, verbatim:"),
			plural.Selectf(1, "%d",
				"=1", "Последний введённый запрос, дословно:",
				plural.Few, "Последние %d введённых запроса, от старых к новым, дословно:",
				plural.Other, "Последние %d введённых запросов, от старых к новым, дословно:")},
		{mPromptN, s("Prompt %d:"), s("Запрос %d:")},
		{mPromptCut,
			plural.Selectf(1, "%d",
				plural.One, "[…cut at %d character]",
				plural.Other, "[…cut at %d characters]"),
			plural.Selectf(1, "%d",
				plural.One, "[…обрезано до %d символа]",
				plural.Other, "[…обрезано до %d символов]")},
		{mNoPrompts, s("No typed prompts were found in the transcript."), s("Введённых запросов в транскрипте не найдено.")},
		{mFilesHeader,
			plural.Selectf(1, "%d",
				"=1", "1 file was edited in this session:",
				plural.Other, "%d files were edited in this session, most recent first:"),
			plural.Selectf(1, "%d",
				"=1", "В этой сессии изменён 1 файл:",
				plural.One, "В этой сессии изменён %d файл, последние первыми:",
				plural.Few, "В этой сессии изменены %d файла, последние первыми:",
				plural.Other, "В этой сессии изменено %d файлов, последние первыми:")},
		{mNoFiles, s("No file edits were recorded in this session."), s("Изменений файлов в этой сессии не записано.")},
		{mMore, s("- and %d more in the snapshot"), s("- и ещё %d в снимке")},
		{mMoreFolders, s("- and %d more"), s("- и ещё %d")},
		{mTasksHeader,
			plural.Selectf(1, "%d",
				"=1", "1 task is open:",
				plural.Other, "%d tasks are open, in progress first:"),
			plural.Selectf(1, "%d",
				"=1", "Открыта 1 задача:",
				plural.One, "Открыта %d задача, сначала те, что в работе:",
				plural.Few, "Открыты %d задачи, сначала те, что в работе:",
				plural.Other, "Открыто %d задач, сначала те, что в работе:")},
		{mInProgress, s("in progress"), s("в работе")},
		{mPending, s("pending"), s("ожидает")},
	}
}

// gitStateEntries are the pointer's git line, the last failed command, the
// state file, the authority line and the cut marker.
func gitStateEntries() []entry {
	return []entry{
		{mGitNone, s("Git: not recorded."), s("Git: не записано.")},
		{mGitNoRepo, s("Git: the working directory is not in a git repository."), s("Git: рабочая папка не в git-репозитории.")},
		{mGitFailed, s("Git: the state could not be obtained (%s)."), s("Git: состояние не получено (%s).")},
		{mGitBranch, s("Git: branch %s, HEAD %s, %s"), s("Git: ветка %s, HEAD %s, %s")},
		{mGitDetached, s("Git: detached HEAD %s, %s"), s("Git: HEAD отсоединён на %s, %s")},
		{mGitError, s("; git reported: %s"), s("; git сообщил: %s")},
		{mGitChanges,
			plural.Selectf(1, "%d",
				"=0", "no uncommitted changes",
				plural.One, "%d uncommitted change",
				plural.Other, "%d uncommitted changes"),
			plural.Selectf(1, "%d",
				"=0", "незафиксированных изменений нет",
				plural.One, "%d незафиксированное изменение",
				plural.Few, "%d незафиксированных изменения",
				plural.Other, "%d незафиксированных изменений")},
		{mGitNoCommits, s("Git: branch %s, no commits yet, %s"), s("Git: ветка %s, коммитов ещё нет, %s")},
		{mUnknown, s("unknown"), s("неизвестна")},
		{mCmdFailedCode, s("The last command (%s) failed with exit code %s:"), s("Последняя команда (%s) завершилась с кодом %s:")},
		{mCmdFailed, s("The last command (%s) failed:"), s("Последняя команда (%s) завершилась ошибкой:")},
		{mCmdErrLine, s("Its error line:"), s("Строка ошибки:")},
		{mStateFound, s("State file: %s"), s("Файл состояния: %s")},
		{mStateMissing, s("No %s was found; looked in:"), s("%s не найден; искали в:")},
		{mStateMissingNone, s("No %s was found."), s("%s не найден.")},
		{mAuthority,
			s("The snapshot holds what the transcript and git recorded; the files on disk are the authority."),
			s("В снимке — то, что записали транскрипт и git; источник истины — файлы на диске.")},
		{mPointerCut,
			plural.Selectf(1, "%d",
				plural.One, "[…pointer cut at %d character]",
				plural.Other, "[…pointer cut at %d characters]"),
			plural.Selectf(1, "%d",
				plural.One, "[…указатель обрезан до %d символа]",
				plural.Other, "[…указатель обрезан до %d символов]")},
		{mStateUnanswered,
			s("- not looked in %s and the folders after it: its file system did not answer in time"),
			s("- не искали в %s и следующих папках: его файловая система не ответила вовремя")},
	}
}

// gapEntries are the failure notice (no snapshot written) and the lines
// saying which parts of the transcript were not read.
func gapEntries() []entry {
	return []entry{
		{mFailNotice,
			s("compact-guard wrote no snapshot before this compaction (%s): %s"),
			s("compact-guard не записал снимок перед этим сжатием (%s): %s")},
		{mFailLog, s("The compact-guard log is at %s"), s("Журнал compact-guard: %s")},
		{mFailNoLog, s("No compact-guard log file is known."), s("Файл журнала compact-guard неизвестен.")},
		{mFailLogUnwritten, s("No compact-guard log could be written (tried %s: %s)."), s("Журнал compact-guard записать не удалось (путь %s: %s).")},
		{mReasonUnknown, s("reason unknown"), s("причина неизвестна")},
		{mGaps,
			plural.Selectf(1, "%d",
				plural.One, "The transcript (%d byte) was not read whole: %s.",
				plural.Other, "The transcript (%d bytes) was not read whole: %s."),
			plural.Selectf(1, "%d",
				plural.One, "Транскрипт (%d байт) обработан не целиком: %s.",
				plural.Few, "Транскрипт (%d байта) обработан не целиком: %s.",
				plural.Other, "Транскрипт (%d байт) обработан не целиком: %s.")},
		{mGapsNoSize, s("The transcript was not read whole: %s."), s("Транскрипт обработан не целиком: %s.")},
		{mGapBefore,
			s("some bytes before byte %d were neither read nor covered by an earlier snapshot"),
			s("часть байтов до байта %d не обработана и не покрыта прежним снимком")},
		{mGapBetween,
			s("bytes %d to %d were not read, the newest having been read first"),
			s("байты с %d по %d пропущены, сначала обработаны новейшие")},
		{mGapBetweenMore, s("bytes %d to %d were not read either"), s("байты с %d по %d тоже пропущены")},
		{mGapAfter,
			s("reading stopped at byte %d, so the newest facts are missing from the snapshot"),
			s("обработка остановлена на байте %d, новейших фактов в снимке нет")},
		{mGapNothing,
			s("nothing was read, so the snapshot holds no facts from it"),
			s("ничего не обработано, фактов из него в снимке нет")},
		{mGapEnd,
			s("reading stopped before the end, so the newest facts may be missing from the snapshot"),
			s("обработка остановлена до конца, новейших фактов в снимке может не быть")},
		{mNoPromptsPart,
			s("No typed prompts were found in the part of the transcript that was read."),
			s("В обработанной части транскрипта введённых запросов не найдено.")},
		{mNoFilesPart,
			s("No file edits were recorded in the part of the transcript that was read."),
			s("В обработанной части транскрипта изменений файлов не записано.")},
	}
}

// watchEntries are watch's fill and threshold lines (WA-6, WA-10, WA-11),
// the handoff's state, the late pointer's reasons and the line on how the
// compaction was prepared (PO-15).
func watchEntries() []entry {
	return []entry{
		{mWatchFill,
			s("compact-guard: the context holds %d tokens, %d%% of the %d-token window (%s)."),
			s("compact-guard: контекст заполнен на %[2]d%% окна (токенов: %[1]d из %[3]d; %[4]s).")},
		{mWatchCrossed, s("Thresholds crossed: %s."), s("Пройдены пороги: %s.")},
		{mWatchCrossing, s("%d at %s"), s("%d в %s")},
		{mWatchAuto, s("Automatic compaction comes at about %d tokens."), s("Автоматическое сжатие наступит около отметки %d.")},
		{mWatchAutoOff, s("Automatic compaction is off."), s("Автоматическое сжатие отключено.")},
		{mHandoffCurrent, s("Handoff: current, %s line %d, dated %s."), s("Передача: актуальная, %s, строка %d, от %s.")},
		{mHandoffOlder, s("Handoff: none %s; the newest block in %s is dated %s."),
			s("Передача: её нет %s; последний блок в %s датирован %s.")},
		{mHandoffIncomplete, s("Handoff: the newest block in %s (line %d) is incomplete."),
			s("Передача: последний блок в %s (строка %d) заполнен не полностью.")},
		{mHandoffNoBlock, s("Handoff: no block in %s."), s("Передача: блоков в %s нет.")},
		{mHandoffNoFile, s("Handoff: no %s in the project."), s("Передача: %s в проекте нет.")},
		{mWatchHow,
			s("A planned compaction is a handoff block in the state file (template: `compact-guard handoff --template`; `compact-guard handoff --check` exits 0 once it is complete), then /compact from the user."),
			s("Плановое сжатие — это блок передачи в файле состояния (шаблон: `compact-guard handoff --template`; `compact-guard handoff --check` завершается с кодом 0, когда блок полон), затем /compact от пользователя.")},
		{mStopHeld,
			s("compact-guard holds this stop once: the context is past the last threshold (%d) and no handoff is current. The next stop passes, with a handoff or without."),
			s("compact-guard задерживает эту остановку один раз: контекст прошёл последний порог (%d), актуальной передачи нет. Следующая остановка пройдёт — с передачей или без.")},
		{mLate, s("compact-guard: this pointer comes with the first prompt after the compaction, because %s."),
			s("compact-guard: этот указатель приходит с первым запросом после сжатия, потому что %s.")},
		{mLateNoRecord, s("the client recorded no SessionStart context after the compaction"),
			s("клиент не записал контекст SessionStart после сжатия")},
		{mLateResumed, s("the session went on in a new client process (resumed at %s), and client %s keeps no SessionStart context across that"),
			s("сессия продолжилась в новом процессе клиента (возобновлена в %s), а клиент %s не переносит туда контекст SessionStart")},
		{mLateOldClient, s("client %s passes no SessionStart context to the model"),
			s("клиент %s не передаёт модели контекст SessionStart")},
		{mLateNotDelivered, s("no pointer was handed out at SessionStart"),
			s("при SessionStart указатель не был выдан")},
		{mPlanned, s("This compaction was planned: handoff block %s in %s, line %d, dated %s."),
			s("Это сжатие плановое: блок передачи %s в %s, строка %d, от %s.")},
		{mEmergency, s("This compaction was an emergency: automatic, %s, %s."), s("Это сжатие аварийное: автоматическое, %s, %s.")},
		{mUnplanned, s("This compaction was not planned: %s, %s, %s."), s("Это сжатие внеплановое: %s, %s, %s.")},
		{mAtPercent, s("context at %d%% of the window (%d of %d tokens)"), s("контекст заполнен на %d%% окна (%d из %d токенов)")},
		{mAtTokens, s("context at %d tokens"), s("в контексте токенов: %d")},
		{mFillUnknown, s("context fill unknown"), s("заполнение контекста неизвестно")},
		{mNoHandoffSince, s("no handoff %s"), s("передачи нет %s")},
		{mNoHandoffOlder, s("no handoff %s (the newest block is dated %s)"), s("передачи нет %s (последний блок датирован %s)")},
		{mHandoffBlockBroken, s("the newest handoff block (line %d) is incomplete"), s("последний блок передачи (строка %d) заполнен не полностью")},
		{mNoHandoffBlock, s("no handoff block"), s("блока передачи нет")},
	}
}

// cat is the package's own catalog; message.DefaultCatalog is left to
// others (snapshot registers its headings there). It is built on first use:
// package initialisation is paid by every process, and only postcompact
// prints a pointer (PF-16).
var cat = sync.OnceValue(func() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for _, e := range append(entries(), kindEntries()...) {
		if err := b.Set(language.English, e.id, e.en); err != nil {
			panic(err)
		}
		if err := b.Set(language.Russian, e.id, e.ru); err != nil {
			panic(err)
		}
	}
	return b
})

func printer(l snapshot.Lang) *message.Printer {
	return message.NewPrinter(l.Tag(), message.Catalog(cat()))
}
