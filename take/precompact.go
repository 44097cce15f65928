package take

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Options configures one take: a run of the PreCompact hook, or the
// gathering postcompact does when it takes the snapshot itself.
type Options struct {
	// In is the hook's stdin, Out its stdout (the summary hint).
	In  io.Reader
	Out io.Writer
	// HookWarnings are problems met before the run (flags that did not
	// parse), for its log line; FlagsDropped says the run goes without the
	// flags it was given, which may have turned the hint off (PC-27).
	HookWarnings []string
	FlagsDropped bool

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
	// BeforeStep, when set, is called as each step bounded by the deadline
	// begins, with the step's name: tests make a step hang with it.
	BeforeStep func(string)
	// ClientOf tells, once the payload is read, what the take needs to know
	// of the client whose hook this is; nil knows nothing of it.
	ClientOf func(hookio.Payload) Client
}

// Client is what the take needs to know of the client whose hook runs, as
// plain data: the caller decides it from the payload and the environment.
type Client struct {
	// Name is the client the payload shows (snapshot SF-5 agent), the
	// record's agent when the transcript's start does not tell.
	Name string
	// Skip, when not "", is why this run takes no snapshot (a plugin's
	// hook standing down, PL-26; a compression that compresses nothing,
	// PC-43), and SkipOutcome the log line's outcome for it.
	Skip, SkipOutcome string
	// ChatWindow is the context window of a chat read whole (Gemini CLI's)
	// that names none: the client's own limit for the model; nil leaves
	// it unknown.
	ChatWindow func(model string) int64
	// WritesLate reports a transcript format whose client queues its
	// records and writes them in the background, so that the take waits
	// for the file to settle first (PC-24); nil: none does.
	WritesLate func(format transcript.Format) bool
	// Supersedes reports a snapshot of agent's, taken at event, that
	// replaces the session's earlier ones of the same segment never
	// handed out (PC-47); nil: none does.
	Supersedes func(agent, event string) bool
}

// Defaults of the take's options, and of precompact's flags.
const (
	DefaultKeep          = 40
	DefaultStateFileName = "SESSION-STATE.md"
	DefaultTimeout       = 10 * time.Second
	DefaultGitTimeout    = 2 * time.Second
	DefaultEarlierBudget = 64 << 20
)

// Run is one run of the PreCompact hook: the payload read, the snapshot
// gathered and saved, the summary hint printed. It never returns an error:
// whatever goes wrong is logged, and a failure marker is left when no
// snapshot could be written.
func Run(opts *Options) (err error) {
	start := opts.now()
	// The deadline starts now, so that it also bounds reading stdin. Every
	// step runs under it, in its phase (PC-3): the log line is the last.
	total := opts.timeout()
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	entry := hookio.Entry{At: start, Command: "precompact", Outcome: hookio.OutcomeFailed}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = hookio.OutcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v: %s", r, firstLines(string(debug.Stack()), 6))
		}
		entry.Duration = opts.now().Sub(start)
		hookio.WriteLogBounded(ctx, opts.BeforeStep, opts.Dir, entry)
		err = nil
	}()

	payload, perr := hookio.ReadPayloadWithin(ctx, total, opts.In, opts.CodePage)
	sessionID := payload.Session(opts.Getenv)
	entry.Session = sessionID
	entry.Warnings = append(entry.Warnings, opts.HookWarnings...)
	client := opts.client(payload)
	if client.Skip != "" { // PL-26, PC-43: no snapshot, no hint
		entry.Outcome, entry.Detail = client.SkipOutcome, client.Skip
		return nil
	}
	rec, warnings := Gather(ctx, opts, client, payload, perr, sessionID, start)
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
		entry.Warnings = append(entry.Warnings, fmt.Sprintf("--keep %d is below 1; keeping %d", keep, DefaultKeep))
		keep = DefaultKeep
	}
	saveCtx, cancelSave := hookio.Phase(ctx, total, hookio.ShareSave)
	defer cancelSave()
	addPreparation(saveCtx, opts, rec, payload, start, &entry)
	store := &snapshot.Store{Dir: opts.Dir, Keep: keep, Now: opts.Now}
	sv, berr := hookio.Bounded(saveCtx, opts.BeforeStep, "saving the snapshot", func() saved {
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
	if _, cerr := hookio.Bounded(saveCtx, opts.BeforeStep, "clearing the failure marker", func() bool {
		snapshot.ClearFailure(opts.Dir, sessionID)
		return true
	}); cerr != nil {
		entry.Warnings = append(entry.Warnings, cerr.Error())
	}
	entry.Snapshot = filepath.Base(sv.mdPath)
	supersedeWithin(saveCtx, opts, client.Supersedes, store, rec, &entry) // PC-47
	// PC-27: the summary hint, once the snapshot is saved, within the save
	// phase; the last thing on stdout, and the only one.
	hint, hwarn := printHint(saveCtx, opts, rec, payload, perr, sv.mdPath)
	entry.Hint = hint
	if hwarn != "" {
		entry.Warnings = append(entry.Warnings, hwarn)
	}
	entry.Outcome = hookio.OutcomeOK
	if len(entry.Warnings) > 0 {
		entry.Outcome = hookio.OutcomeWarn
	}
	return nil
}

// findTranscript looks for <claude config dir>/projects/*/<session>.jsonl,
// for payloads that lost or garbled transcript_path.
func findTranscript(getenv func(string) string, sessionID string) string {
	if !hookio.SafeSessionID(sessionID) {
		return ""
	}
	// Not filepath.Glob: the config folder's own name may hold [ ] * ?.
	projects := filepath.Join(ClaudeConfigDir(getenv), "projects")
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

// ClaudeConfigDir is $CLAUDE_CONFIG_DIR or ~/.claude.
func ClaudeConfigDir(getenv func(string) string) string {
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

// client is what the caller tells of the client of payload p.
func (o *Options) client(p hookio.Payload) Client {
	if o.ClientOf == nil {
		return Client{}
	}
	return o.ClientOf(p)
}

func (o *Options) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o *Options) stateFileName() string {
	if o.StateFileName == "" {
		return DefaultStateFileName
	}
	return o.StateFileName
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

// sameFile reports whether a and b name one file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
