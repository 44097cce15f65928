package handover

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript"
)

// Watch is one run of the watch hook. It never returns an error: the
// worst outcome is saying nothing.
func Watch(opts *WatchOptions) (err error) {
	start := opts.now()
	entry := hookio.Entry{At: start, Command: "watch", Outcome: hookio.OutcomeSkipped}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = hookio.OutcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v", r)
		}
		entry.Duration = opts.now().Sub(start)
		if entry.Outcome != hookio.OutcomeSkipped || len(entry.Warnings) > 0 {
			if entry.Outcome == hookio.OutcomeSkipped {
				entry.Outcome = hookio.OutcomeWarn
			}
			hookio.WriteLog(opts.Dir, entry)
		}
		err = nil
	}()

	ctx, cancel := context.WithTimeout(context.Background(), opts.EffectiveTimeout())
	defer cancel()
	p, perr := hookio.ReadPayload(ctx, opts.In, opts.CodePage)
	sid := p.Session(opts.Getenv)
	entry.Session = sid
	entry.Command = "watch(" + p.HookEventName + ")"
	entry.Warnings = append(entry.Warnings, opts.HookWarnings...)
	if perr != nil || sid == "" {
		return nil
	}
	client := opts.client(p)
	if client.StandsDown != "" {
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
	default:
		if opts.OwnEvent != nil { // an event only one client sends (WA-36)
			opts.OwnEvent(p, sid, start, &entry)
		}
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
	agent := client.agent(f)
	if agent == string(transcript.FormatClaude) {
		var ferr error
		if fill, ok, ferr = f.NewestFill(ctx); ferr != nil {
			entry.Warnings = append(entry.Warnings, "reading the context fill: "+ferr.Error())
			return nil
		}
	}
	if opts.AfterRead != nil {
		opts.AfterRead()
	}
	if (!ok || fill.Tokens < watch.Floor(opts.Thresholds, opts.Window, opts.Getenv)) && !exists(store.Path(sid)) {
		return nil
	}

	w := watch.InferWindow(watch.WindowInput{Flag: opts.Window, Model: fill.Model, Fill: fill.Tokens, Version: fill.Version,
		Getenv: opts.Getenv, Settings: take.ClaudeSettingsFiles(opts.Getenv, p.Cwd)})
	run := watchTurn{ctx: ctx, opts: opts, p: p, sid: sid, agent: agent, f: f, fill: fill, fillOK: ok, window: w, now: start,
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
	p          hookio.Payload
	sid        string
	agent      string
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
	return snapshot.FindStateFile(r.ctx, r.opts.EffectiveStateFileName(), []string{r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRootAbove(cwd), cwd})
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
	projectDir := cmp.Or(r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd)
	sf := snapshot.FindStateFile(r.ctx, r.opts.EffectiveStateFileName(), []string{r.opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd, r.p.Cwd})
	note := restore.LateNote(l.Why, l.Compaction.Version, st.Resumed, l.Compaction.Time, r.opts.Lang)
	pointer := restore.Pointer(restore.PointerInput{Record: rec, MDPath: l.MDPath, ProjectDir: projectDir,
		StateFile: sf, Lang: r.opts.Lang, MaxChars: r.opts.EffectiveMaxChars() - len([]rune(note)) - 1})
	r.delivered, r.late = rec.Name, pointer
	st.Fallbacks = append(st.Fallbacks, watch.Fallback{At: r.now.UTC(), Snapshot: rec.Name, Boundary: l.Compaction.Offset, Why: l.Why})
	return note + "\n" + pointer, "pointer handed over late (" + l.Why + ")"
}

// started is the session's start, its transcript's first entry (TR-61),
// read once per run; zero when it cannot be read.
func (r *watchTurn) started() time.Time {
	if r.start == nil {
		t, _ := r.f.Started()
		r.start = &t
	}
	return *r.start
}

// claimsOf is the handoff blocks the session claimed (HO-10), none without
// a state.
func claimsOf(st *watch.State) []handoff.Claim {
	if st == nil {
		return nil
	}
	return st.Claims
}

// noteResume records a SessionStart with source "resume" for a session that
// has a state: a new client process, which keeps only what the transcript
// holds (WA-11).
func noteResume(opts *WatchOptions, store watch.Store, sid string, at time.Time, entry *hookio.Entry) {
	if !exists(store.Path(sid)) {
		return
	}
	if _, err := store.Update(sid, func(st *watch.State) bool { st.Resumed = at.UTC(); return true }); err != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+err.Error())
	}
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

// gitRootAbove is the nearest folder at or above dir holding .git, ""
// for none: settings.GitRootAbove, which this package cannot import while
// settings is internal to cmd.
func gitRootAbove(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}
