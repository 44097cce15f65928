package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// postCompactWith runs the PostCompact hook of s with summary as
// compact_summary (nil: a payload without it).
func (s *simSession) postCompactWith(summary *string) {
	s.t.Helper()
	s.tick(2 * time.Second)
	extra := map[string]any{"trigger": "manual"}
	if summary != nil {
		extra["compact_summary"] = *summary
	}
	var out strings.Builder
	opts := &PostcompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload("PostCompact", extra)), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 5 * time.Second,
	}
	if err := postcompactRun(opts); err != nil {
		s.t.Fatal(err)
	}
	if out.Len() != 0 {
		s.t.Errorf("PostCompact printed %q", out.String())
	}
}

// spec: PO-C6 SF-63 SF-66 WA-14
//
// PostCompact compares compact_summary (its summary part) with this
// compaction's snapshot, records the verdicts beside it and notes the
// residue due; a PostCompact without compact_summary notes it due all the
// same.
func TestPostCompactRecordsTheResidue(t *testing.T) {
	s := newSimSession(t, "resid000-1111-4222-8333-444455556666")
	s.turn("Make the parser total and keep the old API")
	s.turn("Then document every exported name")
	s.preCompact()
	s.tick(3 * time.Second)
	s.pointer = s.postcompact("SessionStart")
	summary := "<analysis>\n\"Then document every exported name\"\n</analysis>\n<summary>\n- \"Make the parser total and keep the old API\"\n- Edited file1.txt\n</summary>"
	s.postCompactWith(&summary)
	names := s.snapshots()
	if len(names) != 1 {
		t.Fatalf("snapshots %v", names)
	}
	r, err := snapshot.ReadResidue(s.dir, names[0], s.sid)
	if err != nil || r == nil {
		t.Fatalf("no residue record: %v; log:\n%s", err, hooktest.ReadLog(s.dir))
	}
	var got []string
	for _, f := range r.Facts {
		got = append(got, f.Key+"="+f.Kept)
	}
	// The analysis does not count (RS-2); file1.txt by its bare name.
	if want := "prompt:0=summary prompt:1= file:0= file:1=summary"; strings.Join(got, " ") != want {
		t.Errorf("facts %s, want %s", strings.Join(got, " "), want)
	}
	if r.Source != snapshot.ResidueFromHook || r.Given != nil || r.SummaryChars == 0 {
		t.Errorf("record %+v", r)
	}
	st, err := watch.StoreFor(s.dir).Load(s.sid)
	if err != nil || st == nil || st.Residue == nil || st.Residue.Snapshot != names[0] {
		t.Fatalf("residue not noted due: %+v, %v", st, err)
	}
	if !strings.Contains(hooktest.ReadLog(s.dir), "residue: the summary kept 2 of 4 facts") {
		t.Errorf("log:\n%s", hooktest.ReadLog(s.dir))
	}

	// Without compact_summary: no record, the residue still due.
	s2 := newSimSession(t, "resid001-1111-4222-8333-444455556666")
	s2.turn("One prompt")
	s2.preCompact()
	s2.postCompactWith(nil)
	n2 := s2.snapshots()
	if r, err := snapshot.ReadResidue(s2.dir, n2[0], s2.sid); r != nil || err != nil {
		t.Errorf("a residue recorded without a summary: %+v %v", r, err)
	}
	if st, _ := watch.StoreFor(s2.dir).Load(s2.sid); st == nil || st.Residue == nil || st.Residue.Snapshot != n2[0] {
		t.Errorf("residue not due without compact_summary: %+v", st)
	}
}

// rsLine is one transcript entry of w's session, in Claude Code's shape.
func (w *wtWorld) rsLine(t *testing.T, entry map[string]any) string {
	t.Helper()
	w.n++
	id := fmt.Sprintf("rs%d", w.n)
	entry["uuid"] = id
	entry["isSidechain"] = false
	entry["sessionId"] = w.sid
	entry["cwd"] = w.project
	if _, ok := entry["timestamp"]; !ok {
		entry["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	}
	b, err := json.Marshal(entry)
	if err != nil {
		t.Fatal(err)
	}
	w.append(t, string(b))
	return id
}

// rsPrompt appends a typed prompt.
func (w *wtWorld) rsPrompt(t *testing.T, text string) {
	_ = w.rsLine(t, map[string]any{"type": "user", "promptSource": "typed", "message": map[string]any{"role": "user", "content": text}})
}

// rsTool appends a tool call and its result; errText "" is a success. It
// returns the two entries' uuids.
func (w *wtWorld) rsTool(t *testing.T, name string, input map[string]any, result, errText string) []string {
	t.Helper()
	id := fmt.Sprintf("toolu_rs%d", w.n)
	call := w.rsLine(t, map[string]any{"type": "assistant", "message": map[string]any{"model": "claude-opus-5-5", "id": "m" + id, "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}},
		"usage":   map[string]any{"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 1000, "output_tokens": 5}}})
	res := map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}
	entry := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{res}}}
	if errText != "" {
		res["is_error"], res["content"] = true, errText
		entry["toolUseResult"] = "Error: " + errText
	}
	return []string{call, w.rsLine(t, entry)}
}

func (w *wtWorld) rsBash(t *testing.T, command, errText string) []string {
	return w.rsTool(t, "Bash", map[string]any{"command": command, "description": "run"}, "ok", errText)
}

// rsSession is a session whose facts the pointer, a summary and the
// residue share between them: five prompts, three files, six commands, two
// of them failed (the last command succeeded, so the pointer names none).
func rsSession(t *testing.T) *wtWorld {
	w := newWatchWorld(t) // prompt "Шаг 1: edit the parser", parse.go, a failed "go test ./..."
	w.rsPrompt(t, "Second: add a cache to the parser, keyed by the input's hash")
	w.rsBash(t, "go build ./...", "")
	w.rsBash(t, "go test -run TestCache ./parser/", "Exit code 1\n--- FAIL: TestCache (0.00s)")
	w.rsPrompt(t, "Third: keep the cache bounded at 1,000 entries")
	w.rsBash(t, "gofmt -l .", "")
	w.rsPrompt(t, "Fourth: write the cache in its own file")
	w.rsTool(t, "Write", map[string]any{"file_path": filepath.Join(w.project, "cache.go"), "content": "x"}, "ok", "")
	w.rsPrompt(t, "Fifth: make the cache safe for concurrent use and run the race detector")
	w.rsBash(t, "go test -race ./parser/", "")
	w.fill(t, 2000)
	return w
}

// rsSummary keeps the first prompt, go build and cache.go.
const rsSummary = "<analysis>\nThe user asked \"Second: add a cache to the parser, keyed by the input's hash\".\n</analysis>\n<summary>\n" +
	"1. Primary Request and Intent:\n   - \"Шаг 1: edit the parser\"\n2. Ran `go build ./...`; wrote cache.go.\n</summary>"

// rsCompact plays one compaction of w as the client does: PreCompact,
// SessionStart(compact), PostCompact (summary nil: none ran), then the
// boundary and the summary entry, with the pointer recorded when record is
// set. It returns the snapshot's name.
func (w *wtWorld) rsCompact(t *testing.T, version string, summary *string, record bool) string {
	t.Helper()
	w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
		"hook_event_name", "PreCompact", "trigger", "manual"))
	pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
	name := selectsnap.NamedSnapshot(pointer)
	if name == "" {
		t.Fatalf("postcompact pointer names no snapshot:\n%s", pointer)
	}
	if summary != nil {
		b, _ := json.Marshal(map[string]any{"session_id": w.sid, "transcript_path": w.transcript, "cwd": w.project,
			"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": *summary})
		if r := w.run(t, b, "postcompact"); r.Code != 0 || r.Stdout != "" {
			t.Fatalf("PostCompact: exit %d, stdout %q", r.Code, r.Stdout)
		}
	}
	var recorded []string
	if record {
		recorded = []string{pointer}
	}
	w.boundary(t, version, recorded...)
	return name
}

// spec: WA-15 WA-16 WA-19 RS-15 RS-20 SF-67
//
// The first prompt after the compaction carries what the summary, the
// pointer and the kept tail left out, once; the next prompt nothing.
func TestWA15ResidueWithTheNextPrompt(t *testing.T) {
	w := rsSession(t)
	summary := rsSummary
	name := w.rsCompact(t, "2.1.328", &summary, true)
	got := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p9", nil).Stdout, watch.UserPromptSubmit)
	t.Logf("residue:\n%s", got)
	for _, want := range []string{
		"compact-guard: the summary of the compaction at ", name,
		"The last failed command (Bash, exit code 1, ", "> go test -run TestCache ./parser/\nIts error line:\n> --- FAIL: TestCache (0.00s)",
		"An earlier typed prompt, verbatim:", "> Second: add a cache to the parser, keyed by the input's hash",
		"3 commands of the last 10 that the summary does not hold, oldest first:", "> go test ./...", "> gofmt -l .", "> go test -race ./parser/",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("residue lacks %q:\n%s", want, got)
		}
	}
	// Kept by the summary (the first prompt, go build, cache.go) or given
	// by the pointer (the last three prompts, the files): not repeated.
	for _, not := range []string{"Шаг 1", "go build", "cache.go", "parse.go", "Third:", "Fourth:", "Fifth:"} {
		if strings.Contains(got, not) {
			t.Errorf("residue repeats %q:\n%s", not, got)
		}
	}
	r, err := snapshot.ReadResidue(w.Snaps, name, w.sid)
	if err != nil || r == nil || r.Given == nil || r.Given.Event != watch.UserPromptSubmit || r.Source != snapshot.ResidueFromHook ||
		r.Given.Chars != textcut.UTF16Len(got) || r.Given.Facts != 7 || r.Given.Omitted != 0 {
		t.Fatalf("residue record %+v %+v, %v", r, r.Given, err)
	}
	if r := w.hook(t, watch.UserPromptSubmit, "p10", nil); r.Stdout != "" {
		t.Errorf("handed over twice: %q", r.Stdout)
	}
	if r := w.hook(t, watch.PostToolUse, "p10", nil); r.Stdout != "" {
		t.Errorf("handed over twice: %q", r.Stdout)
	}
	if b, _ := os.ReadFile(w.Log()); !strings.Contains(string(b), "residue: 7 of 14 facts dropped, 7 given") {
		t.Errorf("log:\n%s", b)
	}
}

// spec: WA-15 RS-3
//
// Without PostCompact (a release before 2.1.76) the transcript's summary
// decides, at the first tool call after the compaction: a failed one's hook
// (PostToolUseFailure) carries it as PostToolUse's would.
func TestWA15ResidueFallbackAndFailedToolCall(t *testing.T) {
	w := rsSession(t)
	name := w.rsCompact(t, "2.0.76", nil, true)
	// The summary entry boundary() writes keeps nothing.
	got := wtContext(t, w.hook(t, watch.PostToolUseFailure, "", nil).Stdout, watch.PostToolUseFailure)
	for _, want := range []string{"> Second: add a cache", "> go build ./...", "> go test -run TestCache ./parser/", "Шаг 1: edit the parser"} {
		if !strings.Contains(got, want) {
			t.Errorf("residue lacks %q:\n%s", want, got)
		}
	}
	r, err := snapshot.ReadResidue(w.Snaps, name, w.sid)
	if err != nil || r == nil || r.Source != snapshot.ResidueFromTranscript || r.Given == nil || r.Given.Event != watch.PostToolUseFailure {
		t.Fatalf("residue record %+v, %v", r, err)
	}
}

// spec: WA-16
//
// Parallel tool calls run their hooks at once: one of them hands the
// residue over, none of the others.
func TestWA16ParallelHooksHandTheResidueOnce(t *testing.T) {
	w := rsSession(t)
	summary := rsSummary
	w.rsCompact(t, "2.1.328", &summary, true)
	const n = 6
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			event := watch.PostToolUse
			if i%2 == 1 {
				event = watch.PostToolUseFailure
			}
			outs[i] = w.hook(t, event, "p9", nil).Stdout
		}()
	}
	wg.Wait()
	given := 0
	for _, o := range outs {
		if strings.Contains(o, "compact-guard: the summary of the compaction at") {
			given++
		}
	}
	if given != 1 {
		t.Errorf("%d of %d parallel hooks handed the residue over, want 1:\n%v\nlog:\n%s", given, n, outs, readLogAt(w))
	}
}

// spec: WA-17
//
// Never another compaction's: a second compaction whose PreCompact did not
// run comes before any prompt; its residue is not the first compaction's.
func TestWA17NeverAnotherCompactionsResidue(t *testing.T) {
	w := rsSession(t)
	summary := rsSummary
	w.rsCompact(t, "2.1.328", &summary, true)
	time.Sleep(10 * time.Millisecond) // the boundaries' times must differ
	w.boundary(t, "2.1.328")
	if r := w.hook(t, watch.UserPromptSubmit, "p9", nil); strings.Contains(r.Stdout, "compact-guard: the summary") {
		t.Errorf("the first compaction's residue was handed to the second:\n%s", r.Stdout)
	}
	if b, _ := os.ReadFile(w.Log()); !strings.Contains(string(b), "residue: the latest compaction has no snapshot of its own") {
		t.Errorf("log:\n%s", b)
	}
}

// spec: RS-19 SF-67
//
// A summary that keeps everything the pointer does not give: nothing is
// said, and the record says so.
func TestRS19NothingDroppedNothingSaid(t *testing.T) {
	w := newWatchWorld(t) // one prompt, one file, the failed last command: all the pointer's
	w.fill(t, 2000)
	summary := "<summary>nothing else</summary>"
	name := w.rsCompact(t, "2.1.328", &summary, true)
	if r := w.hook(t, watch.UserPromptSubmit, "p9", nil); r.Stdout != "" {
		t.Errorf("nothing was dropped, yet: %q", r.Stdout)
	}
	r, err := snapshot.ReadResidue(w.Snaps, name, w.sid)
	if err != nil || r == nil || r.Given == nil || r.Given.Facts != 0 || r.Given.Chars != 0 {
		t.Fatalf("residue record %+v, %v", r, err)
	}
	for _, f := range r.Facts {
		if f.Kept != "pointer" {
			t.Errorf("%s kept by %q, want the pointer", f.Key, f.Kept)
		}
	}
}

func readLogAt(w *wtWorld) string {
	b, _ := os.ReadFile(w.Log())
	return string(b)
}

// spec: RS-16 RS-23 WA-18
//
// A compaction that kept the newest messages verbatim (reactive,
// precomputed, 2.1.328's manual): a command held there is not dropped, and
// an earlier residue held there is replaced, in one line.
func TestWA18KeptTailAndSupersedes(t *testing.T) {
	w := rsSession(t)
	race := w.rsBash(t, "go test -race -count=3 ./parser/", "")
	earlier := time.Now().Add(-40 * time.Minute).UTC()
	old := w.rsLine(t, map[string]any{"type": "attachment", "timestamp": earlier.Format(time.RFC3339Nano), "attachment": map[string]any{
		"type": "hook_additional_context", "hookEvent": "UserPromptSubmit", "hookName": "UserPromptSubmit",
		"content": []any{"compact-guard: the summary of the compaction at 09:00 UTC leaves out these facts of snapshot snap_20261130-090000_c0ffee00; …"}}})
	w.fill(t, 2000)
	w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
		"hook_event_name", "PreCompact", "trigger", "auto"))
	pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
	summary := rsSummary
	b, _ := json.Marshal(map[string]any{"session_id": w.sid, "transcript_path": w.transcript, "cwd": w.project,
		"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": summary})
	w.run(t, b, "postcompact")
	w.rsLine(t, map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "version": "2.1.328",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 150000, "postTokens": 3000,
			"preservedMessages": map[string]any{"uuids": []string{race[0], race[1], old}}}})
	w.rsLine(t, map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user", "content": "Summary: …"}})
	w.rsLine(t, map[string]any{"type": "attachment", "attachment": map[string]any{"type": "hook_additional_context", "hookEvent": "SessionStart", "content": []any{pointer}}})
	got := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p9", nil).Stdout, watch.UserPromptSubmit)
	if strings.Contains(got, "go test -race -count=3") {
		t.Errorf("a command the kept tail holds was handed back:\n%s", got)
	}
	clock := earlier.Format("15:04 UTC")
	if now := time.Now().UTC(); now.YearDay() != earlier.YearDay() {
		clock = earlier.Format("2006-01-02 15:04 UTC")
	}
	want := "This list replaces the one of " + clock + ", which the messages kept verbatim still hold."
	if lines := strings.Split(got, "\n"); len(lines) < 2 || lines[1] != want {
		t.Errorf("second line, want %q:\n%s", want, got)
	}
	name := selectsnap.NamedSnapshot(pointer)
	r, _ := snapshot.ReadResidue(w.Snaps, name, w.sid)
	tail := 0
	for _, f := range r.Facts {
		if f.Kept == "tail" {
			tail++
		}
	}
	if r.Given == nil || r.Given.Supersedes.IsZero() || tail != 1 {
		t.Errorf("record: given %+v, %d facts kept by the tail, want 1", r.Given, tail)
	}
}

// spec: RS-25
//
// show prints, before the notes, what the compaction's summary kept and
// what the residue gave back; --full every fact with its verdict.
func TestRS25ShowTheResidue(t *testing.T) {
	w := rsSession(t)
	summary := rsSummary
	name := w.rsCompact(t, "2.1.328", &summary, true)
	out := w.run(t, nil, "show", name).Stdout
	for _, want := range []string{"## What the compaction's summary kept",
		"- compared with the summary PostCompact received, ",
		"- Residue: not handed over yet",
		"- Prompts: 1 of 5 kept (summary 1, pointer 0, kept messages 0), 4 dropped, 0 given back",
		"- Record: `" + name + ".residue`"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "## What the compaction's summary kept"), strings.Index(out, "## Notes"); i < 0 || j < i {
		t.Errorf("the section is not before the notes")
	}
	w.hook(t, watch.UserPromptSubmit, "p9", nil)
	out = w.run(t, nil, "show", "--full", name).Stdout
	for _, want := range []string{"- Commands: 1 of 5 kept (summary 1, pointer 0, kept messages 0), 4 dropped, 4 given back",
		"- Residue: 7 facts given back with UserPromptSubmit at ",
		"- `prompt:1` dropped, given back: `Second: add a cache to the parser, keyed by the input's hash`",
		"- `prompt:0` kept by the summary (`RS-6`): `Шаг 1: edit the parser`"} {
		if !strings.Contains(out, want) {
			t.Errorf("show --full lacks %q:\n%s", want, out)
		}
	}
	if strings.HasSuffix(strings.TrimSpace(out), "schema 1.") == false {
		t.Errorf("show no longer ends with the record's line")
	}
}

// watchPrompt runs watch for a UserPromptSubmit of s and returns the
// additionalContext it printed.
func (s *simSession) watchPrompt() string {
	s.t.Helper()
	s.tick(2 * time.Second)
	thresholds, _ := watch.ParseThresholds(watch.DefaultThresholds)
	var out strings.Builder
	opts := &WatchOptions{IO: &IO{In: strings.NewReader(s.payload(watch.UserPromptSubmit, nil)), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Thresholds: thresholds, Timeout: 5 * time.Second}
	if err := watchRun(opts); err != nil {
		s.t.Fatal(err)
	}
	return hookContext([]byte(out.String()))
}

// spec: AU-6 AU-7 AU-8 AU-9 AU-10
//
// audit says, per compaction, what the summary kept and what the residue
// gave back: from the residue record, else compared then with the
// transcript's summary.
func TestAuditResidue(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000a0e01")
	for _, p := range []string{"Make the importer skip rows with an empty id", "Then count the skipped rows in the report",
		"Log each skipped row once", "Add a flag for the old behaviour", "Document the flag"} {
		s.turn(p)
	}
	s.compact(true) // PostCompact's summary ("summary") keeps nothing
	if got := s.watchPrompt(); !strings.Contains(got, "compact-guard: the summary of the compaction at") {
		t.Fatalf("no residue with the next prompt:\n%s\nlog:\n%s", got, hooktest.ReadLog(s.dir))
	}
	s.turn("Now write the changelog entry")
	s.compact(true) // not handed over yet
	s.turn("Release it")
	s.compact(true)
	third := s.snapshots()[2]
	if err := os.Remove(snapshot.ResiduePath(s.dir, third)); err != nil {
		t.Fatal(err)
	}

	rep, _, err := runAudit(t, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs := rep.Sessions[0].Compactions
	if len(cs) != 3 {
		t.Fatalf("%d compactions", len(cs))
	}
	r1, r2, r3 := cs[0].Residue, cs[1].Residue, cs[2].Residue
	if r1 == nil || r1.Source != snapshot.ResidueFromHook || r1.Given == nil || r1.Given.Facts == 0 || r1.Kinds["prompt"].Facts != 5 || r1.Kinds["prompt"].Pointer != 3 || r1.Kinds["prompt"].Given != 2 {
		t.Errorf("first: %+v", r1)
	}
	if r2 == nil || r2.Given != nil || r2.Kinds[""].Summary != 0 {
		t.Errorf("second: %+v", r2)
	}
	if r3 == nil || r3.Source != "compared" || r3.Given != nil || r3.LostTotal == 0 || len(r3.Lost) != r3.LostTotal {
		t.Errorf("third: %+v", r3)
	}
	_, text, _ := runAudit(t, s, func(o *AuditOptions) { o.JSON = false })
	for _, want := range []string{
		"      summary kept 0 of 5 prompts, 0 of 5 files; residue gave back 2 facts with UserPromptSubmit (",
		"; residue not handed over yet",
		"; no residue record (compared now with the transcript's summary: ",
		"residues: 1 given back (",
		"), 0 not needed, 1 not handed over yet, 1 without a record",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("audit lacks %q:\n%s", want, text)
		}
	}
}

// spec: WA-17
//
// The client writes the boundary after the compaction's hooks, and a tool
// call's hook may run before it does (measured with 2.1.328, E2E-28): the
// snapshot PostCompact confirmed and compared is this compaction's, and its
// residue is handed over then. Without PostCompact (2.0.76) the note waits
// for the boundary and the next hook that sees it hands the residue over.
func TestWA17BeforeTheBoundaryIsWritten(t *testing.T) {
	t.Run("PostCompact ran", func(t *testing.T) {
		w := rsSession(t)
		w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
			"hook_event_name", "PreCompact", "trigger", "auto"))
		w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
		b, _ := json.Marshal(map[string]any{"session_id": w.sid, "transcript_path": w.transcript, "cwd": w.project,
			"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": rsSummary})
		w.run(t, b, "postcompact")
		got := wtContext(t, w.hook(t, watch.PostToolUse, "p1", nil).Stdout, watch.PostToolUse)
		if !strings.Contains(got, "> go test -run TestCache ./parser/") || strings.Contains(got, "Fifth:") {
			t.Fatalf("residue before the boundary:\n%s", got)
		}
		w.boundary(t, "2.1.328")
		if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
			t.Errorf("handed over again once the boundary was written: %q", r.Stdout)
		}
	})
	t.Run("no PostCompact", func(t *testing.T) {
		w := rsSession(t)
		w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
			"hook_event_name", "PreCompact", "trigger", "auto"))
		w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
		if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
			t.Fatalf("a residue with no boundary and no PostCompact: %q", r.Stdout)
		}
		if st, _ := watch.StoreFor(w.Snaps).Load(w.sid); st == nil || st.Residue == nil {
			t.Fatalf("the note did not wait for the boundary: %+v", st)
		}
		w.boundary(t, "2.0.76")
		if got := wtContext(t, w.hook(t, watch.PostToolUse, "p1", nil).Stdout, watch.PostToolUse); !strings.Contains(got, "> Second: add a cache") {
			t.Errorf("no residue once the boundary was written:\n%s", got)
		}
	})
}
