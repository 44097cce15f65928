package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
)

func init() { register("watch", newCmdWatchDefault) }

// WatchOptions configures one run of the watch hook (specs/watch.md).
type WatchOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	Thresholds    []watch.Threshold
	Window        int64
	StopGate      bool
	StateFileName string
	MaxChars      int
	Timeout       time.Duration
	CodePage      int
	Getenv        func(string) string
	Now           func() time.Time

	// afterRead, when set, is called once the fill has been read and
	// before the state is: tests run another hook there, to interleave two
	// runs deterministically (WA-26).
	afterRead func()
}

// defaultWatchTimeout bounds a watch run: it reads the transcript backwards
// only as far as the newest response, so this is reached only on a stuck
// file system.
const defaultWatchTimeout = 5 * time.Second

func newCmdWatchDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdWatch(ios, g, unlessCopilot(watchRun)) // PO-28
}

func newCmdWatch(ios *IO, g *GlobalOptions, runF func(*WatchOptions) error) *cobra.Command {
	opts := &WatchOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	thresholds := watchThresholds{s: watch.DefaultThresholds}
	opts.Thresholds, _ = watch.ParseThresholds(watch.DefaultThresholds)
	var window watchWindow
	c := &cobra.Command{
		Use:   "watch",
		Short: "Prompt, tool-call and stop hook: the residue, late pointers, and when a planned compaction is due",
		Long: `Reads how full the context is (the newest model response's usage) and, once
per threshold crossing, tells the agent that a planned compaction is due: a
handoff block in the state file ("compact-guard handoff --template"), checked
with "compact-guard handoff --check", then /compact from the user. Below the
first threshold it prints nothing. With --stop-gate, the Stop hook holds the
end of a turn once at the last threshold while no handoff is current. After a
compaction whose pointer did not reach the model (a session resumed on
Claude Code up to 2.1.119, or on Qwen Code), the next prompt carries it.
Registered for SessionStart (matcher "resume") it notes that the session
was resumed. After a Claude Code compaction, the first prompt or tool call
hands the model, once, what the summary dropped of the snapshot's facts (the
residue). On Qwen Code sessions the late pointer is all it does; on Gemini
CLI (BeforeAgent) it hands over the pointer of the compression that just
happened. Codex CLI and GitHub Copilot CLI do not run it.

Thresholds are tokens (450k,500k,600k) or percentages of the window
(50%,60%,70%, the default). The window comes from --window, else the model,
lowered to CLAUDE_CODE_AUTO_COMPACT_WINDOW or the autoCompactWindow setting.

It exits 0 on every input.

Try it by hand:
  echo '{"session_id":"demo","hook_event_name":"PostToolUse","transcript_path":"/path/to/session.jsonl"}' | compact-guard watch`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(*cobra.Command, []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			opts.Thresholds, opts.Window = thresholds.t, window.n
			if thresholds.t == nil {
				opts.Thresholds, _ = watch.ParseThresholds(watch.DefaultThresholds)
			}
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.Var(&thresholds, "thresholds", "context fills at which a planned compaction is due: tokens (450k,500k,600k) or percentages of the window (50%,60%,70%)")
	f.Var(&window, "window", "context window in tokens (200k, 1M); default from the model and Claude Code's settings")
	f.BoolVar(&opts.StopGate, "stop-gate", false, "at the last threshold, hold the end of a turn once while no handoff is current")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.IntVar(&opts.MaxChars, "max-chars", defaultMaxChars, "hard cap on a pointer handed over late, in characters (300 to 9000)")
	f.DurationVar(&opts.Timeout, "timeout", defaultWatchTimeout, "deadline for reading the transcript")
	return c
}

// watchThresholds is --thresholds: parsed when set, so that a bad value is
// a flag error (the hook then runs with the defaults, as any hook does).
type watchThresholds struct {
	s string
	t []watch.Threshold
}

func (v *watchThresholds) String() string { return v.s }
func (v *watchThresholds) Type() string   { return "list" }
func (v *watchThresholds) Set(s string) error {
	t, err := watch.ParseThresholds(s)
	if err != nil {
		return err
	}
	v.s, v.t = s, t
	return nil
}

// watchWindow is --window.
type watchWindow struct{ n int64 }

func (v *watchWindow) String() string {
	if v.n == 0 {
		return ""
	}
	return fmt.Sprint(v.n)
}
func (v *watchWindow) Type() string { return "tokens" }
func (v *watchWindow) Set(s string) error {
	n, err := watch.ParseTokens(s)
	v.n = n
	return err
}

// watchRun never returns an error: the worst outcome is saying nothing.
func watchRun(opts *WatchOptions) (err error) {
	start := opts.now()
	entry := logEntry{At: start, Command: "watch", Outcome: outcomeSkipped}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = outcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v", r)
		}
		entry.Duration = opts.now().Sub(start)
		if entry.Outcome != outcomeSkipped || len(entry.Warnings) > 0 {
			if entry.Outcome == outcomeSkipped {
				entry.Outcome = outcomeWarn
			}
			writeLog(opts.Dir, entry)
		}
		err = nil
	}()

	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout())
	defer cancel()
	p, perr := readPayload(ctx, opts.IO.In, opts.CodePage)
	sid := p.SessionID
	if sid == "" {
		sid = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	entry.Session = sid
	entry.Command = "watch(" + p.HookEventName + ")"
	entry.Warnings = append(entry.Warnings, opts.IO.hookWarnings...)
	if perr != nil || sid == "" {
		return nil
	}
	if pluginStandsDown(p, "watch", opts.Getenv) != "" {
		return nil // PL-26: on every tool call, so not logged
	}
	store := watch.StoreFor(opts.Dir)
	store.Now = opts.Now
	switch watchEvent(p.HookEventName) {
	case watch.SessionStart:
		if p.Source == "resume" {
			noteResume(opts, store, sid, start, &entry)
		}
		return nil
	case watch.UserPromptSubmit, watch.PostToolUse, watch.PostToolUseFailure, watch.Stop:
	case "BeforeAgent": // Gemini CLI (WA-36)
		geminiBeforeAgent(opts, p, sid, start, &entry)
		return nil
	default:
		return nil
	}

	// WA-4: the fill first; below the floor, with no state, nothing to do.
	if p.TranscriptPath == "" {
		return nil
	}
	f, oerr := transcript.Open(p.TranscriptPath)
	if oerr != nil {
		return nil
	}
	defer f.Close()
	// WA-1: notices and the Stop gate go by Claude Code's window and
	// compaction point; another client's session gets the late pointer
	// only, as if its fill were unknown.
	var fill transcript.Fill
	ok := false
	if sessionAgent(p, f) == string(transcript.FormatClaude) {
		var ferr error
		if fill, ok, ferr = f.NewestFill(ctx); ferr != nil {
			entry.Warnings = append(entry.Warnings, "reading the context fill: "+ferr.Error())
			return nil
		}
	}
	if opts.afterRead != nil {
		opts.afterRead()
	}
	if (!ok || fill.Tokens < watch.Floor(opts.Thresholds, opts.Window, opts.Getenv)) && !exists(store.Path(sid)) {
		return nil
	}

	w := watch.InferWindow(watch.WindowInput{Flag: opts.Window, Model: fill.Model, Fill: fill.Tokens, Version: fill.Version,
		Getenv: opts.Getenv, Settings: claudeSettingsFiles(opts.Getenv, p.Cwd)})
	run := watchTurn{ctx: ctx, opts: opts, p: p, sid: sid, f: f, fill: fill, fillOK: ok, window: w, now: start,
		thresholds: watch.Resolve(opts.Thresholds, w)}
	// Most runs above the floor change nothing: decide that on a copy of
	// the state read without the lock, which only a change needs (WA-9).
	if run.changesNothing(&store, ok) {
		return nil
	}
	var said watchSaid
	st, uerr := store.Update(sid, func(st *watch.State) bool {
		return run.step(st, ok, &said, &entry)
	})
	run.finish(st != nil, uerr, said, &entry)
	return nil
}

// watchTurn is what one watch run knows, shared by its steps.
type watchTurn struct {
	ctx        context.Context
	opts       *WatchOptions
	p          Payload
	sid        string
	f          *transcript.File
	fill       transcript.Fill
	fillOK     bool // the transcript gave a fill
	window     watch.Window
	thresholds []int64
	now        time.Time

	// status is the handoff as read on first need; seen what goes into
	// the state; delivered the snapshot handed over late, late its text.
	status    *restore.HandoffStatus
	seen      *watch.HandoffSeen
	delivered string
	late      string
	// warnings go to the run's log line.
	warnings []string
	// latest is the one LatestPointer answer this run made (the late
	// pointer and the residue ask the same question).
	latest *latestAnswer
	// start caches the session's start read from the transcript (TR-61).
	start *time.Time
}

// handoff reads the state file's newest handoff block once (HO-2, HO-4).
func (r *watchTurn) handoff(st *watch.State) restore.HandoffStatus {
	if r.status != nil {
		return *r.status
	}
	sf := r.stateFile()
	var started time.Time
	if st == nil || st.Started.IsZero() {
		started = r.started()
	}
	h := restore.HandoffStatus{StateFile: sf, Since: st.Bound(started)}
	if sf.Path != "" {
		if blocks, err := handoff.Read(sf.Path); err == nil {
			// HO-10: only this session's blocks count.
			h.Block, h.Others = handoff.ForSession(blocks, r.sid, sf.Path, claimsOf(st))
		}
	}
	if h.Block != nil {
		h.Current = handoff.Current(h.Block, h.Since.At, r.now)
		r.seen = &watch.HandoffSeen{Path: sf.Path, Line: h.Block.Line, Time: h.Block.Time.UTC(),
			Complete: h.Block.Complete(), Current: h.Current, Seen: r.now.UTC()}
	}
	r.status = &h
	return h
}

// stateFile looks the state file up as postcompact does (PO-C4): the
// project folder, the git root of the working directory, the working
// directory.
func (r *watchTurn) stateFile() snapshot.StateFile {
	cwd := r.p.Cwd
	return snapshot.FindStateFile(r.ctx, r.opts.stateFileName(), []string{r.opts.Getenv("CLAUDE_PROJECT_DIR"), settings.GitRootAbove(cwd), cwd})
}

// newHandoff reports whether this run saw a handoff block other than the
// one the state holds.
func (r *watchTurn) newHandoff(st *watch.State) bool {
	if r.seen == nil {
		return false
	}
	if st == nil || st.Handoff == nil {
		return true
	}
	a, b := *r.seen, *st.Handoff
	a.Seen, b.Seen = time.Time{}, time.Time{}
	return a != b
}

func (r *watchTurn) noticeInput(st *watch.State, told []watch.Crossing) restore.NoticeInput {
	return restore.NoticeInput{Fill: r.fill.Tokens, Window: r.window, Told: told, Last: r.thresholds[len(r.thresholds)-1],
		Handoff: r.handoff(st), Lang: r.opts.Lang, Now: r.now}
}

// fallback checks the compaction precompact noted (WA-11): when its
// pointer did not reach the model, it returns the pointer to hand over
// with this prompt. The note is cleared either way: the check is made once.
func (r *watchTurn) fallback(ctx context.Context, st *watch.State) (text, detail string) {
	pend := st.Pending
	st.Pending = nil
	l, err := r.latestPointer(ctx, pend.TranscriptSize, pend.At, st.Resumed)
	switch {
	case err != nil:
		return "", "pointer check: " + err.Error()
	case l == nil:
		return "", "no compaction after the one precompact noted (abandoned)"
	case l.Reached:
		return "", "the latest compaction's pointer reached the model"
	case l.Record == nil:
		return "", "the latest compaction's pointer did not reach the model (" + l.Why + "), and it has no snapshot"
	}
	rec := l.Record
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	projectDir := firstNonEmpty(r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd)
	sf := snapshot.FindStateFile(r.ctx, r.opts.stateFileName(), []string{r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd, r.p.Cwd})
	note := restore.LateNote(l.Why, l.Compaction.Version, st.Resumed, l.Compaction.Time, r.opts.Lang)
	pointer := restore.Pointer(restore.PointerInput{Record: rec, MDPath: l.MDPath, ProjectDir: projectDir,
		StateFile: sf, Lang: r.opts.Lang, MaxChars: r.opts.maxChars() - len([]rune(note)) - 1})
	r.delivered, r.late = rec.Name, pointer
	st.Fallbacks = append(st.Fallbacks, watch.Fallback{At: r.now.UTC(), Snapshot: rec.Name, Boundary: l.Compaction.Offset, Why: l.Why})
	return note + "\n" + pointer, "pointer handed over late (" + l.Why + ")"
}

// noteResume records a SessionStart with source "resume" for a session that
// has a state: a new client process, which keeps only what the transcript
// holds (WA-11).
func noteResume(opts *WatchOptions, store watch.Store, sid string, at time.Time, entry *logEntry) {
	if !exists(store.Path(sid)) {
		return
	}
	if _, err := store.Update(sid, func(st *watch.State) bool { st.Resumed = at.UTC(); return true }); err != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+err.Error())
	}
}

// claudeSettingsFiles are the settings files the window may be set in,
// lowest precedence first: user, project, local (WA-2).
func claudeSettingsFiles(getenv func(string) string, cwd string) []string {
	files := []string{filepath.Join(claudeConfigDir(getenv), "settings.json")}
	project := firstNonEmpty(getenv("CLAUDE_PROJECT_DIR"), cwd)
	if project != "" {
		files = append(files, filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"))
	}
	return files
}

func crossedList(cs []watch.Crossing) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprint(c.Tokens))
	}
	return strings.Join(parts, ",")
}

// exists reports whether anything is at path, without following a link.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func (o *WatchOptions) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *WatchOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return defaultWatchTimeout
	}
	return o.Timeout
}

func (o *WatchOptions) stateFileName() string {
	if o.StateFileName == "" {
		return defaultStateFileName
	}
	return o.StateFileName
}

func (o *WatchOptions) maxChars() int {
	return (&PostcompactOptions{MaxChars: o.MaxChars}).maxChars()
}

// preparation is how a compaction was prepared, with what went wrong
// finding out.
type preparation struct {
	p        *snapshot.Preparation
	warnings []string
}

// readPreparation says how the compaction was prepared (WA-12): the
// session's watch state, the state file's newest handoff block, the fill
// against the window. precompact puts it into the record before saving.
func readPreparation(opts *PrecompactOptions, rec *snapshot.Record, p Payload, now time.Time) preparation {
	var out preparation
	st, err := watch.StoreFor(opts.Dir).Load(rec.SessionID)
	if err != nil {
		out.warnings = append(out.warnings, "watch state: "+err.Error())
	}
	var blocks []handoff.Block
	if rec.StateFile.Path != "" {
		if blocks, err = handoff.Read(rec.StateFile.Path); err != nil {
			out.warnings = append(out.warnings, "handoff: "+err.Error())
		}
	}
	in := watch.PrepareInput{Trigger: rec.Trigger, State: st, StateFile: rec.StateFile.Path, Blocks: blocks, Now: now,
		Window:    watch.WindowInput{Getenv: opts.Getenv, Settings: claudeSettingsFiles(opts.Getenv, p.Cwd)},
		SessionID: rec.SessionID}
	if st == nil || st.Started.IsZero() {
		in.Started = transcriptStarted(rec.TranscriptPath) // HO-11
	}
	if u := rec.Context; u != nil && !u.FromBoundary {
		in.Fill, in.Model, in.ClientWindow = u.Tokens, u.Model, u.Window // WA-41
	}
	if n, ok := snapshot.ParseName(rec.Coverage.Previous); ok {
		in.Previous = n.Time
	}
	out.p = watch.Prepare(in)
	return out
}

// noteCompaction notes in the session's watch state the compaction
// precompact ran for, so that the next prompt checks whether its pointer
// reached the model (WA-11). mdPath is the snapshot written, "" when none
// could be: the note then keeps an earlier snapshot from being taken for
// this compaction.
func noteCompaction(opts *PrecompactOptions, rec *snapshot.Record, mdPath string, now time.Time) error {
	name := ""
	if mdPath != "" {
		name = strings.TrimSuffix(filepath.Base(mdPath), ".md")
	}
	_, err := watch.StoreFor(opts.Dir).Update(rec.SessionID, func(st *watch.State) bool {
		st.Pending = &watch.Pending{At: now.UTC(), Trigger: rec.Trigger, Snapshot: name, TranscriptSize: rec.Coverage.TranscriptSize}
		noteResidue(st, rec, name, now)
		return true
	})
	return err
}
