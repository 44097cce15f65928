package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

func init() { register("audit", newCmdAuditDefault) }

// AuditOptions configures one audit of the user's sessions.
type AuditOptions struct {
	IO  *IO
	Dir string
	// ConfigDir is the Claude Code folder whose projects/ hold the
	// transcripts; "" means $CLAUDE_CONFIG_DIR or ~/.claude.
	ConfigDir string
	JSON      bool
	Session   string
	Sessions  int
	Since     time.Duration
	MaxReadMB int64
	Host      settings.Host
	Now       func() time.Time
}

// Defaults of the audit flags.
const (
	defaultAuditSessions = 20
	defaultAuditSince    = 7 * 24 * time.Hour
	defaultAuditReadMB   = 64
)

func newCmdAuditDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdAudit(ios, g, auditRun)
}

func newCmdAudit(ios *IO, g *GlobalOptions, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: ios, Host: settings.DefaultHost(), Now: time.Now}
	c := &cobra.Command{
		Use:   "audit",
		Short: "Show, for each compaction of your recent sessions, whether its pointer reached the model and named its own snapshot",
		Long: `Reads the session transcripts Claude Code keeps ($CLAUDE_CONFIG_DIR/projects or
~/.claude/projects), newest first, and reports for each compaction found: when,
the trigger, the snapshot compact-guard took for it, whether the transcript
records that the SessionStart pointer was given to the model, whether that
pointer named this compaction's own snapshot, what the compaction's summary
kept of the snapshot's prompts, files and commands, and what the residue
gave back after it.

It reads at most --sessions transcripts changed within --since, and at most
--max-read MiB from the end of each; compactions before that are not examined
and the report says so.

Exit status: 0 when no pointer named another compaction's snapshot, 1 when one
did, 2 for a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			opts.Dir = snapshotDir(g)
			return runF(opts)
		},
	}
	f := c.Flags()
	f.BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	f.StringVar(&opts.Session, "session", "", "only this session (a prefix of its id)")
	f.IntVar(&opts.Sessions, "sessions", defaultAuditSessions, "how many of the newest transcripts to read")
	f.DurationVar(&opts.Since, "since", defaultAuditSince, "only transcripts changed within this time")
	f.Int64Var(&opts.MaxReadMB, "max-read", defaultAuditReadMB, "MiB read from the end of each transcript")
	return c
}

// AuditReport is what audit prints with --json.
type AuditReport struct {
	ProjectsDir string         `json:"projects_dir"`
	Sessions    []AuditSession `json:"sessions"`
	// Compactions, Delivered and Own sum up the sessions; Foreign counts
	// pointers that named another compaction's snapshot.
	Compactions int `json:"compactions"`
	Delivered   int `json:"delivered"`
	Own         int `json:"own"`
	Foreign     int `json:"foreign"`
}

// AuditSession is one transcript.
type AuditSession struct {
	SessionID  string `json:"session_id"`
	Transcript string `json:"transcript"`
	Version    string `json:"version,omitempty"`
	// ReadFrom is where reading started; compactions before it were not
	// examined (Partial).
	ReadFrom int64 `json:"read_from"`
	Partial  bool  `json:"partial,omitempty"`
	// Stopped says the reading stopped at the deadline (AU-12): the
	// compactions listed are those from ReadFrom on; earlier ones were not
	// examined.
	Stopped     bool              `json:"stopped,omitempty"`
	Error       string            `json:"error,omitempty"`
	Compactions []AuditCompaction `json:"compactions"`
}

// AuditCompaction is one compaction of a session.
type AuditCompaction struct {
	Index     int       `json:"index"`
	Time      time.Time `json:"time"`
	Trigger   string    `json:"trigger"`
	PreTokens int64     `json:"pre_tokens,omitempty"`
	// Snapshot is the snapshot taken for it, "" when the folder holds none.
	Snapshot string `json:"snapshot"`
	// Delivered is "yes" when the transcript records a compact-guard
	// context given to the model after the compaction, "no" when it
	// records hook runs there but none of ours, "unknown" when it records
	// no hook run at all, or when the client (before 2.1.120) drops what
	// it recorded if the session was resumed in a new process.
	Delivered string `json:"delivered"`
	// Named is the snapshot the pointer named; Notice is set when a failure
	// notice was delivered instead.
	Named  string `json:"named,omitempty"`
	Notice bool   `json:"notice,omitempty"`
	// Own is set when the pointer named Snapshot, or named a snapshot no
	// longer in the folder whose name is this compaction's (Gone, AU-11).
	Own  bool `json:"own"`
	Gone bool `json:"gone,omitempty"`
	// Foreign is set when the pointer named another compaction's snapshot
	// (AU-5).
	Foreign bool `json:"foreign,omitempty"`
	// Residue is what the summary kept of the snapshot's facts and what
	// the residue gave back; nil without a snapshot (AU-6).
	Residue *AuditResidue `json:"residue,omitempty"`
}

// auditRun returns exitError{1} when a pointer named another compaction's
// snapshot.
func auditRun(opts *AuditOptions) error {
	projects, err := opts.projectsDir()
	if err != nil {
		return err
	}
	rep := AuditReport{ProjectsDir: projects, Sessions: []AuditSession{}}
	files, err := auditTranscripts(projects, opts.Now().Add(-opts.since()), opts.Session, opts.sessions())
	if err != nil {
		return err
	}
	st := &snapshot.Store{Dir: opts.Dir}
	entries, _ := st.Entries()
	for _, path := range files {
		s := auditSession(path, st, entries, opts.maxRead())
		for _, c := range s.Compactions {
			rep.Compactions++
			if c.Delivered == "yes" {
				rep.Delivered++
			}
			if c.Own {
				rep.Own++
			}
			if c.Foreign {
				rep.Foreign++
			}
		}
		rep.Sessions = append(rep.Sessions, s)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printAudit(opts.IO.Out, rep, opts)
	}
	if rep.Foreign > 0 {
		return exitError{ExitFailure}
	}
	return nil
}

// auditTranscripts lists the newest session transcripts under projects
// (projects/<folder>/<session>.jsonl, not subagents' files), changed since
// since, at most n of them; prefix narrows them to one session.
func auditTranscripts(projects string, since time.Time, prefix string, n int) ([]string, error) {
	dirs, err := os.ReadDir(projects)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", projects, err)
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		es, err := os.ReadDir(filepath.Join(projects, d.Name()))
		if err != nil {
			continue
		}
		for _, e := range es {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(name, ".jsonl") || strings.HasPrefix(name, "agent-") ||
				!strings.HasPrefix(name, prefix) {
				continue
			}
			info, err := e.Info()
			if err != nil || info.ModTime().Before(since) {
				continue
			}
			files = append(files, file{filepath.Join(projects, d.Name(), name), info.ModTime()})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	var out []string
	for i := 0; i < len(files) && i < n; i++ {
		out = append(out, files[i].path)
	}
	return out, nil
}

// auditSession reads one transcript's compactions and matches each with
// the snapshot taken for it and the pointer recorded after it.
func auditSession(path string, st *snapshot.Store, entries []snapshot.Entry, maxRead int64) AuditSession {
	sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := AuditSession{SessionID: sid, Transcript: path, Compactions: []AuditCompaction{}}
	f, err := transcript.Open(path)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	defer f.Close()
	s.ReadFrom = max(0, f.Size()-maxRead)
	s.Partial = s.ReadFrom > 0
	ctx, cancel := context.WithTimeout(context.Background(), auditDeadline)
	defer cancel()
	read, err := auditCompactions(ctx, f, s.ReadFrom)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	comps := read.comps
	if read.stopped {
		// AU-12: what was read whole is reported, and where reading stopped.
		s.ReadFrom, s.Partial, s.Stopped = read.from, true, true
	}
	var records []*snapshot.Record
	sid8 := snapshot.SID8(sid)
	for _, e := range entries {
		if e.SID8 != sid8 {
			continue
		}
		if r, err := st.Load(e.Name); err == nil && r.SessionID == sid {
			records = append(records, r)
		}
	}
	inFolder := map[string]bool{}
	for _, e := range entries {
		inFolder[e.Name] = true
	}
	prev := s.ReadFrom - 1
	if !s.Partial {
		prev = -1
	}
	var prevTime time.Time // of the boundary before, zero for none known
	for i, c := range comps {
		a := AuditCompaction{Index: i + 1, Time: c.Time, Trigger: c.Trigger, PreTokens: c.PreTokens, Delivered: "unknown"}
		if c.Version != "" {
			s.Version = c.Version
		}
		if r := selectsnap.TakenFor(records, path, prevTime, c.Time, prev, c.Offset); r != nil {
			a.Snapshot = r.Name
		}
		for _, text := range c.Contexts {
			if name := selectsnap.NamedSnapshot(text); name != "" {
				a.Delivered, a.Named = "yes", name
			} else if strings.Contains(text, "compact-guard") {
				a.Delivered, a.Notice = "yes", true
			}
		}
		if a.Delivered == "unknown" && c.HookRecords > 0 {
			a.Delivered = "no"
		}
		if a.Delivered == "yes" && c.Version != "" && !selectsnap.RecordsContext(c.Version) {
			// Recorded, but such a release sends it only while the same
			// process goes on: after --resume the model never sees it.
			a.Delivered = "unknown"
		}
		a.Own = a.Named != "" && a.Named == a.Snapshot
		if a.Named != "" && !a.Own && !inFolder[a.Named] {
			// AU-11: a snapshot pruned since is judged by its name and this
			// compaction's time window, not by its absence.
			var next time.Time
			if i+1 < len(comps) {
				next = comps[i+1].Time
			}
			a.Gone = true
			a.Own = a.Snapshot == "" && selectsnap.NameFits(a.Named, sid, prevTime, c.Time, next)
		}
		a.Foreign = a.Named != "" && !a.Own && !(a.Gone && c.Time.IsZero())
		if st != nil {
			a.Residue = auditResidue(ctx, st.Dir, f, c, records, a.Snapshot, sid)
		}
		s.Compactions = append(s.Compactions, a)
		prev, prevTime = c.Offset, c.Time
	}
	return s
}

func printAudit(w io.Writer, rep AuditReport, opts *AuditOptions) {
	if len(rep.Sessions) == 0 {
		fmt.Fprintf(w, "no session transcripts changed in the last %s under %s\n", opts.since(), textesc.String(rep.ProjectsDir, false))
		return
	}
	// What comes from a transcript or the file system (the session and its
	// path, the release, the trigger, an error, a residue's event) is
	// escaped as list escapes it, so that none of it can move the cursor,
	// set the title or forge a line (AU-13, security.md SEC-21).
	esc := func(s string) string { return textesc.String(s, false) }
	stopped, gone := 0, 0
	for _, s := range rep.Sessions {
		head := fmt.Sprintf("session %s", esc(s.SessionID))
		if s.Version != "" {
			head += ", Claude Code " + esc(s.Version)
		}
		fmt.Fprintf(w, "%s: %d compaction(s)\n  %s\n", head, len(s.Compactions), esc(s.Transcript))
		if s.Error != "" {
			fmt.Fprintf(w, "  not read: %s\n", esc(s.Error))
		}
		switch {
		case s.Stopped:
			stopped++
			fmt.Fprintf(w, "  read stopped at byte %d (the %s limit): the %d compaction(s) from there on are listed, earlier ones were not examined\n",
				s.ReadFrom, auditDeadline, len(s.Compactions))
		case s.Partial:
			fmt.Fprintf(w, "  compactions before byte %d were not examined (--max-read %d MiB)\n", s.ReadFrom, opts.maxRead()>>20)
		}
		for _, c := range s.Compactions {
			if c.Gone && c.Own {
				gone++
			}
			fmt.Fprintf(w, "  %2d  %s  %-6s  %s\n", c.Index, c.Time.Local().Format("2006-01-02 15:04:05"), esc(c.Trigger), esc(auditVerdict(c)))
			if c.Residue != nil {
				fmt.Fprintf(w, "      %s\n", esc(auditResidueLine(c.Residue)))
			}
		}
	}
	own := ""
	if gone > 0 {
		own = fmt.Sprintf(" (%d of them no longer in the folder)", gone)
	}
	fmt.Fprintf(w, "%d compaction(s) in %d session(s): %d with the pointer delivered, %d naming their own snapshot%s, %d naming another compaction's\n",
		rep.Compactions, len(rep.Sessions), rep.Delivered, rep.Own, own, rep.Foreign)
	if stopped > 0 {
		fmt.Fprintf(w, "reading stopped at the %s limit in %d session(s): their earlier compactions were not examined\n", auditDeadline, stopped)
	}
	if line := auditResidueSum(rep); line != "" {
		fmt.Fprintln(w, line)
	}
}

// auditVerdict says in words what happened to one compaction.
func auditVerdict(c AuditCompaction) string {
	snap := "no snapshot of it in the folder"
	if c.Snapshot != "" {
		snap = "snapshot " + c.Snapshot
	}
	switch {
	case c.Own && c.Gone:
		return "snapshot " + c.Named + " no longer in the folder; pointer delivered, naming it"
	case c.Gone && !c.Foreign:
		return snap + "; pointer delivered, naming " + c.Named + ", no longer in the folder (the compaction's time is not known)"
	case c.Gone:
		return snap + "; pointer delivered, naming " + c.Named + ", another compaction's (no longer in the folder)"
	case c.Own:
		return snap + "; pointer delivered, naming it"
	case c.Named != "":
		return snap + "; pointer delivered, naming " + c.Named + ", another compaction's"
	case c.Notice:
		return snap + "; failure notice delivered"
	case c.Delivered == "no":
		return snap + "; no pointer in the transcript"
	}
	return snap + "; the client records no hook context here (not known whether one was given)"
}

func (o *AuditOptions) projectsDir() (string, error) {
	if o.ConfigDir != "" {
		return filepath.Join(o.ConfigDir, "projects"), nil
	}
	user, err := settings.UserPath(o.Host)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(user), "projects"), nil
}

func (o *AuditOptions) since() time.Duration {
	if o.Since <= 0 {
		return defaultAuditSince
	}
	return o.Since
}

func (o *AuditOptions) sessions() int {
	if o.Sessions <= 0 {
		return defaultAuditSessions
	}
	return o.Sessions
}

func (o *AuditOptions) maxRead() int64 {
	if o.MaxReadMB <= 0 {
		return defaultAuditReadMB << 20
	}
	return o.MaxReadMB << 20
}
