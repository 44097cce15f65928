package cmd

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

func init() {
	register("list", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdList(ios, g, nil) })
}

// ListOptions are the inputs of "compact-guard list".
type ListOptions struct {
	IO      *IO
	Global  *GlobalOptions
	Session string
	JSON    bool
	Now     func() time.Time
}

func newCmdList(ios *IO, g *GlobalOptions, runF func(*ListOptions) error) *cobra.Command {
	opts := &ListOptions{IO: ios, Global: g, Now: time.Now}
	c := &cobra.Command{
		Use:   "list [--session ID] [--json]",
		Short: "List the snapshots, newest first",
		Long: `List the snapshots in the snapshot folder, newest first: name, local time,
age, session (first 8 characters), trigger (manual or auto), whether a
PostCompact hook confirmed that the compaction completed, context fill in
tokens, files edited, prompts typed in the session, and the working folder.

--session keeps one session's snapshots (a prefix of the session id is
enough). --json prints an array of objects with the same facts and the
paths of the .md and .json files.

Exit status: 0 listed (also when the folder is empty), 1 the folder cannot
be read or --session matches nothing, 2 bad flags.`,
		Example: `  compact-guard list
  compact-guard list --session 3f2a9c1e
  compact-guard list --json | jq -r '.[0].md_path'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return listRun(opts)
		},
	}
	c.Flags().StringVar(&opts.Session, "session", "", "only this session's snapshots (a prefix of the session id)")
	c.Flags().BoolVar(&opts.JSON, "json", false, "print JSON")
	return c
}

// listItem is one snapshot as list shows it; the JSON names are the output
// of --json.
type listItem struct {
	Name          string    `json:"name"`
	Time          time.Time `json:"time"`
	SessionID     string    `json:"session_id"`
	Agent         string    `json:"agent"`
	Trigger       string    `json:"trigger"`
	Confirmed     bool      `json:"confirmed"`
	ContextTokens *int64    `json:"context_tokens"`
	Files         int       `json:"files"`
	Prompts       int       `json:"prompts"`
	Cwd           string    `json:"cwd"`
	MDPath        string    `json:"md_path,omitempty"`
	JSONPath      string    `json:"json_path"`
	Error         string    `json:"error,omitempty"`
}

// loadSnapshots reads the folder's snapshots, newest first. A record that
// cannot be read still appears, with its error, so that nothing in the
// folder is hidden. A missing folder is an empty list.
func loadSnapshots(dir string) ([]listItem, error) {
	store := &snapshot.Store{Dir: dir}
	entries, err := store.Entries()
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the snapshot folder: %w", err)
	}
	items := make([]listItem, 0, len(entries))
	for _, e := range entries {
		it := listItem{Name: e.Name, Time: e.Time, SessionID: e.SID8, MDPath: e.MDPath, JSONPath: e.JSONPath}
		rec, err := store.Load(e.Name)
		if err != nil {
			it.Error = err.Error()
			items = append(items, it)
			continue
		}
		it.Time = rec.CreatedAt
		it.SessionID = rec.SessionID
		it.Agent = cmp.Or(rec.Agent, "claude")
		it.Trigger = rec.Trigger
		it.Confirmed = rec.Compaction != nil
		if rec.Context != nil {
			tokens := rec.Context.Tokens
			it.ContextTokens = &tokens
		}
		it.Files = len(rec.Files)
		// The session's prompts, not only the few the record keeps; a
		// record older than totals knows only those.
		it.Prompts = len(rec.Prompts)
		if rec.Totals != nil {
			it.Prompts = max(it.Prompts, rec.Totals.Prompts)
		}
		it.Cwd = rec.Cwd
		items = append(items, it)
	}
	return items, nil
}

// matchSession keeps the items of the session whose id starts with id.
func matchSession(items []listItem, id string) []listItem {
	var out []listItem
	for _, it := range items {
		if strings.HasPrefix(it.SessionID, id) {
			out = append(out, it)
		}
	}
	return out
}

// sessionSnapshots loads the folder's snapshots, newest first, only the
// session's when session is set; a session without any is an error.
func sessionSnapshots(dir, session string) ([]listItem, error) {
	items, err := loadSnapshots(dir)
	if err != nil || session == "" {
		return items, err
	}
	if items = matchSession(items, session); len(items) == 0 {
		return nil, fmt.Errorf("no snapshots of session %q in %s; run 'compact-guard list' to see all", session, dir)
	}
	return items, nil
}

func listRun(opts *ListOptions) error {
	dir := snapshotDir(opts.Global)
	items, err := sessionSnapshots(dir, opts.Session)
	if err != nil {
		return err
	}
	if opts.JSON {
		if items == nil {
			items = []listItem{}
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(items)
	}
	if len(items) == 0 {
		_, err := fmt.Fprintf(opts.IO.Out, "no snapshots in %s\n", textesc.String(dir, false))
		return err
	}
	return writeListTable(opts.IO.Out, items, opts.Now(), homeDirOrEmpty())
}

func homeDirOrEmpty() string {
	h, _ := os.UserHomeDir()
	return h
}

// writeListTable prints the table. Every field that comes from a record
// or the file system is escaped (textesc): a cwd or session id holding ESC,
// CSI, a tab or an invisible character cannot drive the terminal, shift
// the columns or hide text (SEC-21).
func writeListTable(w io.Writer, items []listItem, now time.Time, home string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTIME\tAGE\tSESSION\tAGENT\tTRIGGER\tCONFIRMED\tCONTEXT\tFILES\tPROMPTS\tCWD")
	esc := func(s string) string { return textesc.String(s, false) }
	for _, it := range items {
		if it.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t?\t?\t?\t?\t?\t?\tunreadable: %s\n", esc(it.Name), it.Time.Local().Format("2006-01-02 15:04:05"),
				formatAge(now.Sub(it.Time)), esc(shortSession(it.SessionID)), esc(it.Error))
			continue
		}
		confirmed := "no"
		if it.Confirmed {
			confirmed = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", esc(it.Name), it.Time.Local().Format("2006-01-02 15:04:05"),
			formatAge(now.Sub(it.Time)), esc(shortSession(it.SessionID)), esc(it.Agent), esc(it.Trigger), confirmed, formatTokens(it.ContextTokens),
			it.Files, it.Prompts, esc(tildePath(it.Cwd, home)))
	}
	return tw.Flush()
}

func shortSession(id string) string {
	if r := []rune(id); len(r) > 8 {
		return string(r[:8])
	}
	if id == "" {
		return "-"
	}
	return id
}

// formatAge is a coarse age: 45s, 12m, 3h, 5d.
func formatAge(d time.Duration) string {
	switch {
	case d < 0:
		return "future"
	case d < time.Minute:
		return strconv.Itoa(int(d.Seconds())) + "s"
	case d < time.Hour:
		return strconv.Itoa(int(d.Minutes())) + "m"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d.Hours())) + "h"
	default:
		return strconv.Itoa(int(d.Hours()/24)) + "d"
	}
}

// formatTokens writes a token count as 812, 15.3k or 1.2M.
func formatTokens(t *int64) string {
	switch {
	case t == nil:
		return "-"
	case *t < 1000:
		return strconv.FormatInt(*t, 10)
	case *t < 1_000_000:
		return strconv.FormatFloat(float64(*t)/1000, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(float64(*t)/1_000_000, 'f', 1, 64) + "M"
	}
}

// tildePath shortens a path under the home folder to ~/...
func tildePath(p, home string) string {
	if p == "" {
		return "-"
	}
	if home != "" {
		if rel, err := filepath.Rel(home, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			if rel == "." {
				return "~"
			}
			return "~" + string(filepath.Separator) + rel
		}
	}
	return p
}
