package transcript

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// Bounds of what is read around a compaction's boundary (specs/residue.md RS-3, RS-16).
const (
	// SummaryLines is how many lines after a boundary are looked at for its
	// summary entry: the client writes it right after the boundary (a
	// release that re-appends earlier boundaries writes their copies
	// before it).
	SummaryLines = 64
	// KeptBytes bounds how far before a boundary the messages it kept are
	// looked for: the kept tail is the newest messages before it.
	KeptBytes = 16 << 20
	// KeptTextBytes bounds the text taken from one kept entry.
	KeptTextBytes = 16 << 10
)

// boundaryMeta is what a boundary line says of its summary and kept tail.
type boundaryMeta struct {
	UUID string `json:"uuid"`
	Meta struct {
		Segment *struct {
			HeadUUID string `json:"headUuid"`
			TailUUID string `json:"tailUuid"`
		} `json:"preservedSegment"`
		Messages *struct {
			UUIDs []string `json:"uuids"`
		} `json:"preservedMessages"`
	} `json:"compactMetadata"`
}

// keptEntry is the part of a transcript entry a kept tail or a summary
// needs.
type keptEntry struct {
	Type             string          `json:"type"`
	UUID             string          `json:"uuid"`
	ParentUUID       string          `json:"parentUuid"`
	Timestamp        string          `json:"timestamp"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	IsSidechain      bool            `json:"isSidechain"`
	Message          json.RawMessage `json:"message"`
	Attachment       *struct {
		Type      string          `json:"type"`
		HookEvent string          `json:"hookEvent"`
		Content   json.RawMessage `json:"content"`
	} `json:"attachment"`
}

type keptMessage struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
}

type keptBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Input   json.RawMessage `json:"input"`
	Content json.RawMessage `json:"content"`
}

// CompactSummary returns the text of the summary entry (a main-chain user
// entry with isCompactSummary) that follows the boundary line starting at
// boundary, among the SummaryLines lines after it: the one whose parent is
// the boundary when one is, else the first (specs/residue.md RS-3). ok is false when there
// is none there.
func (f *File) CompactSummary(ctx context.Context, boundary int64) (text string, ok bool, err error) {
	var buf []byte
	line, err := f.readLine(boundary, &buf)
	if err != nil || line == nil {
		return "", false, err
	}
	var b boundaryMeta
	_ = json.Unmarshal(line, &b)
	end, _, err := f.lineEnd(boundary)
	if err != nil {
		return "", false, err
	}
	first := ""
	for off, n := end, 0; off < f.size && n < SummaryLines; n++ {
		if err := ctx.Err(); err != nil {
			return "", false, err
		}
		next, complete, err := f.lineEnd(off)
		if err != nil {
			return "", false, err
		}
		if !complete {
			break
		}
		line, err := f.readLine(off, &buf)
		if err != nil {
			return "", false, err
		}
		off = next
		if line == nil || !strings.Contains(string(line), `"isCompactSummary"`) {
			continue
		}
		var e keptEntry
		if json.Unmarshal(line, &e) != nil || e.Type != "user" || !e.IsCompactSummary || e.IsSidechain {
			continue
		}
		t := strings.Join(entryTexts(e), "\n")
		if b.UUID != "" && e.ParentUUID == b.UUID {
			return t, true, nil
		}
		if first == "" {
			first = t
		}
	}
	return first, first != "", nil
}

// KeptEntry is one message a compaction kept verbatim after its summary.
type KeptEntry struct {
	UUID string
	// Type is the entry's type ("user", "assistant", "attachment").
	Type string
	Time time.Time
	// Texts are what the entry holds as text: a prompt's or a reply's text,
	// a tool call's command and path, a tool result's text (at most
	// KeptTextBytes each).
	Texts []string
	// HookEvent and Context are set for a hook's context given to the
	// model (an attachment of type hook_additional_context).
	HookEvent string
	Context   string
}

// KeptTail is what the client kept verbatim of the conversation before a
// compaction (specs/residue.md RS-16).
type KeptTail struct {
	// Wanted is how many messages the boundary names as kept; Entries
	// those found, in file order.
	Wanted  int
	Entries []KeptEntry
}

// KeptTail returns the messages the compaction whose boundary line starts
// at boundary kept verbatim (specs/residue.md RS-16): those whose uuid the boundary's
// compactMetadata.preservedMessages.uuids lists, or, without that list, the
// chain of compactMetadata.preservedSegment from its tail back to its head
// through each entry's parent; looked for in the KeptBytes before the
// boundary, newest first, and in the SummaryLines lines after it (a client
// that writes them again there). A boundary that names none gives an
// empty tail.
func (f *File) KeptTail(ctx context.Context, boundary int64) (KeptTail, error) {
	var out KeptTail
	var buf []byte
	line, err := f.readLine(boundary, &buf)
	if err != nil || line == nil {
		return out, err
	}
	var b boundaryMeta
	if json.Unmarshal(line, &b) != nil {
		return out, nil
	}
	ks := newKeptSearch(b)
	if ks == nil {
		return out, nil
	}
	// Once every named message is found, one more entry that is not kept
	// ends the scan: the other parts of a kept reply (the same message.id)
	// lie right before it.
	complete := false
	err = f.scanBack(ctx, max(0, boundary-KeptBytes), boundary, []byte(`uuid"`), func(start int64, line []byte) bool {
		n := len(ks.found)
		ks.visit(start, line)
		if complete && len(ks.found) == n {
			return true
		}
		complete = ks.done()
		return false
	})
	if err != nil {
		return KeptTail{Wanted: len(ks.want)}, err
	}
	if end, _, lerr := f.lineEnd(boundary); lerr == nil && !ks.done() {
		for off, n := end, 0; off < f.size && n < SummaryLines; n++ {
			next, complete, err := f.lineEnd(off)
			if err != nil || !complete {
				break
			}
			if line, err := f.readLine(off, &buf); err == nil && line != nil {
				ks.visit(off, line)
			}
			off = next
		}
	}
	return ks.tail(), nil
}

// keptSearch is KeptTail's search: the uuids wanted (growing along a
// preserved segment's parent chain), the entries found and where each
// starts, so that the tail comes out in file order.
type keptSearch struct {
	want map[string]bool
	// head is the preserved segment's first uuid; chain is set when the
	// boundary names a segment rather than a list.
	head  string
	chain bool
	found map[string]KeptEntry
	at    map[string]int64 // where each kept entry starts
	// msgIDs are the kept assistant messages, which are split over
	// several entries.
	msgIDs map[string]bool
}

// newKeptSearch is nil when the boundary names no kept message.
func newKeptSearch(b boundaryMeta) *keptSearch {
	ks := &keptSearch{want: map[string]bool{}, found: map[string]KeptEntry{}, at: map[string]int64{}, msgIDs: map[string]bool{}}
	switch m := b.Meta; {
	case m.Messages != nil && len(m.Messages.UUIDs) > 0:
		for _, u := range m.Messages.UUIDs {
			ks.want[u] = true
		}
	case m.Segment != nil && m.Segment.TailUUID != "":
		ks.want[m.Segment.TailUUID] = true
		ks.head = m.Segment.HeadUUID
	default:
		return nil
	}
	ks.chain = ks.head != ""
	return ks
}

// visit keeps the entry on the line starting at start when it is wanted.
func (ks *keptSearch) visit(start int64, line []byte) {
	// Most lines before a boundary are not kept: their uuid says so
	// without decoding them.
	if !holdsAny(line, ks.want) && !holdsAny(line, ks.msgIDs) {
		return
	}
	var e keptEntry
	if json.Unmarshal(line, &e) != nil || e.UUID == "" || e.IsSidechain {
		return
	}
	var m keptMessage
	_ = json.Unmarshal(e.Message, &m)
	if !ks.want[e.UUID] && !(m.ID != "" && ks.msgIDs[m.ID]) {
		return
	}
	if _, dup := ks.found[e.UUID]; dup {
		return
	}
	ks.found[e.UUID], ks.at[e.UUID] = keptOf(e), start
	if m.ID != "" {
		ks.msgIDs[m.ID] = true
	}
	if ks.chain && e.UUID != ks.head && e.ParentUUID != "" {
		ks.want[e.ParentUUID] = true
	}
}

// done reports every wanted message found: the segment's head, or each
// uuid of the list.
func (ks *keptSearch) done() bool {
	if ks.chain {
		_, ok := ks.found[ks.head]
		return ok
	}
	for u := range ks.want {
		if _, ok := ks.found[u]; !ok {
			return false
		}
	}
	return true
}

// tail is what was found, in file order.
func (ks *keptSearch) tail() KeptTail {
	out := KeptTail{Wanted: len(ks.want)}
	uuids := make([]string, 0, len(ks.found))
	for u := range ks.found {
		uuids = append(uuids, u)
	}
	slices.SortFunc(uuids, func(a, b string) int { return cmp.Compare(ks.at[a], ks.at[b]) })
	for _, u := range uuids {
		out.Entries = append(out.Entries, ks.found[u])
	}
	return out
}

// holdsAny reports whether line holds one of ids as a JSON string: a
// prefilter in any layout (TR-56), since the line of an attachment (which
// the extractor drops on its type, TR-15) must be recognised too; the
// decision is made on the parsed line.
func holdsAny(line []byte, ids map[string]bool) bool {
	for id := range ids {
		if bytes.Contains(line, []byte(`"`+id+`"`)) {
			return true
		}
	}
	return false
}

// keptOf is the entry's texts and hook context.
func keptOf(e keptEntry) KeptEntry {
	k := KeptEntry{UUID: e.UUID, Type: e.Type, Texts: entryTexts(e)}
	k.Time, _ = time.Parse(time.RFC3339Nano, e.Timestamp)
	if a := e.Attachment; a != nil && a.Type == "hook_additional_context" {
		k.HookEvent = a.HookEvent
		k.Context = strings.Join(stringsOf(a.Content), "\n")
	}
	return k
}

// entryTexts is what an entry holds as text: its message's string content
// or text blocks, its tool calls' inputs that name a command or a path, its
// tool results' text; an attachment's content.
func entryTexts(e keptEntry) []string {
	var out []string
	add := func(s string) {
		if s == "" {
			return
		}
		if len(s) > KeptTextBytes {
			s = s[:KeptTextBytes]
		}
		out = append(out, s)
	}
	if a := e.Attachment; a != nil {
		for _, s := range stringsOf(a.Content) {
			add(s)
		}
		return out
	}
	var m keptMessage
	if json.Unmarshal(e.Message, &m) != nil {
		return out
	}
	var one string
	if json.Unmarshal(m.Content, &one) == nil {
		add(one)
		return out
	}
	var blocks []keptBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		return out
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			add(b.Text)
		case "tool_use":
			var in struct {
				Command      string `json:"command"`
				FilePath     string `json:"file_path"`
				NotebookPath string `json:"notebook_path"`
			}
			if json.Unmarshal(b.Input, &in) == nil {
				add(in.Command)
				add(in.FilePath)
				add(in.NotebookPath)
			}
		case "tool_result":
			for _, s := range stringsOf(b.Content) {
				add(s)
			}
		}
	}
	return out
}

// stringsOf reads a JSON string, an array of strings, or an array of text
// blocks.
func stringsOf(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, item := range list {
		if json.Unmarshal(item, &one) == nil {
			out = append(out, one)
			continue
		}
		var b keptBlock
		if json.Unmarshal(item, &b) == nil && b.Text != "" {
			out = append(out, b.Text)
		}
	}
	return out
}
