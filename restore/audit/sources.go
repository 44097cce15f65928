package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/transcript"
)

// Source is where one client keeps its session transcripts (AU-1, AU-14):
// Claude Code's projects/ folder, Codex CLI's sessions/, Qwen Code's
// projects/.
type Source struct {
	Agent transcript.Format `json:"agent"`
	Dir   string            `json:"dir"`
}

// Layout is what audit knows of one client's sessions: where in its
// folder a session's transcript is, the session's id in its file's name,
// and how its records say whether a pointer reached the model. A client
// is audited once its Layout is registered (Register; Claude Code's is
// audit's own).
type Layout struct {
	// Title is the client's name for people.
	Title string
	// Depth is how many folders below Source.Dir a transcript lies, and
	// Sub the folder it lies in at the last level ("" for none).
	Depth int
	Sub   string
	// Session is the session id of the transcript at path, ok false for
	// a file that is not a session's.
	Session func(path string) (string, bool)
	// Delivered judges, from the client's records of compaction c (the
	// transcript f at path, up to end), whether its pointer reached the
	// model, filling a's Delivered, Named, Contexts and the like; nil:
	// Claude Code's rule, which reads the context's recorded text.
	Delivered func(ctx context.Context, path string, f *transcript.File, c transcript.Compaction, end int64, a *Compaction)
}

// clients are the clients audit reads, by transcript format: Claude
// Code's, and each registered.
var clients = map[transcript.Format]Layout{
	// projects/<folder>/<session>.jsonl; subagents' agent-*.jsonl are not
	// sessions (AU-1).
	transcript.FormatClaude: {Title: "Claude Code", Depth: 1, Session: func(path string) (string, bool) {
		name := filepath.Base(path)
		sid, ok := strings.CutSuffix(name, ".jsonl")
		return sid, ok && !strings.HasPrefix(name, "agent-")
	}},
}

// Register adds the layout of the client whose transcripts are of format
// f. It is called while the program starts (agent.Register).
func Register(f transcript.Format, l Layout) { clients[f] = l }

// Title is the client's name for people ("" for a format audit does not
// know).
func Title(f transcript.Format) string { return clients[f].Title }

// sessionID is the session id of the transcript at path, read by its
// format's rule; Claude Code's when the format is unknown.
func sessionID(format transcript.Format, path string) string {
	c, ok := clients[format]
	if !ok {
		c = clients[transcript.FormatClaude]
	}
	if sid, ok := c.Session(path); ok {
		return sid
	}
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

// found is a transcript listed, with its client and when it changed.
type found struct {
	path   string
	format transcript.Format
	mod    time.Time
}

// Transcripts lists the newest session transcripts of the sources, changed
// since since, at most n of them, newest first; prefix narrows them to the
// sessions whose id starts with it (AU-2).
func Transcripts(sources []Source, since time.Time, prefix string, n int) ([]string, error) {
	var files []found
	for _, src := range sources {
		c, ok := clients[src.Agent]
		if !ok {
			continue
		}
		fs, err := listSessions(src, c, since, prefix)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].mod.After(files[j].mod) })
	var out []string
	for i := 0; i < len(files) && i < n; i++ {
		out = append(out, files[i].path)
	}
	return out, nil
}

// listSessions walks src.Dir down to c's transcripts. A missing folder is
// no session; one that cannot be read is an error only at the top.
func listSessions(src Source, c Layout, since time.Time, prefix string) ([]found, error) {
	if _, err := os.ReadDir(src.Dir); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", src.Dir, err)
	}
	dirs := []string{src.Dir}
	for level := 0; level < c.Depth; level++ {
		var next []string
		for _, d := range dirs {
			es, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range es {
				if e.IsDir() {
					next = append(next, filepath.Join(d, e.Name()))
				}
			}
		}
		dirs = next
	}
	var out []found
	for _, d := range dirs {
		if c.Sub != "" {
			d = filepath.Join(d, c.Sub)
		}
		es, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range es {
			sid, ok := c.Session(filepath.Join(d, e.Name()))
			if !ok || !e.Type().IsRegular() || !strings.HasPrefix(sid, prefix) {
				continue
			}
			info, err := e.Info()
			if err != nil || info.ModTime().Before(since) {
				continue
			}
			out = append(out, found{filepath.Join(d, e.Name()), src.Agent, info.ModTime()})
		}
	}
	return out, nil
}
