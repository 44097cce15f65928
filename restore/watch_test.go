package restore

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

var noticeNow = time.Date(2026, 12, 1, 10, 20, 0, 0, time.UTC)

func prepared(kind string) *snapshot.Record {
	r := typicalRecord()
	since := time.Date(2026, 3, 14, 8, 40, 0, 0, time.UTC)
	switch kind {
	case snapshot.Planned:
		r.Trigger = "manual"
		r.Preparation = &snapshot.Preparation{Kind: kind, Fill: 612000, Window: 1000000, AutoAt: 967000, Watched: true, Since: since,
			Handoff: &snapshot.HandoffRef{Path: project + "/SESSION-STATE.md", Line: 42, Heading: "HANDOFF 2026-03-14T08:55:10Z",
				Time: time.Date(2026, 3, 14, 8, 55, 10, 0, time.UTC), Complete: true, Current: true}}
	case snapshot.Emergency:
		r.Preparation = &snapshot.Preparation{Kind: kind, Fill: 968100, Window: 1000000, AutoAt: 967000, Watched: true, Since: since, SinceKind: handoff.SinceCrossing,
			Crossings: []snapshot.Crossed{{Tokens: 500000, At: since}}}
	}
	return r
}

// spec: PO-15
func TestPointerPreparationGolden(t *testing.T) {
	for _, kind := range []string{snapshot.Planned, snapshot.Emergency} {
		for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
			in := typicalInput(lang)
			in.Record = prepared(kind)
			got := Pointer(in)
			golden(t, "pointer_"+kind+"_"+string(lang), got)
			lines := strings.Split(got, "\n")
			want := map[string]string{"planned/en": "This compaction was planned: ", "planned/ru": "Это сжатие плановое: ",
				"emergency/en": "This compaction was an emergency: ", "emergency/ru": "Это сжатие аварийное: "}[kind+"/"+string(lang)]
			if len(lines) < 2 || !strings.HasPrefix(lines[1], want) {
				t.Errorf("%s/%s: the second line is %q, want it to start %q", kind, lang, lines[1], want)
			}
			checkNoImperatives(t, lang, got)
		}
	}
	// Without preparation (older records) the pointer has no such line.
	if got := Pointer(typicalInput(snapshot.English)); strings.Contains(got, "This compaction was") {
		t.Error("a record without preparation got a preparation line")
	}
}

// spec: PO-15
func TestPointerPreparationLines(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	older := &snapshot.HandoffRef{Line: 7, Time: at.Add(-26 * time.Hour), Complete: true}
	cases := []struct {
		trigger string
		p       snapshot.Preparation
		want    string
	}{
		{"auto", snapshot.Preparation{Kind: snapshot.Emergency, Fill: 968100, Window: 1000000, Since: at.Add(-20 * time.Minute)},
			"This compaction was an emergency: automatic, context at 96% of the window (968,100 of 1,000,000 tokens), no handoff since 08:40 UTC."},
		{"auto", snapshot.Preparation{Kind: snapshot.Emergency, Fill: 5000, Since: at.Add(-20 * time.Minute), Handoff: older},
			"This compaction was an emergency: automatic, context at 5,000 tokens, no handoff since 08:40 UTC (the newest block is dated 2026-03-13 07:00 UTC)."},
		{"manual", snapshot.Preparation{Kind: snapshot.Unplanned, Handoff: &snapshot.HandoffRef{Line: 9}},
			"This compaction was not planned: manual, context fill unknown, the newest handoff block (line 9) is incomplete."},
		{"", snapshot.Preparation{Kind: snapshot.Unplanned},
			"This compaction was not planned: trigger unknown, context fill unknown, no handoff block."},
		// HO-4: the line says what the moment was, never a crossing that
		// did not happen.
		{"auto", snapshot.Preparation{Kind: snapshot.Emergency, Fill: 5000, Since: at.Add(-20 * time.Minute), SinceKind: handoff.SinceCrossing},
			"This compaction was an emergency: automatic, context at 5,000 tokens, no handoff since the first threshold was crossed at 08:40 UTC."},
		{"manual", snapshot.Preparation{Kind: snapshot.Unplanned, Since: at.Add(-20 * time.Minute), SinceKind: handoff.SinceCompaction},
			"This compaction was not planned: manual, context fill unknown, no handoff since the compaction at 08:40 UTC."},
		{"manual", snapshot.Preparation{Kind: snapshot.Unplanned, Since: at.Add(-20 * time.Minute), SinceKind: handoff.SinceStart},
			"This compaction was not planned: manual, context fill unknown, no handoff since the session started at 08:40 UTC."},
		{"manual", snapshot.Preparation{Kind: snapshot.Unplanned, Since: at.Add(-20 * time.Minute), SinceKind: handoff.SinceSnapshot, Handoff: older},
			"This compaction was not planned: manual, context fill unknown, no handoff since the previous snapshot at 08:40 UTC (the newest block is dated 2026-03-13 07:00 UTC)."},
		// HO-10, HO-12: another session's block is none of this session's.
		{"auto", snapshot.Preparation{Kind: snapshot.Emergency, Since: at.Add(-20 * time.Minute), SinceKind: handoff.SinceCrossing, OtherBlocks: 1},
			"This compaction was an emergency: automatic, context fill unknown, no handoff block of this session (blocks in the state file not its own: 1)."},
	}
	for _, tc := range cases {
		got := preparationLine(printer(snapshot.English), &tc.p, tc.trigger, at, 240)
		if got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func noticeInput(lang snapshot.Lang) NoticeInput {
	return NoticeInput{
		Fill:   612000,
		Window: watch.Window{Tokens: 1000000, AutoAt: 967000, Source: "model claude-opus-5-5"},
		Told:   []watch.Crossing{{Tokens: 600000, At: noticeNow.Add(-5 * time.Minute)}},
		Last:   700000,
		Handoff: HandoffStatus{StateFile: snapshot.StateFile{Name: "SESSION-STATE.md", Path: "/home/u/проект/SESSION-STATE.md"},
			Since: handoff.Since{At: noticeNow.Add(-18 * time.Minute), Kind: handoff.SinceCrossing}},
		Lang: lang,
		Now:  noticeNow,
	}
}

// spec: WA-6
func TestWA6NoticeText(t *testing.T) {
	in := noticeInput(snapshot.English)
	got := WatchNotice(in)
	for _, want := range []string{
		"compact-guard: the context holds 612,000 tokens, 61% of the 1,000,000-token window (model claude-opus-5-5).",
		"Thresholds crossed: 600,000 at 10:15 UTC.",
		"Automatic compaction comes at about 967,000 tokens.",
		`Handoff: no block in "/home/u/проект/SESSION-STATE.md".`,
		"`compact-guard handoff --template`", "`compact-guard handoff --check` exits 0", "/compact from the user",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("notice lacks %q:\n%s", want, got)
		}
	}
	block := &handoff.Parse([]byte(handoff.Template(snapshot.English, noticeNow.Add(-30*time.Minute))))[0]
	for _, tc := range []struct {
		h    HandoffStatus
		want string
	}{
		{HandoffStatus{StateFile: snapshot.StateFile{Name: "STATE.md"}}, "Handoff: no STATE.md in the project."},
		{HandoffStatus{StateFile: snapshot.StateFile{Path: "/p/S.md"}, Others: 2}, `Handoff: no block of this session in "/p/S.md" (blocks not its own: 2).`},
		{HandoffStatus{StateFile: snapshot.StateFile{Path: "/p/S.md"}, Block: &handoff.Block{Line: 4, Time: noticeNow.Add(-30 * time.Minute)},
			Since: handoff.Since{At: noticeNow.Add(-18 * time.Minute), Kind: handoff.SinceCompaction}},
			`Handoff: none since the compaction at 10:02 UTC; the newest block in "/p/S.md" is dated 09:50 UTC.`},
		{HandoffStatus{StateFile: snapshot.StateFile{Path: "/p/S.md"}, Block: block, Since: handoff.Since{At: noticeNow.Add(-18 * time.Minute), Kind: handoff.SinceCrossing}},
			`Handoff: the newest block in "/p/S.md" (line 1) is incomplete.`},
		{HandoffStatus{StateFile: snapshot.StateFile{Path: "/p/S.md"}, Block: &handoff.Block{Line: 4, Time: noticeNow.Add(-30 * time.Minute)}, Since: handoff.Since{At: noticeNow.Add(-18 * time.Minute), Kind: handoff.SinceCrossing}},
			`Handoff: none since the first threshold was crossed at 10:02 UTC; the newest block in "/p/S.md" is dated 09:50 UTC.`},
		{HandoffStatus{StateFile: snapshot.StateFile{Path: "/p/S.md"}, Block: &handoff.Block{Line: 4, Time: noticeNow.Add(-time.Minute)}, Current: true},
			`Handoff: current, "/p/S.md" line 4, dated 10:19 UTC.`},
		{HandoffStatus{StateFile: snapshot.StateFile{Path: "/p/S.md"}, Block: &handoff.Block{Line: 4, Time: noticeNow.Add(-25 * time.Hour)}, Current: true},
			"dated 2026-11-30 09:20 UTC."},
	} {
		in.Handoff = tc.h
		if got := WatchNotice(in); !strings.Contains(got, tc.want) {
			t.Errorf("notice lacks %q:\n%s", tc.want, got)
		}
	}
	in.Window.AutoAt = 0
	if got := WatchNotice(in); !strings.Contains(got, "Automatic compaction is off.") {
		t.Errorf("auto-compaction off not said:\n%s", got)
	}
}

// spec: WA-6
func TestWA6NoticeShortFactualBilingual(t *testing.T) {
	long := strings.Repeat("очень-длинный-путь/", 30) + "SESSION-STATE.md"
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		in := noticeInput(lang)
		in.Told = []watch.Crossing{{Tokens: 500000, At: noticeNow.Add(-48 * time.Hour)}, {Tokens: 600000, At: noticeNow}, {Tokens: 700000, At: noticeNow}}
		in.Window.Source = "autoCompactWindow in " + long
		in.Handoff.StateFile.Path = long
		in.Handoff.Block = &handoff.Block{Line: 123456, Time: noticeNow.Add(-72 * time.Hour)}
		for name, text := range map[string]string{"notice": WatchNotice(in), "stop reason": StopReason(in)} {
			if n := utf8.RuneCountInString(text); n > MaxNoticeChars {
				t.Errorf("%s %s: %d characters, over %d", lang, name, n, MaxNoticeChars)
			}
			checkNoImperatives(t, lang, text)
			if lang == snapshot.Russian && !regexp.MustCompile(`[а-яё]`).MatchString(text) {
				t.Errorf("Russian %s has no Cyrillic: %s", name, text)
			}
		}
		typical := WatchNotice(noticeInput(lang))
		if n := utf8.RuneCountInString(typical); n > 500 {
			t.Errorf("%s: a typical notice is %d characters:\n%s", lang, n, typical)
		}
	}
	ru := WatchNotice(noticeInput(snapshot.Russian))
	if !strings.HasPrefix(ru, "compact-guard: контекст заполнен на 61% окна (токенов: 612\u00a0000 из 1\u00a0000\u00a0000; model claude-opus-5-5).") {
		t.Errorf("Russian notice starts %q", ru)
	}
}

// spec: WA-10
func TestWA10StopReason(t *testing.T) {
	got := StopReason(noticeInput(snapshot.English))
	for _, want := range []string{"compact-guard holds this stop once", "past the last threshold (700,000)",
		"no handoff is current", "The next stop passes", "`compact-guard handoff --template`"} {
		if !strings.Contains(got, want) {
			t.Errorf("reason lacks %q:\n%s", want, got)
		}
	}
}

// spec: WA-11
func TestWA11LateNote(t *testing.T) {
	compacted := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		why, want string
	}{
		{selectsnap.Resumed, "because the session went on in a new client process (resumed at 09:30 UTC), and client 2.1.119 keeps no SessionStart context across that."},
		{selectsnap.NotRecorded, "because the client recorded no SessionStart context after the compaction."},
		{selectsnap.NotDelivered, "because no pointer was handed out at SessionStart."},
		{selectsnap.OldClient, "because client 2.1.119 passes no SessionStart context to the model."},
	} {
		got := LateNote(tc.why, "2.1.119", compacted.Add(30*time.Minute), compacted, snapshot.English)
		if !strings.HasPrefix(got, "compact-guard: this pointer comes with the first prompt after the compaction, ") || !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s: %q", tc.why, got)
		}
		checkNoImperatives(t, snapshot.English, got)
		checkNoImperatives(t, snapshot.Russian, LateNote(tc.why, "2.1.119", compacted, compacted, snapshot.Russian))
	}
}

// spec: PO-12
func TestEventAndBlockOutput(t *testing.T) {
	out, err := hookio.EventOutput("PostToolUse", "a <b> & c")
	if err != nil || string(out) != `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"a <b> & c"}}`+"\n" {
		t.Errorf("EventOutput: %s %v", out, err)
	}
	out, err = hookio.BlockOutput("held")
	var v map[string]any
	if err != nil || json.Unmarshal(out, &v) != nil || v["decision"] != "block" || v["reason"] != "held" || len(v) != 2 {
		t.Errorf("BlockOutput: %s %v", out, err)
	}
}
