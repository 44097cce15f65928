package standing

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	claude "github.com/compact-guard/compact-guard/clients/claude/reader"
)

// The labelled sets of specs/standing.md ST-12 to ST-14: the typed prompts
// of real Claude Code sessions, read here the way the Claude Code reader
// tells a typed prompt (reference §4.5), but the whole session and not only
// its last five.

// sharedFixtureDir is the shared real transcripts: COMPACT_GUARD_FIXTURES,
// else the folder next to the project.
func sharedFixtureDir() string {
	if d := os.Getenv("COMPACT_GUARD_FIXTURES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "fixtures", "transcripts")
}

// corpusDir is the entireio corpus (one Claude Code transcript a file),
// outside the project: COMPACT_GUARD_CORPUS, else the folder next to it.
func corpusDir() string {
	if d := os.Getenv("COMPACT_GUARD_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "corpus", "entireio")
}

// session is one session's typed prompts, in order.
type session struct {
	source, id string
	prompts    []Prompt
}

// textHash names a prompt's text in the labels without holding it: the
// first 12 hex digits of its SHA-256.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])[:12]
}

type ccLine struct {
	Type         string          `json:"type"`
	UUID         string          `json:"uuid"`
	SessionID    string          `json:"sessionId"`
	Timestamp    time.Time       `json:"timestamp"`
	IsMeta       bool            `json:"isMeta"`
	IsSidechain  bool            `json:"isSidechain"`
	IsCompact    bool            `json:"isCompactSummary"`
	ToolUse      json.RawMessage `json:"toolUseResult"`
	PromptSource string          `json:"promptSource"`
	Origin       struct {
		Kind string `json:"kind"`
	} `json:"origin"`
	Message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// typedText is the entry's typed prompt, or "" when it is none.
func (l *ccLine) typedText() string {
	if l.Type != "user" || l.IsMeta || l.IsSidechain || l.IsCompact || len(l.ToolUse) > 0 ||
		l.PromptSource == "system" || l.Origin.Kind == "task-notification" {
		return ""
	}
	var text string
	if err := json.Unmarshal(l.Message.Content, &text); err != nil {
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(l.Message.Content, &blocks) != nil {
			return ""
		}
		var parts []string
		for _, b := range blocks {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			case "image":
				parts = append(parts, "[image]")
			case "tool_result":
				return ""
			}
		}
		text = strings.Join(parts, "\n")
	}
	if strings.TrimSpace(text) == "" {
		return ""
	}
	trimmed := strings.TrimLeft(text, " \t\r\n")
	for _, m := range claude.HarnessMarkers {
		if strings.HasPrefix(trimmed, m) {
			return ""
		}
	}
	return text
}

// readSessions reads the typed prompts of every session in the files,
// each prompt once (one session is often in several files of the corpus),
// ordered by time and then by first appearance.
func readSessions(source string, files []string) ([]session, error) {
	type seen struct {
		p     Prompt
		order int
	}
	bySession := map[string]map[string]seen{}
	order := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var l ccLine
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			text := l.typedText()
			if text == "" || l.SessionID == "" {
				continue
			}
			m := bySession[l.SessionID]
			if m == nil {
				m = map[string]seen{}
				bySession[l.SessionID] = m
			}
			key := l.UUID
			if key == "" {
				key = textHash(text) + l.Timestamp.String()
			}
			if _, ok := m[key]; !ok {
				m[key] = seen{Prompt{Text: text, Time: l.Timestamp}, order}
				order++
			}
		}
		f.Close()
	}
	var out []session
	for id, m := range bySession {
		list := make([]seen, 0, len(m))
		for _, s := range m {
			list = append(list, s)
		}
		sort.Slice(list, func(i, j int) bool {
			if !list[i].p.Time.Equal(list[j].p.Time) {
				return list[i].p.Time.Before(list[j].p.Time)
			}
			return list[i].order < list[j].order
		})
		s := session{source: source, id: id}
		for i, x := range list {
			x.p.Index = i
			s.prompts = append(s.prompts, x.p)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out, nil
}
