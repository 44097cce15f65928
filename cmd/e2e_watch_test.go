//go:build e2e

package cmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// TestE2EWatch runs compact-guard watch with the real client (specs/e2e.md,
// E2E-15 to E2E-19): the notices as the context grows, the Stop gate and
// handoff --check, planned and emergency compactions, and the pointer a
// resumed session lost, handed over once.
func TestE2EWatch(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eBinaries)
	}{
		{"E2E15_Notices", e2eScenarioNotices},
		{"E2E16_StopGateHandoffPlanned", e2eScenarioStopGate},
		{"E2E18_Emergency", e2eScenarioEmergency},
		{"E2E19_FallbackOn2.1.119", e2eScenarioFallback119},
		{"E2E19_NoFallbackOn2.1.328", e2eScenarioNoFallback328},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins)
		})
	}
}

// Markers of compact-guard's texts in what the model receives.
const (
	e2eNoticeMarker = "compact-guard: the context holds"
	e2eHoldMarker   = "compact-guard holds this stop once"
	e2eLateMarker   = "compact-guard: this pointer comes with the first prompt after the compaction"
)

// e2eLinesWith returns the distinct texts request r carries that start
// with marker, each to the end of its line: the client renders one hook
// text in several places (a Stop hook's reason as "Stop hook feedback:" and
// later as "Stop hook blocking error from command: …: REASON"), which count
// as one.
func e2eLinesWith(r *e2eRequest, marker string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(e2eAllText(r), "\n") {
		if i := strings.Index(l, marker); i >= 0 && !seen[l[i:]] {
			seen[l[i:]] = true
			out = append(out, l[i:])
		}
	}
	return out
}

// e2eLineHolding returns the line of r's text that holds s, "" for none.
func e2eLineHolding(r *e2eRequest, s string) string {
	for _, l := range strings.Split(e2eAllText(r), "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// e2eNewLines returns, for each main-loop request, the lines holding marker
// that no earlier main-loop request carried: what reached the model first
// in that request (every request repeats the conversation so far).
func e2eNewLines(fake *e2eFake, marker string) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, r := range fake.Requests() {
		if r.Kind != "tools" {
			continue
		}
		var fresh []string
		for _, l := range e2eLinesWith(r, marker) {
			if !seen[l] {
				seen[l] = true
				fresh = append(fresh, l)
			}
		}
		out = append(out, fresh)
	}
	return out
}

// spec: E2E-15
//
// e2eScenarioNotices: the fake reports a context that grows request by
// request on a model with a 1,000,000-token window (thresholds 500k, 600k,
// 700k): 100k, then 520k, 525k and 530k, each response calling a tool, then
// 610k for the turn's answer; the next turns 615k and 620k. Nothing is said
// below the first threshold. The 500k crossing is told once, by the
// PostToolUse hook that first sees it: the client writes a response to the
// transcript asynchronously and a hook may run before the response that
// called its tool is written, even the one before it (measured with
// 2.1.328, specs/e2e.md), so that is the hook of the crossing's tool call or
// of a later one in the turn (two more follow). The 600k
// crossing, made by the turn's last response, is told with the next prompt,
// once; the third turn gets nothing.
func e2eScenarioNotices(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект заметки")
	fake := e2eNewFake(t, 2000)
	fill := []int{100_000, 520_000, 525_000, 530_000, 610_000, 615_000, 620_000}
	fake.tokensFor = func(n int) int { return fill[min(n, len(fill)-1)] }
	e2eFailOnExit(t, fake)
	fake.Script(
		e2eReply{e2eBash("echo one", "Step one")},
		e2eReply{e2eBash("echo two", "Step two")},
		e2eReply{e2eBash("echo three", "Step three")},
		e2eReply{e2eBash("echo four", "Step four")},
		e2eReply{e2eText("Turn 1 done.")},
		e2eReply{e2eText("Turn 2 done.")},
		e2eReply{e2eText("Turn 3 done.")},
	)
	sid := w.Claude(fake, proj, "", "Шаг 1: four steps").SessionID
	w.Claude(fake, proj, sid, "Шаг 2: go on")
	w.Claude(fake, proj, sid, "Шаг 3: and on")

	fresh := e2eNewLines(fake, e2eNoticeMarker)
	reqs := e2eMainLoop(fake)
	if len(fresh) != 7 {
		t.Fatalf("%d main-loop requests, want 7", len(fresh))
	}
	// Request k follows the k-1-th response; the 2nd response crossed 500k.
	first := -1
	for i, lines := range fresh {
		if len(lines) == 0 {
			continue
		}
		switch {
		case first < 0 && i >= 2 && i <= 4:
			first = i
			if len(lines) != 1 || !strings.Contains(lines[0], "Thresholds crossed: 500,000 at") ||
				!strings.Contains(e2eLineHolding(reqs[i], lines[0]), "PostToolUse:Bash hook additional context: ") ||
				!(strings.Contains(lines[0], "holds 520,000 tokens, 52% of the 1,000,000-token window") || strings.Contains(lines[0], "holds 525,000 tokens, 52%") ||
					strings.Contains(lines[0], "holds 530,000 tokens, 53%")) {
				t.Errorf("request %d: new notices %q, want the 500k crossing told by PostToolUse", i+1, lines)
			}
		case i == 5:
			if len(lines) != 1 || !strings.Contains(lines[0], "holds 610,000 tokens, 61%") || !strings.Contains(lines[0], "Thresholds crossed: 600,000 at") ||
				!strings.Contains(e2eLineHolding(reqs[i], lines[0]), "UserPromptSubmit hook additional context: ") {
				t.Errorf("request 6 (the second prompt): new notices %q, want the 600k crossing told with the prompt", lines)
			}
		default:
			t.Errorf("request %d carries a notice first: %q", i+1, lines)
		}
	}
	if first < 0 || len(fresh[5]) != 1 {
		t.Errorf("notices first in requests: 500k in %d, 600k in request 6: %d", first+1, len(fresh[5]))
	}
	if all := e2eLinesWith(reqs[6], e2eNoticeMarker); len(all) != 2 {
		t.Errorf("the last request carries %d notices, want 2", len(all))
	}
	// The transcript records the two notices and no other watch context.
	var notices int
	for _, ev := range []string{"PostToolUse", "UserPromptSubmit"} {
		for _, a := range e2eHookAttachments(w.Transcript(sid), "hook_additional_context", ev) {
			if strings.Contains(fmt.Sprint(a["content"]), "compact-guard") {
				notices++
			}
		}
	}
	if notices != 2 {
		t.Errorf("the transcript records %d compact-guard contexts, want 2", notices)
	}
}

// e2eMainLoop is the fake's main-loop requests.
func e2eMainLoop(fake *e2eFake) []*e2eRequest {
	var out []*e2eRequest
	for _, r := range fake.Requests() {
		if r.Kind == "tools" {
			out = append(out, r)
		}
	}
	return out
}

// e2eStopGate adds --stop-gate to the Stop entry install wrote, as the
// README says to.
func e2eStopGate(t *testing.T, w *e2eWorld) {
	t.Helper()
	b, err := os.ReadFile(w.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	h := s["hooks"].(map[string]any)["Stop"].([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)
	if !strings.HasSuffix(h["command"].(string), " watch") {
		t.Fatalf("the Stop entry runs %q", h["command"])
	}
	h["command"] = h["command"].(string) + " --stop-gate"
	e2eWriteSettings(t, w.Settings, s)
}

// e2eHandoffBlock is a complete handoff block dated now.
func e2eHandoffBlock() string {
	text := handoff.Template(snapshot.English, time.Now())
	return "# Session state\n\n" + strings.ReplaceAll(text, "\n<!-- ", "\nnone so far <!-- ")
}

// spec: E2E-16, E2E-17
//
// e2eScenarioStopGate: the context is past the last threshold from the
// first request; Stop runs watch --stop-gate. The turn's end is held once;
// the model, scripted as an agent would act, checks the handoff (exit 1),
// writes the block, checks again (exit 0) and ends its turn, which passes.
// The next turn ends without a hold. Then /compact: the pointer says the
// compaction was planned and names the block.
func e2eScenarioStopGate(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	e2eStopGate(t, w)
	proj := w.NewProject("проект передача")
	fake := e2eNewFake(t, 2000)
	fake.tokensFor = func(int) int { return 710_000 }
	e2eFailOnExit(t, fake)
	check := e2eQuote(bins.Guard) + " handoff --check"
	state := filepath.Join(proj, "SESSION-STATE.md")
	fake.Script(
		e2eReply{e2eBash("echo work", "Work")},
		e2eReply{e2eText("Work done.")},
		e2eReply{e2eBash(check, "Check the handoff")},
		e2eReply{{Tool: "Write", InputFn: func() map[string]any {
			return map[string]any{"file_path": state, "content": e2eHandoffBlock()}
		}}},
		e2eReply{e2eBash(check, "Check the handoff again")},
		e2eReply{e2eText("Handoff written and checked; /compact is next.")},
		e2eReply{e2eText("Still here.")},
	)
	sid := w.Claude(fake, proj, "", "Refactor the parser").SessionID
	w.Claude(fake, proj, sid, "Anything else?")

	holds := e2eNewLines(fake, e2eHoldMarker)
	n := 0
	for i, lines := range holds {
		n += len(lines)
		if len(lines) > 0 && i != 2 {
			t.Errorf("request %d carries the hold first; want request 3", i+1)
		}
	}
	if n != 1 {
		t.Errorf("the stop was held %d times, want once", n)
	}
	reqs := e2eMainLoop(fake)
	if len(reqs) != 7 {
		t.Fatalf("%d main-loop requests, want 7", len(reqs))
	}
	if !strings.Contains(e2eLastUserText(reqs[2]), "Stop hook feedback") {
		t.Errorf("request 3 does not answer the hold: %q", e2eLastUserText(reqs[2]))
	}
	first, second := e2eToolResult(reqs[3]), e2eToolResult(reqs[5])
	if !strings.Contains(first, "Exit code 1") || !strings.Contains(first, "no SESSION-STATE.md found") {
		t.Errorf("the first check: %q", first)
	}
	if strings.Contains(second, "Exit code") || !strings.Contains(second, "handoff current: "+state+" line 3, HANDOFF ") ||
		!strings.Contains(second, "(the context crossed its first threshold at ") {
		t.Errorf("the second check: %q", second)
	}

	// spec: E2E-17
	w.Compact(fake, proj, sid, "")
	fake.Script(e2eReply{e2eText("Back after the compaction.")})
	w.Claude(fake, proj, sid, "What was I doing?")
	summary, after := e2ePostCompaction(t, fake, 1)
	ctx := strings.Join(e2eAdditionalContexts(after), "\n")
	if !strings.Contains(ctx, `This compaction was planned: handoff block "HANDOFF `) || !strings.Contains(ctx, "in \""+state+"\", line 3, dated ") {
		t.Errorf("the pointer after /compact does not say planned:\n%s", ctx)
	}
	// PC-28: the summary hint hands the summarizer the block's NEXT STEP.
	if ins, _ := e2eSummaryInstructions(summary); !strings.Contains(ins, `The handoff's next step: "none so far".`) {
		t.Errorf("the compaction request's hint lacks the handoff's next step: %q", ins)
	}
	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 1 || snaps[0].Rec.Preparation == nil || snaps[0].Rec.Preparation.Kind != "planned" {
		t.Errorf("snapshots %+v", snaps)
	}
}

// e2eToolResult is the text of the tool results in a request's last user
// message.
func e2eToolResult(r *e2eRequest) string {
	msgs := r.parsed.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		var blocks []map[string]any
		if json.Unmarshal(msgs[i].Content, &blocks) != nil {
			continue
		}
		var b strings.Builder
		for _, bl := range blocks {
			if bl["type"] == "tool_result" {
				b.WriteString(fmt.Sprint(bl["content"]))
			}
		}
		if b.Len() > 0 {
			return b.String()
		}
	}
	return ""
}

// spec: E2E-18
//
// e2eScenarioEmergency: CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000 in the
// client's environment (and so the hooks'), the fake reports 190,000 tokens:
// watch tells of the crossings, no handoff is written, and the client
// compacts by itself. The pointer says it was an emergency.
func e2eScenarioEmergency(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	w.ExtraEnv = append(w.ExtraEnv, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000")
	proj := w.NewProject("проект авария")
	fake := e2eNewFake(t, 190_000)
	fake.lowAfterSummary = 3000
	e2eFailOnExit(t, fake)
	fake.Script(
		e2eReply{e2eBash("echo step", "Run a step")},
		e2eReply{e2eWrite(filepath.Join(proj, "step.txt"), "x\n")},
		e2eReply{e2eText("Done with the step.")},
	)
	sid := w.Claude(fake, proj, "", "Шаг: one step").SessionID
	for _, s := range e2eSnapshots(t, w.SnapDir, sid) {
		if s.Rec.Preparation == nil || s.Rec.Preparation.Kind != "emergency" {
			t.Errorf("snapshot %s: preparation %+v, want emergency", s.Base, s.Rec.Preparation)
		}
	}
	if fake.Summaries() == 0 {
		t.Fatal("the client did not compact by itself")
	}
	var first string
	for _, lines := range e2eNewLines(fake, e2eNoticeMarker) {
		if len(lines) > 0 {
			first = lines[0]
			break
		}
	}
	if !strings.Contains(first, "190,000 tokens, 190% of the 100,000-token window (CLAUDE_CODE_AUTO_COMPACT_WINDOW)") ||
		!strings.Contains(first, "Automatic compaction comes at about 67,000 tokens.") {
		t.Errorf("first notice: %q", first)
	}
	_, after := e2ePostCompaction(t, fake, fake.Summaries())
	ctx := strings.Join(e2eAdditionalContexts(after), "\n")
	if !strings.Contains(ctx, "This compaction was an emergency: automatic, context at 190% of the window (190,000 of 100,000 tokens), no handoff since ") {
		t.Errorf("the pointer after the automatic compaction does not say emergency:\n%s", ctx)
	}
}

// e2eFallbackSession runs a session headless, one process per step: a turn,
// /compact, then two turns, each resumed in a new process.
func e2eFallbackSession(t *testing.T, w *e2eWorld, fake *e2eFake, proj string) string {
	t.Helper()
	e2eScriptEditTurn(fake, proj, 1)
	sid := w.Claude(fake, proj, "", e2eCompactionPrompt(1)).SessionID
	w.Compact(fake, proj, sid, "")
	fake.Script(e2eReply{e2eText("Resumed once.")}, e2eReply{e2eText("Resumed twice.")})
	w.Claude(fake, proj, sid, "What was I doing?")
	w.Claude(fake, proj, sid, "And then?")
	return sid
}

// spec: E2E-19
//
// e2eScenarioFallback119: Claude Code 2.1.119 does not give a process
// started with --resume the SessionStart context of the compaction before
// it. The first prompt of the resumed session carries the pointer, once,
// naming the compaction's own snapshot; the next prompt does not.
func e2eScenarioFallback119(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaudeVersion(t, "2.1.119")
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект старый")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	sid := e2eFallbackSession(t, w, fake, proj)

	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1", len(snaps))
	}
	md := filepath.Join(w.SnapDir, snaps[0].Base+".md")
	_, after := e2ePostCompaction(t, fake, 1)
	if ss := e2eContextWith(after, md); ss != "" {
		t.Fatalf("the resumed request carries the SessionStart pointer after all; no fallback is needed:\n%s", ss)
	}
	fresh := e2eNewLines(fake, e2eLateMarker)
	var at []int
	for i, lines := range fresh {
		for range lines {
			at = append(at, i+1)
		}
	}
	if len(at) != 1 || at[0] != len(fresh)-1 {
		t.Fatalf("the late pointer reached the model in requests %v of %d, want once, in the first after the compaction", at, len(fresh))
	}
	text := e2eAllText(after)
	if !strings.Contains(text, "UserPromptSubmit hook additional context: "+e2eLateMarker) ||
		!strings.Contains(text, "because the session went on in a new client process (resumed at ") ||
		!strings.Contains(text, md) || !e2eHasPrompt(text, e2eCompactionPrompt(1)) {
		t.Errorf("the late pointer:\n%s", text)
	}
	if !w.LogHas("watch(UserPromptSubmit) session="+sid+" outcome=ok", 1) || !w.LogHas("pointer handed over late (resumed)", 1) {
		t.Error("the log does not record the late pointer")
	}
}

// spec: E2E-19
//
// e2eScenarioNoFallbackOn328: the same session on 2.1.328, which gives a
// resumed process the recorded SessionStart context: no late pointer.
func e2eScenarioNoFallback328(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект новый")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	sid := e2eFallbackSession(t, w, fake, proj)
	if n := e2eCheckEveryPointer(t, fake, w.SnapDir, sid); n != 1 {
		t.Errorf("%d compactions, want 1", n)
	}
	for i, lines := range e2eNewLines(fake, e2eLateMarker) {
		if len(lines) > 0 {
			t.Errorf("request %d carries a late pointer although the SessionStart one reached the model: %q", i+1, lines)
		}
	}
}
