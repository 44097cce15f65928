package standing

import (
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/transcript/textcut"
)

func prompts(texts ...string) []Prompt {
	out := make([]Prompt, len(texts))
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, s := range texts {
		out[i] = Prompt{Text: s, Time: t0.Add(time.Duration(i) * time.Minute), Index: i}
	}
	return out
}

// one returns the instruction Select makes of a single prompt, if any.
func one(t *testing.T, text string) (Instruction, bool) {
	t.Helper()
	got := Select(prompts(text))
	if len(got) > 1 {
		t.Fatalf("one prompt gave %d instructions", len(got))
	}
	if len(got) == 0 {
		return Instruction{}, false
	}
	return got[0], true
}

func checkKinds(t *testing.T, rule string, kind Kind, yes, no []string) {
	t.Helper()
	for _, s := range yes {
		in, ok := one(t, s)
		if !ok || in.Kind != kind || in.Rule != rule {
			t.Errorf("%q: got %v %q %q, want %s %s", s, ok, in.Rule, in.Kind, rule, kind)
		}
	}
	for _, s := range no {
		if in, ok := one(t, s); ok && in.Rule == rule {
			t.Errorf("%q: chosen by %s (cue %q), want not", s, in.Rule, in.Cue)
		}
	}
}

// spec: ST-1
func TestST1NotStanding(t *testing.T) {
	for _, s := range []string{
		"yes", "4", "option", "continue until all are done", "commit this",
		"--- FAIL: TestX (0.05s)\n    x_test.go:1: should use go run",
		"Operation stopped by hook: Another session is active: you must commit",
		"=== Step 1 ===\nnever mind",
		"what does this do?",
		strings.Repeat("look at this log line ", 30) + "and never use tabs",
	} {
		if in, ok := one(t, s); ok {
			t.Errorf("%.60q chosen by %s (cue %q), want not", s, in.Rule, in.Cue)
		}
	}
}

// spec: ST-1
func TestST1OddInput(t *testing.T) {
	// Select runs inside precompact: no input may stop it.
	got := Select(prompts("", "\xff\xfe\x00", "\xff we must not touch \xc3 the migrations", strings.Repeat("\u0301", 5000)))
	if len(got) != 1 || got[0].Index != 2 || got[0].Text != "\xff we must not touch \xc3 the migrations" {
		t.Errorf("odd input: %+v", got)
	}
	if got := Select(nil); got != nil {
		t.Errorf("no prompts: %+v", got)
	}
}

// spec: ST-2 ST-9
func TestST2Constraints(t *testing.T) {
	checkKinds(t, "ST-2", Constraint, []string{
		"Don't touch the migrations",
		"port it to Rust. Don't stop until all functions are ported",
		"always run the linter first",
		"we should be using the strong types wherever we can",
		"yes please, match the existing style - and never add a dependency",
		"the tests must pass on Windows",
		"validate it works, but don't fix anything",
		"keep in mind that auto commits carry the full diff",
		"Не трогай миграции",
		"тесты всегда запускай с -race",
		"это должно работать без сети",
	}, []string{
		"I don't see anything in the logs",
		"why don't we have a test for this?",
	})
}

// spec: ST-3
func TestST3Decisions(t *testing.T) {
	checkKinds(t, "ST-3", Decision, []string{
		"we'll go with option B",
		"let's go with option 1. I also wonder about the rest",
		"Option A please",
		"yeah let's tackle 2 and 3",
		"a test to generate it is fine for now",
		"let's drop the '-' before each commit",
		"давайте используем sqlite",
		"берём вариант Б",
	}, []string{
		"which option is better?",
		"let's see what happens",
	})
}

// spec: ST-4
func TestST4Preferences(t *testing.T) {
	checkKinds(t, "ST-4", Preference, []string{
		"I prefer tabs",
		"I actually prefer the AfterAgent name",
		"I want it to be called telemetry, true by default",
		"I like pnpm better than npm",
		"I would replace the variable with the settings file",
		"Я предпочитаю короткие имена",
		"хочу, чтобы ответы были короче",
	}, nil)
}

// spec: ST-5
func TestST5Corrections(t *testing.T) {
	checkKinds(t, "ST-5", Correction, []string{
		"no, the API returns seconds, not ms",
		"nah let's roll back, they don't need to exist",
		"Actually, the config lives in /etc",
		"that is wrong, I can see the trailers on main",
		"you are not correct: the hook receives the prompt field",
		"this should be entire/checkpoints/v1 now",
		"it is not seconds but milliseconds",
		"нет, API отдаёт секунды, а не миллисекунды",
		"на самом деле конфиг лежит в /etc",
	}, []string{
		"no, then it's good",
		"nothing is actually getting reviewed here",
	})
}

// spec: ST-10
func TestST10Verbatim(t *testing.T) {
	short := "  Don't   touch\tthe migrations \n"
	in, ok := one(t, short)
	if !ok || in.Text != short || in.Cut || in.Chars != len([]rune(short)) {
		t.Fatalf("short: %+v", in)
	}
	long := "never push to main. " + strings.Repeat("ж", 2*MaxChars)
	in, ok = one(t, long)
	if !ok {
		t.Fatal("long prompt not chosen")
	}
	want, _ := textcut.Runes(long, MaxChars)
	if !in.Cut || in.Text != want+textcut.Marker || in.Chars != len([]rune(long)) {
		t.Errorf("long: cut %v, %d chars of text, Chars %d", in.Cut, len([]rune(in.Text)), in.Chars)
	}
	if got := in.Explain(); got != "ST-2 constraint: “never”" {
		t.Errorf("Explain = %q", got)
	}
}

// spec: ST-11
func TestST11Replaced(t *testing.T) {
	got := Select(prompts(
		"we'll use the staging database for the integration tests",
		"fix the flaky test",
		"always run gofmt before committing",
		"no, use the production replica database for the integration tests, not staging",
		"we'll use the staging database for the integration tests",
	))
	if len(got) != 4 {
		t.Fatalf("got %d instructions, want 4: %+v", len(got), got)
	}
	idx := map[int]Instruction{}
	for _, in := range got {
		idx[in.Index] = in
	}
	if idx[0].ReplacedBy != 3 {
		t.Errorf("first database decision replaced by %d, want 3", idx[0].ReplacedBy)
	}
	if idx[3].ReplacedBy != 4 {
		t.Errorf("the correction replaced by %d, want 4 (the decision typed again)", idx[3].ReplacedBy)
	}
	if idx[2].ReplacedBy != -1 || idx[4].ReplacedBy != -1 {
		t.Errorf("gofmt rule replaced by %d, last by %d; want -1, -1", idx[2].ReplacedBy, idx[4].ReplacedBy)
	}
	st := Standing(got)
	if len(st) != 2 || st[0].Index != 2 || st[1].Index != 4 {
		t.Errorf("Standing = %+v, want the prompts 2 and 4", st)
	}
}

// spec: ST-8 (its figure: go test -run XXX -bench Select ./snapshot/standing/)
func BenchmarkSelect(b *testing.B) {
	var texts []string
	for i := 0; i < 100; i++ {
		texts = append(texts, "can you look at the failing test in cmd/entire and tell me why it fails on CI but not locally?",
			"no, we removed the session commands on purpose; don't add them back")
	}
	ps := prompts(texts...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Select(ps)
	}
}

// spec: ST-6
func TestST6FirstRuleNamed(t *testing.T) {
	for text, want := range map[string]string{
		"no, never use tabs in this repository":    "ST-5 correction: “no, never use tabs in”",
		"never use tabs; we'll go with spaces":     "ST-2 constraint: “never”",
		"we'll go with spaces, I prefer them":      "ST-3 decision: “we'll go with”",
		"I prefer spaces over tabs in the Go code": "ST-4 preference: “i prefer”",
	} {
		in, ok := one(t, text)
		if !ok || in.Explain() != want {
			t.Errorf("%q: %v %q, want %q", text, ok, in.Explain(), want)
		}
	}
}

// spec: ST-7
func TestST7NormalForm(t *testing.T) {
	for _, s := range []string{"DON’T   Touch\nthe migrations", "We’ll  GO WITH option B", "Ещё раз: всЁ ДОЛЖНО работать офлайн"} {
		if _, ok := one(t, s); !ok {
			t.Errorf("%q not chosen", s)
		}
	}
	// A cue inside a longer word is no cue, in either script.
	for _, s := range []string{"nevertheless the build works", "the mustard yellow button looks odd", "посмотри должностные обязанности в файле"} {
		if in, ok := one(t, s); ok {
			t.Errorf("%q chosen by %s (cue %q)", s, in.Rule, in.Cue)
		}
	}
}

// spec: ST-8
func TestST8BoundedRead(t *testing.T) {
	// A megabyte prompt is read only to ScanChars: a cue after it is not
	// seen, and the instruction of one before it is cut at MaxChars.
	filler := strings.Repeat("x ", 512*1024)
	if in, ok := one(t, filler+" never touch the migrations"); ok {
		t.Errorf("cue past ScanChars chosen by %s", in.Rule)
	}
	in, ok := one(t, "never touch the migrations "+filler)
	if !ok || !in.Cut || len([]rune(in.Text)) != MaxChars+len([]rune(textcut.Marker)) {
		t.Errorf("megabyte prompt: chosen %v, cut %v, %d characters kept", ok, in.Cut, len([]rune(in.Text)))
	}
}

// spec: ST-9
func TestST9Languages(t *testing.T) {
	if in, ok := one(t, "Fass bitte nie die Migrationen an"); ok {
		t.Errorf("German without an English or Russian cue chosen by %s", in.Rule)
	}
	for _, s := range []string{"bitte: never touch die Migrationen", "никогда не трогай миграции", "Don't touch the migrations"} {
		if _, ok := one(t, s); !ok {
			t.Errorf("%q not chosen", s)
		}
	}
}
