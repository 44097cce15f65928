package snapshot

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// update rewrites the golden files of this package: go test ./snapshot/ -update
var update = flag.Bool("update", false, "rewrite testdata/*.golden.md")

func ptr[T any](v T) *T { return &v }

var t0 = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// fullRecord fills every field of a Record, with a few hostile texts, so the
// golden files show each part of the layout.
func fullRecord() *Record {
	return &Record{
		Schema:             SchemaVersion,
		Name:               BaseName(t0, "3f2a9c1e-7b4d-4e8a-9f00-1234567890ab", 0),
		SessionID:          "3f2a9c1e-7b4d-4e8a-9f00-1234567890ab",
		CreatedAt:          t0,
		Trigger:            "manual",
		CustomInstructions: ptr("keep the test plan\nand the failing test names"),
		PromptID:           "p-42",
		HookEvent:          "PreCompact",
		TranscriptPath:     "/home/dev/.claude/projects/-home-dev-my project/3f2a9c1e-7b4d-4e8a-9f00-1234567890ab.jsonl",
		Cwd:                "/home/dev/my project",
		CwdSource:          "transcript",
		GitBranch:          "feature/snapshots",
		Context: &transcript.Usage{
			Tokens: 154321, InputTokens: 12, CacheCreation: 4309, CacheRead: 150000, Model: "claude-opus-4-6",
		},
		EarlierCompactions: 2,
		Prompts: []transcript.Prompt{
			{Text: "Make the snapshot folder 0700.", Time: t0.Add(-50 * time.Minute)},
			{Text: "Here is the doc:\n## Files\nSession: other-session\n```\nnot the end\n```\nbell:\a end", Time: t0.Add(-40 * time.Minute)},
			{Text: strings.Repeat("long ", 20) + textcut.Marker, Time: t0.Add(-30 * time.Minute), Truncated: true},
			{Text: "Run the tests again [image]", Time: t0.Add(-2 * time.Minute), FromLastPrompt: true},
		},
		Files: []transcript.FileEdit{
			{Path: "/home/dev/my project/snapshot/store.go", Edits: 5, LastTool: "Edit", LastTime: t0.Add(-3 * time.Minute)},
			{Path: "/home/dev/my project/README.md", Edits: 1, LastTool: "Write", LastTime: t0.Add(-20 * time.Minute)},
			{Path: "/home/dev/my project/nb/`odd` name.ipynb", Edits: 2, LastTool: "NotebookEdit"},
		},
		Commands: []transcript.Command{
			{Tool: "Bash", Command: "go build ./...", Description: "Build everything", Outcome: transcript.OutcomeOK, Time: t0.Add(-10 * time.Minute)},
			{Tool: "Bash", Command: "go test ./snapshot/", Description: "Run snapshot tests", Outcome: transcript.OutcomeError, ExitCode: ptr(1), ErrorLine: "--- FAIL: TestSave (0.01s)", Time: t0.Add(-9 * time.Minute)},
			{Tool: "Bash", Command: "cat <<'EOF' > x\n# not a heading\n```\nEOF", Outcome: transcript.OutcomeRejected, Time: t0.Add(-8 * time.Minute)},
			{Tool: "PowerShell", Command: "Get-ChildItem", Outcome: transcript.OutcomeInterrupted, Time: t0.Add(-7 * time.Minute)},
			{Tool: "Bash", Command: "npm run dev", Description: "Start the dev server", Outcome: transcript.OutcomeBackground, Time: t0.Add(-6 * time.Minute)},
			{Tool: "Bash", Command: strings.Repeat("x", 40) + textcut.Marker, Truncated: true, Outcome: transcript.OutcomeUnknown, Time: t0.Add(-5 * time.Minute)},
		},
		Todos: []transcript.Task{
			{Subject: "Write the store", Status: "completed"},
			{Subject: "Write the crash test", Status: "in_progress", ActiveForm: "Writing the crash test"},
			{Subject: "Update the spec", Status: "pending"},
		},
		Tasks: []transcript.Task{
			{ID: "1", Subject: "Prune old snapshots", Status: "in_progress"},
			{ID: "2", Subject: "Odd status", Status: "blocked"},
		},
		Failures: []transcript.Failure{
			{Tool: "Edit", Input: "/home/dev/my project/x.go", Error: "String to replace not found in file.", Time: t0.Add(-15 * time.Minute)},
			{Tool: "Bash", Input: "rm -rf build", Error: "The user doesn't want to proceed with this tool use.", Rejected: true, Time: t0.Add(-8 * time.Minute)},
		},
		Plan: &transcript.Plan{Text: "# Plan\n1. store\n2. render\n", Time: t0.Add(-45 * time.Minute)},
		Git: &Git{
			Repo: true, Root: "/home/dev/my project", Branch: "feature/snapshots",
			Head: "0123456789abcdef0123456789abcdef01234567", Subject: "snapshot: store",
			Changes: []GitChange{
				{Code: ".M", Path: "snapshot/store.go"},
				{Code: "??", Path: "snapshot/new file.go"},
				{Code: "R.", Path: "docs/new.md", From: "docs/old.md"},
			},
			ChangeCount: 35, Source: "git",
		},
		StateFile: StateFile{Name: "SESSION-STATE.md", Path: "/home/dev/my project/SESSION-STATE.md", ModTime: t0.Add(-time.Hour),
			Searched: []string{"/home/dev/my project"}},
		Coverage: Coverage{TranscriptSize: 2345678, SegmentStart: 1200000, ReadFrom: 1000000,
			Previous: BaseName(t0.Add(-2*time.Hour), "3f2a9c1e-7b4d-4e8a-9f00-1234567890ab", 0), Partial: false},
		Stats:      transcript.Stats{BytesRead: 1345678, Lines: 812, Decoded: 809, SkippedLong: 1, Corrupt: 2, TornLastLine: true},
		Warnings:   []string{"git: status took longer than 2s", "cwd \"/gone\" does not exist"},
		Redactions: 3,
		Compaction: &CompactionConfirmation{At: t0.Add(90 * time.Second), SummaryChars: 5321},
		Preparation: &Preparation{Kind: Planned, Fill: 154321, Window: 200000, AutoAt: 167000, Watched: true,
			Crossings: []Crossed{{Tokens: 100000, At: t0.Add(-25 * time.Minute)}, {Tokens: 120000, At: t0.Add(-12 * time.Minute)}},
			Since:     t0.Add(-25 * time.Minute),
			Handoff: &HandoffRef{Path: "/home/dev/my project/SESSION-STATE.md", Line: 14, Heading: "HANDOFF 2026-03-14T09:20:00Z",
				Time: t0.Add(-6*time.Minute - 53*time.Second), Complete: true, Current: true}},
	}
}

// minimalRecord is what precompact writes when the payload could not be
// parsed and the transcript gave little.
func minimalRecord() *Record {
	return &Record{
		Schema:         SchemaVersion,
		Name:           BaseName(t0, "abc", 0),
		SessionID:      "abc",
		CreatedAt:      t0,
		Trigger:        Unknown,
		PayloadError:   "invalid character 'x' looking for beginning of value",
		TranscriptPath: "/tmp/abc.jsonl",
		Cwd:            Unknown,
		CwdSource:      "process",
		Git:            &Git{Repo: false},
		StateFile:      StateFile{Name: "SESSION-STATE.md", Searched: []string{"/tmp"}},
		Coverage:       Coverage{SegmentStart: -1},
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./snapshot/ -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendering (run with -update after checking):\n--- got ---\n%s", path, got)
	}
}

// spec: SF-20, SF-25, SF-26, SF-27, SF-28
func TestRenderMarkdownGolden(t *testing.T) {
	for _, tc := range []struct {
		golden string
		rec    *Record
		lang   Lang
		full   bool
	}{
		{"rich.en.golden.md", fullRecord(), English, false},
		{"rich.ru.golden.md", fullRecord(), Russian, false},
		{"rich.en.full.golden.md", fullRecord(), English, true},
		{"minimal.golden.md", minimalRecord(), English, false},
		{"minimal.full.golden.md", minimalRecord(), English, true},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			render := RenderMarkdown
			if tc.full {
				render = RenderFullMarkdown
			}
			checkGolden(t, tc.golden, render(tc.rec, tc.lang))
		})
	}
}

// spec: SF-20, SF-28
func TestRenderMarkdownSectionOrder(t *testing.T) {
	for _, lang := range []Lang{English, Russian} {
		p := newPrinter(lang)
		summary := []string{
			"# " + p.Sprintf("compact-guard snapshot") + "\n",
			"\n" + SessionLinePrefix + "3f2a9c1e-7b4d-4e8a-9f00-1234567890ab\n",
			"\n- " + p.Sprintf("Time: %s (all times UTC)", "2026-03-14T09:26:53Z") + "\n",
			"\n- " + p.Sprintf("Trigger: %s, %d earlier compactions in this session", p.Sprintf("manual"), 2) + "\n",
			"\n- " + p.Sprintf("Context: %s", ""),
			"\n- " + p.Sprintf("Working directory: %s", ""),
			"\n- " + p.Sprintf("Custom instructions: %s", p.Sprintf("below")) + "\n",
			"\n- " + p.Sprintf("Files edited: %d (%d edits)", 3, 8) + "\n",
			"\n- " + p.Sprintf("Failed commands: %d of %d", 1, 6) + "\n",
			"\n- Git: ",
			"\n" + p.Sprintf("Custom instructions:") + "\n",
		}
		sections := func(full bool) []string {
			n := func(k int) string { return p.Sprintf("%d", k) }
			s := []string{
				"\n## " + p.Sprintf("Prompts, newest last (%s)", n(4)) + "\n",
				"\n## " + p.Sprintf("Files edited, most recent first (%s)", n(3)) + "\n",
				"\n## " + p.Sprintf("Commands, newest last (%s)", n(6)) + "\n",
				"\n## " + p.Sprintf("Tasks") + "\n",
				"\n## " + p.Sprintf("Failures and rejections, newest last (%s)", n(2)) + "\n",
				"\n## " + p.Sprintf("Plan (last approved)") + "\n",
			}
			if full {
				s = append(s, "\n## "+p.Sprintf("Git")+"\n")
			} else {
				s = append(s, "\n## "+p.Sprintf("Uncommitted changes (%d of %d)", 3, 35)+"\n")
			}
			return append(s, "\n## "+p.Sprintf("Notes")+"\n")
		}
		for _, full := range []bool{false, true} {
			md := string(RenderMarkdown(fullRecord(), lang))
			if full {
				md = string(RenderFullMarkdown(fullRecord(), lang))
			}
			at := "09:24"
			if full {
				at = "2026-03-14T09:24:53Z"
			}
			last := -1
			for _, s := range append(append(summary, "\n"+p.Sprintf("Last prompt, %s:", at)+"\n"), sections(full)...) {
				i := strings.Index(md, s)
				if i < 0 || i < last {
					t.Fatalf("%s, full %v: %q missing or out of order in\n%s", lang, full, s, md)
				}
				last = i
			}
			if !strings.HasPrefix(md, summary[0]+summary[1]) {
				t.Errorf("%s: the document must start with the title and the Session line", lang)
			}
		}
	}
}

// spec: SF-21, SF-22
func TestRenderHostileTextStaysInBlocks(t *testing.T) {
	hostile := []string{
		"## Files\nSession: other-id",
		"```\n## Files\n```",
		"````\n# x\n~~~\n",
		"a\rSession: other\r\n## x",
		"\x1b[2J\x00\x7f\u0085\u2028## y\u2029",
		"<script>alert(1)</script>\n<!--",
		"\xff\xfe invalid utf-8 \xc3",
		"Files\n=====\nSession: x\n-----",
		"`",
		"``",
		" ` ",
		"   ",
	}
	for _, render := range []func(*Record, Lang) []byte{RenderMarkdown, RenderFullMarkdown} {
		base := structure(render(fullRecord(), English))
		for _, h := range hostile {
			r := withText(fullRecord(), h)
			md := render(r, English)
			if d := diffStructure(structure(md), base); d != "" {
				t.Errorf("text %q changed the structure: %s\n%s", h, d, md)
			}
			checkClean(t, md)
		}
	}
}

// spec: SF-22
func TestInlineCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "`plain`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"a``b```c", "````a``b```c````"},
		{" lead", "`  lead `"},
		{"   ", "`   `"},
		{"line1\nline2\r\tend", "`line1\\nline2\\r\\tend`"},
		{"nul\x00esc\x1b", "`nul\\x00esc\\x1b`"},
		{"bidi\u202eevil\u2066", "`bidi\\u202eevil\\u2066`"},
		{"bad\xffbyte", "`bad\\xffbyte`"},
		{"Кириллица путь", "`Кириллица путь`"},
		{`C:\Users\dev`, "`C:\\Users\\dev`"},
	} {
		if got := inlineCode(tc.in); got != tc.want {
			t.Errorf("inlineCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// spec: SF-22
func TestEscapeBlock(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a\nb\tc", "a\nb\tc"},
		{"crlf\r\nline", "crlf\nline"},
		{"lone\rcr", "lone\\rcr"},
		{"bell\a", "bell\\x07"},
		{"sep\u2028x", "sep\\u2028x"},
		{"\xc3\x28", "\\xc3("},
	} {
		if got := escapeBlock(tc.in); got != tc.want {
			t.Errorf("escapeBlock(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// spec: SF-21
func TestSessionLine(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"3f2a9c1e-7b4d-4e8a-9f00-1234567890ab", "Session: 3f2a9c1e-7b4d-4e8a-9f00-1234567890ab"},
		{"", "Session: unknown"},
		{"a\nSession: b", "Session: `a\\nSession: b`"},
		{"../../etc", "Session: `../../etc`"},
		{"a.b:c@d+e_1", "Session: a.b:c@d+e_1"},
		{"id with space", "Session: `id with space`"},
	} {
		r := minimalRecord()
		r.SessionID = tc.id
		lines := strings.Split(string(RenderMarkdown(r, English)), "\n")
		if lines[2] != tc.want {
			t.Errorf("session %q: line 3 = %q, want %q", tc.id, lines[2], tc.want)
		}
	}
}

// spec: SF-23
func TestRenderFailedCommandsMarked(t *testing.T) {
	md := string(RenderMarkdown(fullRecord(), English))
	for _, want := range []string{
		"- ✓  `go build ./...`  09:16\n",
		"- ✗ exit 1  `go test ./snapshot/`  09:17 — `--- FAIL: TestSave (0.01s)`\n",
		"- ✗ rejected  `cat <<'EOF' > x` […]  09:18\n",
		"- ✗ interrupted  `Get-ChildItem`  09:19\n",
		"- ↻ background  `npm run dev`  09:20\n",
		"- ? outcome unknown  `" + strings.Repeat("x", 40) + textcut.Marker + "`  09:21\n",
		// The summary lists the failed one.
		"- Failed commands: 1 of 6\n  - ✗ exit 1  `go test ./snapshot/`  09:17",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	r := fullRecord()
	r.Commands = []transcript.Command{{Tool: "Bash", Command: strings.Repeat("я", 200), Outcome: transcript.OutcomeError, Time: t0}}
	if md := string(RenderMarkdown(r, English)); !strings.Contains(md, "- ✗ failed  `"+strings.Repeat("я", 160)+"`"+textcut.Marker+"  09:26\n") {
		t.Errorf("a long command is not cut at 160 characters with the marker:\n%s", md)
	}

	full := string(RenderFullMarkdown(fullRecord(), English))
	for _, want := range []string{
		"### Command 1 of 6 · ✓ ok",
		"### Command 2 of 6 · ✗ FAILED, exit code 1",
		"### Command 3 of 6 · ✗ REJECTED by the user",
		"### Command 4 of 6 · ✗ INTERRUPTED",
		"### Command 5 of 6 · started in the background",
		"### Command 6 of 6 · outcome unknown",
		"- Error: `--- FAIL: TestSave (0.01s)`",
		"- Description: `Build everything`",
		"- […cut at 1,000 characters]",
		"````sh\ncat <<'EOF' > x\n# not a heading\n```\nEOF\n````\n",
	} {
		if !strings.Contains(full, want) {
			t.Errorf("--full: missing %q", want)
		}
	}
}

// spec: SF-24
func TestRenderGitStates(t *testing.T) {
	for _, tc := range []struct {
		name       string
		git        *Git
		line       string
		full       []string
		changeList []string
	}{
		{"not recorded", nil, "- Git: not recorded", []string{"- Not recorded."}, nil},
		{"not a repository", &Git{}, "- Git: not a repository", []string{"- Not a git repository."}, nil},
		{"not a repository, error", &Git{Error: "git: cwd gone"}, "- Git: not a repository; git reported `git: cwd gone`",
			[]string{"- Not a git repository.", "- Error: `git: cwd gone`"}, nil},
		{"error kept", &Git{Repo: true, Branch: "main", Head: "abc", ChangeCount: -1, Error: "git status: deadline exceeded"},
			"- Git: branch `main`, HEAD `abc`, uncommitted changes unknown; git reported `git status: deadline exceeded`",
			[]string{"- Branch: `main`", "- Uncommitted changes: unknown", "- Error: `git status: deadline exceeded`"}, nil},
		{"clean", &Git{Repo: true, Branch: "main", Head: "0123456789abcdef", Subject: "init"},
			"- Git: branch `main`, HEAD `0123456` `init`, no uncommitted changes",
			[]string{"- HEAD: `0123456789abcdef` `init`", "- Uncommitted changes: 0"}, nil},
		{"no commits", &Git{Repo: true, Branch: "main", ChangeCount: 1, Changes: []GitChange{{Code: "??", Path: "a"}}},
			"- Git: branch `main`, no commits yet, 1 uncommitted change",
			[]string{"- HEAD: unknown"}, []string{"## Uncommitted changes (1)", "- ?? `a`"}},
		{"detached", &Git{Repo: true, Detached: true, Head: "abc"}, "- Git: detached HEAD, HEAD `abc`, no uncommitted changes",
			[]string{"- Branch: detached HEAD"}, nil},
		{"more than listed", &Git{Repo: true, Branch: "b", Head: "h", Changes: []GitChange{{Code: ".M", Path: "a"}}, ChangeCount: 31},
			"- Git: branch `b`, HEAD `h`, 31 uncommitted changes",
			[]string{"  -  M `a`", "  - and 30 more"}, []string{"## Uncommitted changes (1 of 31)", "-  M `a`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := minimalRecord()
			r.Git = tc.git
			md := string(RenderMarkdown(r, English))
			for _, w := range append([]string{tc.line}, tc.changeList...) {
				if !strings.Contains(md, w+"\n") {
					t.Errorf("missing line %q in\n%s", w, md)
				}
			}
			if tc.changeList == nil && strings.Contains(md, "## Uncommitted") {
				t.Errorf("changes listed where there are none:\n%s", md)
			}
			full := string(RenderFullMarkdown(r, English))
			for _, w := range append([]string{tc.line}, tc.full...) {
				if !strings.Contains(full, w+"\n") {
					t.Errorf("--full: missing line %q in\n%s", w, full)
				}
			}
		})
	}
}

// spec: SF-29
func TestRenderLeavesOutWhatIsEmpty(t *testing.T) {
	md := string(RenderMarkdown(minimalRecord(), English))
	if got := strings.Count(md, "\n## "); got != 1 || !strings.Contains(md, "\n## Notes\n") {
		t.Errorf("an empty record renders %d sections, want Notes only:\n%s", got, md)
	}
	for _, want := range []string{"- Files edited: none recorded\n", "- Commands: none recorded\n", "- Last prompt: none recorded\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("summary misses %q", want)
		}
	}
	if strings.Contains(md, "None recorded.") {
		t.Errorf("an empty section is shown:\n%s", md)
	}
	// Each section appears as soon as it has something.
	r := minimalRecord()
	r.Tasks = []transcript.Task{{Subject: "x", Status: "pending"}}
	md = string(RenderMarkdown(r, English))
	if !strings.Contains(md, "\n## Tasks\n\n### Tasks (TaskCreate, TaskUpdate)\n") || strings.Contains(md, "Todo list") {
		t.Errorf("tasks alone:\n%s", md)
	}
}

// spec: SF-29, SF-6
func TestRenderCounts(t *testing.T) {
	r := minimalRecord()
	for i := range transcript.MaxCommands {
		r.Commands = append(r.Commands, transcript.Command{Tool: "Bash", Command: fmt.Sprint("echo ", i), Outcome: transcript.OutcomeOK})
	}
	r.Commands[19].Outcome = transcript.OutcomeError
	for i := range transcript.MaxPrompts {
		r.Prompts = append(r.Prompts, transcript.Prompt{Text: fmt.Sprint("p", i)})
	}
	r.Failures = []transcript.Failure{{Tool: "Bash", Input: "x"}}
	r.Totals = &transcript.Totals{Prompts: 12, Commands: 78, Failures: 9}
	md := string(RenderMarkdown(r, English))
	for _, want := range []string{
		"\n## Commands, newest last (last 20 of 78)\n",
		"\n## Prompts, newest last (last 5 of 12)\n",
		"\n### Prompt 8 of 12\n",
		"\n### Prompt 12 of 12\n",
		"\n## Failures and rejections, newest last (last 1 of 9)\n",
		"\n- Failed commands: 1 of the last 20\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if full := string(RenderFullMarkdown(r, English)); !strings.Contains(full, "\n### Command 59 of 78 · ") || !strings.Contains(full, "\n### Command 78 of 78 · ✗") {
		t.Errorf("--full does not number commands among all 78:\n%s", full)
	}
	// A record written before totals existed says only what it lists.
	r.Totals = nil
	md = string(RenderMarkdown(r, English))
	for _, want := range []string{"\n## Commands, newest last (20)\n", "\n## Prompts, newest last (5)\n", "\n### Prompt 1 of 5\n", "\n- Failed commands: 1 of 20\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("without totals: missing %q in\n%s", want, md)
		}
	}
}

// spec: SF-29
func TestRenderRelativePaths(t *testing.T) {
	r := minimalRecord()
	r.Cwd = "/home/dev/my project"
	r.Files = []transcript.FileEdit{
		{Path: "/home/dev/my project/a/b.go", Edits: 1},
		{Path: "/home/dev/my project-other/c.go", Edits: 1},
		{Path: "/etc/hosts", Edits: 1},
		{Path: "rel/d.go", Edits: 1},
	}
	r.Failures = []transcript.Failure{
		{Tool: "Edit", Input: "/home/dev/my project/x.go", Error: "no"},
		{Tool: "Bash", Input: "/home/dev/my project/run.sh", Error: "no"},
	}
	md := string(RenderMarkdown(r, English))
	for _, want := range []string{
		"\n  - `a/b.go` — 1 edit\n", "\n- `a/b.go` — 1 edit, last",
		"\n- `/home/dev/my project-other/c.go` — 1 edit", "\n- `/etc/hosts` — 1 edit", "\n- `rel/d.go` — 1 edit",
		"\n- ✗ `Edit` failed  `x.go` — `no`\n",
		"\n- ✗ `Bash` failed  `/home/dev/my project/run.sh` — `no`\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	r.Cwd = Unknown
	if md := string(RenderMarkdown(r, English)); !strings.Contains(md, "\n- `/home/dev/my project/a/b.go` — 1 edit, last") {
		t.Errorf("cwd unknown: paths must stay as recorded:\n%s", md)
	}
}

// spec: SF-29
func TestRenderPorcelainCodes(t *testing.T) {
	r := minimalRecord()
	r.Git = &Git{Repo: true, Branch: "main", Head: "abc", ChangeCount: 7, Changes: []GitChange{
		{Code: ".M", Path: "unstaged.go"},
		{Code: "M.", Path: "staged.go"},
		{Code: "MM", Path: "both.go"},
		{Code: "A.", Path: "added.go"},
		{Code: "R.", Path: "new.go", From: "old.go"},
		{Code: "??", Path: "untracked.go"},
		{Code: "<b", Path: "odd.go"},
	}}
	md := string(RenderMarkdown(r, English))
	for _, want := range []string{
		"\n-  M `unstaged.go`\n", "\n- M  `staged.go`\n", "\n- MM `both.go`\n", "\n- A  `added.go`\n",
		"\n- R  `old.go` → `new.go`\n", "\n- ?? `untracked.go`\n", "\n- `<b` `odd.go`\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if strings.Contains(md, ".M") {
		t.Errorf("a porcelain v2 dot is shown:\n%s", md)
	}
}

// spec: SF-20, SF-29
func TestRenderSummaryFitsOneScreen(t *testing.T) {
	r := fullRecord()
	long := strings.Repeat(strings.Repeat("word ", 15)+"\n", 200)
	r.CustomInstructions = ptr(long)
	r.Prompts = []transcript.Prompt{{Text: long[:transcript.MaxPromptChars], Truncated: true, Time: t0}}
	r.Files = nil
	for i := range transcript.MaxFiles {
		r.Files = append(r.Files, transcript.FileEdit{Path: fmt.Sprintf("/home/dev/my project/f%d.go", i), Edits: 1})
	}
	r.Commands = nil
	for range transcript.MaxCommands {
		r.Commands = append(r.Commands, transcript.Command{Tool: "Bash", Command: strings.Repeat("x\n", transcript.MaxCommandChars/2),
			Outcome: transcript.OutcomeError, ExitCode: ptr(2), ErrorLine: strings.Repeat("e", 300)})
	}
	md := string(RenderMarkdown(r, English))
	summary, _, _ := strings.Cut(md, "\n## ")
	if n := strings.Count(summary, "\n"); n > 50 {
		t.Errorf("summary is %d lines, want at most 50:\n%s", n, summary)
	}
	// Both excerpts say they were cut; the whole prompt is in the detail.
	if strings.Count(summary, textcut.Marker+"\n```\n") != 2 {
		t.Errorf("the summary's excerpt is not marked as cut:\n%s", summary)
	}
	if !strings.Contains(md, long[:transcript.MaxPromptChars]) {
		t.Error("the whole last prompt is missing from the detail")
	}
	if full := string(RenderFullMarkdown(r, English)); strings.Count(full, long) != 1 {
		t.Error("--full does not show the whole custom instructions")
	}
}

// spec: SF-26
func TestRenderPlurals(t *testing.T) {
	for _, tc := range []struct {
		lang  Lang
		edits int
		want  string
	}{
		{English, 1, "1 edit, last"},
		{English, 2, "2 edits, last"},
		{Russian, 1, "1 правка,"},
		{Russian, 3, "3 правки,"},
		{Russian, 11, "11 правок,"},
		{Russian, 21, "21 правка,"},
	} {
		r := minimalRecord()
		r.Files = []transcript.FileEdit{{Path: "a", Edits: tc.edits, LastTool: "Edit"}}
		if md := string(RenderMarkdown(r, tc.lang)); !strings.Contains(md, tc.want) {
			t.Errorf("%s %d edits: %q missing", tc.lang, tc.edits, tc.want)
		}
	}
}

// spec: SF-20
func TestRenderPreparation(t *testing.T) {
	since := t0.Add(-25 * time.Minute)
	older := &HandoffRef{Path: "/p/SESSION-STATE.md", Line: 3, Heading: "HANDOFF 2026-03-14T08:00:00Z", Time: t0.Add(-86 * time.Minute), Complete: true}
	cases := []struct {
		name    string
		trigger string
		p       Preparation
		en, ru  string
	}{
		{"planned", "manual", Preparation{Kind: Planned, Handoff: &HandoffRef{Path: "/p/SESSION-STATE.md", Line: 14,
			Heading: "HANDOFF 2026-03-14T09:20:00Z", Time: t0.Add(-7 * time.Minute), Complete: true, Current: true}},
			"- Planned compaction: handoff block `HANDOFF 2026-03-14T09:20:00Z` dated 09:19, in `/p/SESSION-STATE.md` line 14\n",
			"- Плановое сжатие: блок передачи `HANDOFF 2026-03-14T09:20:00Z` от 09:19, в `/p/SESSION-STATE.md`, строка 14\n"},
		{"emergency, a threshold crossed", "auto", Preparation{Kind: Emergency, Fill: 968100, Window: 1000000, Since: since},
			"- Emergency compaction: automatic, context at 96% of the window (968,100 of 1,000,000 tokens); no handoff since 09:01\n",
			"- Аварийное сжатие: автоматическое, контекст заполнен на 96% окна (968\u00a0100 из 1\u00a0000\u00a0000 токенов); передачи нет с 09:01\n"},
		// SF-12's since_kind: the line says what the moment was (HO-4).
		{"emergency, the crossing named", "auto", Preparation{Kind: Emergency, Fill: 968100, Window: 1000000, Since: since, SinceKind: "crossing"},
			"; no handoff since the first threshold was crossed at 09:01\n",
			"; передачи нет с пересечения первого порога в 09:01\n"},
		{"unplanned, no crossing since the compaction", "manual", Preparation{Kind: Unplanned, Since: since, SinceKind: "compaction"},
			"; no handoff since the compaction at 09:01\n", "; передачи нет с момента сжатия в 09:01\n"},
		{"unplanned, since the session started", "manual", Preparation{Kind: Unplanned, Since: since, SinceKind: "start"},
			"; no handoff since the session started at 09:01\n", ""},
		{"unplanned, since the previous snapshot", "manual", Preparation{Kind: Unplanned, Since: since, SinceKind: "snapshot"},
			"; no handoff since the previous snapshot at 09:01\n", ""},
		// HO-10: another session's blocks are no block of this one.
		{"unplanned, other sessions' blocks", "manual", Preparation{Kind: Unplanned, Since: since, SinceKind: "crossing", OtherBlocks: 2},
			"; no handoff block of this session (blocks in the state file not its own: 2)\n",
			"; блока передачи этой сессии нет (чужих блоков в файле состояния: 2)\n"},
		{"emergency, an older block", "auto", Preparation{Kind: Emergency, Fill: 5000, Since: since, Handoff: older},
			"- Emergency compaction: automatic, context at 5,000 tokens; no handoff since 09:01 (the newest block is dated 08:00)\n", ""},
		{"unplanned, an incomplete block", "manual", Preparation{Kind: Unplanned, Handoff: &HandoffRef{Path: "/p/S.md", Line: 9, Time: t0}},
			"- Unplanned compaction: manual, context fill unknown; the newest handoff block (09:26, line 9) is incomplete\n", ""},
		{"unplanned, no block", "manual", Preparation{Kind: Unplanned},
			"- Unplanned compaction: manual, context fill unknown; no handoff block\n",
			"- Внеплановое сжатие: вручную, заполнение контекста неизвестно; блока передачи нет\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := minimalRecord()
			r.CreatedAt, r.Trigger, r.Preparation = t0, tc.trigger, &tc.p
			for lang, want := range map[Lang]string{English: tc.en, Russian: tc.ru} {
				if want == "" {
					continue
				}
				md := string(RenderMarkdown(r, lang))
				if !strings.Contains(md, want) {
					t.Errorf("%s: no line %q in\n%s", lang, want, md)
				}
				trigger := strings.Index(md, "- Trigger: ")
				if lang == Russian {
					trigger = strings.Index(md, "- Запуск сжатия: ")
				}
				if i := strings.Index(md, want); trigger < 0 || i < trigger || strings.Count(md[trigger:i], "\n") != 1 {
					t.Errorf("%s: the line does not follow the trigger's", lang)
				}
			}
		})
	}
}

// TestCatalogComplete proves every text render.go translates has a Russian
// entry, so that a Russian snapshot never falls back to English headings.
// spec: SF-26
func TestCatalogComplete(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	names, _ := filepath.Glob("render*.go")
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	known := map[string]bool{}
	for _, e := range headingEntries() {
		if known[e.key] {
			t.Errorf("duplicate catalog key %q", e.key)
		}
		known[e.key] = true
	}
	used := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "t" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: w.t must be called with a literal key", fset.Position(call.Pos()))
				return true
			}
			key, _ := strconv.Unquote(lit.Value)
			used[key] = true
			if !known[key] {
				t.Errorf("key %q is used in render.go but missing from the catalog", key)
			}
			return true
		})
	}
	if len(used) < 50 {
		t.Fatalf("found only %d keys in render.go; the scan is broken", len(used))
	}
	for k := range known {
		if !used[k] {
			t.Errorf("catalog key %q is not used", k)
		}
	}
	// Russian headings are in Cyrillic.
	for _, h := range structure(RenderMarkdown(fullRecord(), Russian)) {
		if !strings.HasPrefix(h, "#") || h == "## Git" {
			continue
		}
		if !regexp.MustCompile(`\p{Cyrillic}`).MatchString(h) {
			t.Errorf("Russian heading without Russian text: %q", h)
		}
	}
}

// withText puts s into every untrusted text field of r.
func withText(r *Record, s string) *Record {
	r.CustomInstructions = ptr(s)
	r.Cwd = s
	r.TranscriptPath = s
	r.PayloadError = s
	r.GitBranch = s
	r.Context.Model = s
	for i := range r.Prompts {
		r.Prompts[i].Text = s
	}
	for i := range r.Files {
		r.Files[i].Path = s
		r.Files[i].LastTool = s
	}
	for i := range r.Commands {
		r.Commands[i].Command = s
		r.Commands[i].Description = s
		r.Commands[i].ErrorLine = s
		r.Commands[i].Tool = s
	}
	for i := range r.Todos {
		r.Todos[i].Subject = s
		r.Todos[i].ActiveForm = s
	}
	for i := range r.Tasks {
		r.Tasks[i].Subject = s
		r.Tasks[i].ID = s
	}
	for i := range r.Failures {
		r.Failures[i].Tool = s
		r.Failures[i].Input = s
		r.Failures[i].Error = s
	}
	r.Plan.Text = s
	r.Git.Root, r.Git.Branch, r.Git.Subject, r.Git.Error, r.Git.Source = s, s, s, s, s
	for i := range r.Git.Changes {
		r.Git.Changes[i].Path = s
		r.Git.Changes[i].From = s
		r.Git.Changes[i].Code = s
	}
	r.StateFile.Path = s
	r.StateFile.Searched = []string{s}
	r.Coverage.Previous = s
	for i := range r.Warnings {
		r.Warnings[i] = s
	}
	r.HookEvent, r.PromptID = s, s
	return r
}

var (
	atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}(?:[ \t]|$)`)
	setextLine = regexp.MustCompile(`^ {0,3}(?:=+|-+)[ \t]*$`)
	fenceLine  = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})(.*)$")
	htmlStart  = regexp.MustCompile(`^ {0,3}<`)
)

// structure lists a document's structural lines as CommonMark sees them:
// headings (ATX and setext underlines), HTML block starts, Session lines and
// fence opening and closing lines, each with its text. Lines inside fenced
// blocks are skipped, following CommonMark's rule that only a fence of the
// same character and at least the opening length closes a block.
func structure(md []byte) []string {
	var out []string
	var open string // the opening fence run, "" outside a block
	for _, ln := range strings.Split(string(md), "\n") {
		if open != "" {
			if m := fenceLine.FindStringSubmatch(ln); m != nil && m[1][0] == open[0] &&
				len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "" {
				out = append(out, "close "+m[1])
				open = ""
			}
			continue
		}
		switch m := fenceLine.FindStringSubmatch(ln); {
		case m != nil && !(m[1][0] == '`' && strings.Contains(m[2], "`")):
			open = m[1]
			out = append(out, "open "+m[1])
		case atxHeading.MatchString(ln), setextLine.MatchString(ln), htmlStart.MatchString(ln):
			out = append(out, ln)
		case strings.HasPrefix(ln, strings.TrimSpace(SessionLinePrefix)):
			out = append(out, "session")
		}
	}
	if open != "" {
		out = append(out, "unclosed "+open)
	}
	return normaliseFences(out)
}

// normaliseFences drops fence lengths, which follow the text inside.
func normaliseFences(s []string) []string {
	re := regexp.MustCompile("^(open|close|unclosed) `+")
	for i := range s {
		s[i] = re.ReplaceAllString(s[i], "$1 ```")
	}
	return s
}

// checkClean fails when the document holds a control character other than
// \n and \t, or is not valid UTF-8.
func checkClean(t testing.TB, md []byte) {
	t.Helper()
	if !utf8.Valid(md) {
		t.Fatalf("rendering is not valid UTF-8")
	}
	for _, r := range string(md) {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 {
			t.Fatalf("rendering holds control character %U", r)
		}
	}
}

// diffStructure describes the first difference between two structures, ""
// when they are equal.
func diffStructure(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("structural line %d is %q, want %q", i, g, w)
		}
	}
	return ""
}

// FuzzRenderMarkdown puts arbitrary text into the multi-line fields (prompt,
// command, plan, custom instructions) and the single-line ones (paths,
// errors, descriptions, …): the document's structural lines, as CommonMark
// sees them, must stay those of the same record with plain text, the first
// Session line must stay the header's, and no control character may reach
// the output.
// spec: SF-21, SF-22
func FuzzRenderMarkdown(f *testing.F) {
	for _, s := range [][3]string{
		{"## Files\nSession: other-id", "```\nrm -rf /\n```", "a\nb"},
		{"````\n# x\n~~~", "~~~\n## y", "`"},
		{"a\rSession: x\r\n## z", "\x1b[31mred\x1b[0m", "\x00"},
		{"Files\n=====", "---", "<!--"},
		{"\u2028## y\u2029", "\u202eevil", "\xff\xfe"},
		{"", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	base := fuzzRecord("plain", "plain", "plain")
	renders := []func(*Record, Lang) []byte{RenderMarkdown, RenderFullMarkdown}
	var want [2][]string
	for i, render := range renders {
		want[i] = structure(render(base, English))
	}
	f.Fuzz(func(t *testing.T, multi, command, single string) {
		r := fuzzRecord(multi, command, single)
		for i, lang := range []Lang{English, Russian, English, Russian} {
			md := renders[i/2](r, lang)
			got := structure(md)
			if lang == English {
				if d := diffStructure(got, want[i/2]); d != "" {
					t.Fatalf("structure changed: %s\n%s", d, md)
				}
			}
			checkClean(t, md)
			lines := strings.Split(string(md), "\n")
			for i, ln := range lines {
				if strings.HasPrefix(ln, "Session:") {
					if i != 2 {
						t.Fatalf("first Session line is line %d: %q", i+1, ln)
					}
					break
				}
			}
		}
	})
}

// fuzzRecord is fullRecord with fuzzed text: multi in the prompts, plan and
// custom instructions (never empty, so that its block stays), command in the
// commands, single in every single-line field.
func fuzzRecord(multi, command, single string) *Record {
	r := withText(fullRecord(), single)
	r.CustomInstructions = ptr(multi + "\n.")
	for i := range r.Prompts {
		r.Prompts[i].Text = multi
	}
	for i := range r.Commands {
		r.Commands[i].Command = command
	}
	r.Plan.Text = multi
	r.SessionID = single
	return r
}

// spec: SF-20
func TestRenderIncompleteCoverageNote(t *testing.T) {
	r := &Record{SessionID: "s-1", Trigger: "auto", Coverage: Coverage{Incomplete: true, SegmentStart: -1}}
	for lang, want := range map[Lang]string{
		English: "The transcript was not read to its end",
		Russian: "Транскрипт прочитан не до конца",
	} {
		if md := string(RenderMarkdown(r, lang)); !strings.Contains(md, want) {
			t.Errorf("%s: no note %q in\n%s", lang, want, md)
		}
	}
	r.Coverage.Incomplete = false
	if md := string(RenderMarkdown(r, English)); strings.Contains(md, "not read to its end") {
		t.Error("note shown for a complete read")
	}
}

// A record read in part says so before any fact, in file order, and its
// notes say where; a whole read says nothing of the kind.
// spec: SF-11, SF-20, SF-28, SF-8
func TestRenderGaps(t *testing.T) {
	readTo := int64(9_000_000)
	r := &Record{SessionID: "s-1", Trigger: "auto", Coverage: Coverage{
		TranscriptSize: 10_000_000, SegmentStart: -1, BoundaryUnknown: true, ReadFrom: 1_000, ReadTo: &readTo,
		Unread: []transcript.ByteRange{{From: 2_000_000, To: 3_000_000}, {From: 4_000_000, To: 8_000_000}}, Partial: true, Incomplete: true,
	}}
	md := string(RenderMarkdown(r, English))
	want := "- Transcript not read whole (10,000,000 bytes): part of the bytes before byte 1,000 was neither read nor covered by an earlier snapshot; " +
		"bytes 2,000,000 to 3,000,000 were not read, the newest having been read first; bytes 4,000,000 to 8,000,000 were not read either; reading stopped at byte 9,000,000, so the newest facts are missing.\n"
	if !strings.Contains(md, want) {
		t.Errorf("no gaps line %q in\n%s", want, md)
	}
	if strings.Index(md, want) > strings.Index(md, "Files edited:") {
		t.Error("the gaps line comes after the facts it qualifies")
	}
	for _, note := range []string{
		"Bytes 2,000,000 to 3,000,000 were not read: the deadline left time to read the newest bytes first.",
		"Bytes 4,000,000 to 8,000,000 were not read: the deadline left time to read the newest bytes first.",
		"Reading stopped at byte 9,000,000 of 10,000,000: no later snapshot continues from this one.",
		"The search for the last compaction boundary was cut short by the deadline",
	} {
		if !strings.Contains(md, note) {
			t.Errorf("no note %q", note)
		}
	}
	full := string(RenderFullMarkdown(r, English))
	if !strings.Contains(full, "Read from byte 1,000 to byte 9,000,000 of 10,000,000.") || strings.Contains(full, "holds no compaction boundary") {
		t.Errorf("--full notes do not say where reading went, or claim no boundary:\n%s", full)
	}
	ru := string(RenderMarkdown(r, Russian))
	if !strings.Contains(ru, "Транскрипт прочитан не целиком (10\u00a0000\u00a0000 байт): часть байтов до байта 1\u00a0000") {
		t.Errorf("Russian gaps line missing:\n%s", ru)
	}

	// Nothing read: said as such, without a byte 0 to stop at.
	zero := int64(0)
	r.Coverage = Coverage{TranscriptSize: 5, ReadTo: &zero, Incomplete: true, SegmentStart: -1}
	if md := string(RenderMarkdown(r, English)); !strings.Contains(md, "Transcript not read whole (5 bytes): nothing was read, so the snapshot holds no facts from it.") {
		t.Errorf("nothing-read line missing:\n%s", md)
	}
	// A record from before read_to that stopped early.
	r.Coverage = Coverage{TranscriptSize: 5, Incomplete: true, SegmentStart: -1}
	if md := string(RenderMarkdown(r, English)); !strings.Contains(md, "reading stopped before the end, so the newest facts may be missing") {
		t.Errorf("old incomplete record:\n%s", md)
	}
	// A whole read.
	r.Coverage = Coverage{TranscriptSize: 5, ReadTo: new(int64(5)), SegmentStart: -1}
	if md := string(RenderFullMarkdown(r, English)); strings.Contains(md, "not read whole") || strings.Contains(md, "were not read") {
		t.Errorf("a whole read described as partial:\n%s", md)
	}
}

// A state-file lookup cut short by the deadline says where it stopped.
// spec: GS-23, SF-7
func TestRenderStateFileUnanswered(t *testing.T) {
	r := &Record{SessionID: "s-1", StateFile: StateFile{Name: "SESSION-STATE.md", Searched: []string{"/p"}, Unanswered: "/mnt/nfs"}}
	if md := string(RenderMarkdown(r, English)); !strings.Contains(md, "Not looked in `/mnt/nfs` and the folders after it: its file system did not answer by the deadline") {
		t.Errorf("no unanswered note:\n%s", md)
	}
}
