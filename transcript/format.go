package transcript

import (
	"bytes"
	"errors"
	"github.com/compact-guard/compact-guard/transcript/jsonspan"
	"io"
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
	// FormatCopilot is GitHub Copilot CLI's events.jsonl (TR-65..TR-71).
	FormatCopilot Format = "copilot"
	// FormatGemini is Gemini CLI's chat file (TR-81..TR-87), read whole
	// by clients/gemini/reader; its row tells the format (TR-88).
	FormatGemini Format = "gemini"
)

// Valid reports whether f is one of the formats read.
func (f Format) Valid() bool {
	_, ok := readerOf(f)
	return ok
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

// lineFormat looks at the top-level keys of one line, as far as the line
// (possibly cut by the sniff limit) goes, and asks the readers in table
// order which wrote it.
func lineFormat(line []byte) (Format, bool) {
	var typ string
	typed := false
	keys := map[string]bool{}
	jsonspan.WalkObject(line, 0, func(key []byte, vs int) (int, error) {
		ve, err := jsonspan.SkipValue(line, vs)
		if err != nil {
			return ve, err
		}
		if string(key) == "type" && !typed {
			typed = true
			typ, _ = jsonspan.Span{S: vs, E: ve}.Str(line)
		}
		keys[string(key)] = true
		return ve, nil
	})
	for _, row := range readers {
		if row.reader.Detect(typ, keys) {
			return row.format, true
		}
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
	i := jsonspan.SkipSpace(last, 0)
	return i < len(last) && last[i] == '{'
}

// IsBoundaryLineOf reports whether line (without its '\n') is a compaction
// boundary in format f (TR-3, TR-39, TR-45).
func IsBoundaryLineOf(f Format, line []byte) bool {
	_, _, ok := f.reader().Boundary().Match(line)
	return ok
}
