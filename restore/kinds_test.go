package restore

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

var kindArgs = map[string][]any{
	mCompactedAt:       {"automatic", "2026-03-14 09:00:00 +00:00", "/s/snap.md"},
	mTakenAfterFailure: {"disk full"},
	mTakenFailureLog:   {"disk full", "/s/compact-guard.log"},
	mSupersedes:        {"10:02"},
	mWatchAutoRefused:  {"2.1.328", "claude-opus-4-5"},
	mWatchAutoEither:   {167000, "2.1.250", "claude-opus-5-5"},
}

// spec: PO-9, PO-10
// This file's messages are statements in both languages, like every other.
func TestKindMessages(t *testing.T) {
	en, ru := printer(snapshot.English), printer(snapshot.Russian)
	for _, e := range kindEntries() {
		a, b := en.Sprintf(e.id, kindArgs[e.id]...), ru.Sprintf(e.id, kindArgs[e.id]...)
		for _, got := range []string{a, b} {
			if got == e.id || strings.Contains(got, "%!") {
				t.Errorf("%s: %q", e.id, got)
			}
		}
		if a == b || !regexp.MustCompile(`[а-яё]`).MatchString(strings.ToLower(b)) {
			t.Errorf("%s: no Russian text: %q", e.id, b)
		}
		checkNoImperatives(t, snapshot.English, a)
		checkNoImperatives(t, snapshot.Russian, b)
	}
}

// spec: PO-1, PO-18, PO-19
// A snapshot taken at SessionStart says so in the first line and says why
// in the next; a pointer that replaces one still in the context says so,
// with that one's time; a snapshot precompact took has neither.
func TestPointerTakenAtCompaction(t *testing.T) {
	before := typicalInput(snapshot.English)
	plain := Pointer(before)
	if !strings.Contains(firstLine(plain), "taken just before is at "+mdPath) || strings.Contains(plain, "taken as the compacted session started") {
		t.Fatalf("a PreCompact snapshot's pointer:\n%s", plain)
	}

	in := typicalInput(snapshot.English)
	rec := *in.Record
	rec.HookEvent = "SessionStart"
	in.Record, in.Taken = &rec, &Taken{}
	got := Pointer(in)
	lines := strings.Split(got, "\n")
	if !strings.HasSuffix(lines[0], "a mechanical snapshot taken at the compaction is at "+mdPath) {
		t.Errorf("first line %q", lines[0])
	}
	if lines[1] != "No snapshot taken before this compaction holds the session up to it, so this one was taken as the compacted session started." {
		t.Errorf("second line %q", lines[1])
	}

	in.Taken = &Taken{Failure: "snapshot folder: permission denied\nsecond line"}
	in.Supersedes = time.Date(2026, 3, 14, 10, 2, 36, 0, time.FixedZone("x", 3600))
	lines = strings.Split(Pointer(in), "\n")
	if lines[1] != `compact-guard wrote no snapshot before this compaction ("snapshot folder: permission denied"), so this one was taken as the compacted session started.` {
		t.Errorf("after a failure: %q", lines[1])
	}
	if lines[2] != "This pointer supersedes the one of 09:02 UTC." {
		t.Errorf("supersedes: %q", lines[2])
	}
	in.Taken.LogPath = "/home/u/.local/state/compact-guard/compact-guard.log"
	if lines = strings.Split(Pointer(in), "\n"); !strings.HasSuffix(lines[1], `("snapshot folder: permission denied"; the log is /home/u/.local/state/compact-guard/compact-guard.log), so this one was taken as the compacted session started.`) {
		t.Errorf("with the log: %q", lines[1])
	}

	// A pointer handed over late (watch WA-11) knows only the record: the
	// first line still says when the snapshot was taken.
	late := typicalInput(snapshot.Russian)
	late.Record = &rec
	if first := firstLine(Pointer(late)); !strings.Contains(first, "сделанный при сжатии") {
		t.Errorf("Russian first line %q", first)
	}
	// The lines count against the cap like every other.
	in.MaxChars = 400
	if n := len([]rune(Pointer(in))); n > 400 {
		t.Errorf("%d characters over a cap of 400", n)
	}
}

// spec: WA-21
// Where the client compacts by itself: at a figure only when it compacts at
// one; when the API refuses a prompt as too long, no figure; both for a
// release and model not measured. Within the notice's cap, in both languages.
func TestWA21NoticeCompactionPoint(t *testing.T) {
	in := noticeInput(snapshot.English)
	in.Window = watch.Window{Tokens: 200000, AutoAt: 200000, Source: "model claude-opus-4-5", Mode: watch.ModeRefused, Release: "2.1.328", Model: "claude-opus-4-5"}
	got := WatchNotice(in)
	if !strings.Contains(got, "Automatic compaction comes when the API refuses a prompt as too long (Claude Code 2.1.328 sets no auto-compact window for claude-opus-4-5).") ||
		strings.Contains(got, "comes at about") {
		t.Errorf("refused:\n%s", got)
	}
	in.Window.Mode, in.Window.AutoAt, in.Window.Release, in.Window.Model = watch.ModeEither, 167000, "2.1.210", "claude-opus-5-5"
	if got := WatchNotice(in); !strings.Contains(got, "Automatic compaction comes at about 167,000 tokens, or, if Claude Code 2.1.210 sets no auto-compact window for claude-opus-5-5, when the API refuses a prompt as too long.") {
		t.Errorf("either:\n%s", got)
	}
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		in.Lang = lang
		in.Window.Model = strings.Repeat("claude-very-long-model-id-", 20)
		for _, mode := range []string{watch.ModeRefused, watch.ModeEither} {
			in.Window.Mode = mode
			got := WatchNotice(in)
			if n := len([]rune(got)); n > MaxNoticeChars {
				t.Errorf("%s %s: %d characters", lang, mode, n)
			}
			checkNoImperatives(t, lang, got)
		}
		if got := StopReason(in); len([]rune(got)) > MaxNoticeChars {
			t.Errorf("stop reason over the cap: %d", len([]rune(got)))
		}
	}
}
