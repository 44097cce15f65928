package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/snapshot"
)

func init() {
	register("show", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdShow(ios, g, nil) })
}

// ShowOptions are the inputs of "compact-guard show". At most one of Name,
// Session and Latest is set; none means Latest.
type ShowOptions struct {
	IO      *IO
	Global  *GlobalOptions
	Name    string
	Session string
	Latest  bool
	JSON    bool
	Full    bool
}

func newCmdShow(ios *IO, g *GlobalOptions, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: ios, Global: g}
	c := &cobra.Command{
		Use:   "show [NAME | --session ID | --latest] [--full | --json]",
		Short: "Print a snapshot",
		Long: `Print a snapshot: a summary that fits one screen (time, trigger, context,
working directory, files edited, failed commands, git, the last prompt),
then the detail: the prompts, and one line per file, command, task,
failure and uncommitted change. It is the snapshot's Markdown, rendered
from its JSON record.
--full prints everything the record holds (each command whole, with its
description; every note); --json prints the JSON record as stored.

NAME is a name from 'compact-guard list' (snap_<time>_<session>, with or
without .md or .json, or a path to one of the two files, of which only the
file name counts: the snapshot is always read from the snapshot folder,
see 'compact-guard dir'). --session ID
shows that session's newest snapshot (a prefix of the session id is
enough); --latest, or no argument, the newest snapshot of all.

Exit status: 0 printed, 1 no such snapshot or it cannot be read, 2 bad
flags or arguments.`,
		Example: `  compact-guard show
  compact-guard show snap_20260314-150926_3f2a9c1e
  compact-guard show --full
  compact-guard show --session 3f2a9c1e --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			set := 0
			for _, on := range []bool{opts.Name != "", cmd.Flags().Changed("session"), opts.Latest} {
				if on {
					set++
				}
			}
			if set > 1 {
				return usageError{errors.New("give one of NAME, --session and --latest")}
			}
			if opts.Full && opts.JSON {
				return usageError{errors.New("give one of --full and --json")}
			}
			if cmd.Flags().Changed("session") && opts.Session == "" {
				return usageError{errors.New("--session needs a session id")}
			}
			if set == 0 {
				opts.Latest = true
			}
			if runF != nil {
				return runF(opts)
			}
			return showRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Session, "session", "", "the newest snapshot of this session (a prefix of the session id)")
	c.Flags().BoolVar(&opts.Latest, "latest", false, "the newest snapshot (the default)")
	c.Flags().BoolVar(&opts.Full, "full", false, "print everything the record holds")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print the JSON record instead of the Markdown")
	return c
}

// snapshotNameArg turns what the user typed into a snapshot base name.
func snapshotNameArg(s string) string {
	s = filepath.Base(filepath.FromSlash(s))
	for _, ext := range []string{".md", ".json"} {
		if base, ok := strings.CutSuffix(s, ext); ok {
			return base
		}
	}
	return s
}

func showRun(opts *ShowOptions) error {
	dir := snapshotDir(opts.Global)
	name := ""
	switch {
	case opts.Name != "":
		name = snapshotNameArg(opts.Name)
		if _, ok := snapshot.ParseName(name); !ok {
			return fmt.Errorf("%q is not a snapshot name (snap_<YYYYmmdd-HHMMSS>_<session>); run 'compact-guard list' to see them", opts.Name)
		}
		if _, err := os.Stat(filepath.Join(dir, name+".json")); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no snapshot %s in %s; run 'compact-guard list' to see them", name, dir)
		}
	default:
		items, err := sessionSnapshots(dir, opts.Session)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return fmt.Errorf("no snapshots in %s yet", dir)
		}
		name = items[0].Name
	}

	store := &snapshot.Store{Dir: dir}
	rec, err := store.Load(name)
	if err != nil {
		return fmt.Errorf("cannot read snapshot %s: %w", name, err)
	}
	// The record is the source of truth and the Markdown its view: show
	// renders it afresh, so a snapshot taken by an older version reads in
	// the current layout, in the language it was taken in.
	lang := rec.Lang
	if lang == "" {
		lang = snapshot.English
	}
	var data []byte
	switch {
	case opts.JSON:
		data, err = os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			return fmt.Errorf("cannot read snapshot %s: %w", name, err)
		}
	default:
		// What the compaction's summary kept, when the snapshot has a
		// residue record (specs/residue.md RS-25).
		res, rerr := snapshot.ReadResidue(dir, name, rec.SessionID)
		if rerr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "compact-guard: the residue record of %s is not shown: %v\n", name, rerr)
		}
		data = snapshot.RenderMarkdownWithResidue(rec, lang, opts.Full, res)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	_, err = opts.IO.Out.Write(data)
	return err
}
