package copilot

import (
	"bytes"
	"context"
	"io"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// Copilot CLI writes events.jsonl in batches, a few hundred milliseconds
// after the events (measured, 1.0.102: a preCompact hook saw the file end
// before the last tool call's result, and a postToolUse hook did not see
// the compaction_complete stamped 40 ms before it). The events are written
// in order, and the hook's own hook.start is one of them, so once that line
// is in the file, everything before the hook is (PO-29).

// copilotTail is how much of the file's end is looked at for the hook's
// own hook.start.
const copilotTail = 1 << 20

// WaitLimit bounds the wait, within the hook's deadline.
const WaitLimit = 3 * time.Second

// WaitForOwnHook waits until the events file at path holds the hook.start
// of a hookType hook that has no hook.end after it: the invocation running
// now. It polls (every 20 ms) until then, ctx ends or limit passes, and
// reports whether the line was seen.
func WaitForOwnHook(ctx context.Context, path, hookType string, limit time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := []byte(`"type":"hook.start","data":{"hookInvocationId":`)
	kind := []byte(`"hookType":"` + hookType + `"`)
	end := []byte(`"hookType":"` + hookType + `","success"`)
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if tail := readTail(path, copilotTail); tail != nil {
			if i := lastHookStart(tail, start, kind); i >= 0 && !bytes.Contains(tail[i:], end) {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}

// lastHookStart is the offset in tail of the last hook.start line of kind,
// -1 for none.
func lastHookStart(tail, start, kind []byte) int {
	for i := len(tail); i > 0; {
		j := bytes.LastIndex(tail[:i], start)
		if j < 0 {
			return -1
		}
		// hookType follows the invocation id (36 characters) closely.
		if k := bytes.Index(tail[j:], kind); k >= 0 && k < len(start)+80 {
			return j
		}
		i = j
	}
	return -1
}

// readTail reads up to n bytes at the end of path, nil when it cannot.
func readTail(path string, n int64) []byte {
	f, err := trust.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil
	}
	from := max(0, size-n)
	buf := make([]byte, size-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return nil
	}
	return buf
}
