package audit

import (
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

// client is what audit knows of one client's sessions: where in its
// folder a session's transcript is, and the session's id in its file's
// name. A client is audited once it has a row in clients.
type client struct {
	title string
	// depth is how many folders below Source.Dir a transcript lies, and
	// sub the folder it lies in at the last level ("" for none).
	depth int
	sub   string
	// session is the session id of a transcript named name, ok false for
	// a file that is not a session's.
	session func(name string) (string, bool)
}

// clients are the clients audit reads, by transcript format.
var clients = map[transcript.Format]client{
	// projects/<folder>/<session>.jsonl; subagents' agent-*.jsonl are not
	// sessions (AU-1).
	transcript.FormatClaude: {title: "Claude Code", depth: 1, session: func(name string) (string, bool) {
		sid, ok := strings.CutSuffix(name, ".jsonl")
		return sid, ok && !strings.HasPrefix(name, "agent-")
	}},
	// sessions/YYYY/MM/DD/rollout-<local time>-<session id>.jsonl (AU-14).
	transcript.FormatCodex: {title: "Codex CLI", depth: 3, session: func(name string) (string, bool) {
		base, ok := strings.CutSuffix(name, ".jsonl")
		if !ok || !strings.HasPrefix(base, "rollout-") || len(base) < len("rollout-")+36 {
			return "", false
		}
		return base[len(base)-36:], true
	}},
	// projects/<folder>/chats/<session id>.jsonl (AU-14).
	transcript.FormatQwen: {title: "Qwen Code", depth: 1, sub: "chats", session: func(name string) (string, bool) {
		return strings.CutSuffix(name, ".jsonl")
	}},
}

// Title is the client's name for people ("" for a format audit does not
// know).
func Title(f transcript.Format) string { return clients[f].title }

// sessionID is the session id of the transcript at path, read by its
// format's rule; Claude Code's when the format is unknown.
func sessionID(format transcript.Format, path string) string {
	c, ok := clients[format]
	if !ok {
		c = clients[transcript.FormatClaude]
	}
	if sid, ok := c.session(filepath.Base(path)); ok {
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
func listSessions(src Source, c client, since time.Time, prefix string) ([]found, error) {
	if _, err := os.ReadDir(src.Dir); err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", src.Dir, err)
	}
	dirs := []string{src.Dir}
	for level := 0; level < c.depth; level++ {
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
		if c.sub != "" {
			d = filepath.Join(d, c.sub)
		}
		es, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range es {
			sid, ok := c.session(e.Name())
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
