package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// spec: TR-90
// TailFrom reads forwards from an offset: it ends at the first compaction
// boundary or after the last whole line, and says whether a line of the
// session's own starts in it; Upto reads a file as it stood at a size.
func TestTailFrom(t *testing.T) {
	const (
		prompt   = `{"type":"user","message":{"role":"user","content":"hi"},"timestamp":"2026-12-07T00:00:00Z"}` + "\n"
		queue    = `{"type":"queue-operation","operation":"dequeue"}` + "\n"
		hookSum  = `{"type":"system","subtype":"stop_hook_summary"}` + "\n"
		attach   = `{"type":"attachment","attachment":{"type":"hook_success"}}` + "\n"
		response = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}` + "\n"
		boundary = `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted"}` + "\n"
		torn     = `{"type":"assistant","message":{"role":"assi`
	)
	for _, tc := range []struct {
		name, before, tail string
		from               int // -1: len(before)
		wantEnd            int // offset within the file
		own, boundary      bool
	}{
		{"bookkeeping only", prompt, queue + hookSum, -1, len(prompt + queue + hookSum), false, false},
		{"a response", prompt, queue + response, -1, len(prompt + queue + response), true, false},
		{"an attachment", prompt, attach, -1, len(prompt + attach), true, false},
		{"stops at the boundary", prompt, queue + boundary + response, -1, len(prompt + queue), false, true},
		{"a response before the boundary", prompt, response + boundary + response, -1, len(prompt + response), true, true},
		{"a line still being written is not the tail's", prompt, queue + torn, -1, len(prompt + queue), false, false},
		{"from inside a line: it was read cut", prompt, queue, 5, len(prompt + queue), true, false},
		{"nothing after", prompt, "", -1, len(prompt), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(tc.before+tc.tail), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			from := int64(tc.from)
			if tc.from < 0 {
				from = int64(len(tc.before))
			}
			got, err := f.TailFrom(context.Background(), from)
			if err != nil {
				t.Fatal(err)
			}
			if got.End != int64(tc.wantEnd) || got.Own != tc.own || got.Boundary != tc.boundary {
				t.Errorf("TailFrom(%d) = %+v, want end %d own %v boundary %v", from, got, tc.wantEnd, tc.own, tc.boundary)
			}
		})
	}
	t.Run("Upto", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, []byte(prompt+boundary+prompt), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		v := f.Upto(int64(len(prompt)))
		last, err := v.LastBoundary(context.Background())
		if err != nil || last != -1 || v.Size() != int64(len(prompt)) {
			t.Errorf("Upto(%d): size %d, last boundary %d (%v): want none within it", len(prompt), v.Size(), last, err)
		}
		res, err := v.Read(context.Background(), ReadPlan{LastBoundary: -1, ChainEnd: -1})
		if err != nil || res.ReadTo != int64(len(prompt)) || len(res.Facts.Prompts) != 1 || strings.Contains(res.Facts.Prompts[0].Text, "compacted") {
			t.Errorf("Upto's read: %+v, %v", res, err)
		}
	})
}
