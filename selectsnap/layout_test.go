package selectsnap

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// spec: SS-8d, TR-56
// A compaction the client abandoned leaves a PreCompact snapshot; the
// session goes on (model responses after it), and a later compaction whose
// PreCompact did not run gets no snapshot of its own. Its SessionStart must
// not be handed the abandoned one: the responses after it condemn it. The
// transcript is valid JSON in Claude Code's layout and in another (Python's
// spacing, keys in another order): before TR-56 the responses were found by
// their bytes, and in the other layout the abandoned snapshot was handed to
// the later compaction.
func TestAbandonedSnapshotNotHandedOnInAnyLayout(t *testing.T) {
	line := func(m map[string]any) string { b, _ := json.Marshal(m); return string(b) }
	at := func(d time.Duration) string { return now.Add(d).Format(time.RFC3339Nano) }
	response := func(d time.Duration) string {
		return line(map[string]any{"type": "assistant", "isSidechain": false, "timestamp": at(d),
			"message": map[string]any{"role": "assistant", "model": "claude-opus-5-5", "content": []any{map[string]any{"type": "text", "text": "ok"}},
				"usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": 160000}}})
	}
	prompt := func(d time.Duration, text string) string {
		return line(map[string]any{"type": "user", "isSidechain": false, "timestamp": at(d), "promptSource": "typed",
			"message": map[string]any{"role": "user", "content": text}})
	}
	before := []string{prompt(-20*time.Minute, "a long task"), response(-19 * time.Minute)}
	// PreCompact(auto) at -18 min, for a compaction the client then
	// abandons; it writes bookkeeping, and the session goes on.
	after := []string{line(map[string]any{"type": "mode", "mode": "normal"}), response(-17 * time.Minute),
		prompt(-5*time.Minute, "next step"), response(-4 * time.Minute), response(-time.Minute)}
	for _, layout := range []string{"claude", "python"} {
		t.Run(layout, func(t *testing.T) {
			write := func(lines []string) string {
				data := strings.Join(lines, "\n") + "\n"
				if layout == "python" {
					out, _ := transcripttest.RelayoutLines([]byte(data), 56)
					data = string(out)
				}
				return data
			}
			head := write(before)
			data := head + write(after)
			p := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			dir := privateDir(t)
			abandoned := writeSnap(t, dir, snap{at: -18 * time.Minute, size: int64(len(head))})
			f, err := transcript.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now, TranscriptPath: tpath, Transcript: f})
			if err != nil {
				t.Fatal(err)
			}
			if got != nil {
				t.Fatalf("the later compaction was handed %s, the abandoned compaction's snapshot (rejected %v)", got.Record.Name, rej)
			}
			if len(rej) != 1 || rej[0].Name != abandoned || !strings.Contains(rej[0].Reason, "went on") {
				t.Errorf("rejections %v, want %s condemned: the session went on after it", rej, abandoned)
			}
		})
	}
}
