package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// lsNow is the clock of the list and show tests.
var lsNow = time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)

// lsSave stores a snapshot of session sid taken age before lsNow.
func lsSave(t *testing.T, dir, sid string, age time.Duration, edit func(*snapshot.Record)) string {
	t.Helper()
	rec := &snapshot.Record{
		SessionID: sid,
		CreatedAt: lsNow.Add(-age),
		Trigger:   "auto",
		Cwd:       "/work/proj",
		Context:   &transcript.Usage{Tokens: 155202},
		Prompts:   []transcript.Prompt{{Text: "first"}, {Text: "second"}},
		Files:     []transcript.FileEdit{{Path: "/work/proj/a.go"}},
	}
	if edit != nil {
		edit(rec)
	}
	store := &snapshot.Store{Dir: dir, Now: func() time.Time { return lsNow }}
	md, _, err := store.Save(rec, snapshot.English)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(filepath.Base(md), ".md")
}

// lsMain runs compact-guard with --dir and returns stdout, stderr and the
// exit code.
func lsMain(dir string, args ...string) (string, string, int) {
	var out, errOut bytes.Buffer
	code := Main(append([]string{"--dir", dir}, args...), strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// spec: LS-1, LS-2
func TestListTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	older := lsSave(t, dir, "3f2a9c1e-aaaa-4bbb-8ccc-000000000001", 3*time.Hour, func(r *snapshot.Record) {
		r.Trigger = "manual"
		r.Totals = &transcript.Totals{Prompts: 17, Commands: 40}
		r.Compaction = &snapshot.CompactionConfirmation{At: lsNow.Add(-3 * time.Hour), SummaryChars: 900}
	})
	newer := lsSave(t, dir, "77777777-bbbb-4bbb-8ccc-000000000002", 5*time.Minute, func(r *snapshot.Record) {
		r.Context = nil
		r.Cwd = "/other place/with space"
		r.Agent = "codex"
	})
	var out bytes.Buffer
	items, err := loadSnapshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeListTable(&out, items, lsNow, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header and 2 rows:\n%s", out.String())
	}
	if !regexp.MustCompile(`^NAME\s+TIME\s+AGE\s+SESSION\s+AGENT\s+TRIGGER\s+CONFIRMED\s+CONTEXT\s+FILES\s+PROMPTS\s+CWD$`).MatchString(lines[0]) {
		t.Errorf("header: %q", lines[0])
	}
	localTime := func(d time.Duration) string { return lsNow.Add(-d).Local().Format("2006-01-02 15:04:05") }
	row1 := regexp.MustCompile(`^` + newer + `\s+` + regexp.QuoteMeta(localTime(5*time.Minute)) + `\s+5m\s+77777777\s+codex\s+auto\s+no\s+-\s+1\s+2\s+/other place/with space$`)
	row2 := regexp.MustCompile(`^` + older + `\s+` + regexp.QuoteMeta(localTime(3*time.Hour)) + `\s+3h\s+3f2a9c1e\s+claude\s+manual\s+yes\s+155\.2k\s+1\s+17\s+/work/proj$`)
	if !row1.MatchString(lines[1]) || !row2.MatchString(lines[2]) {
		t.Errorf("rows (newest first):\n%s", out.String())
	}
}

// spec: LS-2, LS-3
func TestListJSONAndSessionFilter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	a := lsSave(t, dir, "aaaaaaaa-0000-4000-8000-000000000001", time.Hour, nil)
	lsSave(t, dir, "bbbbbbbb-0000-4000-8000-000000000002", 2*time.Hour, nil)
	out, errOut, code := lsMain(dir, "list", "--json", "--session", "aaaa")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var items []map[string]any
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(items) != 1 || items[0]["name"] != a || items[0]["session_id"] != "aaaaaaaa-0000-4000-8000-000000000001" ||
		items[0]["agent"] != "claude" || items[0]["context_tokens"] != float64(155202) || items[0]["confirmed"] != false || items[0]["files"] != float64(1) ||
		items[0]["md_path"] != filepath.Join(dir, a+".md") {
		t.Errorf("items: %v", items)
	}

	_, errOut, code = lsMain(dir, "list", "--session", "cccc")
	if code != ExitFailure || !strings.Contains(errOut, `compact-guard: no snapshots of session "cccc"`) || !strings.Contains(errOut, "run 'compact-guard list'") {
		t.Errorf("unknown session: exit %d %q", code, errOut)
	}
}

// spec: LS-4
func TestListEmptyAndUnreadable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	out, _, code := lsMain(dir, "list")
	if code != ExitOK || out != "no snapshots in "+dir+"\n" {
		t.Errorf("missing folder: exit %d %q", code, out)
	}
	out, _, code = lsMain(dir, "list", "--json")
	if code != ExitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("missing folder, json: exit %d %q", code, out)
	}

	dir = filepath.Join(t.TempDir(), "snaps")
	lsSave(t, dir, "aaaaaaaa-0000-4000-8000-000000000001", time.Hour, nil)
	bad := "snap_20260314-100000_deadbeef"
	if err := os.WriteFile(filepath.Join(dir, bad+".json"), []byte("{broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = lsMain(dir, "list")
	if code != ExitOK || !regexp.MustCompile(bad+`.*deadbeef.*unreadable: `).MatchString(out) || !strings.Contains(out, "aaaaaaaa") {
		t.Errorf("unreadable record: exit %d\n%s", code, out)
	}
}

// spec: LS-5
func TestShowSelectors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	older := lsSave(t, dir, "aaaaaaaa-0000-4000-8000-000000000001", 2*time.Hour, nil)
	newer := lsSave(t, dir, "bbbbbbbb-0000-4000-8000-000000000002", time.Hour, nil)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"show"}, read(newer + ".md")},
		{[]string{"show", "--latest"}, read(newer + ".md")},
		{[]string{"show", older}, read(older + ".md")},
		{[]string{"show", older + ".json"}, read(older + ".md")},
		{[]string{"show", filepath.Join(dir, older+".md"), "--json"}, read(older + ".json")},
		{[]string{"show", "--session", "aaaa"}, read(older + ".md")},
		{[]string{"show", "--session", "bbbbbbbb-0000-4000-8000-000000000002", "--json"}, read(newer + ".json")},
	}
	for _, c := range cases {
		out, errOut, code := lsMain(dir, c.args...)
		if code != ExitOK || strings.TrimSuffix(out, "\n") != strings.TrimSuffix(c.want, "\n") {
			t.Errorf("%v: exit %d (%s)\n%s", c.args, code, errOut, out)
		}
	}
	if !strings.Contains(read(newer+".md"), "second") {
		t.Error("the Markdown does not hold the prompts: the test compares nothing useful")
	}

}

// spec: LS-5, LS-6, SF-28
// show renders the record, whatever the .md beside it holds (a layout of an
// older version, nothing at all), in the record's language; --full renders
// everything.
func TestShowRendersTheRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	name := lsSave(t, dir, "aaaaaaaa-0000-4000-8000-000000000001", time.Hour, func(r *snapshot.Record) {
		r.Commands = []transcript.Command{{Tool: "Bash", Command: "go test ./...", Description: "Run the tests", Outcome: transcript.OutcomeError, ExitCode: new(1)}}
	})
	md := filepath.Join(dir, name+".md")
	if err := os.WriteFile(md, []byte("# an older layout\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, err := (&snapshot.Store{Dir: dir}).Load(name)
	if err != nil {
		t.Fatal(err)
	}
	out, _, code := lsMain(dir, "show", name)
	if code != ExitOK || out != string(snapshot.RenderMarkdown(rec, snapshot.English)) || !strings.Contains(out, "- ✗ exit 1  `go test ./...`") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	out, _, code = lsMain(dir, "show", "--full", name)
	if code != ExitOK || out != string(snapshot.RenderFullMarkdown(rec, snapshot.English)) || !strings.Contains(out, "- Description: `Run the tests`") {
		t.Errorf("show --full: exit %d\n%s", code, out)
	}
	if err := os.Remove(md); err != nil {
		t.Fatal(err)
	}
	if out, _, code = lsMain(dir, "show", name); code != ExitOK || out != string(snapshot.RenderMarkdown(rec, snapshot.English)) {
		t.Errorf("show without the .md: exit %d\n%s", code, out)
	}

	ru := filepath.Join(t.TempDir(), "snaps")
	rec.Name, rec.Lang = "", ""
	if _, _, err := (&snapshot.Store{Dir: ru}).Save(rec, snapshot.Russian); err != nil {
		t.Fatal(err)
	}
	if out, _, code := lsMain(ru, "show"); code != ExitOK || !strings.Contains(out, "Неудачных команд: 1 из 1") {
		t.Errorf("a Russian snapshot shows in Russian: exit %d\n%s", code, out)
	}
}

// spec: LS-7
func TestShowErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	lsSave(t, dir, "aaaaaaaa-0000-4000-8000-000000000001", time.Hour, nil)
	cases := []struct {
		args     []string
		wantCode int
		wantErr  string
	}{
		{[]string{"show", "snap_20200101-000000_00000000"}, ExitFailure, "no snapshot snap_20200101-000000_00000000 in " + dir + "; run 'compact-guard list' to see them"},
		{[]string{"show", "notes.txt"}, ExitFailure, `"notes.txt" is not a snapshot name`},
		{[]string{"show", "--session", "zzzz"}, ExitFailure, `no snapshots of session "zzzz"`},
		{[]string{"show", "x", "--latest"}, ExitUsage, "give one of NAME, --session and --latest"},
		{[]string{"show", "--session", "a", "--latest"}, ExitUsage, "give one of NAME, --session and --latest"},
		{[]string{"show", "a", "b"}, ExitUsage, "accepts at most 1 arg"},
		{[]string{"show", "--full", "--json"}, ExitUsage, "give one of --full and --json"},
	}
	for _, c := range cases {
		_, errOut, code := lsMain(dir, c.args...)
		if code != c.wantCode || !strings.Contains(errOut, c.wantErr) || !strings.HasPrefix(errOut, "compact-guard: ") {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, errOut)
		}
		if strings.Contains(strings.SplitN(errOut, "\n", 2)[0], ".\n") {
			t.Errorf("%v: trailing period: %q", c.args, errOut)
		}
	}
	_, errOut, code := lsMain(filepath.Join(dir, "empty"), "show")
	if code != ExitFailure || !strings.Contains(errOut, "no snapshots in") {
		t.Errorf("empty folder: exit %d %q", code, errOut)
	}
}

// spec: LS-1
func TestListFormatting(t *testing.T) {
	n := func(i int64) *int64 { return &i }
	for in, want := range map[*int64]string{nil: "-", n(812): "812", n(15300): "15.3k", n(1_234_567): "1.2M"} {
		if got := formatTokens(in); got != want {
			t.Errorf("formatTokens: %q, want %q", got, want)
		}
	}
	for d, want := range map[time.Duration]string{30 * time.Second: "30s", 12 * time.Minute: "12m", 30 * time.Hour: "30h", 72 * time.Hour: "3d", -time.Hour: "future"} {
		if got := formatAge(d); got != want {
			t.Errorf("formatAge(%v) = %q, want %q", d, got, want)
		}
	}
	home := filepath.FromSlash("/home/u")
	if got := tildePath(filepath.Join(home, "proj"), home); got != "~"+string(filepath.Separator)+"proj" {
		t.Errorf("tildePath: %q", got)
	}
	if got := tildePath(filepath.FromSlash("/home/user2/x"), home); got != filepath.FromSlash("/home/user2/x") {
		t.Errorf("tildePath outside home: %q", got)
	}
}

// A cwd, session id or trigger holding terminal control sequences, tabs or
// invisible characters is printed escaped: it cannot clear the screen, set
// the title, shift the columns or hide text.
// spec: SEC-21, LS-1
func TestListEscapesTerminalSequences(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	lsSave(t, dir, "\x1b[2J\u200bid-with-escapes", time.Hour, func(r *snapshot.Record) {
		r.Cwd = "/work/\x1b]0;pwned\x07proj\x1b[31m\tred\u009b1m\u202e\U000e0041"
		r.Trigger = "auto\x1b[8m"
	})
	bad := "snap_20260314-100000_deadbeef"
	if err := os.WriteFile(filepath.Join(dir, bad+".json"), []byte("{\"x\":\"\x1b[2J\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := lsMain(dir, "list")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, r := range strings.TrimSuffix(out, "\n") {
		if r != '\n' && (r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x200b || r == 0x202e || r == 0xe0041) {
			t.Fatalf("list printed %U raw:\n%q", r, out)
		}
	}
	for _, want := range []string{`/work/\x1b]0;pwned\x07proj\x1b[31m\x09red\u009b1m\u202e\U000e0041`, `auto\x1b[8m`, `\x1b[2J\u200bi`} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 3 {
		t.Errorf("%d lines, want a header and two snapshots:\n%s", len(lines), out)
	}
}
