//go:build e2e

package cmd_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestE2EToolFailure runs watch on PostToolUseFailure with the real client
// (specs/e2e.md E2E-36, E2E-37): a turn whose tool calls all fail gets the
// notice of a crossing within the turn, and the releases around the first
// that fires the event are measured.
func TestE2EToolFailure(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eBinaries)
	}{
		{"E2E36_FailingTurnGetsTheNotice", e2eScenarioFailingTurn},
		{"E2E37_FirstReleaseWithTheEvent_2.0.56", e2eScenarioFailureEvent("2.0.56", true)},
		{"E2E37_ReleaseBeforeIt_2.0.55", e2eScenarioFailureEvent("2.0.55", false)},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins)
		})
	}
}

// spec: E2E-36
//
// e2eScenarioFailingTurn: on claude-opus-5-5 (thresholds 500k, 600k, 700k)
// the fake reports 100k, then 520k, 525k and 530k, each response calling a
// Bash command that fails, then 540k for the turn's answer. Claude Code
// fires PostToolUseFailure, not PostToolUse, after each failing call, so
// without watch registered for it the turn would carry no notice at all
// (the next prompt would). The 500k crossing is told once, within the
// turn, as "PostToolUseFailure:Bash hook additional context: compact-guard:
// the context holds …", by the hook that first sees it (the transcript
// lags, E2E-15), and nothing else is told.
func e2eScenarioFailingTurn(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект сбои")
	fake := e2eNewFake(t, 2000)
	fill := []int{100_000, 520_000, 525_000, 530_000, 540_000}
	fake.tokensFor = func(n int) int { return fill[min(n, len(fill)-1)] }
	e2eFailOnExit(t, fake)
	fake.Script(
		e2eReply{e2eBash("echo one >&2; exit 3", "Step one")},
		e2eReply{e2eBash("echo two >&2; exit 3", "Step two")},
		e2eReply{e2eBash("echo three >&2; exit 3", "Step three")},
		e2eReply{e2eBash("echo four >&2; exit 3", "Step four")},
		e2eReply{e2eText("Every step failed.")},
	)
	sid := w.Claude(fake, proj, "", "Шаг 1: four failing steps").SessionID

	fresh := e2eNewLines(fake, e2eNoticeMarker)
	reqs := e2eMainLoop(fake)
	if len(fresh) != 5 {
		t.Fatalf("%d main-loop requests, want 5", len(fresh))
	}
	told := 0
	for i, lines := range fresh {
		if len(lines) == 0 {
			continue
		}
		told += len(lines)
		// Request k follows the k-1-th response; the 2nd response crossed
		// 500k, so the 3rd to 5th request may carry it.
		if i < 2 || len(lines) != 1 || !strings.Contains(lines[0], "Thresholds crossed: 500,000 at") ||
			!strings.Contains(e2eLineHolding(reqs[i], lines[0]), "PostToolUseFailure:Bash hook additional context: ") {
			t.Errorf("request %d: new notices %q, want the 500k crossing told by PostToolUseFailure", i+1, lines)
		}
	}
	if told != 1 {
		t.Errorf("%d notices reached the model in the turn, want 1", told)
	}
	if n := len(e2eHookAttachments(w.Transcript(sid), "hook_additional_context", "PostToolUseFailure")); n != 1 {
		t.Errorf("the transcript records %d PostToolUseFailure contexts, want 1", n)
	}
}

// spec: E2E-37
//
// e2eScenarioFailureEvent measures one release with the recording hook on
// UserPromptSubmit, PostToolUse and PostToolUseFailure, and a turn of one
// failing and one passing Bash call. The first release that knows the event
// (2.0.56, found in the bundles of the npm packages: 2.0.55's hook schema
// has no PostToolUseFailure) fires it once, for the failing call, with the
// tool's name and error, and PostToolUse once, for the passing one. The
// release before it, like releases before 2.1.76 with PostCompact (E2E-10),
// loads no hook at all from a settings file that names the event, so install
// leaves it out for that release (IN-18): the same turn records nothing, and
// without the event in the file its UserPromptSubmit fires.
func e2eScenarioFailureEvent(version string, knows bool) func(*testing.T, e2eBinaries) {
	return func(t *testing.T, bins e2eBinaries) {
		claude := e2eRequireClaudeVersion(t, version)
		w := e2eNewWorld(t, bins, claude, e2eNoHooks)
		proj := w.NewProject("проект события")
		fake := e2eNewFake(t, 2000)
		e2eFailOnExit(t, fake)
		rec := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": e2eQuote(bins.RecHook), "timeout": 15}}}
		events := func(evs ...string) map[string]any {
			hooks := map[string]any{}
			for _, ev := range evs {
				hooks[ev] = []any{rec}
			}
			return map[string]any{"hooks": hooks}
		}
		turn := func(prompt string) {
			fake.Script(
				e2eReply{e2eBash("echo broken >&2; exit 3", "Fail")},
				e2eReply{e2eBash("echo fine", "Pass")},
				e2eReply{e2eText("One failed, one passed.")},
			)
			w.Claude(fake, proj, "", prompt)
		}
		count := func() map[string]int {
			n := map[string]int{}
			for _, r := range w.HookRuns() {
				n[r.Event]++
			}
			return n
		}

		e2eWriteSettings(t, w.Settings, events("UserPromptSubmit", "PostToolUse", "PostToolUseFailure"))
		turn("first turn")
		got := count()
		if !knows {
			if len(got) != 0 {
				t.Errorf("Claude Code %s ran hooks from a file naming PostToolUseFailure: %v", version, got)
			}
			e2eWriteSettings(t, w.Settings, events("UserPromptSubmit", "PostToolUse"))
			turn("second turn")
			got := count()
			t.Logf("Claude Code %s without PostToolUseFailure in the file ran %v", version, got)
			if got["UserPromptSubmit"] != 1 || got["PostToolUse"] != 1 {
				t.Errorf("without PostToolUseFailure Claude Code %s ran %v, want UserPromptSubmit once and PostToolUse", version, got)
			}
			e2eCheckInstallLeavesOut(t, w, version)
			return
		}
		t.Logf("Claude Code %s ran %v", version, got)
		if got["UserPromptSubmit"] != 1 || got["PostToolUseFailure"] != 1 || got["PostToolUse"] != 1 {
			t.Errorf("Claude Code %s ran %v, want UserPromptSubmit, PostToolUseFailure and PostToolUse once each", version, got)
		}
		for _, m := range w.Records() {
			if m["hook_event_name"] == "PostToolUseFailure" && (m["tool_name"] != "Bash" || !strings.Contains(e2eString(m["error"]), "broken")) {
				b, _ := json.Marshal(m)
				t.Errorf("PostToolUseFailure payload: %s", b)
			}
		}
	}
}

// e2eCheckInstallLeavesOut checks that install, told the release, writes
// no PostToolUseFailure for it, as IN-18 says.
func e2eCheckInstallLeavesOut(t *testing.T, w *e2eWorld, version string) {
	t.Helper()
	cmd := exec.Command(w.bins.Guard, "install", "--settings", w.Settings, "--claude-version", version)
	cmd.Env = w.env(nil)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "does not know PostToolUseFailure") {
		t.Errorf("install --claude-version %s: %v\n%s", version, err, out)
	}
}

func e2eString(v any) string {
	s, _ := v.(string)
	return s
}
