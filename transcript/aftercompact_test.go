package transcript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// offsetOf is where the i-th line (from 0) of lines starts in the file
// writeLines makes of them.
func offsetOf(lines []string, i int) int64 {
	var n int64
	for _, l := range lines[:i] {
		n += int64(len(l)) + 1
	}
	return n
}

func summaryEntry(n int, uuid, parent, text string) string {
	return mustJSON(obj{"type": "user", "isSidechain": false, "uuid": uuid, "parentUuid": parent, "timestamp": ts(n),
		"isCompactSummary": true, "isVisibleInTranscriptOnly": true, "message": obj{"role": "user", "content": text}})
}

func withUUID(line, uuid, parent string) string {
	return strings.Replace(line, `{`, fmt.Sprintf(`{"uuid":%q,"parentUuid":%q,`, uuid, parent), 1)
}

// spec: RS-3
func TestCompactSummary(t *testing.T) {
	b := withUUID(boundary(10, obj{"trigger": "manual"}), "b1", "")
	lines := []string{
		prompt(1, "hello", nil),
		// An earlier compaction's summary, re-appended before the boundary by
		// 2.1.193–2.1.300: not this compaction's.
		summaryEntry(2, "s0", "b0", "old summary"),
		b,
		mustJSON(obj{"type": "attachment", "uuid": "a1", "parentUuid": "b1", "attachment": obj{"type": "date"}}),
		// A copy of an older summary after the boundary, then this one.
		summaryEntry(11, "s0", "b0", "old summary copy"),
		summaryEntry(12, "s1", "b1", "This session is being continued…\n\nSummary:\nthe new one"),
	}
	f, err := Open(writeLines(t, lines...))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, ok, err := f.CompactSummary(context.Background(), offsetOf(lines, 2))
	if err != nil || !ok || !strings.HasSuffix(text, "the new one") {
		t.Errorf("CompactSummary = %q, %v, %v; want the entry whose parent is the boundary", text, ok, err)
	}

	// Without a parent link, the first summary entry after the boundary.
	lines[5] = summaryEntry(12, "s1", "a1", "array")
	lines[4] = mustJSON(obj{"type": "user", "uuid": "s2", "parentUuid": "a1", "isCompactSummary": true, "timestamp": ts(11),
		"message": obj{"role": "user", "content": []any{obj{"type": "text", "text": "first"}, obj{"type": "text", "text": "blocks"}}}})
	f2, _ := Open(writeLines(t, lines...))
	defer f2.Close()
	if text, ok, _ := f2.CompactSummary(context.Background(), offsetOf(lines, 2)); !ok || text != "first\nblocks" {
		t.Errorf("CompactSummary = %q, %v; want the first entry's text blocks", text, ok)
	}

	// None within SummaryLines lines: not found.
	far := []string{b}
	for i := range SummaryLines {
		far = append(far, prompt(20+i, "filler", nil))
	}
	far = append(far, summaryEntry(99, "s9", "b1", "too far"))
	f3, _ := Open(writeLines(t, far...))
	defer f3.Close()
	if text, ok, _ := f3.CompactSummary(context.Background(), 0); ok {
		t.Errorf("a summary %d lines after the boundary was found: %q", SummaryLines+1, text)
	}
}

// spec: RS-16
func TestKeptTailMessages(t *testing.T) {
	// Two parts of one assistant message (the same message.id): the
	// boundary names the second, the client keeps both.
	part1 := mustJSON(obj{"type": "assistant", "uuid": "p1", "parentUuid": "u1", "timestamp": ts(2),
		"message": obj{"id": "msg_7", "role": "assistant", "content": []any{obj{"type": "text", "text": "Running it."}}}})
	part2 := mustJSON(obj{"type": "assistant", "uuid": "p2", "parentUuid": "p1", "timestamp": ts(3),
		"message": obj{"id": "msg_7", "role": "assistant", "content": []any{
			obj{"type": "tool_use", "id": "t1", "name": "Bash", "input": obj{"command": "go test ./...", "description": "tests"}}}}})
	res := mustJSON(obj{"type": "user", "uuid": "r1", "parentUuid": "p2", "timestamp": ts(4),
		"message": obj{"role": "user", "content": []any{obj{"type": "tool_result", "tool_use_id": "t1", "content": "FAIL parser"}}}})
	ctxLine := mustJSON(obj{"type": "attachment", "uuid": "h1", "parentUuid": "r1", "timestamp": ts(5),
		"attachment": obj{"type": "hook_additional_context", "hookEvent": "SessionStart", "content": []any{"The context was compacted … snap_x.md"}}})
	lines := []string{
		withUUID(prompt(1, "fix the parser", nil), "u1", ""),
		part1, part2, res, ctxLine,
		mustJSON(obj{"type": "system", "subtype": "compact_boundary", "uuid": "b1", "timestamp": ts(6),
			"compactMetadata": obj{"trigger": "auto", "preservedMessages": obj{"uuids": []string{"p2", "r1", "h1"}}}}),
	}
	f, err := Open(writeLines(t, lines...))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tail, err := f.KeptTail(context.Background(), offsetOf(lines, 5))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tail.Entries {
		got = append(got, e.UUID+"="+strings.Join(e.Texts, "|"))
	}
	want := "p1=Running it. p2=go test ./... r1=FAIL parser h1=The context was compacted … snap_x.md"
	if strings.Join(got, " ") != want || tail.Wanted != 3 {
		t.Errorf("tail %v (wanted %d), want %s (3)", got, tail.Wanted, want)
	}
	if e := tail.Entries[3]; e.HookEvent != "SessionStart" || !strings.Contains(e.Context, "snap_x.md") || e.Time.IsZero() {
		t.Errorf("hook context entry %+v", e)
	}

	// A boundary that names no kept message has an empty tail.
	lines[5] = boundary(6, obj{"trigger": "auto"})
	f2, _ := Open(writeLines(t, lines...))
	defer f2.Close()
	if tail, err := f2.KeptTail(context.Background(), offsetOf(lines, 5)); err != nil || tail.Wanted != 0 || len(tail.Entries) != 0 {
		t.Errorf("no kept messages named: %+v, %v", tail, err)
	}
}

// spec: RS-16
func TestKeptTailSegment(t *testing.T) {
	lines := []string{
		withUUID(prompt(1, "outside", nil), "u0", ""),
		withUUID(prompt(2, "head prompt", nil), "u1", "u0"),
		withUUID(call(3, "t1", "Edit", obj{"file_path": "/p/a.go", "old_string": "a", "new_string": "b"}), "c1", "u1"),
		withUUID(result(4, "t1", "ok", false, nil), "r1", "c1"),
		mustJSON(obj{"type": "system", "subtype": "compact_boundary", "uuid": "b1", "timestamp": ts(6),
			"compactMetadata": obj{"preservedSegment": obj{"headUuid": "u1", "anchorUuid": "s1", "tailUuid": "r1"}}}),
	}
	f, err := Open(writeLines(t, lines...))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tail, err := f.KeptTail(context.Background(), offsetOf(lines, 4))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tail.Entries {
		got = append(got, e.UUID)
	}
	if strings.Join(got, " ") != "u1 c1 r1" {
		t.Errorf("segment tail %v, want u1 c1 r1 (from the tail back to the head, not before)", got)
	}
}

// spec: RS-16
//
// The real client (2.1.328, E2E-6 and E2E-7) keeps the last tool call and its
// result after an automatic compaction, and the last reply after a manual one.
func TestKeptTailOwnFixtures(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string
	}{
		{"auto-compaction.jsonl", "git status --short|?? hello.txt"},
		{"manual-compaction.jsonl", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", "cc2.1.328", tc.name)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			comps, err := f.Compactions(context.Background(), 0)
			if err != nil || len(comps) != 1 {
				t.Fatalf("compactions %v, %v", comps, err)
			}
			tail, err := f.KeptTail(context.Background(), comps[0].Offset)
			if err != nil {
				t.Fatal(err)
			}
			if len(tail.Entries) != tail.Wanted || tail.Wanted == 0 {
				t.Fatalf("%d of %d kept messages found", len(tail.Entries), tail.Wanted)
			}
			var texts []string
			for _, e := range tail.Entries {
				texts = append(texts, e.Texts...)
			}
			if tc.want != "" && strings.Join(texts, "|") != tc.want {
				t.Errorf("kept texts %q, want %q", texts, tc.want)
			}
			sum, ok, err := f.CompactSummary(context.Background(), comps[0].Offset)
			if err != nil || !ok || !strings.Contains(sum, "E2E-SUMMARY") || !strings.Contains(string(data), "E2E-SUMMARY") {
				t.Errorf("summary %q, %v, %v", sum, ok, err)
			}
		})
	}
}
