// Package handoff reads and writes the handoff block an agent leaves in the
// project's state file (SESSION-STATE.md) before a planned compaction: what
// only its context holds — the task, the next step, what the user decided,
// what is not verified, what must not be touched, what was ruled out —
// under fixed section headings and a dated heading (specs/handoff.md). It
// knows nothing of cobra or of the watch state: cmd compares a block's date
// with the threshold crossing.
package handoff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/nonblock"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Marker is the word after "## " that starts a handoff block, the same in
// every language so that a block is found whatever language wrote it.
const Marker = "HANDOFF"

// MaxFileBytes bounds how much of a state file is read (HO-7).
const MaxFileBytes = 4 << 20

// Section is one heading of the schema.
type Section struct {
	// Key names the section in code and in JSON.
	Key string
	// En and Ru are the headings; either is accepted in a block.
	En, Ru string
	// HintEn and HintRu are what the template puts under the heading.
	HintEn, HintRu string
}

// Sections is the schema, in the order of the template (HO-1): the
// source system's five (next step, waiting on, user decisions, not
// verified, don't) with what the guides for agent builders add (task,
// current state, ruled-out approaches, key results).
var Sections = []Section{
	{"task", "TASK", "ЗАДАЧА",
		"what this session is for, in a sentence or two",
		"для чего эта сессия, в одном-двух предложениях"},
	{"state", "CURRENT STATE", "ТЕКУЩЕЕ СОСТОЯНИЕ",
		"what is done and what is half done: files, branches, commits",
		"что сделано и что сделано наполовину: файлы, ветки, коммиты"},
	{"next", "NEXT STEP", "СЛЕДУЮЩИЙ ШАГ",
		"the first action after the compaction",
		"первое действие после сжатия"},
	{"decisions", "USER DECISIONS", "РЕШЕНИЯ ПОЛЬЗОВАТЕЛЯ",
		"what the user decided or approved, and why",
		"что пользователь решил или одобрил, и почему"},
	{"waiting", "WAITING ON", "ЖДЁМ",
		"open questions; answers, reviews or processes still awaited",
		"открытые вопросы; ответы, ревью или процессы, которых ждём"},
	{"unverified", "NOT VERIFIED", "НЕ ПРОВЕРЕНО",
		"what is assumed but not tested or checked",
		"что предполагается, но не проверено и не протестировано"},
	{"dont", "DON'T", "НЕ ТРОГАТЬ",
		"what must not be touched, changed or repeated",
		"что нельзя трогать, менять или повторять"},
	{"ruled_out", "RULED OUT", "ОТБРОШЕНО",
		"approaches tried or considered and dropped, with the reason",
		"подходы, которые пробовали или обсуждали и отбросили, с причиной"},
	{"results", "KEY RESULTS", "КЛЮЧЕВЫЕ РЕЗУЛЬТАТЫ",
		"tool results worth keeping: failing tests, error lines, figures",
		"результаты инструментов, которые стоит сохранить: упавшие тесты, строки ошибок, цифры"},
}

// Block is one handoff block of a state file.
type Block struct {
	// Line is the 1-based line of its heading.
	Line int `json:"line"`
	// Heading is the heading line as written, without "## ".
	Heading string `json:"heading"`
	// Time is the date in the heading; zero when it is missing or does not
	// parse.
	Time time.Time `json:"time"`
	// Filled holds the keys of the sections present and filled, Missing
	// those absent and Empty those present with nothing but template hints
	// and blanks, each in schema order.
	Filled  []string `json:"filled,omitempty"`
	Missing []string `json:"missing,omitempty"`
	Empty   []string `json:"empty,omitempty"`
	// Next is the NEXT STEP section's text, the template's comments left
	// out and blanks around it trimmed, at most NextChars characters: the
	// summary hint quotes it (specs/precompact.md PC-28).
	Next string `json:"next,omitempty"`
	// Session is the session the block's marker line names (HO-9), "" when
	// it names none.
	Session string `json:"session,omitempty"`
}

// NextChars bounds Block.Next, in characters.
const NextChars = 1000

// Complete reports whether every section is present and filled, and the
// block is dated (HO-3).
func (b *Block) Complete() bool {
	return b != nil && !b.Time.IsZero() && len(b.Missing) == 0 && len(b.Empty) == 0
}

// Parse finds the handoff blocks of a state file's text, in file order
// (HO-2). A block starts at a line "## HANDOFF <date>" outside a fenced code
// block and runs to the next heading of level 1 or 2, or the end.
func Parse(text []byte) []Block {
	var blocks []Block
	var cur *Block
	var body map[string]*strings.Builder
	var section string
	finish := func() {
		if cur == nil {
			return
		}
		for _, s := range Sections {
			b, ok := body[s.Key]
			switch {
			case !ok:
				cur.Missing = append(cur.Missing, s.Key)
			case filled(b.String()):
				cur.Filled = append(cur.Filled, s.Key)
				if s.Key == "next" {
					cur.Next = textcut.Marked(textcut.Runes(strings.TrimSpace(uncommented(b.String())), NextChars))
				}
			default:
				cur.Empty = append(cur.Empty, s.Key)
			}
		}
		blocks = append(blocks, *cur)
		cur, body, section = nil, nil, ""
	}
	fence := ""
	for n, line := range lines(text) {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			if cur != nil && section != "" {
				body[section].WriteString(line + "\n")
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
		}
		level, title := heading(line)
		switch {
		case level == 2 && isMarker(title):
			finish()
			cur = &Block{Line: n + 1, Heading: title, Time: blockTime(title)}
			body = map[string]*strings.Builder{}
			continue
		case level == 1 || level == 2:
			finish()
			continue
		case cur != nil && section == "" && cur.Session == "":
			// HO-9: the session marker, before the block's first section.
			if id := sessionOf(trimmed); id != "" {
				cur.Session = id
				continue
			}
		}
		switch {
		case cur != nil && level == 3:
			if key := sectionKey(title); key != "" {
				section = key
				if body[key] == nil {
					body[key] = &strings.Builder{}
				}
				continue
			}
		}
		if cur != nil && section != "" {
			body[section].WriteString(line + "\n")
		}
	}
	finish()
	return blocks
}

// Newest is the block with the latest date, the later in the file among
// equal dates; undated blocks count only when no block is dated. nil for
// none (HO-2).
func Newest(blocks []Block) *Block {
	var best *Block
	for i := range blocks {
		b := &blocks[i]
		if best == nil || !b.Time.Before(best.Time) {
			best = b
		}
	}
	return best
}

// ErrTooLarge is returned by Read for a state file larger than MaxFileBytes.
var ErrTooLarge = errors.New("larger than 4 MiB")

// Read reads the state file at path and returns its blocks. Only a regular
// file is read (a FIFO or a device is refused without blocking); a symbolic
// link to one is followed, as the state file lookup does.
func Read(path string) ([]Block, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := nonblock.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(f, MaxFileBytes+1)); err != nil {
		return nil, err
	}
	if b.Len() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	return Parse(b.Bytes()), nil
}

// lines splits text into lines without their line ends (LF or CRLF); a
// leading byte order mark is dropped.
func lines(text []byte) []string {
	s := strings.TrimPrefix(string(text), "\uFEFF")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	out := strings.Split(s, "\n")
	for i := range out {
		out[i] = strings.TrimSuffix(out[i], "\r")
	}
	return out
}

// heading returns the level and text of an ATX heading ("## Title"), 0 for
// any other line. Up to three spaces may precede the hashes, as in
// CommonMark; a closing run of hashes is dropped.
func heading(line string) (int, string) {
	s := line
	for i := 0; i < 3 && strings.HasPrefix(s, " "); i++ {
		s = s[1:]
	}
	level := 0
	for level < len(s) && s[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || (level < len(s) && s[level] != ' ' && s[level] != '\t') {
		return 0, ""
	}
	title := strings.TrimSpace(s[level:])
	title = strings.TrimSpace(strings.TrimRight(title, "#"))
	return level, title
}

func isMarker(title string) bool {
	f := strings.Fields(title)
	return len(f) > 0 && strings.EqualFold(f[0], Marker)
}

// blockTime reads the date after the marker: RFC 3339 (2026-12-01T10:22:05Z),
// or a date and a time in UTC (2026-12-01 10:22[:05][ UTC]).
func blockTime(title string) time.Time {
	f := strings.Fields(title)
	if len(f) < 2 {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, f[1]); err == nil {
		return t
	}
	if len(f) >= 3 {
		for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04"} {
			if t, err := time.Parse(layout, f[1]+" "+f[2]); err == nil && (len(f) == 3 || f[3] == "UTC" || f[3] == "Z") {
				return t
			}
		}
	}
	return time.Time{}
}

// sectionKey matches a level-3 heading against the schema in either
// language: case and a trailing colon do not matter, nor the apostrophe's
// shape in DON'T, nor Ё written as Е.
func sectionKey(title string) string {
	n := normalize(title)
	for _, s := range Sections {
		if n == normalize(s.En) || n == normalize(s.Ru) {
			return s.Key
		}
	}
	return ""
}

func normalize(s string) string {
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ":"))
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\'', '’', '`', 'ʼ':
			return -1
		case 'ё', 'Ё':
			return 'Е'
		}
		return unicode.ToUpper(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// filled reports whether a section's text holds anything but HTML comments
// (the template's hints) and blanks (HO-3); "none" counts as filled.
func filled(s string) bool {
	return strings.TrimSpace(uncommented(s)) != ""
}

// uncommented is s without its HTML comments; an unclosed one runs to the
// end.
func uncommented(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "-->")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+3:]
	}
	return s
}

// Template is the block `handoff --template` prints: the dated heading, a
// comment saying what it is for, and every section with its hint as an HTML
// comment, which does not count as filling it (HO-1). It names no session:
// TemplateFor does.
func Template(lang snapshot.Lang, now time.Time) string { return TemplateFor(lang, now, "") }

// TemplateFor is Template with, right under the heading, the marker line
// that makes the block the session's (HO-9) when sessionID is not "".
func TemplateFor(lang snapshot.Lang, now time.Time, sessionID string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s %s\n", Marker, now.UTC().Format(time.RFC3339))
	if sessionID != "" {
		b.WriteString(SessionLine(sessionID) + "\n")
	}
	b.WriteString("<!-- " + printer(lang).Sprintf(mTemplateNote) + " -->\n")
	for _, s := range Sections {
		name, hint := s.En, s.HintEn
		if lang == snapshot.Russian {
			name, hint = s.Ru, s.HintRu
		}
		fmt.Fprintf(&b, "\n### %s\n<!-- %s -->\n", name, hint)
	}
	return b.String()
}

// Title is a section's heading in lang.
func Title(key string, lang snapshot.Lang) string {
	for _, s := range Sections {
		if s.Key == key {
			if lang == snapshot.Russian {
				return s.Ru
			}
			return s.En
		}
	}
	return key
}
