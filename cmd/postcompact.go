package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

func init() { register(newCmdPostcompactDefault) }

// PostcompactOptions configures one run of the SessionStart(compact) and
// PostCompact hook.
type PostcompactOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	MaxAge        time.Duration
	MaxChars      int
	StateFileName string
	Timeout       time.Duration
	CodePage      int
	Getenv        func(string) string
	Now           func() time.Time
}

// Defaults of the postcompact flags.
const (
	defaultMaxAge          = 30 * time.Minute
	defaultMaxChars        = 4000
	defaultPostcompactTime = 5 * time.Second
)

func newCmdPostcompactDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdPostcompact(ios, g, postcompactRun)
}

func newCmdPostcompact(ios *IO, g *GlobalOptions, runF func(*PostcompactOptions) error) *cobra.Command {
	opts := &PostcompactOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	c := &cobra.Command{
		Use:   "postcompact",
		Short: "SessionStart(compact) hook: point the compacted session at its own snapshot",
		Long: `As a SessionStart hook (matcher "compact"), prints
{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"..."}}
with a short pointer to this session's own snapshot, when one no older than
--max-age exists; nothing otherwise. As a PostCompact hook, records in the
session's newest snapshot that the compaction completed, and prints nothing.

It exits 0 on every input.

Try it by hand:
  echo '{"session_id":"demo","source":"compact"}' | compact-guard postcompact`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(*cobra.Command, []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.DurationVar(&opts.MaxAge, "max-age", defaultMaxAge, "ignore snapshots older than this")
	f.IntVar(&opts.MaxChars, "max-chars", defaultMaxChars, "hard cap on the pointer's length in characters (300 to 9000)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.DurationVar(&opts.Timeout, "timeout", defaultPostcompactTime, "deadline for reading the transcript")
	return c
}

// postcompactRun never returns an error: the worst outcome is no pointer.
func postcompactRun(opts *PostcompactOptions) (err error) {
	start := opts.now()
	entry := logEntry{At: start, Command: "postcompact", Outcome: outcomeSkipped}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = outcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v", r)
		}
		entry.Duration = opts.now().Sub(start)
		if entry.Outcome != outcomeSkipped {
			writeLog(opts.Dir, entry)
		}
		err = nil
	}()

	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout())
	defer cancel()
	p, perr := readPayload(ctx, opts.IO.In, opts.CodePage)
	sessionID := p.SessionID
	if sessionID == "" {
		sessionID = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	entry.Session = sessionID
	entry.Warnings = append(entry.Warnings, opts.IO.hookWarnings...)
	if perr != nil || sessionID == "" {
		return nil
	}

	switch p.HookEventName {
	case "PostCompact":
		entry.Command = "postcompact(PostCompact)"
		summary := 0
		if p.CompactSummary != nil {
			summary = len([]rune(*p.CompactSummary))
		}
		store := &snapshot.Store{Dir: opts.Dir, Now: opts.Now}
		// After a fresh failure marker only a snapshot taken since counts:
		// confirming an older one would stamp an earlier compaction's.
		var notBefore time.Time
		if fl, _ := snapshot.ReadFailure(opts.Dir, sessionID); fl != nil && fl.SessionID == sessionID && start.Sub(fl.Time) < opts.maxAge() {
			notBefore = fl.Time.Add(-time.Second) // names hold whole seconds
			entry.Detail = "precompact failed for this compaction (" + fl.Reason + "); "
		}
		name, cerr := store.ConfirmAfter(sessionID, start, summary, notBefore)
		switch {
		case errors.Is(cerr, snapshot.ErrNoSnapshot) || errors.Is(cerr, snapshot.ErrAlreadyConfirmed):
			// Nothing to confirm is no failure: doctor reports failed lines.
			entry.Outcome, entry.Detail = outcomeNone, entry.Detail+cerr.Error()
		case cerr != nil:
			entry.Outcome, entry.Detail = outcomeFailed, "confirming compaction: "+cerr.Error()
		case name == "":
			entry.Outcome, entry.Detail = outcomeNone, snapshot.ErrNoSnapshot.Error()
		default:
			entry.Outcome, entry.Snapshot = outcomeOK, name
		}
		return nil
	case "SessionStart", "":
	default:
		return nil
	}
	if p.Source != "compact" {
		return nil
	}

	var tr selectsnap.Transcript
	var f *transcript.File
	if p.TranscriptPath != "" {
		if opened, oerr := transcript.Open(p.TranscriptPath); oerr == nil {
			f = opened
			defer f.Close()
			tr = f
		} else {
			entry.Warnings = append(entry.Warnings, "transcript: "+oerr.Error())
		}
	}
	sel := selectsnap.Options{
		Dir: opts.Dir, SessionID: sessionID, Now: start, MaxAge: opts.maxAge(),
		Transcript: tr, TranscriptPath: p.TranscriptPath,
	}
	// The compaction check reads the transcript backwards; it gets half the
	// deadline, and when it cannot finish the choice is made without it
	// (as when the transcript is unreadable) rather than not at all.
	checkCtx, cancelCheck := context.WithTimeout(ctx, opts.timeout()/2)
	choice, _, serr := selectsnap.Select(checkCtx, sel)
	cancelCheck()
	if serr != nil && tr != nil && errors.Is(serr, context.DeadlineExceeded) && ctx.Err() == nil {
		entry.Warnings = append(entry.Warnings, "compaction check skipped: the transcript was not read in time")
		sel.Transcript = nil
		choice, _, serr = selectsnap.Select(ctx, sel)
	}
	if serr != nil {
		entry.Warnings = append(entry.Warnings, "selecting snapshot: "+serr.Error())
	}

	failure := freshFailure(ctx, opts, sessionID, start, f)
	var text string
	switch {
	case failure != nil && (choice == nil || failure.Time.After(choice.Record.CreatedAt)):
		text = restore.FailureNotice(failure.Reason, failure.LogPath, failure.Time, opts.Lang)
		entry.Outcome, entry.Detail = outcomeWarn, "failure notice: "+failure.Reason
	case choice != nil:
		rec := choice.Record
		projectDir := opts.Getenv("CLAUDE_PROJECT_DIR")
		if projectDir == "" && rec.Git != nil && rec.Git.Root != "" {
			projectDir = rec.Git.Root
		}
		if projectDir == "" {
			projectDir = rec.Cwd
		}
		gitRoot := ""
		if rec.Git != nil {
			gitRoot = rec.Git.Root
		}
		state := snapshot.FindStateFile(opts.stateFileName(), []string{opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd, p.Cwd})
		text = restore.Pointer(restore.PointerInput{
			Record: rec, MDPath: choice.MDPath, ProjectDir: projectDir,
			StateFile: state, Lang: opts.Lang, MaxChars: opts.maxChars(),
		})
		entry.Outcome, entry.Snapshot = outcomeOK, rec.Name
	default:
		entry.Outcome, entry.Detail = outcomeNone, "no fresh snapshot of this session"
		return nil
	}
	out, jerr := restore.HookOutput(text)
	if jerr != nil {
		entry.Outcome, entry.Detail = outcomeFailed, "encoding hook output: "+jerr.Error()
		return nil
	}
	if _, werr := opts.IO.Out.Write(out); werr != nil {
		entry.Outcome, entry.Detail = outcomeFailed, "writing hook output: "+werr.Error()
	}
	return nil
}

// freshFailure returns the session's failure marker when it belongs to this
// compaction: younger than --max-age and, when the transcript is readable,
// written after the compaction before the last one.
func freshFailure(ctx context.Context, opts *PostcompactOptions, sessionID string, now time.Time, f *transcript.File) *snapshot.Failure {
	fl, err := snapshot.ReadFailure(opts.Dir, sessionID)
	if err != nil || fl == nil || fl.SessionID != sessionID {
		return nil
	}
	if age := now.Sub(fl.Time); age > opts.maxAge() || age < -time.Minute {
		return nil
	}
	if f != nil {
		last, err := f.LastBoundary(ctx)
		if err == nil && last >= 0 {
			if fl.TranscriptSize > last {
				return nil
			}
			if earlier, err := f.BoundaryIn(ctx, fl.TranscriptSize, last); err != nil || earlier {
				return nil
			}
		}
	}
	return fl
}

func (o *PostcompactOptions) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *PostcompactOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return defaultPostcompactTime
	}
	return o.Timeout
}

func (o *PostcompactOptions) maxAge() time.Duration {
	if o.MaxAge <= 0 {
		return defaultMaxAge
	}
	return o.MaxAge
}

// Bounds of --max-chars: below 300 not even the snapshot's path fits, and
// Claude Code spills context over 10,000 characters to a file.
const (
	minMaxChars = 300
	maxMaxChars = 9000
)

func (o *PostcompactOptions) maxChars() int {
	switch {
	case o.MaxChars <= 0:
		return defaultMaxChars
	case o.MaxChars < minMaxChars:
		return minMaxChars
	case o.MaxChars > maxMaxChars:
		return maxMaxChars
	}
	return o.MaxChars
}

func (o *PostcompactOptions) stateFileName() string {
	if o.StateFileName == "" {
		return defaultStateFileName
	}
	return o.StateFileName
}
