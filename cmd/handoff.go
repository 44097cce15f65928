package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/take"
)

func init() { register("handoff", newCmdHandoffDefault) }

// HandoffOptions configures one run of handoff (specs/handoff.md HO-5,
// HO-6).
type HandoffOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	Template      bool
	Check         bool
	File          string
	SessionID     string
	StateFileName string
	Getenv        func(string) string
	Getwd         func() (string, error)
	Now           func() time.Time
}

// handoffLookTimeout bounds looking for the state file.
const handoffLookTimeout = 5 * time.Second

func newCmdHandoffDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdHandoff(ios, g, handoffRun)
}

func newCmdHandoff(ios *IO, g *GlobalOptions, runF func(*HandoffOptions) error) *cobra.Command {
	opts := &HandoffOptions{IO: ios, Getenv: os.Getenv, Getwd: os.Getwd, Now: time.Now}
	c := &cobra.Command{
		Use:   "handoff (--template | --check [FILE])",
		Short: "Print a handoff block to fill in, or check the newest one in the state file",
		Long: `A handoff block holds what only the agent's context knows — the task, the
current state, the next step, what the user decided, what is awaited, what is
not verified, what must not be touched, what was ruled out, the key results —
under a dated heading "## HANDOFF <time>", written into the project's state
file (SESSION-STATE.md) before a planned compaction.

--template prints an empty block dated now (in English, or Russian with
--lang ru), marked with the session it is written in (--session, else
CLAUDE_CODE_SESSION_ID), so that another session of the project never takes
it for its own. --check finds the state file as postcompact does (the project
folder, the git root, the current folder), or reads FILE, and exits 0 when
this session's newest block is complete — every section present and filled,
"none" allowed — and no older than the moment this session's context crossed
its first watch threshold (else its last compaction, else its start); a block
that names no session becomes this session's when the check accepts it, and
another session's block never counts. Otherwise it says what is missing and
exits 1.` + "\n" + exitHelp,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if opts.Template == opts.Check {
				return usageError{errors.New("handoff: give --template or --check")}
			}
			if len(args) == 1 {
				if opts.Template {
					return usageError{errors.New("handoff: FILE goes with --check")}
				}
				opts.File = args[0]
			}
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			return runF(opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.Template, "template", false, "print an empty handoff block dated now")
	f.BoolVar(&opts.Check, "check", false, "exit 0 when the newest handoff block is complete and current, else 1")
	f.StringVar(&opts.SessionID, "session", "", "session the block belongs to, whose threshold crossing it must be newer than (default $CLAUDE_CODE_SESSION_ID)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	return c
}

func handoffRun(opts *HandoffOptions) error {
	now := opts.Now()
	out := opts.IO.Out
	if opts.Template {
		// HO-9: the block names the session it is written in, so that no
		// other session of the project takes it for its own.
		sid := opts.SessionID
		if sid == "" && opts.Getenv != nil {
			sid = opts.Getenv("CLAUDE_CODE_SESSION_ID")
		}
		_, err := fmt.Fprint(out, handoff.TemplateFor(opts.Lang, now, sid))
		return err
	}
	report := newHandoffReport(out, opts.Lang)

	path, err := handoffFile(opts, report)
	if err != nil {
		return err
	}
	blocks, err := handoff.Read(path)
	if err != nil {
		return err
	}

	sid := opts.SessionID
	if sid == "" {
		sid = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	if sid == "" {
		// No session: the newest block, compared with nothing (HO-6).
		// Nothing tells whose or how old a session is: only a fresh block
		// counts (HO-13).
		b := handoff.Newest(blocks)
		if problems := handoff.Problems(b, handoff.Fresh(now), now, opts.Lang); len(problems) > 0 {
			notReady(report, path, b, problems)
			return exitError{ExitFailure}
		}
		report.line(mHoCurrent, path, lineNo(b.Line), b.Heading)
		return nil
	}

	return checkSessionBlock(opts, report, path, blocks, sid, now)
}

// handoffFile is the state file to check: --file, else the state file
// found in the project (HO-2); a file found nowhere is said, and the check
// fails.
func handoffFile(opts *HandoffOptions, report handoffReport) (string, error) {
	path := opts.File
	if path == "" {
		wd, _ := opts.Getwd()
		name := opts.StateFileName
		if name == "" {
			name = defaultStateFileName
		}
		// A folder whose file system does not answer is named, not waited
		// on (snapshot.FindStateFile).
		ctx, cancel := context.WithTimeout(context.Background(), handoffLookTimeout)
		sf := snapshot.FindStateFile(ctx, name, []string{opts.Getenv("CLAUDE_PROJECT_DIR"), settings.GitRootAbove(wd), wd})
		cancel()
		if sf.Path == "" {
			report.line(mHoNotFound, name, strings.Join(sf.Searched, ", "))
			return "", exitError{ExitFailure}
		}
		path = sf.Path
	} else if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path, nil
}

// checkSessionBlock checks the block of session sid among blocks: its
// own, else one naming no session, which it then claims (HO-10), dated
// after the session's last crossing, compaction or start (HO-6, HO-11).
func checkSessionBlock(opts *HandoffOptions, report handoffReport, path string, blocks []handoff.Block, sid string, now time.Time) error {
	store := watch.StoreFor(opts.Dir)
	st, err := store.Load(sid)
	if err != nil {
		fmt.Fprintln(opts.IO.ErrOut, "compact-guard: "+err.Error()+"; the block's date is not compared with a crossing")
		st = nil
	}
	var started time.Time
	if st == nil || st.Started.IsZero() {
		started = take.TranscriptStarted(take.SessionTranscript(opts.Getenv, sid)) // HO-11
	}
	since := st.Bound(started)

	// HO-10: this session's newest block, else the newest naming no
	// session, which this check may claim; another session's never.
	var claims []handoff.Claim
	if st != nil {
		claims = st.Claims
	}
	var candidates []handoff.Block
	for i := range blocks {
		if handoff.Owner(&blocks[i], sid, path, claims) != handoff.Others {
			candidates = append(candidates, blocks[i])
		}
	}
	b := handoff.Newest(candidates)
	if b == nil && len(blocks) > 0 {
		other := handoff.Newest(blocks)
		notReady(report, path, other, []string{foreignProblem(report, other, sid)})
		return exitError{ExitFailure}
	}
	if since.IsZero() && b != nil && b.Session != sid {
		// No state and no transcript: a block that does not name this
		// session counts only when fresh, so that a committed one is no
		// one's plan (HO-13).
		since = handoff.Fresh(now)
	}
	if problems := handoff.Problems(b, since, now, opts.Lang); len(problems) > 0 {
		notReady(report, path, b, problems)
		return exitError{ExitFailure}
	}
	if handoff.Owner(b, sid, path, claims) == handoff.Unclaimed {
		// The session's check accepted a block naming no session: it is
		// this session's from now on (HO-10).
		if _, err := store.Update(sid, func(st *watch.State) bool {
			if st.Started.IsZero() && !started.IsZero() {
				st.Started = started
			}
			return st.Claim(path, b, now)
		}); err != nil {
			fmt.Fprintln(opts.IO.ErrOut, "compact-guard: the block could not be recorded as this session's: "+err.Error())
		}
	}
	report.line(mHoCurrent, path, lineNo(b.Line), b.Heading)
	switch since.Kind {
	case handoff.SinceCrossing:
		report.line(mHoSinceCrossing, stampUTC(since.At))
	case handoff.SinceCompaction:
		report.line(mHoSinceCompaction, stampUTC(since.At))
	case handoff.SinceStart:
		report.line(mHoSinceStart, stampUTC(since.At))
	}
	return nil
}
