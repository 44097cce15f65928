package reader

import (
	"bytes"

	"github.com/compact-guard/compact-guard/transcript/jsonspan"
)

// entry is what classify records of a line: the spans of the top-level
// keys and, from one descent into "message", of the fields the extractor
// uses there, so that no part of a line is walked more often than needed.
type entry struct {
	top     [nTop]jsonspan.Span
	model   jsonspan.Span // message.model
	usage   jsonspan.Span // message.usage
	content jsonspan.Span // message.content
	blocks  []block
}

// maxBlocks bounds the content blocks looked at in one message.
const maxBlocks = 1000

// block is one message content block, as spans into the line.
type block struct {
	typ     jsonspan.Span
	text    jsonspan.Span // text blocks
	id      jsonspan.Span // tool_use
	useID   jsonspan.Span // tool_result: tool_use_id
	name    jsonspan.Span // tool_use
	input   jsonspan.Span // tool_use
	isError bool          // tool_result
	content jsonspan.Span // tool_result
}

// Top-level keys the extractor looks at, in x.top.
const (
	kType = iota
	kSubtype
	kSidechain
	kMeta
	kCompactSummary
	kAPIError
	kMessage
	kToolUseResult
	kTimestamp
	kCwd
	kGitBranch
	kPromptSource
	kOrigin
	kCompactMetadata
	kLastPrompt
	kUUID
	kVersion
	nTop
)

// interesting reports whether an entry type can hold a fact; everything else
// (attachment, progress, api-request*, file-history-*, queue-operation, ...)
// is passed over as soon as its type is known.
func interesting(typ []byte) bool {
	switch string(typ) {
	case "user", "assistant", "system", "last-prompt":
		return true
	}
	return false
}

// lineClass is what classify found.
type lineClass int

const (
	lineBlank   lineClass = iota // white space only
	lineCorrupt                  // not JSON
	lineOther                    // JSON, but no entry of an interesting type
	lineEntry                    // an entry of an interesting type; e is filled
)

// classify walks the top level of a line (a trailing '\r' allowed), filling
// e with the spans of the keys the extractor uses. As soon as the type is
// known to hold no fact it stops, unless strict asks for the whole line to be
// checked. Values are skipped, never decoded; "message" is descended into
// instead of skipped, since the type that says whether it matters may come
// after it.
func classify(line []byte, strict bool, e *entry) lineClass {
	line = bytes.TrimSuffix(line, []byte("\r"))
	i := jsonspan.SkipSpace(line, 0)
	if i == len(line) {
		return lineBlank
	}
	if line[i] != '{' {
		// Valid JSON that is not an object is no entry; anything else is
		// damage.
		end, err := jsonspan.SkipValue(line, i)
		if err != nil || jsonspan.SkipSpace(line, end) != len(line) {
			return lineCorrupt
		}
		return lineOther
	}
	e.top = [nTop]jsonspan.Span{}
	e.model, e.usage, e.content = jsonspan.Span{}, jsonspan.Span{}, jsonspan.Span{}
	e.blocks = e.blocks[:0]
	typed, skipped := false, false
	end, err := jsonspan.WalkObject(line, i, func(key []byte, vs int) (int, error) {
		k := topKey(key)
		if k == kMessage && line[vs] == '{' && !skipped {
			ve, err := e.message(line, vs)
			e.top[k] = jsonspan.Span{S: vs, E: ve}
			return ve, err
		}
		ve, err := jsonspan.SkipValue(line, vs)
		if err != nil || k < 0 {
			return ve, err
		}
		if k == kType {
			// The first type decides, so that every reader of a line with
			// duplicate keys reaches the same verdict.
			if typed {
				return ve, nil
			}
			typed = true
			if !interesting(jsonspan.UnquoteRawKey(line[vs:ve])) {
				skipped = true
				if !strict {
					return -1, nil
				}
			}
		}
		e.top[k] = jsonspan.Span{S: vs, E: ve}
		return ve, nil
	})
	if err != nil || end >= 0 && jsonspan.SkipSpace(line, end) != len(line) {
		return lineCorrupt
	}
	if skipped || !e.top[kType].IsString(line) {
		return lineOther
	}
	return lineEntry
}

// message walks the message object at b[i], recording model, usage, content
// and the content blocks; it returns the index past the object.
func (e *entry) message(b []byte, i int) (int, error) {
	e.model, e.usage, e.content = jsonspan.Span{}, jsonspan.Span{}, jsonspan.Span{}
	e.blocks = e.blocks[:0]
	return jsonspan.WalkObject(b, i, func(key []byte, vs int) (int, error) {
		switch string(key) {
		case "content":
			if b[vs] == '[' {
				ve, err := e.contentBlocks(b, vs)
				e.content = jsonspan.Span{S: vs, E: ve}
				return ve, err
			}
			ve, err := jsonspan.SkipValue(b, vs)
			e.content = jsonspan.Span{S: vs, E: ve}
			return ve, err
		case "model":
			ve, err := jsonspan.SkipValue(b, vs)
			e.model = jsonspan.Span{S: vs, E: ve}
			return ve, err
		case "usage":
			ve, err := jsonspan.SkipValue(b, vs)
			e.usage = jsonspan.Span{S: vs, E: ve}
			return ve, err
		}
		return jsonspan.SkipValue(b, vs)
	})
}

func (e *entry) contentBlocks(b []byte, i int) (int, error) {
	e.blocks = e.blocks[:0]
	return jsonspan.WalkArray(b, i, func(vs int) (int, error) {
		if b[vs] != '{' || len(e.blocks) >= maxBlocks {
			return jsonspan.SkipValue(b, vs)
		}
		var bl block
		ve, err := jsonspan.WalkObject(b, vs, func(key []byte, vs int) (int, error) {
			ve, err := jsonspan.SkipValue(b, vs)
			sp := jsonspan.Span{S: vs, E: ve}
			switch string(key) {
			case "type":
				bl.typ = sp
			case "text":
				bl.text = sp
			case "id":
				bl.id = sp
			case "tool_use_id":
				bl.useID = sp
			case "name":
				bl.name = sp
			case "input":
				bl.input = sp
			case "is_error":
				bl.isError = sp.IsTrue(b)
			case "content":
				bl.content = sp
			}
			return ve, err
		})
		if err == nil {
			e.blocks = append(e.blocks, bl)
		}
		return ve, err
	})
}

func topKey(key []byte) int {
	switch string(key) {
	case "type":
		return kType
	case "subtype":
		return kSubtype
	case "isSidechain":
		return kSidechain
	case "isMeta":
		return kMeta
	case "isCompactSummary":
		return kCompactSummary
	case "isApiErrorMessage":
		return kAPIError
	case "message":
		return kMessage
	case "toolUseResult":
		return kToolUseResult
	case "timestamp":
		return kTimestamp
	case "cwd":
		return kCwd
	case "gitBranch":
		return kGitBranch
	case "promptSource":
		return kPromptSource
	case "origin":
		return kOrigin
	case "compactMetadata":
		return kCompactMetadata
	case "uuid":
		return kUUID
	case "version":
		return kVersion
	case "lastPrompt":
		return kLastPrompt
	}
	return -1
}
