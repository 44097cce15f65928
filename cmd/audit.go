package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/settings"
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
	// Agent narrows the audit to one client's sessions; "" reads every
	// client's (AU-14).
	Agent     settings.Agent
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
		Long: `Reads the session transcripts the clients keep, newest first: Claude Code's
($CLAUDE_CONFIG_DIR/projects or ~/.claude/projects), Codex CLI's
($CODEX_HOME/sessions or ~/.codex/sessions), Qwen Code's
($QWEN_HOME/projects or ~/.qwen/projects), GitHub Copilot CLI's
($COPILOT_HOME/session-state or ~/.copilot/session-state) and Gemini CLI's
($GEMINI_CLI_HOME/.gemini/tmp or ~/.gemini/tmp); --agent keeps one
client's. For
each compaction found it reports: when, the trigger, the snapshot
compact-guard took for it, whether the pointer reached the model, whether
that pointer named this compaction's own snapshot, what the compaction's
summary kept of the snapshot's prompts, files and commands, and what the
residue gave back after it.

Whether the pointer reached the model is said in each client's terms:
Claude Code records the SessionStart context's text; Codex CLI records that
a hook context went into the model's history, with its length, and the
snapshot is the one compact-guard's delivery record says it handed out;
Qwen Code records no hook context, so it is not known ("unknown"), and the
snapshot handed out is named; for GitHub Copilot CLI and Gemini CLI, which
have no event after a compaction, whether the next prompt (or, on Copilot, a
tool result) carried it.

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
	var agent string
	f.StringVar(&agent, "agent", "", "only this client's sessions: "+settings.AgentNames(false)+" (default: every client's)")
	_ = c.RegisterFlagCompletionFunc("agent", agentCompletions)
	c.PreRunE = func(*cobra.Command, []string) (err error) {
		if agent == "" {
			return nil
		}
		if opts.Agent, err = settings.ParseAgent(agent); err != nil {
			return usageError{err}
		}
		return nil
	}
	return c
}

// auditRun returns exitError{1} when a pointer named another compaction's
// snapshot.
func auditRun(opts *AuditOptions) error {
	projects, err := opts.projectsDir()
	if err != nil {
		return err
	}
	rep, err := audit.Run(audit.Options{
		Dir: opts.Dir, ProjectsDir: projects, Sources: opts.sources(projects), Since: opts.Now().Add(-opts.since()),
		Session: opts.Session, Sessions: opts.sessions(), MaxRead: opts.maxRead(),
	})
	if err != nil {
		return err
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

// sources are the folders of the clients audited (AU-14, AU-21, AU-26),
// in the order of the table of clients: Claude Code's projects and each
// client's own (agent.Client.Sessions); --agent keeps one. A client whose
// home cannot be found is left out.
func (o *AuditOptions) sources(projects string) []audit.Source {
	var out []audit.Source
	add := func(a settings.Agent, dir string, err error) {
		if err == nil && (o.Agent == "" || o.Agent == a) {
			out = append(out, audit.Source{Agent: transcript.Format(a), Dir: dir})
		}
	}
	for _, c := range agent.All() {
		if c.Sessions == nil {
			add(c.Name(), projects, nil)
			continue
		}
		dir, err := c.Sessions(o.Host)
		add(c.Name(), dir, err)
	}
	return out
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

func printAudit(w io.Writer, rep audit.Report, opts *AuditOptions) {
	if len(rep.Sessions) == 0 {
		var dirs []string
		for _, src := range rep.Sources {
			dirs = append(dirs, textesc.String(src.Dir, false))
		}
		fmt.Fprintf(w, "no session transcripts changed in the last %s under %s\n", opts.since(), strings.Join(dirs, ", "))
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
			head += ", " + clientTitle(s.Agent) + " " + esc(s.Version)
		} else if s.Agent != "" && s.Agent != transcript.FormatClaude {
			head += ", " + clientTitle(s.Agent)
		}
		fmt.Fprintf(w, "%s: %d compaction(s)\n  %s\n", head, len(s.Compactions), esc(s.Transcript))
		if s.Error != "" {
			fmt.Fprintf(w, "  not read: %s\n", esc(s.Error))
		}
		switch {
		case s.Stopped:
			stopped++
			fmt.Fprintf(w, "  read stopped at byte %d (the %s limit): the %d compaction(s) from there on are listed, earlier ones were not examined\n",
				s.ReadFrom, audit.Deadline, len(s.Compactions))
		case s.Partial:
			fmt.Fprintf(w, "  compactions before byte %d were not examined (--max-read %d MiB)\n", s.ReadFrom, opts.maxRead()>>20)
		}
		for _, c := range s.Compactions {
			if c.Gone && c.Own {
				gone++
			}
			fmt.Fprintf(w, "  %2d  %s  %-6s  %s\n", c.Index, c.Time.Local().Format("2006-01-02 15:04:05"), esc(c.Trigger), esc(auditVerdict(s.Agent, c)))
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
		fmt.Fprintf(w, "reading stopped at the %s limit in %d session(s): their earlier compactions were not examined\n", audit.Deadline, stopped)
	}
	if line := auditResidueSum(rep); line != "" {
		fmt.Fprintln(w, line)
	}
}

// clientTitle is the client's name for people: Claude Code for a
// transcript of no known format, as audit read it before.
func clientTitle(f transcript.Format) string {
	if t := audit.Title(f); t != "" {
		return t
	}
	return audit.Title(transcript.FormatClaude)
}

// auditVerdict says in words what happened to one compaction of a
// session of the client whose transcripts are of format, in that client's
// terms (AU-3, AU-15, AU-16): its agent.Client.Pointer.
func auditVerdict(format transcript.Format, c audit.Compaction) string {
	snap := "no snapshot of it in the folder"
	if c.Snapshot != "" {
		snap = "snapshot " + c.Snapshot
	}
	pointer, note := "pointer delivered", ""
	if f := agent.OfFormat(format).Pointer; f != nil {
		verdict, p, n := f(c, snap)
		if verdict != "" {
			return verdict
		}
		if p != "" {
			pointer = p
		}
		note = n
	}
	switch {
	case c.Own && c.Gone:
		return "snapshot " + c.Named + " no longer in the folder; " + pointer + ", naming it" + note
	case c.Gone && !c.Foreign:
		return snap + "; " + pointer + ", naming " + c.Named + ", no longer in the folder (the compaction's time is not known)" + note
	case c.Gone:
		return snap + "; " + pointer + ", naming " + c.Named + ", another compaction's (no longer in the folder)" + note
	case c.Own:
		return snap + "; " + pointer + ", naming it" + note
	case c.Named != "":
		return snap + "; " + pointer + ", naming " + c.Named + ", another compaction's" + note
	case c.Notice:
		return snap + "; failure notice delivered"
	case c.Delivered == "no":
		return snap + "; no pointer in the transcript"
	}
	return snap + "; the client records no hook context here (not known whether one was given)"
}

// auditResidueLine says in one line what the summary kept of the prompts,
// files and commands, and what the residue gave back (AU-9). When nothing
// was given back it says why — the summary kept everything, or the pointer
// and the kept messages hold what it left out — so that "kept 0 of 1" is
// never followed by "nothing dropped".
func auditResidueLine(r *audit.Residue) string {
	var kept []string
	for _, k := range []struct{ kind, one, many string }{{residue.KindPrompt, "prompt", "prompts"}, {residue.KindFile, "file", "files"}, {residue.KindCommand, "command", "commands"}} {
		if c, ok := r.Kinds[k.kind]; ok {
			kept = append(kept, fmt.Sprintf("%d of %s", c.Summary, nouns(c.Facts, k.one, k.many)))
		}
	}
	line := "summary kept " + strings.Join(kept, ", ")
	if len(kept) == 0 {
		line = "no prompts, files or commands in the snapshot"
	}
	all := r.Kinds[""]
	switch g := r.Given; {
	case r.Source == "compared":
		line += fmt.Sprintf("; no residue record (compared now with the transcript's summary: %s lost)", nouns(r.LostTotal, "fact", "facts"))
	case g == nil:
		line += "; residue not handed over yet"
	case g.Facts == 0 && all.Dropped == 0 && all.Summary == all.Facts:
		line += "; no residue needed: the summary kept every fact"
	case g.Facts == 0 && all.Dropped == 0:
		line += fmt.Sprintf("; no residue needed: the pointer and the kept messages hold the %s the summary left out", nouns(all.Facts-all.Summary, "fact", "facts"))
	case g.Facts == 0:
		line += fmt.Sprintf("; residue gave back nothing (%s dropped)", nouns(all.Dropped, "fact", "facts"))
	default:
		line += fmt.Sprintf("; residue gave back %s with %s (%d characters)", nouns(g.Facts, "fact", "facts"), g.Event, g.Chars)
		if g.Omitted > 0 {
			line += fmt.Sprintf(", %d did not fit", g.Omitted)
		}
	}
	return line
}

// nouns is n with the noun in the number n takes: "1 fact", "2 facts",
// "0 facts".
func nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// auditResidueSum is the sum line of the residues, "" when no compaction
// had one (AU-9).
func auditResidueSum(rep audit.Report) string {
	var n, given, facts, nothing, pending int
	for _, s := range rep.Sessions {
		for _, c := range s.Compactions {
			r := c.Residue
			if r == nil {
				continue
			}
			n++
			switch g := r.Given; {
			case r.Source == "compared":
			case g == nil:
				pending++
			case g.Facts == 0:
				nothing++
			default:
				given++
				facts += g.Facts
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("residues: %d given back (%s), %d not needed, %d not handed over yet, %d without a record", given, nouns(facts, "fact", "facts"), nothing, pending, n-given-nothing-pending)
}
