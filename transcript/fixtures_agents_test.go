package transcript

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Facts of the transcripts the real Codex CLI 0.169.0 and Qwen Code 0.24.4
// wrote in the e2e (testdata/codex0.169.0/README.md).

// openFixture opens the fixture at path in this run's layout (TR-56),
// with the map of its offsets.
func openFixture(t *testing.T, path string) (*File, laidFixture) {
	t.Helper()
	fx := fixture(t, filepath.FromSlash(path))
	f, err := Open(fx.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, fx
}

// spec: TR-37, TR-38, TR-39, TR-40, TR-41, TR-42, TR-43
func TestCodexRecordedRollout(t *testing.T) {
	f, fx := openFixture(t, "testdata/codex0.169.0/three-compactions.jsonl")
	if format, known := f.Format(); format != FormatCodex || !known {
		t.Fatalf("format %s %v", format, known)
	}
	ctx := context.Background()
	if lb, err := f.LastBoundary(ctx); err != nil || lb != fx.off(55495) {
		t.Errorf("last boundary %d %v, want %d", lb, err, fx.off(55495))
	}
	for _, b := range [][3]int64{{0, 16480, -1}, {0, 16481, 16480}, {16481, 55495, 38426}} {
		if b[2] >= 0 {
			b[2] = fx.off(b[2])
		}
		b[0], b[1] = fx.off(b[0]), fx.off(b[1])
		if got, _ := f.LastBoundaryIn(ctx, b[0], b[1]); got != b[2] {
			t.Errorf("LastBoundaryIn(%d, %d) = %d, want %d", b[0], b[1], got, b[2])
		}
	}
	// Between the snapshot of the first compaction (PreCompact: after the
	// failed command, byte 13,744) and its compacted record only the
	// summary, marked compaction_output, was written: no response.
	if rt, ok, _ := f.NewestResponseIn(ctx, fx.off(13744), fx.off(16480), mustTime(t, "2026-12-01T06:17:46.1Z")); ok {
		t.Errorf("the compaction's summary counted as a response (%v)", rt)
	}
	if rt, ok, _ := f.NewestResponseIn(ctx, fx.off(16480), fx.off(29301), mustTime(t, "2026-12-01T06:17:46.1Z")); !ok || !rt.Equal(mustTime(t, "2026-12-01T06:17:46.848Z")) {
		t.Errorf("the continuation's response: %v %v", rt, ok)
	}

	lb, _ := f.LastBoundary(ctx)
	res, err := f.Read(ctx, ReadPlan{LastBoundary: lb, ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	x := res.Facts
	var prompts []string
	for _, p := range x.Prompts {
		prompts = append(prompts, p.Text)
	}
	want := []string{"Привет: fix \"hello.txt\" and run the tests", "second turn: run the failing test again", "third turn, after the manual compaction"}
	if strings.Join(prompts, "|") != strings.Join(want, "|") {
		t.Errorf("prompts %q", prompts)
	}
	if len(x.Files) != 1 || !strings.HasSuffix(x.Files[0].Path, "/проект codex/hello.txt") || x.Files[0].LastTool != "apply_patch" || x.Files[0].Edits != 1 {
		t.Errorf("files %+v", x.Files)
	}
	if len(x.Commands) != 2 {
		t.Fatalf("commands %+v", x.Commands)
	}
	c := x.Commands[0]
	if c.Command != "cat hello.txt && ls /nonexistent-e2e-dir" || c.Outcome != OutcomeError || *c.ExitCode != 2 ||
		c.ErrorLine != "ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("first command %+v", c)
	}
	if c := x.Commands[1]; c.Command != "echo retry && false" || c.Outcome != OutcomeError || *c.ExitCode != 1 || c.ErrorLine != "retry" {
		t.Errorf("second command %+v", c)
	}
	if x.Compactions != 3 || x.GitBranch != "main" || !strings.HasSuffix(x.Cwd, "/проект codex") {
		t.Errorf("compactions %d branch %q cwd %q", x.Compactions, x.GitBranch, x.Cwd)
	}
	if u := x.Usage; u == nil || u.Tokens != 1000 || u.Window != 258400 || u.Model != "gpt-5.5" {
		t.Errorf("usage %+v", u)
	}
	if st := x.Stats; st.Lines != 83 || st.Corrupt != 0 || st.SkippedLong != 0 {
		t.Errorf("stats %+v", st)
	}
}

// spec: TR-37, TR-44, TR-45, TR-46, TR-47, TR-48, TR-49, TR-35
func TestQwenRecordedChat(t *testing.T) {
	f, fx := openFixture(t, "testdata/qwen0.24.4/two-compactions.jsonl")
	if format, known := f.Format(); format != FormatQwen || !known {
		t.Fatalf("format %s %v", format, known)
	}
	ctx := context.Background()
	if lb, _ := f.LastBoundary(ctx); lb != fx.off(22978) {
		t.Errorf("last boundary %d, want %d", lb, fx.off(22978))
	}
	if got, _ := f.LastBoundaryIn(ctx, 0, fx.off(22978)); got != fx.off(13581) {
		t.Errorf("first boundary %d", got)
	}
	lb, _ := f.LastBoundary(ctx)
	res, err := f.Read(ctx, ReadPlan{LastBoundary: lb, ChainEnd: -1})
	if err != nil {
		t.Fatal(err)
	}
	x := res.Facts
	if len(x.Prompts) != 1 || x.Prompts[0].Text != "Привет: fix \"hello.txt\" and run the tests" {
		t.Errorf("prompts %+v", x.Prompts)
	}
	if len(x.Files) != 1 || !strings.HasSuffix(x.Files[0].Path, "/проект qwen/hello.txt") || x.Files[0].LastTool != "edit" {
		t.Errorf("files %+v", x.Files)
	}
	var cmds []string
	for _, c := range x.Commands {
		cmds = append(cmds, c.Command+"="+c.Outcome)
	}
	if got := strings.Join(cmds, "|"); got != "cat hello.txt && ls /nonexistent-e2e-dir=error|echo after the first compaction=ok|echo retry && false=error|echo after the second compaction=ok|echo once more=ok" {
		t.Errorf("commands %s", got)
	}
	if c := x.Commands[0]; *c.ExitCode != 2 || c.ErrorLine != "ls: cannot access '/nonexistent-e2e-dir': No such file or directory" {
		t.Errorf("failed command %+v", c)
	}
	if len(x.Failures) != 2 || x.Failures[1].Error != "Exit code 1: retry" {
		t.Errorf("failures %+v", x.Failures)
	}
	if x.Compactions != 2 || x.Usage == nil || x.Usage.Window != 32000 || x.Usage.Model != "qwen-e2e" {
		t.Errorf("compactions %d usage %+v", x.Compactions, x.Usage)
	}
	if st := x.Stats; st.Lines != 37 || st.Corrupt != 0 {
		t.Errorf("stats %+v", st)
	}
	// TR-35 for Qwen Code: each chat_compression with its time and the
	// client's release; no hook attachments are recorded.
	comps, err := f.Compactions(ctx, 0)
	if err != nil || len(comps) != 2 {
		t.Fatalf("compactions %+v %v", comps, err)
	}
	for i, want := range []struct {
		off int64
		at  string
	}{{13581, "2026-12-01T06:19:36.768Z"}, {22978, "2026-12-01T06:19:38.477Z"}} {
		c := comps[i]
		if c.Offset != fx.off(want.off) || !c.Time.Equal(mustTime(t, want.at)) || c.Format != FormatQwen || c.Version != "0.24.4" || c.Contexts != nil || c.HookRecords != 0 {
			t.Errorf("compaction %d: %+v", i+1, c)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
