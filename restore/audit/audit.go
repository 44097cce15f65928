// Package audit reads the session transcripts the clients keep and says,
// for each compaction found, what compact-guard did for it (specs/
// audit.md): the snapshot taken for it, whether the transcript records
// that the pointer reached the model, whether it named the compaction's
// own snapshot, and what the summary kept. cmd's audit command gives the
// options and prints the Report.
package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Options say which transcripts to read and where the snapshots are.
type Options struct {
	// Dir is the snapshot folder.
	Dir string
	// ProjectsDir is Claude Code's projects/ folder (AU-1).
	ProjectsDir string
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
	rep := Report{ProjectsDir: opts.ProjectsDir, Sessions: []Session{}}
	files, err := Transcripts(opts.ProjectsDir, opts.Since, opts.Session, opts.Sessions)
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
	ProjectsDir string    `json:"projects_dir"`
	Sessions    []Session `json:"sessions"`
	// Compactions, Delivered and Own sum up the sessions; Foreign counts
	// pointers that named another compaction's snapshot.
	Compactions int `json:"compactions"`
	Delivered   int `json:"delivered"`
	Own         int `json:"own"`
	Foreign     int `json:"foreign"`
}

// Session is one transcript.
type Session struct {
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

// Transcripts lists the newest session transcripts under projects
// (projects/<folder>/<session>.jsonl, not subagents' files), changed since
// since, at most n of them; prefix narrows them to one session.
func Transcripts(projects string, since time.Time, prefix string, n int) ([]string, error) {
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

// ReadSession reads one transcript's compactions and matches each with
// the snapshot taken for it and the pointer recorded after it.
func ReadSession(path string, st *snapshot.Store, entries []snapshot.Entry, maxRead int64) Session {
	sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	s := Session{SessionID: sid, Transcript: path, Compactions: []Compaction{}}
	f, err := transcript.Open(path)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	defer f.Close()
	s.ReadFrom = max(0, f.Size()-maxRead)
	s.Partial = s.ReadFrom > 0
	ctx, cancel := context.WithTimeout(context.Background(), Deadline)
	defer cancel()
	read, err := readCompactions(ctx, f, s.ReadFrom)
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
		a := Compaction{Index: i + 1, Time: c.Time, Trigger: c.Trigger, PreTokens: c.PreTokens, Delivered: "unknown"}
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
			a.Residue = readResidue(ctx, st.Dir, f, c, records, a.Snapshot, sid)
		}
		s.Compactions = append(s.Compactions, a)
		prev, prevTime = c.Offset, c.Time
	}
	return s
}
