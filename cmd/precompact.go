package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/snapshot"
)

func init() { register("precompact", newCmdPrecompactDefault) }

// PrecompactOptions configures one run of the PreCompact hook.
type PrecompactOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	Keep          int
	StateFileName string
	Timeout       time.Duration
	GitTimeout    time.Duration
	EarlierBudget int64
	NoRedact      bool
	// NoHint keeps stdout empty: no summary hint (PC-31).
	NoHint bool
	// GitPath is passed to gitstate.Read ("" = git from PATH).
	GitPath  string
	CodePage int
	Getenv   func(string) string
	Now      func() time.Time
	// ReadClock is the clock the transcript read paces itself by against
	// its deadline (nil: time.Now; transcript TR-50); tests inject one.
	ReadClock func() time.Time

	// beforeStep, when set, is called as each step bounded by the deadline
	// begins, with the step's name: tests make a step hang with it.
	beforeStep func(string)
}

// Defaults of the precompact flags.
const (
	defaultKeep          = 40
	defaultStateFileName = "SESSION-STATE.md"
	defaultTimeout       = 10 * time.Second
	defaultGitTimeout    = 2 * time.Second
	defaultEarlierBudget = 64 << 20
)

func newCmdPrecompactDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdPrecompact(ios, g, unlessCopilot(precompactRun)) // PO-28
}

func newCmdPrecompact(ios *IO, g *GlobalOptions, runF func(*PrecompactOptions) error) *cobra.Command {
	opts := &PrecompactOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	var budgetMiB int64
	c := &cobra.Command{
		Use:   "precompact",
		Short: "PreCompact hook (Gemini CLI: PreCompress): write a snapshot of the session before it is compacted",
		Long: `Reads the PreCompact hook payload from stdin, reads the session transcript and
git state, and writes snap_<time>_<sid8>.md and .json into the snapshot folder.
Claude Code, Codex CLI and Qwen Code run it at PreCompact, Gemini CLI at
PreCompress (a snapshot only when a compression is due); GitHub Copilot CLI's
hook is "compact-guard copilot", which does the same.

For a Claude Code session it then prints one paragraph of plain text on
stdout, the summary hint: where the snapshot is, the last request, the files
in work, the last failing command, which Claude Code hands its summarizer
(--no-hint, or COMPACT_GUARD_HINT=off in the environment or in the "env" of
settings.json, turn it off). It prints nothing else, nothing at all when the
snapshot could not be written, and exits 0 on every input, so that it can
never block a compaction; problems go to compact-guard.log in the folder
above the snapshot folder and to a failure marker that postcompact reports.

Try it by hand:
  echo '{"session_id":"demo","transcript_path":"/path/to/session.jsonl","trigger":"manual"}' | compact-guard precompact`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			opts.EarlierBudget = budgetMiB << 20
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.IntVar(&opts.Keep, "keep", defaultKeep, "number of snapshots to keep in the folder (at least 1)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.DurationVar(&opts.Timeout, "timeout", defaultTimeout, "total deadline; after it the snapshot holds what was gathered")
	f.DurationVar(&opts.GitTimeout, "git-timeout", defaultGitTimeout, "deadline for reading git state")
	f.Duration("settle", 0, settleRetired) // PC-36
	_ = f.MarkHidden("settle")
	f.Int64Var(&budgetMiB, "earlier-budget", defaultEarlierBudget>>20, "MiB of earlier transcript segments to read when no earlier snapshot covers them")
	f.BoolVar(&opts.NoRedact, "no-redact", false, "write prompts and commands verbatim, without redacting secrets")
	f.BoolVar(&opts.NoHint, "no-hint", false, "print no summary hint on stdout (as COMPACT_GUARD_HINT=off does)")
	return c
}

// precompactRun never returns an error: whatever goes wrong is logged, and a
// failure marker is left when no snapshot could be written.
func precompactRun(opts *PrecompactOptions) (err error) {
	start := opts.now()
	// The deadline starts now, so that it also bounds reading stdin. Every
	// step runs under it, in its phase (PC-3): the log line is the last.
	total := opts.timeout()
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	entry := logEntry{At: start, Command: "precompact", Outcome: outcomeFailed}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = outcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v: %s", r, firstLines(string(debug.Stack()), 6))
		}
		entry.Duration = opts.now().Sub(start)
		writeLogBounded(ctx, opts.beforeStep, opts.Dir, entry)
		err = nil
	}()

	payloadCtx, cancelPayload := phase(ctx, total, sharePayload)
	payload, perr := readPayload(payloadCtx, opts.IO.In, opts.CodePage)
	cancelPayload()
	sessionID := payload.SessionID
	if sessionID == "" {
		sessionID = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	entry.Session = sessionID
	entry.Warnings = append(entry.Warnings, opts.IO.hookWarnings...)
	if why := pluginStandsDown(payload, "precompact", opts.Getenv); why != "" {
		entry.Outcome, entry.Detail = outcomeNone, why // PL-26: no snapshot, no hint
		return nil
	}
	if why, skip := geminiSkip(opts, payload); skip { // PC-43
		entry.Outcome, entry.Detail = outcomeSkipped, why
		return nil
	}
	rec, warnings := gatherSnapshot(ctx, opts, payload, perr, sessionID, start)
	entry.Warnings = append(entry.Warnings, warnings...)
	if rec == nil {
		entry.Detail = "no session id and no transcript: nothing to snapshot"
		return nil
	}
	// The session id may have come from the transcript's file name.
	sessionID = rec.SessionID
	entry.Session = sessionID

	keep := opts.Keep
	if keep < 1 {
		entry.Warnings = append(entry.Warnings, fmt.Sprintf("--keep %d is below 1; keeping %d", keep, defaultKeep))
		keep = defaultKeep
	}
	saveCtx, cancelSave := phase(ctx, total, shareSave)
	defer cancelSave()
	addPreparation(saveCtx, opts, rec, payload, start, &entry)
	store := &snapshot.Store{Dir: opts.Dir, Keep: keep, Now: opts.Now}
	sv, berr := bounded(saveCtx, opts.beforeStep, "saving the snapshot", func() saved {
		md, w, err := store.Save(rec, opts.Lang)
		return saved{md, w, err}
	})
	if berr != nil {
		// Given up: a snapshot the step may still place is whole or absent
		// (SF-32), and a marker now would only race it.
		entry.Detail = "snapshot not written: " + berr.Error()
		return nil
	}
	entry.Warnings = append(entry.Warnings, sv.warnings...)
	// WA-11: the compaction noted for the next prompt's pointer check,
	// with its snapshot or none.
	noteCompactionWithin(saveCtx, opts, rec, sv.mdPath, start, &entry)
	if sv.err != nil {
		entry.Detail = "snapshot not written: " + sv.err.Error()
		if sessionID != "" {
			writeFailureMarker(saveCtx, opts, rec, sessionID, start, sv.err, &entry)
		}
		return nil
	}
	if _, cerr := bounded(saveCtx, opts.beforeStep, "clearing the failure marker", func() bool {
		snapshot.ClearFailure(opts.Dir, sessionID)
		return true
	}); cerr != nil {
		entry.Warnings = append(entry.Warnings, cerr.Error())
	}
	entry.Snapshot = filepath.Base(sv.mdPath)
	supersedeWithin(saveCtx, opts, store, rec, &entry) // PC-47
	// PC-27: the summary hint, once the snapshot is saved, within the save
	// phase; the last thing on stdout, and the only one.
	hint, hwarn := printHint(saveCtx, opts, rec, payload, perr, sv.mdPath)
	entry.Hint = hint
	if hwarn != "" {
		entry.Warnings = append(entry.Warnings, hwarn)
	}
	entry.Outcome = outcomeOK
	if len(entry.Warnings) > 0 {
		entry.Outcome = outcomeWarn
	}
	return nil
}

// safeSessionID: 1 to 128 of [A-Za-z0-9-] (a loop: the regexp x{1,128}
// cost every process start 0.2 ms to compile).
func safeSessionID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// findTranscript looks for <claude config dir>/projects/*/<session>.jsonl,
// for payloads that lost or garbled transcript_path.
func findTranscript(getenv func(string) string, sessionID string) string {
	if !safeSessionID(sessionID) {
		return ""
	}
	// Not filepath.Glob: the config folder's own name may hold [ ] * ?.
	projects := filepath.Join(claudeConfigDir(getenv), "projects")
	dirs, _ := os.ReadDir(projects)
	var best string
	var bestTime time.Time
	for _, d := range dirs {
		m := filepath.Join(projects, d.Name(), sessionID+".jsonl")
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && fi.ModTime().After(bestTime) {
			best, bestTime = m, fi.ModTime()
		}
	}
	return best
}

// claudeConfigDir is $CLAUDE_CONFIG_DIR or ~/.claude.
func claudeConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".claude"
	}
	return filepath.Join(home, ".claude")
}

// sessionFromTranscriptPath uses the file name, which is the session id.
func sessionFromTranscriptPath(p string) string {
	base := filepath.Base(p)
	return base[:len(base)-len(filepath.Ext(base))]
}

func (o *PrecompactOptions) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *PrecompactOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return defaultTimeout
	}
	return o.Timeout
}

func (o *PrecompactOptions) stateFileName() string {
	if o.StateFileName == "" {
		return defaultStateFileName
	}
	return o.StateFileName
}

func valueOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func isDir(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isRegularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func firstLines(s string, n int) string {
	lines := 0
	for i, r := range s {
		if r == '\n' {
			lines++
			if lines == n {
				return s[:i]
			}
		}
	}
	return s
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
