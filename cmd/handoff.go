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

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/textesc"
	"github.com/compact-guard/compact-guard/snapshot/watch"
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
--lang ru). --check finds the state file as postcompact does (the project
folder, the git root, the current folder), or reads FILE, and exits 0 when
its newest block is complete — every section present and filled, "none"
allowed — and no older than the moment this session's context crossed its
first watch threshold (the session from --session or CLAUDE_CODE_SESSION_ID);
otherwise it says what is missing and exits 1.` + "\n" + exitHelp,
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
	f.StringVar(&opts.SessionID, "session", "", "session whose threshold crossing the block must be newer than (default $CLAUDE_CODE_SESSION_ID)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	return c
}

func handoffRun(opts *HandoffOptions) error {
	now := opts.Now()
	out := opts.IO.Out
	if opts.Template {
		_, err := fmt.Fprint(out, handoff.Template(opts.Lang, now))
		return err
	}
	ru := opts.Lang == snapshot.Russian
	say := func(en, r string, a ...any) {
		if ru {
			en = r
		}
		// The path, the heading and the problems quote the state file:
		// escaped as list escapes them, so that a CR, ESC or BEL in it
		// cannot forge a line or drive the terminal (HO-8).
		for i, v := range a {
			if s, ok := v.(string); ok {
				a[i] = textesc.String(s, false)
			}
		}
		fmt.Fprintf(out, en+"\n", a...)
	}

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
			say("no %s found in %s", "%s не найден в %s", name, strings.Join(sf.Searched, ", "))
			return exitError{ExitFailure}
		}
		path = sf.Path
	} else if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	blocks, err := handoff.Read(path)
	if err != nil {
		return err
	}

	var since time.Time
	sid := opts.SessionID
	if sid == "" {
		sid = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	if sid != "" {
		st, err := watch.StoreFor(opts.Dir).Load(sid)
		if err != nil {
			fmt.Fprintln(opts.IO.ErrOut, "compact-guard: "+err.Error()+"; the block's date is not compared with a crossing")
		}
		since = st.Since()
	}

	b := handoff.Newest(blocks)
	if problems := handoff.Problems(b, since, now, opts.Lang); len(problems) > 0 {
		if b != nil {
			say("handoff not ready: %s line %d", "передача не готова: %s, строка %d", path, b.Line)
		} else {
			say("handoff not ready: %s", "передача не готова: %s", path)
		}
		for _, p := range problems {
			say("- %s", "- %s", p)
		}
		return exitError{ExitFailure}
	}
	say("handoff current: %s line %d, %s", "передача актуальна: %s, строка %d, %s", path, b.Line, b.Heading)
	if !since.IsZero() {
		say("(the context crossed its first threshold at %s)", "(контекст прошёл первый порог в %s)", since.UTC().Format(time.RFC3339))
	}
	return nil
}
