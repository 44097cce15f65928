package transcript

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"time"
)

// Format is the transcript format of one client, recognised from the file
// itself (TR-37). Its value names the agent that writes it.
type Format string

// The formats read.
const (
	// FormatClaude is Claude Code's session transcript (specs/transcript.md).
	FormatClaude Format = "claude"
	// FormatCodex is Codex CLI's rollout file (TR-38..TR-43).
	FormatCodex Format = "codex"
	// FormatQwen is Qwen Code's chat record file (TR-44..TR-49).
	FormatQwen Format = "qwen"
)

// Valid reports whether f is one of the formats read.
func (f Format) Valid() bool {
	return f == FormatClaude || f == FormatCodex || f == FormatQwen || f == FormatCopilot
}

// sniffBytes is how much of a file's start DetectFormat looks at first: a
// Codex rollout starts with a session_meta line of tens of KB (the base
// instructions), but its type comes in the first hundred bytes. When that
// does not decide and the file goes on, up to sniffMaxBytes are looked at:
// in another layout the type may come after the instructions (TR-56).
const (
	sniffBytes    = 64 << 10
	sniffMaxBytes = 1 << 20
)

// DetectFormat tells the format from the start of a transcript (TR-37): the
// first line whose top level shows its writer decides. A Codex rollout line
// has a "payload" and a Codex record type (its first line is session_meta);
// a Qwen Code record carries "provenance" or "systemPayload", which no
// Claude Code entry has. ok is false when nothing in head decides (an empty
// file, only blank or broken lines).
func DetectFormat(head []byte) (f Format, ok bool) {
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		if f, ok := lineFormat(line); ok {
			return f, true
		}
	}
	return FormatClaude, false
}

// codexTypes are the record types of a Codex rollout line.
var codexTypes = map[string]bool{
	"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true,
	"compacted": true, "world_state": true, "token_usage_record": true,
}

// lineFormat looks at the top-level keys of one line, as far as the line
// (possibly cut by the sniff limit) goes.
func lineFormat(line []byte) (Format, bool) {
	var typ string
	typed, payload, qwen, data, parentID := false, false, false, false, false
	walkObject(line, 0, func(key []byte, vs int) (int, error) {
		ve, err := skipValue(line, vs)
		if err != nil {
			return ve, err
		}
		switch string(key) {
		case "type":
			if !typed {
				typed = true
				typ, _ = span{vs, ve}.str(line)
			}
		case "payload":
			payload = true
		case "provenance", "systemPayload":
			qwen = true
		case "data":
			data = true
		case "parentId":
			parentID = true
		}
		return ve, nil
	})
	switch {
	case typ == "session_meta" || payload && codexTypes[typ]:
		return FormatCodex, true
	case qwen:
		return FormatQwen, true
	case data && parentID && strings.Contains(typ, "."):
		// A Copilot CLI event: {"type":"session.start","data":…,"parentId":…}
		// (TR-65); Claude Code's types have no dot and its parent is parentUuid.
		return FormatCopilot, true
	case typ != "":
		return FormatClaude, true
	}
	return "", false
}

// sniff reads the start of r (of size n) and tells its format.
func sniff(r io.ReaderAt, n int64) (Format, bool) {
	for size := int64(sniffBytes); ; size = sniffMaxBytes {
		buf := make([]byte, min(n, size))
		if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
			return FormatClaude, false
		}
		if f, ok := DetectFormat(buf); ok || int64(len(buf)) == n || size == sniffMaxBytes || !cutObject(buf) {
			return f, ok
		}
	}
}

// cutObject reports whether buf ends inside a line that starts a JSON
// object: only reading further can tell what that line is.
func cutObject(buf []byte) bool {
	last := buf[bytes.LastIndexByte(buf, '\n')+1:]
	i := skipSpace(last, 0)
	return i < len(last) && last[i] == '{'
}

// rules are what the backward scans of a format look for: a needle that
// starts every candidate line's key (the byte before it must be '"'), and
// the whole-line test.
type rules struct {
	boundaryNeedle []byte
	isBoundary     func(line []byte) bool
	responseNeedle []byte
	response       func(line []byte) (time.Time, bool)
	// idTime is a boundary line's id (to count one written twice once;
	// "" for none) and timestamp.
	idTime func(line []byte) (string, time.Time)
}

var formatRules = map[Format]*rules{
	FormatClaude: {boundaryNeedle, IsBoundaryLine, responseNeedle, ResponseLine, lineIDTime},
	FormatCodex:  {[]byte(`compacted"`), isCodexBoundary, []byte(`response_item"`), codexResponse, codexIDTime},
	FormatQwen:   {[]byte(`chat_compression"`), isQwenBoundary, responseNeedle, qwenResponse, qwenIDTime},
	// Copilot CLI (TR-67, TR-68).
	FormatCopilot: {[]byte(copilotBoundaryType + `"`), isCopilotBoundary, []byte(`assistant.message"`), copilotResponse, copilotIDTime},
}

func (f Format) rules() *rules {
	if r, ok := formatRules[f]; ok {
		return r
	}
	return formatRules[FormatClaude]
}

// IsBoundaryLineOf reports whether line (without its '\n') is a compaction
// boundary in format f (TR-3, TR-39, TR-45).
func IsBoundaryLineOf(f Format, line []byte) bool { return f.rules().isBoundary(line) }

// NewExtractorFor returns an Extractor for transcripts of format f that
// continues from seed, as NewExtractor does for Claude Code's.
func NewExtractorFor(f Format, seed *Facts) *Extractor {
	x := NewExtractor(seed)
	if f.Valid() {
		x.format = f
	}
	return x
}

// topFields walks the top level of a line and fills out[k] with the span of
// keys[k] (the first occurrence of typeKey, later duplicates of the others,
// as encoding/json does); it stops early, without checking the rest, once
// the value of typeKey fails keep. It returns false when the line is not a
// JSON object (or, with strict, not a whole valid one).
func topFields(line []byte, keys []string, typeKey int, keep func(typ []byte) bool, strict bool, out []span) (stopped, ok bool) {
	for i := range out {
		out[i] = span{}
	}
	i := skipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return false, false
	}
	typed := false
	end, err := walkObject(line, i, func(key []byte, vs int) (int, error) {
		ve, err := skipValue(line, vs)
		if err != nil {
			return ve, err
		}
		for k, name := range keys {
			if string(key) != name {
				continue
			}
			if k == typeKey {
				if typed {
					break
				}
				typed = true
				if !keep(unquoteRawKey(line[vs:ve])) {
					stopped = true
					if !strict {
						return -1, nil
					}
				}
			}
			out[k] = span{vs, ve}
		}
		return ve, nil
	})
	if err != nil || end >= 0 && skipSpace(line, end) != len(line) {
		return false, false
	}
	return stopped, true
}
