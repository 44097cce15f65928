package reader

import (
	"bytes"
	"github.com/compact-guard/compact-guard/transcript/facts"
	"github.com/compact-guard/compact-guard/transcript/jsonspan"
	"time"
)

// responseNeedle finds the lines that may be model responses: the byte
// before it must be '"', so it is the whole JSON string "assistant" (quotes
// inside JSON strings are escaped, so only a real key or value matches),
// whatever the spacing around it and wherever the "type" key stands
// (TR-56). Which lines are responses is decided by parsing them
// (ResponseLine): the needle only passes over the others.
var responseNeedle = []byte(`assistant"`)

// ResponseLine reports whether line (without its '\n') is a model response:
// complete JSON, top-level type "assistant", isSidechain not true, a
// message.model other than "<synthetic>", isApiErrorMessage not true, and a
// timestamp, which it returns.
func ResponseLine(line []byte) (time.Time, bool) {
	if len(line) > facts.MaxLineBytes {
		return time.Time{}, false
	}
	var e entry
	if classify(line, true, &e) != lineEntry {
		return time.Time{}, false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !e.top[kType].StrEq(line, "assistant") || e.top[kSidechain].IsTrue(line) || e.top[kAPIError].IsTrue(line) {
		return time.Time{}, false
	}
	if model, _ := e.model.Str(line); model == "" || model == "<synthetic>" {
		return time.Time{}, false
	}
	ts, ok := e.top[kTimestamp].Str(line)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, ts)
	return t, err == nil
}

// IsBoundaryLine reports whether line (without its '\n') is a main-chain
// compact_boundary entry, by the rule the Extractor counts compactions with:
// complete JSON, top-level type "system", subtype "compact_boundary",
// isSidechain not true, at most MaxLineBytes long.
func IsBoundaryLine(line []byte) bool {
	if len(line) > facts.MaxLineBytes {
		return false
	}
	var e entry
	if classify(line, true, &e) != lineEntry {
		return false
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	return e.top[kType].StrEq(line, "system") && e.top[kSubtype].StrEq(line, "compact_boundary") &&
		!e.top[kSidechain].IsTrue(line)
}

// boundaryNeedle is searched for; the byte before it must be '"'. It starts
// with a rarer byte than '"' so the search runs at memchr speed.
var boundaryNeedle = []byte(`compact_boundary"`)

// lineIDTime is the top-level uuid and timestamp of an entry line, "" and
// zero for none.
func lineIDTime(line []byte) (string, time.Time) {
	var e entry
	if classify(line, true, &e) != lineEntry {
		return "", time.Time{}
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	id, _ := e.top[kUUID].Str(line)
	t, _ := e.top[kTimestamp].Time(line)
	return id, t
}

// The values a response's and a boundary's line hold, as whole JSON strings:
// NewestFill's prefilter, in any layout (TR-56).
var (
	quotedResponse = []byte(`"assistant"`)
	quotedBoundary = []byte(`"compact_boundary"`)
)

// topType reads the top-level "type" of an entry from the first bytes of
// its line: the keys before it must have short values (strings, numbers,
// booleans, null), as Claude Code writes tool results. known is false when
// those bytes do not tell.
func topType(b []byte) (typ string, known bool) {
	i := jsonspan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return "", false
	}
	for i++; ; i++ {
		i = jsonspan.SkipSpace(b, i)
		key, j, ok := rawString(b, i)
		if !ok {
			return "", false
		}
		if i = jsonspan.SkipSpace(b, j); i >= len(b) || b[i] != ':' {
			return "", false
		}
		if i = jsonspan.SkipSpace(b, i+1); i >= len(b) {
			return "", false
		}
		if key == "type" {
			v, _, ok := rawString(b, i)
			return v, ok
		}
		switch b[i] {
		case '"':
			if _, i, ok = rawString(b, i); !ok {
				return "", false
			}
		case '{', '[':
			return "", false
		default:
			for i < len(b) && b[i] != ',' && b[i] != '}' {
				i++
			}
		}
		if i = jsonspan.SkipSpace(b, i); i >= len(b) || b[i] != ',' {
			return "", false
		}
	}
}

// rawString returns the string starting at b[i] (a '"') as written, escapes
// and all, and the index after its closing quote.
func rawString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return string(b[i+1 : j]), j + 1, true
		}
	}
	return "", 0, false
}

// usageLine reads a model response's usage by the rule of TR-26: a line
// ResponseLine accepts (main chain, a model other than "<synthetic>", no
// API error, a timestamp) that carries message.usage, with the release that
// wrote it (TR-54).
func usageLine(line []byte) (facts.Usage, time.Time, string, bool) {
	at, ok := ResponseLine(line)
	if !ok {
		return facts.Usage{}, time.Time{}, "", false
	}
	var e entry
	classify(line, true, &e)
	line = bytes.TrimSuffix(line, []byte("\r"))
	var u [3]jsonspan.Span
	if !e.usage.OK() || !e.usage.Fields(line, usageKeys, u[:]) {
		return facts.Usage{}, time.Time{}, "", false
	}
	in, _ := u[0].Int64(line)
	cc, _ := u[1].Int64(line)
	cr, _ := u[2].Int64(line)
	model, _ := e.model.Str(line)
	version, _ := e.top[kVersion].Str(line)
	return facts.Usage{Tokens: in + cc + cr, InputTokens: in, CacheCreation: cc, CacheRead: cr, Model: model}, at, version, true
}

// SkipHead reports, from the first bytes of a long line, that it is
// neither a response nor a system entry (a tool result), so NewestFill
// passes it over without searching it.
func (Reader) SkipHead(head []byte) bool {
	t, known := topType(head)
	return known && t != "assistant" && t != "system"
}

// Candidate reports whether line holds one of the values a response's and
// a boundary's line hold, as a whole JSON string in any layout (TR-56);
// parsing decides.
func (Reader) Candidate(line []byte) bool {
	return bytes.Contains(line, quotedResponse) || bytes.Contains(line, quotedBoundary)
}

// Usage reads a model response's context fill (TR-26, TR-54).
func (Reader) Usage(line []byte) (facts.Usage, time.Time, string, bool) { return usageLine(line) }

// BoundaryFill is a boundary line's compactMetadata.postTokens (0 when it
// has none) and timestamp (TR-51).
func (Reader) BoundaryFill(boundary []byte) (tokens int64, at time.Time) {
	var e entry
	if classify(boundary, true, &e) == lineEntry {
		line := bytes.TrimSuffix(boundary, []byte("\r"))
		var post [1]jsonspan.Span
		if e.top[kCompactMetadata].Fields(line, []string{"postTokens"}, post[:]) {
			if n, yes := post[0].Int64(line); yes && n >= 0 {
				tokens = n
			}
		}
		at, _ = e.top[kTimestamp].Time(line)
	}
	return tokens, at
}

// TypedPrompt reports whether line is a prompt the user typed, by the rule
// the extractor records prompts by (maybePrompt: a main-chain user entry,
// not meta, not a compact summary, no tool result, not written by the
// system or the harness). A line whose first bytes name another type is
// not parsed.
func (Reader) TypedPrompt(line []byte) bool {
	if t, known := topType(line); known && t != "user" {
		return false
	}
	x := &lines{Builder: facts.NewBuilder(nil)}
	x.Line(line, false)
	return len(x.Facts().Prompts) > 0
}
