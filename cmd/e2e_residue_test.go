//go:build e2e

package cmd_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// TestE2EResidue runs compactions with the real client whose summary (the
// fake's) keeps some of the snapshot's facts and drops others, and checks
// that the first request after the compaction's next prompt or tool call
// carries exactly what the summary and the pointer left out, once
// (specs/e2e.md E2E-28 to E2E-30): with 2.1.328 (PostCompact compares its
// compact_summary) and with 2.0.76 (no PostCompact: the transcript's summary
// is compared), after a manual and an automatic compaction.
func TestE2EResidue(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eBinaries)
	}{
		{"E2E28_Manual_2.1.328", e2eResidueManual(e2eClaudeVersion)},
		{"E2E28_Auto_2.1.328", e2eResidueAuto(e2eClaudeVersion)},
		{"E2E28_Manual_" + e2eClaudeNewest, e2eResidueManual(e2eClaudeNewest)},
		{"E2E29_Manual_2.0.76", e2eResidueManual("2.0.76")},
		{"E2E29_Auto_2.0.76", e2eResidueAuto("2.0.76")},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins)
		})
	}
}

// e2eResidueMarker starts the residue's text.
const e2eResidueMarker = "compact-guard: the summary of the compaction at "

// The session's prompts: the summary keeps the first, the pointer gives
// the last three, so the second is the residue's.
var e2eResiduePrompts = []string{
	"Шаг 1: create notes.md with the plan",
	"Шаг 2: run the failing check and keep going",
	"Шаг 3: look at the result",
	"Шаг 4: think about the next step",
	"Шаг 5: summarise where we are",
}

// e2eResidueSummary keeps the first prompt, `echo kept-by-summary` and
// notes.md; its analysis (which the client strips, RS-2) names nothing.
const e2eResidueSummary = "<analysis>\nChronological notes on the conversation.\n</analysis>\n\n<summary>\n" +
	"1. Primary Request and Intent:\n   - \"Шаг 1: create notes.md with the plan\"\n" +
	"2. Work done: ran `echo kept-by-summary`; wrote notes.md.\n</summary>"

// e2eResidueFailing is the session's failed command.
const e2eResidueFailing = `printf 'FAIL: TestGreeting\n' >&2; exit 3`

// e2eResidueLines are the residue's lines with times and the snapshot's
// name replaced by placeholders, and the lines of the block that come after
// the failed command, per scenario.
var e2eResidueClock = regexp.MustCompile(`(\d{4}-\d\d-\d\d )?\d\d:\d\d UTC`)

func e2eResidueNormal(text, snap string) string {
	return strings.ReplaceAll(e2eResidueClock.ReplaceAllString(text, "HH:MM UTC"), snap, "SNAP")
}

// e2eOutcomes are the residue's words for a command's outcome (RS-20).
var e2eOutcomes = map[string]string{"ok": "succeeded", "unknown": "outcome unknown"}

// e2eResidueWant is the whole residue these sessions get: the failed
// command (its error line), the second prompt, and the commands the
// summary does not hold, besides the failed one, each "command" or
// "command\x00outcome" (the snapshot's word for it, "ok" when none).
func e2eResidueWant(commands ...string) string {
	lines := []string{
		"compact-guard: the summary of the compaction at HH:MM UTC leaves out these facts of snapshot SNAP; the summary, the pointer and the messages kept verbatim hold the rest.",
		"The last failed command (Bash, exit code 3, HH:MM UTC):",
		"> " + e2eResidueFailing,
		"Its error line:",
		"> FAIL: TestGreeting",
		"An earlier typed prompt, verbatim:",
		"Prompt 1, HH:MM UTC:",
		"> " + e2eResiduePrompts[1],
	}
	if len(commands) == 1 {
		lines = append(lines, "A command of the last 10 that the summary does not hold:")
	} else if len(commands) > 1 {
		lines = append(lines, fmt.Sprintf("%d commands of the last 10 that the summary does not hold, oldest first:", len(commands)))
	}
	for i, c := range commands {
		c, outcome, _ := strings.Cut(c, "\x00")
		lines = append(lines, fmt.Sprintf("Command %d (HH:MM UTC, %s):", i+1, e2eOutcomes[cmp.Or(outcome, "ok")]), "> "+c)
	}
	return strings.Join(lines, "\n")
}

// e2eResidueIn returns the residue a request carries, "" for none: from the
// marker to the end of its context.
func e2eResidueIn(r *e2eRequest) string {
	for _, s := range strings.Split(e2eAllTextSep(r, "\x00"), "\x00") {
		i := strings.Index(s, e2eResidueMarker)
		if i < 0 {
			continue
		}
		s = s[i:]
		// The client puts a hook's context in a <system-reminder> or
		// follows it with other text: the residue ends at its last line.
		for _, end := range []string{"\n</system-reminder>", "\n\n"} {
			if j := strings.Index(s, end); j >= 0 {
				s = s[:j]
			}
		}
		return strings.TrimSpace(s)
	}
	return ""
}

// e2eResidueCheck checks the residue reached the model exactly once, in the
// request at index at of the main-loop requests, with want's text; and
// that the snapshot's residue record says it was given by event.
func e2eResidueCheck(t *testing.T, w *e2eWorld, fake *e2eFake, sid string, at int, wantFor func(*snapshot.Residue) string, event string) {
	t.Helper()
	// The compaction's own snapshot: the newest taken before the
	// compaction request reached the fake (E2E-10's rule).
	summary := fake.Requests()[e2eSummaryIndex(fake.Requests(), 1)]
	snap := ""
	for _, sn := range e2eSnapshots(t, w.SnapDir, sid) {
		if sn.Rec.CreatedAt.Before(summary.Time) {
			snap = sn.Base
		}
	}
	if snap == "" {
		t.Fatal("no snapshot of the session before the compaction")
	}
	res, err := snapshot.ReadResidue(w.SnapDir, snap, sid)
	if err != nil || res == nil || res.Given == nil || res.Given.Event != event || res.Given.Facts == 0 {
		t.Fatalf("residue record of %s: %+v, %v", snap, res, err)
	}
	// 2.1.328 gives PostCompact the summary (RS-2); 2.0.76 has no
	// PostCompact, and the transcript's summary is compared (RS-3).
	if source := snapshot.ResidueFromHook; transcript.VersionBefore(w.claude.Version, "2.1.76") {
		if res.Source != snapshot.ResidueFromTranscript {
			t.Errorf("residue compared with %s, want the transcript's summary", res.Source)
		}
	} else if res.Source != source {
		t.Errorf("residue compared with %s, want %s", res.Source, source)
	}
	want := wantFor(res)
	reqs := e2eMainLoop(fake)
	first := -1
	for i, r := range reqs {
		if got := e2eResidueIn(r); got != "" && first < 0 {
			first = i
			t.Logf("main-loop request %d carries the residue:\n%s", i, got)
			if g := e2eResidueNormal(got, snap); g != want {
				t.Errorf("the residue the model got:\n%s\nwant:\n%s", g, want)
			}
		}
	}
	if first != at {
		t.Fatalf("the residue first reached the model in main-loop request %d, want %d", first, at)
	}
	// Once: a later request repeats the conversation, and with it the
	// residue, at most once (a process started with --resume may not give
	// the model an earlier prompt's hook context again); none carries
	// another.
	for i := first; i < len(reqs); i++ {
		if n := strings.Count(e2eAllText(reqs[i]), e2eResidueMarker); n > 1 || i == first && n != 1 {
			t.Errorf("main-loop request %d carries %d residues", i, n)
		}
	}
	if first+1 >= len(reqs) {
		t.Errorf("no request after the one carrying the residue")
	}
	// E2E-30: audit says what the summary kept and what the residue gave.
	cmd := exec.Command(w.bins.Guard, "audit")
	cmd.Env = w.env(nil)
	text, err := cmd.Output()
	if err != nil || !strings.Contains(string(text), fmt.Sprintf("residue gave back %d facts with %s", res.Given.Facts, event)) {
		t.Errorf("audit: %v\n%s", err, text)
	}
}

// spec: E2E-28 E2E-29 E2E-30
//
// e2eResidueManual: five turns (a file written, a command the summary
// keeps, a failed one and one after it), /compact, then a prompt: its
// request carries the residue, the next prompt's nothing new.
func e2eResidueManual(version string) func(*testing.T, e2eBinaries) {
	return func(t *testing.T, bins e2eBinaries) {
		claude := e2eRequireClaudeVersion(t, version)
		w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
		proj := w.NewProject("проект остаток")
		fake := e2eNewFake(t, 2000)
		fake.summary = e2eResidueSummary
		e2eFailOnExit(t, fake)
		fake.Script(
			e2eReply{e2eWrite(filepath.Join(proj, "notes.md"), "# План\n")},
			e2eReply{e2eBash("echo kept-by-summary", "Say it")},
			e2eReply{e2eText("Done 1.")},
			e2eReply{e2eBash(e2eResidueFailing, "Run the failing check")},
			e2eReply{e2eBash("echo after-the-failure", "Go on")},
			e2eReply{e2eText("Done 2.")},
			e2eReply{e2eText("Done 3.")},
			e2eReply{e2eText("Done 4.")},
			e2eReply{e2eText("Done 5.")},
		)
		sid := ""
		for _, p := range e2eResiduePrompts {
			sid = w.Claude(fake, proj, sid, p).SessionID
		}
		w.Compact(fake, proj, sid, "")
		fake.Script(e2eReply{e2eText("Back after the compaction.")}, e2eReply{e2eText("And once more.")})
		w.Claude(fake, proj, sid, "Шаг 6: where were we?")
		w.Claude(fake, proj, sid, "Шаг 7: and now?")
		// Main-loop requests: 9 before the compaction, then one per prompt.
		want := e2eResidueWant("echo after-the-failure")
		e2eResidueCheck(t, w, fake, sid, 9, func(*snapshot.Residue) string { return want }, "UserPromptSubmit")
		w.CheckInstalledFor(version)
		if want := !transcript.VersionBefore(version, "2.1.76"); w.LogHas("residue: the summary kept", 1) != want {
			t.Errorf("PostCompact compared the summary: %v, want %v (PostCompact from 2.1.76)", !want, want)
		}
	}
}

// spec: E2E-28 E2E-29 E2E-30
//
// e2eResidueAuto: four turns on a small context, then a turn on which the
// fake reports 190,000 tokens: the client compacts by itself between two
// tool calls. The request after the compaction's next tool call carries the
// residue (PostToolUse), the one after it nothing new.
func e2eResidueAuto(version string) func(*testing.T, e2eBinaries) {
	return func(t *testing.T, bins e2eBinaries) {
		claude := e2eRequireClaudeVersion(t, version)
		w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
		proj := w.NewProject("проект остаток авто")
		fake := e2eNewFake(t, 2000)
		fake.summary = e2eResidueSummary
		e2eFailOnExit(t, fake)
		// Before the fifth turn (main-loop requests 0 to 6) a small
		// context; then 190,000 tokens until the client compacts; 3,000
		// after. The fake calls tokensFor with its lock held.
		fake.tokensFor = func(n int) int {
			switch {
			case fake.summarized:
				return 3000
			case n >= 7:
				return 190_000
			}
			return 2000
		}
		fake.Script(
			e2eReply{e2eWrite(filepath.Join(proj, "notes.md"), "# План\n")},
			e2eReply{e2eBash("echo kept-by-summary", "Say it")},
			e2eReply{e2eText("Done 1.")},
			e2eReply{e2eBash(e2eResidueFailing, "Run the failing check")},
			e2eReply{e2eText("Done 2.")},
			e2eReply{e2eText("Done 3.")},
			e2eReply{e2eText("Done 4.")},
		)
		sid := ""
		for _, p := range e2eResiduePrompts[:4] {
			sid = w.Claude(fake, proj, sid, p).SessionID
		}
		fake.Script(
			e2eReply{e2eBash("echo one", "Step one")},
			e2eReply{e2eBash("echo two", "Step two")},
			e2eReply{e2eBash("echo three", "Step three")},
			e2eReply{e2eBash("echo after-the-compaction", "Step after")},
			e2eReply{e2eText("Done 5.")},
			e2eReply{e2eText("Done 6.")},
		)
		auto := []string{}
		if version == e2eClaudeVersion {
			auto = []string{"--autocompact", "100000"}
		}
		before := fake.Summaries()
		w.Claude(fake, proj, sid, e2eResiduePrompts[4], auto...)
		if fake.Summaries() == before {
			t.Fatal("the client did not compact by itself")
		}
		w.Claude(fake, proj, sid, "Шаг 6: and now?", auto...)
		// The request after the first tool call the compaction's
		// continuation made.
		reqs := fake.Requests()
		i := e2eSummaryIndex(reqs, 1)
		main := e2eMainLoop(fake)
		cont := 0
		for k, r := range main {
			if r.Seq > reqs[i].Seq {
				cont = k
				break
			}
		}
		// The commands of the fifth turn before the compaction (those its
		// request summarised) are dropped, but for one the client kept
		// verbatim after the summary (RS-16), when the hand-over came after
		// the client wrote the boundary that names it (WA-17: the hook of
		// the next tool call may run before).
		// Their outcome is the snapshot's: the client may not have written
		// a tool call's result when PreCompact read the transcript.
		kept := e2eKeptTexts(t, w, sid)
		wantFor := func(res *snapshot.Residue) string {
			outcome := map[string]string{}
			for _, sn := range e2eSnapshots(t, w.SnapDir, sid) {
				if sn.Base == res.Snapshot {
					for _, c := range sn.Rec.Commands {
						outcome[c.Command] = c.Outcome
					}
				}
			}
			var cmds []string
			for _, c := range []string{"echo one", "echo two", "echo three"} {
				if strings.Contains(e2eAllText(reqs[i]), c) && !(res.Given.Boundary >= 0 && kept[c]) {
					cmds = append(cmds, c+"\x00"+outcome[c])
				}
			}
			return e2eResidueWant(cmds...)
		}
		e2eResidueCheck(t, w, fake, sid, cont+1, wantFor, "PostToolUse")
	}
}

// e2eKeptTexts are the commands of the tool calls the session's (only)
// compaction kept verbatim: the entries its boundary's
// compactMetadata.preservedMessages.uuids names.
func e2eKeptTexts(t *testing.T, w *e2eWorld, sid string) map[string]bool {
	t.Helper()
	entries := w.Transcript(sid)
	want := map[string]bool{}
	for _, e := range entries {
		if e["subtype"] != "compact_boundary" {
			continue
		}
		m, _ := e["compactMetadata"].(map[string]any)
		pm, _ := m["preservedMessages"].(map[string]any)
		ids, _ := pm["uuids"].([]any)
		for _, id := range ids {
			if s, ok := id.(string); ok {
				want[s] = true
			}
		}
	}
	out := map[string]bool{}
	for _, e := range entries {
		if id, _ := e["uuid"].(string); !want[id] {
			continue
		}
		b, _ := json.Marshal(e["message"])
		var msg struct {
			Content []struct {
				Type  string `json:"type"`
				Input struct {
					Command string `json:"command"`
				} `json:"input"`
			} `json:"content"`
		}
		_ = json.Unmarshal(b, &msg)
		for _, c := range msg.Content {
			if c.Type == "tool_use" && c.Input.Command != "" {
				out[c.Input.Command] = true
			}
		}
	}
	return out
}
