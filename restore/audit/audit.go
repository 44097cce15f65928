// Package audit reads the session transcripts the clients keep and says,
// for each compaction found, what compact-guard did for it (specs/
// audit.md): the snapshot taken for it, whether the transcript records
// that the pointer reached the model, whether it named the compaction's
// own snapshot, and what the summary kept. cmd's audit command gives the
// options and prints the Report.
package audit

import (
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Options say which transcripts to read and where the snapshots are.
type Options struct {
	// Dir is the snapshot folder.
	Dir string
	// ProjectsDir is Claude Code's projects/ folder (AU-1); Sources the
	// folders of every client audited, it among them (AU-14).
	ProjectsDir string
	Sources     []Source
	// Since, Session, Sessions and MaxRead bound the reading (AU-2): the
	// transcripts changed since Since, those whose session starts with
	// Session, at most Sessions of them, at most MaxRead bytes of each
	// from its end.
	Since    time.Time
	Session  string
	Sessions int
	MaxRead  int64
}

// Run reads the newest transcripts opts allows and matches each compaction
// in them with its snapshot and its pointer (AU-1 to AU-13).
func Run(opts Options) (Report, error) {
	rep := Report{ProjectsDir: opts.ProjectsDir, Sources: opts.Sources, Sessions: []Session{}}
	if rep.Sources == nil {
		rep.Sources = []Source{{Agent: transcript.FormatClaude, Dir: opts.ProjectsDir}}
	}
	files, err := Transcripts(rep.Sources, opts.Since, opts.Session, opts.Sessions)
	if err != nil {
		return rep, err
	}
	st := &snapshot.Store{Dir: opts.Dir}
	entries, _ := st.Entries()
	for _, path := range files {
		s := ReadSession(path, st, entries, opts.MaxRead)
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
	return rep, nil
}

// Report is what audit prints with --json.
type Report struct {
	ProjectsDir string `json:"projects_dir"`
	// Sources are the folders read, one per client (AU-14).
	Sources  []Source  `json:"sources"`
	Sessions []Session `json:"sessions"`
	// Compactions, Delivered and Own sum up the sessions; Foreign counts
	// pointers that named another compaction's snapshot.
	Compactions int `json:"compactions"`
	Delivered   int `json:"delivered"`
	Own         int `json:"own"`
	Foreign     int `json:"foreign"`
}

// Session is one transcript.
type Session struct {
	// Agent is the client whose transcript it is (its format).
	Agent      transcript.Format `json:"agent"`
	SessionID  string            `json:"session_id"`
	Transcript string            `json:"transcript"`
	Version    string            `json:"version,omitempty"`
	// ReadFrom is where reading started; compactions before it were not
	// examined (Partial).
	ReadFrom int64 `json:"read_from"`
	Partial  bool  `json:"partial,omitempty"`
	// Stopped says the reading stopped at the deadline (AU-12): the
	// compactions listed are those from ReadFrom on; earlier ones were not
	// examined.
	Stopped     bool         `json:"stopped,omitempty"`
	Error       string       `json:"error,omitempty"`
	Compactions []Compaction `json:"compactions"`
}

// Compaction is one compaction of a session.
type Compaction struct {
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
	// Contexts counts the hook contexts the client recorded as given to
	// the model after the compaction, ContextChars their length where
	// the client kept only that (Codex CLI, AU-15).
	Contexts     int `json:"contexts"`
	ContextChars int `json:"context_chars,omitempty"`
	// Handed is the snapshot compact-guard's delivery record says it
	// handed out for this compaction, and HandedEvent the hook that did
	// (AU-17).
	Handed      string `json:"handed,omitempty"`
	HandedEvent string `json:"handed_event,omitempty"`
	// Own is set when the pointer named Snapshot, or named a snapshot no
	// longer in the folder whose name is this compaction's (Gone, AU-11).
	Own  bool `json:"own"`
	Gone bool `json:"gone,omitempty"`
	// Foreign is set when the pointer named another compaction's snapshot
	// (AU-5).
	Foreign bool `json:"foreign,omitempty"`
	// Residue is what the summary kept of the snapshot's facts and what
	// the residue gave back; nil without a snapshot (AU-6).
	Residue *Residue `json:"residue,omitempty"`
}
