//go:build e2e

package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// e2eClaudeNewest is the newest Claude Code release the harness runs beside
// the pin (E2E-1): the scenarios that name it prove what changed in it.
const e2eClaudeNewest = "2.1.337"

// TestE2EAutocompact proves on the newest release that watch's thresholds
// follow the window the client compacts at when the user set it with
// /autocompact (specs/e2e.md E2E-60, watch.md WA-43).
func TestE2EAutocompact(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	t.Run("E2E60_Autocompact_"+e2eClaudeNewest, func(t *testing.T) { e2eScenarioAutocompact(t, bins, e2eClaudeNewest) })
}

// spec: E2E-60 WA-43
//
// e2eScenarioAutocompact: `claude -p "/autocompact 300k"` saves the window
// per model in the user's settings; a session on that model then grows to
// 100k, 160k, 165k and 170k tokens. The client compacts against 300,000
// (its debug log's effectiveWindow is 280,000: the window less the output
// reserve), and watch's first notice comes at the 150,000 crossing (50% of
// 300,000) naming the window and the setting, where without the setting the
// model's 1,000,000-token window would have said nothing below 500,000.
func e2eScenarioAutocompact(t *testing.T, bins e2eBinaries, version string) {
	claude := e2eRequireClaudeVersion(t, version)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект autocompact")
	fake := e2eNewFake(t, 2000)
	fill := []int{100_000, 160_000, 165_000, 170_000}
	fake.tokensFor = func(n int) int { return fill[min(n, len(fill)-1)] }
	e2eFailOnExit(t, fake)

	res := w.Claude(fake, proj, "", "/autocompact 300k")
	if !strings.Contains(res.Result, "set to 300k tokens") {
		t.Fatalf("/autocompact 300k said %q", res.Result)
	}
	b, err := os.ReadFile(w.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		AutoCompactWindow any                                        `json:"autoCompactWindow"`
		ModelSettings     map[string]struct{ AutoCompactWindow any } `json:"modelSettings"`
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatalf("settings after /autocompact: %v\n%s", err, b)
	}
	if settings.AutoCompactWindow != nil || len(settings.ModelSettings) != 1 {
		t.Fatalf("/autocompact wrote %s, want one modelSettings entry and no top-level window", b)
	}
	var key string
	for k, v := range settings.ModelSettings {
		key = k
		if v.AutoCompactWindow != float64(300_000) {
			t.Fatalf("modelSettings[%q].autoCompactWindow = %v, want 300000", k, v.AutoCompactWindow)
		}
	}
	t.Logf("/autocompact 300k saved modelSettings[%q].autoCompactWindow = 300000 in the user's settings", key)

	fake.Script(
		e2eReply{e2eBash("echo one", "Step one")},
		e2eReply{e2eBash("echo two", "Step two")},
		e2eReply{e2eBash("echo three", "Step three")},
		e2eReply{e2eText("Turn 1 done.")},
		e2eReply{e2eText("Turn 2 done.")},
	)
	debug := filepath.Join(t.TempDir(), "debug.log")
	sid := w.Claude(fake, proj, "", "Шаг 1: three steps", "--debug-file", debug).SessionID
	w.Claude(fake, proj, sid, "Шаг 2: go on")

	reqs := e2eMainLoop(fake)
	if len(reqs) != 5 {
		t.Fatalf("%d main-loop requests, want 5", len(reqs))
	}
	if m := reqs[0].parsed.Model; m != key {
		t.Errorf("the session's model is %q; /autocompact saved the window for %q", m, key)
	}
	// The client compacts against the window /autocompact saved.
	db, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	if ws := regexp.MustCompile(`effectiveWindow=(\d+)`).FindAllStringSubmatch(string(db), -1); len(ws) == 0 || ws[len(ws)-1][1] != "280000" {
		t.Errorf("the client's debug log: effectiveWindow %v, want 280000 (300,000 less the 20,000 output reserve)", ws)
	}
	// watch's notice comes at 50% of that window, told once.
	fresh := e2eNewLines(fake, e2eNoticeMarker)
	told := 0
	for i, lines := range fresh {
		for _, l := range lines {
			told++
			if i < 2 || !strings.Contains(l, "% of the 300,000-token window (modelSettings.autoCompactWindow in ") ||
				!strings.Contains(l, "Thresholds crossed: 150,000 at") || !strings.Contains(l, "about 267,000 tokens") {
				t.Errorf("request %d: notice %q, want the 150,000 crossing of the 300,000-token window /autocompact set", i+1, l)
			}
			t.Logf("request %d carries the notice in a message of role %q: %s", i+1, e2eRoleHolding(reqs[i], e2eNoticeMarker), l)
		}
	}
	if told != 1 {
		t.Errorf("%d notices reached the model, want 1 (the 150,000 crossing)", told)
	}
}

// e2eRoleHolding is the role of the first message of r whose content holds
// s ("system" for the request's system prompt), or "".
func e2eRoleHolding(r *e2eRequest, s string) string {
	if strings.Contains(string(r.parsed.System), s) {
		return "system (top level)"
	}
	for _, m := range r.parsed.Messages {
		if strings.Contains(string(m.Content), s) {
			return m.Role
		}
	}
	return ""
}
