//go:build e2e

package cmd_test

import (
	"os"
	"strings"
	"testing"
)

// TestE2EHandoffOwner runs the real client (specs/e2e.md E2E-38 to E2E-40):
// two sessions in one project, where one session's handoff block is never
// the other's plan, and the line a failed command's error is quoted by.
func TestE2EHandoffOwner(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eBinaries)
	}{
		{"E2E38_39_TwoSessionsOneStateFile", e2eScenarioHandoffOfAnother},
		{"E2E40_ErrorLine", e2eScenarioErrorLine},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins)
		})
	}
}

// e2eBNext is session B's NEXT STEP.
const e2eBNext = "run the B-only migration next"

// spec: E2E-38, E2E-39
//
// e2eScenarioHandoffOfAnother: sessions C and B in one project, the fake
// reporting 612,000 tokens of a 1,000,000-token window (thresholds 500k,
// 600k, 700k) from the first request. C works a turn and crosses its
// thresholds. Then B, as an agent would, appends `compact-guard handoff
// --template` (which marks the block with B's CLAUDE_CODE_SESSION_ID) to
// SESSION-STATE.md with every section filled, and checks it. C compacts:
// its pointer and its summary hint do not call the compaction planned and
// do not hand over B's next step; its snapshot counts B's block as not its
// own. B compacts: its pointer names its block, planned, and its hint
// carries its next step.
func e2eScenarioHandoffOfAnother(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект двое")
	fake := e2eNewFake(t, 612_000)
	e2eFailOnExit(t, fake)
	guard := e2eQuote(bins.Guard)
	write := guard + ` handoff --template | awk '{print} /^### NEXT STEP/{print "` + e2eBNext + `"; next} /^### /{print "none so far"}' >> SESSION-STATE.md`
	check := guard + " handoff --check"

	fake.Script(
		e2eReply{e2eBash("echo C works", "Work")},
		e2eReply{e2eText("C: step done.")},
		e2eReply{e2eText("C: still here.")},
	)
	sidC := w.Claude(fake, proj, "", "C: refactor the parser").SessionID
	w.Claude(fake, proj, sidC, "C: go on") // watch has seen C's fill by now

	fake.Script(
		e2eReply{e2eBash(write, "Write the handoff")},
		e2eReply{e2eBash(check, "Check the handoff")},
		e2eReply{e2eText("B: handoff written and checked.")},
	)
	sidB := w.Claude(fake, proj, "", "B: write your handoff").SessionID
	if sidB == sidC {
		t.Fatal("one session for both")
	}
	reqs := e2eMainLoop(fake)
	if res := e2eToolResult(reqs[len(reqs)-1]); !strings.Contains(res, "handoff current: ") || strings.Contains(res, "Exit code") {
		t.Fatalf("B's check: %q", res)
	}
	state, err := os.ReadFile(proj + "/SESSION-STATE.md")
	if err != nil || !strings.Contains(string(state), "<!-- compact-guard session: "+sidB+" -->") || !strings.Contains(string(state), e2eBNext) {
		t.Fatalf("the state file B wrote (%v):\n%s", err, state)
	}

	// spec: E2E-38
	w.Compact(fake, proj, sidC, "")
	fake.Script(e2eReply{e2eText("C: back.")})
	w.Claude(fake, proj, sidC, "C: what was I doing?")
	summary, after := e2ePostCompaction(t, fake, 1)
	ctx := strings.Join(e2eAdditionalContexts(after), "\n")
	if !strings.Contains(ctx, "This compaction was not planned: manual") || strings.Contains(ctx, "was planned") || strings.Contains(ctx, e2eBNext) ||
		!strings.Contains(ctx, "no handoff block of this session (blocks in the state file not its own: 1)") {
		t.Errorf("C's pointer after its compaction:\n%s", ctx)
	}
	if ins, _ := e2eSummaryInstructions(summary); strings.Contains(ins, e2eBNext) || strings.Contains(ins, "next step") {
		t.Errorf("C's summary hint hands over B's next step: %q", ins)
	}
	snapsC := e2eSnapshots(t, w.SnapDir, sidC)
	if len(snapsC) != 1 || snapsC[0].Rec.Preparation == nil || snapsC[0].Rec.Preparation.Kind != "unplanned" || snapsC[0].Rec.Preparation.OtherBlocks != 1 {
		t.Errorf("C's snapshots %+v", snapsC)
	}

	// spec: E2E-39
	w.Compact(fake, proj, sidB, "")
	fake.Script(e2eReply{e2eText("B: back.")})
	w.Claude(fake, proj, sidB, "B: and now?")
	summary, after = e2ePostCompaction(t, fake, 2)
	ctx = strings.Join(e2eAdditionalContexts(after), "\n")
	if !strings.Contains(ctx, `This compaction was planned: handoff block "HANDOFF `) {
		t.Errorf("B's pointer after its compaction:\n%s", ctx)
	}
	if ins, _ := e2eSummaryInstructions(summary); !strings.Contains(ins, `The handoff's next step: "`+e2eBNext+`".`) {
		t.Errorf("B's summary hint lacks its next step: %q", ins)
	}
	if snapsB := e2eSnapshots(t, w.SnapDir, sidB); len(snapsB) != 1 || snapsB[0].Rec.Preparation == nil || snapsB[0].Rec.Preparation.Kind != "planned" {
		t.Errorf("B's snapshots %+v", snapsB)
	}
}

// spec: E2E-40
//
// e2eScenarioErrorLine: a Bash call prints "all tests passed" on stdout,
// then a Python traceback on stderr, and exits 1. The client records the
// two in one text, stdout first (measured); the snapshot's error line, the
// pointer's and the summary hint's are the traceback's exception line.
func e2eScenarioErrorLine(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект ошибка")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	failing := `printf 'all tests passed\n'; printf 'Traceback (most recent call last):\n  File "t.py", line 1, in <module>\nValueError: bad input\n' >&2; exit 1`
	fake.Script(
		e2eReply{e2eBash(failing, "Run the tests")},
		e2eReply{e2eText("The tests failed.")},
	)
	sid := w.Claude(fake, proj, "", "Run the tests").SessionID
	raw, err := os.ReadFile(w.TranscriptPath(sid))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `Exit code 1\nall tests passed\nTraceback (most recent call last):`) {
		t.Errorf("the client's record of the failure is not \"Exit code 1\", stdout, stderr:\n%s", raw)
	}
	w.Compact(fake, proj, sid, "")
	fake.Script(e2eReply{e2eText("Back.")})
	w.Claude(fake, proj, sid, "What failed?")
	summary, after := e2ePostCompaction(t, fake, 1)
	if ctx := strings.Join(e2eAdditionalContexts(after), "\n"); !strings.Contains(ctx, "Its error line:\n> ValueError: bad input\n") {
		t.Errorf("the pointer:\n%s", ctx)
	}
	if ins, _ := e2eSummaryInstructions(summary); !strings.Contains(ins, `Its error: "ValueError: bad input".`) {
		t.Errorf("the summary hint: %q", ins)
	}
	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	cmds := snaps[0].Rec.Commands
	if c := cmds[len(cmds)-1]; c.Outcome != "error" || c.ErrorLine != "ValueError: bad input" {
		t.Errorf("the snapshot's command %+v", c)
	}
}
