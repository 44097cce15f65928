package transcript

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"
)

// Compaction is one compact_boundary line of a transcript and what the
// client recorded of the SessionStart(compact) hooks after it.
type Compaction struct {
	// Offset is where the boundary line starts.
	Offset int64
	// Time is the boundary's timestamp (taken when the summary was ready,
	// before the compaction's hooks ran).
	Time    time.Time
	Trigger string
	// PreTokens is compactMetadata.preTokens, the context before it.
	PreTokens int64
	// Version is the client release that wrote the boundary.
	Version string
	// Format is the transcript's format, which names the client (TR-37):
	// Version is a release of that client.
	Format Format
	// Precomputed is compactMetadata.precomputed: the summary was written
	// ahead of time, when the compaction was armed, and swapped in later;
	// no PreCompact hook ran at the swap (TR-52).
	Precomputed bool
	// KeepsTail is set when compactMetadata names a preservedSegment or
	// preservedMessages: the newest messages before the boundary were kept
	// verbatim after it, so what was given to the model there may still be
	// in the context (TR-53).
	KeepsTail bool
	// Contexts are the SessionStart hook contexts the client recorded as
	// given to the model (hook_additional_context attachments) between this
	// boundary and the next, within ContextWindow bytes of it. Only Claude
	// Code records them; other formats have none.
	Contexts []string
	// HookRecords counts every hook attachment seen there (hook_success,
	// hook_additional_context, …): none at all means the client recorded no
	// hook run there, not that a context was refused.
	HookRecords int
}

// ContextWindow bounds how far after a boundary Compactions looks for the
// hook records of its SessionStart: the client writes them right after the
// boundary, its summary and the command's echo.
const ContextWindow = 1 << 20

// hookNeedle finds hook attachment lines; the byte before it must be '"'.
var hookNeedle = []byte(`hook_`)

// Compactions returns the compactions whose boundary starts at or after
// from, oldest first, each with the SessionStart contexts recorded after it
// (TR-35). It reads backwards from the end, so a caller bounds its cost by
// from.
func (f *File) Compactions(ctx context.Context, from int64) ([]Compaction, error) {
	// Newest first; a boundary entry written twice (the same uuid) is one
	// compaction, at its first line (TR-36).
	var offs []int64
	seen := map[string]int{} // uuid → index in offs: one lookup per boundary, not a scan (PF-25)
	r := f.format.reader().Boundary()
	err := f.scanBack(ctx, from, f.size, r.Needle, func(start int64, line []byte) bool {
		id, _, ok := r.Match(line)
		if !ok {
			return false
		}
		if i, ok := seen[id]; ok && id != "" {
			offs[i] = start
			return false
		}
		if id != "" {
			seen[id] = len(offs)
		}
		offs = append(offs, start)
		return false
	})
	if err != nil {
		return nil, err
	}
	// The copies moved some starts back: keep them newest first.
	slices.SortFunc(offs, func(a, b int64) int { return cmp.Compare(b, a) })
	out := make([]Compaction, 0, len(offs))
	var buf []byte
	for i := len(offs) - 1; i >= 0; i-- {
		c := Compaction{Offset: offs[i], Format: f.format}
		if line, err := f.readLine(c.Offset, &buf); err != nil {
			return nil, err
		} else if line != nil {
			var b struct {
				Timestamp string `json:"timestamp"`
				Version   string `json:"version"`
				Meta      struct {
					Trigger     string          `json:"trigger"`
					PreTokens   int64           `json:"preTokens"`
					Precomputed bool            `json:"precomputed"`
					Segment     json.RawMessage `json:"preservedSegment"`
					Messages    json.RawMessage `json:"preservedMessages"`
				} `json:"compactMetadata"`
			}
			if json.Unmarshal(line, &b) == nil {
				c.Time, _ = time.Parse(time.RFC3339Nano, b.Timestamp)
				c.Version, c.Trigger, c.PreTokens = b.Version, b.Meta.Trigger, b.Meta.PreTokens
				c.Precomputed = b.Meta.Precomputed
				c.KeepsTail = kept(b.Meta.Segment) || kept(b.Meta.Messages)
			}
		}
		if f.format != FormatClaude {
			// Codex CLI and Qwen Code record no hook attachments.
			out = append(out, c)
			continue
		}
		end := min(f.size, c.Offset+ContextWindow)
		if i > 0 {
			end = min(end, offs[i-1])
		}
		var contexts []string
		err := f.scanBack(ctx, c.Offset, end, hookNeedle, func(_ int64, line []byte) bool {
			var a struct {
				Type       string `json:"type"`
				Attachment struct {
					Type      string          `json:"type"`
					HookEvent string          `json:"hookEvent"`
					Content   json.RawMessage `json:"content"`
				} `json:"attachment"`
			}
			if json.Unmarshal(line, &a) != nil || a.Type != "attachment" || len(a.Attachment.Type) < 5 || a.Attachment.Type[:5] != "hook_" {
				return false
			}
			c.HookRecords++
			if a.Attachment.Type != "hook_additional_context" || a.Attachment.HookEvent != "SessionStart" {
				return false
			}
			var list []string
			if json.Unmarshal(a.Attachment.Content, &list) != nil {
				var one string
				if json.Unmarshal(a.Attachment.Content, &one) == nil {
					list = []string{one}
				}
			}
			contexts = append(list, contexts...)
			return false
		})
		if err != nil {
			return nil, err
		}
		c.Contexts = contexts
		out = append(out, c)
	}
	return out, nil
}

// kept reports whether a preservedSegment or preservedMessages value names
// something: an object with at least one member (null, {} and [] do not).
func kept(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && len(m) > 0
}
