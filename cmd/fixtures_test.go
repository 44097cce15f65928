package cmd

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// ownFixtureDir holds the real transcripts this project recorded with the
// client (transcript/testdata/cc2.1.328/README.md): every clone has them.
var ownFixtureDir = filepath.Join("..", "transcript", "testdata", "cc2.1.328")

// fixtureDir is the shared folder of third-party real transcripts next to
// the project, an extra that a clone alone does not have.
var fixtureDir = filepath.Join("..", "..", "shared", "fixtures", "transcripts")

// cutFixture writes the first n lines of a transcript in dir to a temporary
// file, the transcript as it stood when PreCompact ran. A shared transcript
// that is not there skips the test, saying so (go test -v shows it).
func cutFixture(t *testing.T, dir, name string, n int, dst string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) && dir == fixtureDir {
		t.Skipf("1 shared transcript (%s) not run: %s is not there. It is an extra next to the project; the project's own real transcripts in %s ran (TestPrecompactOwnTranscript).",
			name, fixtureDir, ownFixtureDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewReader(bytes.NewReader(src))
	for i := 0; i < n; i++ {
		line, err := sc.ReadBytes('\n')
		out.Write(line)
		if err != nil {
			t.Fatalf("%s has fewer than %d lines", name, n)
		}
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func runPrecompactFor(t *testing.T, dir, payload string) *snapshot.Record {
	t.Helper()
	opts := &PrecompactOptions{
		IO:  &IO{In: strings.NewReader(payload), Out: hooktest.NewHintWriter(t), ErrOut: os.Stderr},
		Dir: dir, Lang: snapshot.English, Keep: 40,
		Getenv: func(string) string { return "" }, Now: time.Now,
	}
	if err := precompactRun(opts); err != nil {
		t.Fatalf("precompactRun returned %v", err)
	}
	st := &snapshot.Store{Dir: dir}
	entries, err := st.Entries()
	if err != nil || len(entries) == 0 {
		t.Fatalf("no snapshot written: %v; log:\n%s", err, hooktest.ReadLog(dir))
	}
	rec, err := st.Load(entries[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// spec: PC-11 PC-16
// The real 2.1.328 transcript with two manual compactions, cut just before
// each boundary (lines 59 and 122 are the compact_boundary entries). The
// expected values were read off the fixture by hand.
func TestPrecompactTwoCompactionsFixtureChain(t *testing.T) {
	const fixture = "cc2.1.328-two-compactions-cyrillic.jsonl"
	const sid = "bd903d16-ca98-4bfc-a51e-b2f5da0ba17d"
	const root = "/home/dev/src/заметки-demo/"
	tmp := t.TempDir()
	tr := filepath.Join(tmp, sid+".jsonl")
	dir := filepath.Join(tmp, "snaps")
	payload := `{"session_id":"` + sid + `","transcript_path":` + hooktest.QuoteJSON(t, tr) + `,"hook_event_name":"PreCompact","trigger":"manual","custom_instructions":null}`

	cutFixture(t, fixtureDir, fixture, 58, tr)
	first := runPrecompactFor(t, dir, payload)
	wantStrings(t, "first: prompts", hooktest.PromptTexts(first), []string{
		"Создай файл заметок notes/план.md и план работ",
		"Now refactor src/app.py to use a main() function and run it",
	})
	wantStrings(t, "first: files", hooktest.FileSummaries(first), []string{root + "src/app.py Edit 1", root + "notes/план.md Write 1"})
	wantStrings(t, "first: commands", hooktest.CommandSummaries(first), []string{"python3 src/app.py ok", "python3 -m pytest -q tests error"})
	if first.EarlierCompactions != 0 || first.Coverage.SegmentStart != -1 || first.Coverage.Previous != "" {
		t.Errorf("first: compactions %d, segment start %d, previous %q", first.EarlierCompactions, first.Coverage.SegmentStart, first.Coverage.Previous)
	}

	// One second later, so that the names differ by time, not suffix.
	time.Sleep(time.Until(first.CreatedAt.Truncate(time.Second).Add(time.Second)))
	cutFixture(t, fixtureDir, fixture, 121, tr)
	second := runPrecompactFor(t, dir, payload)
	if second.Coverage.Previous != first.Name || second.Coverage.ReadFrom != first.Coverage.TranscriptSize || second.Coverage.Partial {
		t.Errorf("second: coverage %+v, want previous %s read from %d", second.Coverage, first.Name, first.Coverage.TranscriptSize)
	}
	wantSecond := func(t *testing.T, rec *snapshot.Record) {
		wantStrings(t, "second: prompts", hooktest.PromptTexts(rec), []string{
			"Создай файл заметок notes/план.md и план работ",
			"Now refactor src/app.py to use a main() function and run it",
			"Add a tests/test_app.py with one test, then commit nothing yet",
			"Запусти тесты ещё раз и обнови план в notes/план.md",
		})
		wantStrings(t, "second: files", hooktest.FileSummaries(rec), []string{
			root + "notes/план.md Edit 2", root + "tests/test_app.py Write 1", root + "src/app.py Edit 1",
		})
		wantStrings(t, "second: commands", hooktest.CommandSummaries(rec), []string{
			"python3 src/app.py ok", "python3 -m pytest -q tests error", "git status --short ok", "python3 -m pytest -q tests || true ok",
		})
		if rec.EarlierCompactions != 1 {
			t.Errorf("second: earlier compactions %d, want 1", rec.EarlierCompactions)
		}
		if rec.Cwd != strings.TrimSuffix(root, "/") || rec.CwdSource != "transcript" {
			t.Errorf("second: cwd %q from %s, want the transcript's", rec.Cwd, rec.CwdSource)
		}
	}
	wantSecond(t, second)

	// Without the earlier snapshot the same facts come from reading the
	// whole file.
	fresh := runPrecompactFor(t, filepath.Join(tmp, "fresh"), payload)
	if fresh.Coverage.Previous != "" || fresh.Coverage.ReadFrom != 0 {
		t.Errorf("fresh: coverage %+v, want a read from 0 without previous", fresh.Coverage)
	}
	wantSecond(t, fresh)
}

// spec: PC-11, PC-16, SF-20, LS-5
// The project's own transcript of E2E-5, as it stood when PreCompact ran
// (line 54 is its compact_boundary): the record holds the session's facts,
// and show reads it summary first. Expected values were read off the file by
// hand.
func TestPrecompactOwnTranscript(t *testing.T) {
	const sid = "6bc94baa-bd75-4c6a-adb7-2a121c0ffbcd"
	const proj = "/tmp/TestE2EE2E5_ManualCompaction1925502874/001/проект демо"
	const failing = "printf 'FAIL: TestGreeting\\n' >&2; exit 3"
	tmp := t.TempDir()
	tr := filepath.Join(tmp, sid+".jsonl")
	dir := filepath.Join(tmp, "snaps")
	cutFixture(t, ownFixtureDir, "manual-compaction.jsonl", 53, tr)
	payload := `{"session_id":"` + sid + `","transcript_path":` + hooktest.QuoteJSON(t, tr) + `,"cwd":` + hooktest.QuoteJSON(t, proj) +
		`,"hook_event_name":"PreCompact","trigger":"manual","custom_instructions":"keep the failing test"}`
	rec := runPrecompactFor(t, dir, payload)
	wantStrings(t, "prompts", hooktest.PromptTexts(rec), []string{
		"Создай hello.txt with a greeting — «привет» and `quotes`",
		"Fix the greeting, then run the failing test:\n\n## step\n```sh\n./test.sh\n```",
	})
	wantStrings(t, "files", hooktest.FileSummaries(rec), []string{proj + "/hello.txt Edit 2"})
	wantStrings(t, "commands", hooktest.CommandSummaries(rec), []string{"git status --short ok", failing + " error"})
	if rec.Totals == nil || *rec.Totals != (transcript.Totals{Prompts: 2, Commands: 2, Failures: 1}) {
		t.Errorf("totals = %+v, want 2 prompts, 2 commands, 1 failure", rec.Totals)
	}
	if rec.Cwd != proj || rec.EarlierCompactions != 0 || rec.Trigger != "manual" {
		t.Errorf("cwd %q, earlier compactions %d, trigger %q", rec.Cwd, rec.EarlierCompactions, rec.Trigger)
	}

	out, errOut, code := lsMain(dir, "show")
	if code != ExitOK {
		t.Fatalf("show: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"\n- Trigger: manual, 0 earlier compactions in this session\n",
		"\n- Files edited: 1 (2 edits)\n  - `hello.txt` — 2 edits\n",
		"\n- Failed commands: 1 of 2\n  - ✗ exit 3  `" + failing + "`  ",
		"\nCustom instructions:\n\n```text\nkeep the failing test\n```\n",
		"\nLast prompt, ",
		"\n## Commands, newest last (2)\n\n- ✓  `git status --short`  ",
		"\n## Failures and rejections, newest last (1)\n\n- ✗ `Bash` failed  `" + failing + "`  ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show misses %q:\n%s", want, out)
		}
	}
}

func wantStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}
