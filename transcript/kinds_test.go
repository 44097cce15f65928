package transcript

import (
	"context"
	"testing"
)

// spec: TR-52, TR-53
// A precomputed compaction's boundary says so in compactMetadata; a
// boundary that names a preserved segment or preserved messages kept the
// newest messages verbatim. As Claude Code 2.1.210 and 2.1.328 write them
// (measured, specs/selectsnap.md SS-18).
func TestTR52PrecomputedAndKeptTail(t *testing.T) {
	seg := obj{"headUuid": "h", "anchorUuid": "a", "tailUuid": "t"}
	lines := []string{
		prompt(1, "one", nil),
		boundary(2, obj{"trigger": "manual", "preTokens": 1200}),
		prompt(3, "two", nil),
		boundary(4, obj{"trigger": "auto", "preTokens": 178767, "postTokens": 22837, "precomputed": true,
			"preservedSegment": seg, "preservedMessages": obj{"anchorUuid": "a", "uuids": []string{"h", "t"}}}),
		prompt(5, "three", nil),
		boundary(6, obj{"trigger": "auto", "preTokens": 199003, "preservedMessages": obj{"uuids": []string{"h"}}}),
		boundary(7, obj{"trigger": "auto", "preTokens": 1, "preservedSegment": obj{}, "preservedMessages": nil}),
	}
	f := open(t, writeLines(t, lines...))
	got, err := f.Compactions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d compactions, want 4", len(got))
	}
	for i, want := range []struct{ precomputed, keeps bool }{{false, false}, {true, true}, {false, true}, {false, false}} {
		eq(t, "precomputed", got[i].Precomputed, want.precomputed)
		eq(t, "keeps tail", got[i].KeepsTail, want.keeps)
	}
}

// spec: TR-54
// The newest response's release comes with the fill, for watch's
// compaction point (specs/watch.md WA-20).
func TestTR54FillVersion(t *testing.T) {
	usage := obj{"input_tokens": 5, "cache_read_input_tokens": 100}
	f := open(t, writeLines(t,
		assistantText(1, "claude-opus-4-5", usage, obj{"version": "2.1.210"}),
		prompt(2, `a prompt "version":"9.9.9"`, obj{"version": "2.1.328"}),
		assistantText(3, "claude-opus-4-5", usage, obj{"version": "2.1.328"}),
	))
	fill, ok, err := f.NewestFill(context.Background())
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	eq(t, "version", fill.Version, "2.1.328")

	f = open(t, writeLines(t, assistantText(1, "claude-opus-4-5", usage, nil)))
	if fill, _, _ = f.NewestFill(context.Background()); fill.Version != "" {
		t.Errorf("a response without a version gives %q", fill.Version)
	}
}
