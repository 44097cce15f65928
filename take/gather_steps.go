package take

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/gitstate"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
)

// The steps of Gather, each a function of its own so that the
// gathering reads as the order of its steps (PC-3, PC-11 to PC-15); each
// runs bounded by the phase Gather gives it, under the step name
// tests hook into.

// located is where the transcript and the payload's cwd are.
type located struct {
	transcriptPath, gitDir string
	warnings               []string
}

// locateTranscript finds the transcript and the folder git starts in: stats
// and a folder listing, which a hung file system could hold, so bounded by
// ctx.
func locateTranscript(ctx context.Context, opts *Options, p hookio.Payload, sessionID string) (located, error) {
	return hookio.Bounded(ctx, opts.BeforeStep, "finding the transcript", func() (l located) {
		l.transcriptPath = p.TranscriptPath
		if l.transcriptPath == "" || !isRegularFile(l.transcriptPath) {
			if found := findTranscript(opts.Getenv, sessionID); found != "" {
				if l.transcriptPath != "" {
					l.warnings = append(l.warnings, fmt.Sprintf("transcript_path %q unreadable; using %s", l.transcriptPath, found))
				}
				l.transcriptPath = found
			}
		}
		// Git starts at once in the payload's cwd; it is read again below
		// only when the transcript names another, existing directory.
		if isDir(p.Cwd) {
			l.gitDir = p.Cwd
		}
		return l
	})
}

// notePreCompactAsync notes in the session's watch state that a PreCompact
// started, at once and beside the rest: a tool call after it tells an arm
// from the compaction it precedes (SS-26, PC-37). The channel yields the
// note's error, nil at once for any other event.
func notePreCompactAsync(ctx context.Context, opts *Options, p hookio.Payload, sessionID string, now time.Time) <-chan error {
	marked := make(chan error, 1)
	if p.HookEventName == "PreCompact" {
		go func() {
			_, err := hookio.Bounded(ctx, opts.BeforeStep, "noting the PreCompact for watch", func() error {
				return MarkPreCompact(opts.Dir, sessionID, now)
			})
			marked <- err
		}()
	} else {
		marked <- nil
	}
	return marked
}

// waitPreCompactNote waits for the note of notePreCompactAsync, as long as
// ctx allows while the note is merely slow (a busy machine: twenty hooks
// writing at once, PC-37). Every markWait it looks for evidence that the
// note is held up rather than slow: the session's watch lock held by
// another run since before this one started (a crashed watch run's lock is
// taken over only after 10 s, WA-9), and then gives up with a warning.
// tick is the clock of those looks (a ticker of markWait; tests drive it).
func waitPreCompactNote(ctx context.Context, marked <-chan error, tick <-chan time.Time, heldByOther func() bool, warn func(string, ...any)) {
	for {
		select {
		case err := <-marked:
			if err != nil {
				warn("watch state: %v", err)
			}
			return
		case <-ctx.Done():
			warn("watch state: the PreCompact's note (PC-37) not written by the deadline")
			return
		case <-tick:
			if heldByOther() {
				warn("watch state: the PreCompact's note (PC-37) not written within %s: another run holds the session's watch lock", markWait)
				return
			}
		}
	}
}

// watchLockHeldSince reports, for waitPreCompactNote, whether the session's
// watch lock is held by a run that took it before since: this run's own
// note takes it only after since. A file's time comes from the kernel's
// coarse clock, up to a tick (10 ms at most) behind time.Now, so a lock
// counts as another run's only when it is lockClockSlack older.
func watchLockHeldSince(dir, sessionID string, since time.Time) func() bool {
	path := watch.StoreFor(dir).LockPath(sessionID)
	return func() bool {
		fi, err := os.Lstat(path)
		return err == nil && fi.ModTime().Before(since.Add(-lockClockSlack))
	}
}

// lockClockSlack is how much older than this run's note a lock file must be
// to be another run's (watchLockHeldSince).
const lockClockSlack = 100 * time.Millisecond

// gitOptions are the options of every git read of the gathering.
func (o *Options) gitOptions() gitstate.Options {
	gitTimeout := o.GitTimeout
	if gitTimeout <= 0 {
		gitTimeout = DefaultGitTimeout
	}
	return gitstate.Options{Timeout: gitTimeout, GitPath: o.GitPath}
}

// readTranscriptWithin runs the transcript step in its phases of ctx's
// deadline (the read in hookio.ShareRead, the boundary search in hookio.ShareScan) and
// waits for it until gatherCtx ends.
func readTranscriptWithin(ctx, gatherCtx context.Context, total time.Duration, step *transcriptStep) transcriptOutcome {
	readCtx, cancelRead := hookio.Phase(ctx, total, hookio.ShareRead)
	defer cancelRead()
	scanCtx, cancelScan := hookio.Phase(ctx, total, hookio.ShareScan)
	defer cancelScan()
	trCh := make(chan transcriptOutcome, 1)
	go func() { trCh <- readTranscriptSafe(readCtx, scanCtx, step) }()

	var tr transcriptOutcome
	select {
	case tr = <-trCh:
	case <-gatherCtx.Done():
		// The read stops at its own deadline, well before this one: only a
		// file system that does not answer gets here. Its facts are not
		// kept, the size (known once the file was open) still tells
		// postcompact which compaction this record was taken for (PC-22).
		tr.warnings = []string{fmt.Sprintf("transcript: not read within %s (the file system did not answer)", total)}
		tr.facts = &transcript.Facts{}
		tr.layout.segmentStart = -1
		tr.layout.incomplete = true
		tr.layout.readTo = new(int64(0))
		tr.layout.size = max(step.size.Load(), 0)
	}
	return tr
}

// newRecord is the record of the payload and of what the transcript step
// read (the client's name, agent, when the transcript's start does not
// tell), before the working directory, git and the state file are added.
func newRecord(p hookio.Payload, perr error, sessionID string, now time.Time, transcriptPath, agent string, tr transcriptOutcome) *snapshot.Record {
	rec := &snapshot.Record{
		SessionID:          sessionID,
		CreatedAt:          now.UTC(),
		Trigger:            cmp.Or(p.Trigger, snapshot.Unknown),
		CustomInstructions: p.CustomInstructions,
		PromptID:           p.Prompt(),
		Agent:              cmp.Or(tr.agent, agent),
		HookEvent:          p.HookEventName,
		TranscriptPath:     transcriptPath,
	}
	if perr != nil {
		rec.PayloadError = perr.Error()
	}
	fillFromFacts(rec, tr.facts)
	rec.Coverage = snapshot.Coverage{
		TranscriptSize:  tr.layout.size,
		SegmentStart:    tr.layout.segmentStart,
		BoundaryUnknown: tr.layout.boundaryUnknown,
		ReadFrom:        tr.layout.readFrom,
		ReadTo:          tr.layout.readTo,
		Unread:          tr.layout.unread,
		Previous:        tr.layout.previous,
		Partial:         tr.layout.partial,
		Incomplete:      tr.layout.incomplete,
	}
	return rec
}

// cwdFacts is the working directory, and whether git must be read again
// there.
type cwdFacts struct {
	cwd, source   string
	exists, moved bool
}

// checkCwd finds the working directory (the transcript's, else the
// payload's, else the process's) and stats it, bounded by ctx.
func checkCwd(ctx context.Context, opts *Options, p hookio.Payload, transcriptCwd, gitDir string) (cwdFacts, error) {
	return hookio.Bounded(ctx, opts.BeforeStep, "checking the working directory", func() (c cwdFacts) {
		switch {
		case transcriptCwd != "":
			c.cwd, c.source = transcriptCwd, "transcript"
		case p.Cwd != "":
			c.cwd, c.source = p.Cwd, "payload"
		default:
			if wd, err := os.Getwd(); err == nil {
				c.cwd, c.source = wd, "process"
			}
		}
		c.exists = c.cwd != "" && isDir(c.cwd)
		c.moved = !sameFile(gitDir, c.cwd)
		return c
	})
}

// gitAtCwd is the record's git state: git as read in the payload's cwd (nil
// when it was not), read again in cwd when the working directory moved out
// of that repository, or the reason it could not be read.
func gitAtCwd(ctx context.Context, git *snapshot.Git, cw cwdFacts, cerr error, cwd string, gitOpts gitstate.Options) *snapshot.Git {
	needGit := git == nil || (cw.moved && !(git.Repo && within(cwd, git.Root)))
	switch {
	case needGit && cw.exists:
		git = readGitSafe(ctx, cwd, gitOpts)
	case git == nil && cerr != nil:
		git = &snapshot.Git{Error: "git: not read: the working directory could not be checked within the deadline"}
	case git == nil:
		git = &snapshot.Git{Error: fmt.Sprintf("git: cwd %q does not exist", cwd)}
	}
	return git
}
