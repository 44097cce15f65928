//go:build e2e

package cmd_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/transcript"
)

// TestE2ECompactions runs sessions that compact again and again, with the
// real client in each of the ways users run it (specs/e2e.md, E2E-11 to
// E2E-14): after the k-th compaction the next model request carries the
// k-th snapshot's pointer and no other.
func TestE2ECompactions(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	for _, sc := range []struct {
		name string
		run  func(*testing.T, e2eBinaries)
	}{
		{"E2E11_Headless", e2eScenarioHeadlessCompactions(e2eClaudeVersion)},
		{"E2E11_Headless_2.1.332", e2eScenarioHeadlessCompactions("2.1.332")},
		{"E2E11_Headless_" + e2eClaudeNewest, e2eScenarioHeadlessCompactions(e2eClaudeNewest)},
		{"E2E12_StreamJSON", e2eScenarioStreamJSONCompactions(e2eClaudeVersion)},
		{"E2E12_StreamJSON_2.1.119", e2eScenarioStreamJSONCompactions("2.1.119")},
		{"E2E12_StreamJSON_2.0.76", e2eScenarioStreamJSONCompactions("2.0.76")},
		{"E2E13_Auto", e2eScenarioAutoCompactions},
		{"E2E11_NoPreCompact", e2eScenarioCompactionWithoutPreCompact},
		{"E2E14_TUI", e2eScenarioTUICompactions},
	} {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins)
		})
	}
}

// e2eCompactionPrompts are the typed prompts of a multi-compaction session:
// each names its compaction, so that a pointer with the wrong prompt shows.
func e2eCompactionPrompt(k int) string {
	return fmt.Sprintf("Шаг %d: edit step%d.txt before compaction %d", k, k, k)
}

// e2eScriptEditTurn scripts one turn that writes a file of the project and
// answers.
func e2eScriptEditTurn(fake *e2eFake, project string, k int) {
	fake.Script(
		e2eReply{e2eWrite(filepath.Join(project, fmt.Sprintf("step%d.txt", k)), fmt.Sprintf("step %d\n", k))},
		e2eReply{e2eText(fmt.Sprintf("Done with step %d.", k))},
	)
}

// e2eCompactionOwn is, for each compaction request the fake saw (oldest
// first), the snapshot of the session taken for it: the newest one created
// before the request arrived (PreCompact runs before it; the client may run
// PreCompact for a compaction it then abandons, E2E-6).
func e2eCompactionOwn(t *testing.T, fake *e2eFake, snaps []e2eSnap) []*e2eSnap {
	t.Helper()
	var own []*e2eSnap
	for _, r := range fake.Requests() {
		if r.Kind != "summary" {
			continue
		}
		var s *e2eSnap
		for i := range snaps {
			if snaps[i].Rec.CreatedAt.Before(r.Time) {
				s = &snaps[i]
			}
		}
		own = append(own, s)
	}
	return own
}

// e2eCheckEveryPointer checks that after each of the session's compactions
// the next request to the model (a main-loop request, or the next
// compaction request when two follow each other) carries exactly one
// SessionStart context, naming the snapshot taken for that compaction, and
// names no other snapshot of the session. It returns the number of
// compactions seen.
func e2eCheckEveryPointer(t *testing.T, fake *e2eFake, snapDir, sid string) int {
	t.Helper()
	snaps := e2eSnapshots(t, snapDir, sid)
	own := e2eCompactionOwn(t, fake, snaps)
	reqs := fake.Requests()
	k := 0
	for i, r := range reqs {
		if r.Kind != "summary" {
			continue
		}
		k++
		s := own[k-1]
		if s == nil {
			t.Errorf("compaction %d (request #%d): no snapshot of the session was taken before it", k, r.Seq)
			continue
		}
		next := e2eNextModelRequest(reqs, i)
		if next == nil {
			t.Errorf("compaction %d: no request to the model after it", k)
			continue
		}
		var ours []string
		for _, c := range e2eAdditionalContexts(next) {
			if strings.Contains(c, "snapshot") || strings.Contains(c, "compact-guard") {
				ours = append(ours, c)
			}
		}
		if len(ours) != 1 || !strings.Contains(ours[0], s.MDPath) {
			t.Errorf("compaction %d: request #%d after it carries %d pointer(s), want one naming %s:\n%s",
				k, next.Seq, len(ours), s.Base, strings.Join(ours, "\n----\n"))
		}
		text := e2eAllText(next)
		if ins, ok := e2eSummaryInstructions(next); ok && next.Kind == "summary" {
			// The next compaction's own summary hint names its own
			// snapshot (PC-27, E2E-26).
			text = strings.Replace(text, ins, "", 1)
		}
		for _, o := range snaps {
			// Whole file names: one base name can be the prefix of another's.
			if o.Base != s.Base && (strings.Contains(text, o.Base+".md") || strings.Contains(text, o.Base+".json")) {
				t.Errorf("compaction %d: request #%d names %s, not this compaction's snapshot %s", k, next.Seq, o.Base, s.Base)
			}
		}
		if !e2eHasPrompt(text, e2eLastPromptOf(s)) {
			t.Errorf("compaction %d: the pointer lacks the snapshot's last prompt %q", k, e2eLastPromptOf(s))
		}
		t.Logf("compaction %d (request #%d): request #%d carries the pointer to %s", k, r.Seq, next.Seq, s.Base)
	}
	return k
}

// e2eNextModelRequest is the first request to the model after reqs[i]: a
// main-loop request, or the next compaction request when two compactions
// follow each other; nil when there is none.
func e2eNextModelRequest(reqs []*e2eRequest, i int) *e2eRequest {
	for _, n := range reqs[i+1:] {
		if n.Kind == "tools" || n.Kind == "summary" {
			return n
		}
	}
	return nil
}

func e2eLastPromptOf(s *e2eSnap) string {
	if n := len(s.Rec.Prompts); n > 0 {
		return s.Rec.Prompts[n-1].Text
	}
	return ""
}

// e2eCheckConfirmed checks that PostCompact confirmed each compaction's own
// snapshot.
func e2eCheckConfirmed(t *testing.T, fake *e2eFake, snapDir, sid string) {
	t.Helper()
	for k, s := range e2eCompactionOwn(t, fake, e2eSnapshots(t, snapDir, sid)) {
		if s == nil {
			continue
		}
		b, err := os.ReadFile(s.JSONPath)
		if err != nil {
			t.Fatal(err)
		}
		var r struct {
			Compaction *struct {
				At time.Time `json:"at"`
			} `json:"compaction"`
		}
		if json.Unmarshal(b, &r) != nil || r.Compaction == nil {
			t.Errorf("compaction %d: PostCompact did not confirm %s", k+1, s.Base)
		}
	}
}

// spec: E2E-11
//
// e2eScenarioHeadlessCompactions: one session, `claude -p` with --resume,
// compacted four times: three times after a turn, once right after the
// compaction before it; on the pinned release and the newest measured.
// Releases before 2.1.120 drop SessionStart context when a session is
// resumed in a new process (reference §0), so they are run in one process
// (E2E-12) here; issue 11's fallback delivery covers --resume for them.
func e2eScenarioHeadlessCompactions(version string) func(*testing.T, e2eBinaries) {
	return func(t *testing.T, bins e2eBinaries) { e2eHeadlessCompactions(t, bins, version) }
}

func e2eHeadlessCompactions(t *testing.T, bins e2eBinaries, version string) {
	claude := e2eRequireClaudeVersion(t, version)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект много")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	sid := ""
	for k := 1; k <= 3; k++ {
		e2eScriptEditTurn(fake, proj, k)
		sid = w.Claude(fake, proj, sid, e2eCompactionPrompt(k)).SessionID
		w.Compact(fake, proj, sid, fmt.Sprintf("compaction %d", k))
	}
	w.Compact(fake, proj, sid, "") // back to back
	fake.Script(e2eReply{e2eText("Compacted four times.")})
	w.Claude(fake, proj, sid, "What was I doing?")

	if n := e2eCheckEveryPointer(t, fake, w.SnapDir, sid); n != 4 {
		t.Errorf("%d compactions, want 4", n)
	}
	if snaps := e2eSnapshots(t, w.SnapDir, sid); len(snaps) != 4 {
		t.Errorf("%d snapshots of the session, want one per compaction (4)", len(snaps))
	}
	e2eCheckConfirmed(t, fake, w.SnapDir, sid)
	w.CheckAudit(sid, 4)
}

// spec: E2E-11
//
// e2eScenarioCompactionWithoutPreCompact: compactions whose PreCompact hook
// never ran, after a turn or right after a compaction that had one, get a
// snapshot taken at SessionStart (PO-C10), each its own: never the earlier
// compaction's snapshot. (Before issue 19 they got no pointer.)
func e2eScenarioCompactionWithoutPreCompact(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект без снимка")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	e2eScriptEditTurn(fake, proj, 1)
	sid := w.Claude(fake, proj, "", e2eCompactionPrompt(1)).SessionID
	w.Compact(fake, proj, sid, "with its snapshot")
	// PreCompact is taken out: the next compactions have no snapshot.
	e2eDropHook(t, w.Settings, "PreCompact")
	w.Compact(fake, proj, sid, "right after, without PreCompact")
	e2eScriptEditTurn(fake, proj, 2)
	w.Claude(fake, proj, sid, e2eCompactionPrompt(2))
	w.Compact(fake, proj, sid, "after a turn, without PreCompact")
	fake.Script(e2eReply{e2eText("Three compactions, one snapshot.")})
	w.Claude(fake, proj, sid, "What was I doing?")

	snaps := e2eSnapshots(t, w.SnapDir, sid)
	if len(snaps) != 3 {
		t.Fatalf("%d snapshots of the session, want 3: the first compaction's, and one taken at SessionStart for each of the other two", len(snaps))
	}
	reqs := fake.Requests()
	k := 0
	for i, r := range reqs {
		if r.Kind != "summary" {
			continue
		}
		k++
		next := e2eNextModelRequest(reqs, i)
		if next == nil {
			t.Fatalf("compaction %d: no request after it", k)
		}
		named := strings.Contains(e2eAllText(next), snaps[0].Base+".md")
		if k == 1 && !named {
			t.Errorf("compaction 1: request #%d does not carry its pointer", next.Seq)
		}
		if k > 1 {
			// The first pointer lies in the summarised conversation of the
			// next compaction request, not in a SessionStart context.
			ctxs := e2eAdditionalContexts(next)
			for _, c := range ctxs {
				if strings.Contains(c, snaps[0].Base+".md") {
					t.Errorf("compaction %d (no PreCompact): request #%d is handed the first compaction's snapshot:\n%s", k, next.Seq, c)
				}
			}
			if len(ctxs) != 1 || !strings.Contains(ctxs[0], snaps[k-1].MDPath) || !strings.Contains(ctxs[0], "taken at the compaction is at") {
				t.Errorf("compaction %d (no PreCompact): request #%d carries %q, want one pointer to the snapshot taken at its SessionStart %s", k, next.Seq, ctxs, snaps[k-1].Base)
			}
		}
	}
	if k != 3 {
		t.Fatalf("%d compactions, want 3", k)
	}
	// Each SessionStart without its snapshot logs the one it turned down
	// (by its prompt id, on this release: SS-8a), and the snapshot it took.
	if !w.LogHas(`snapshot taken at the compaction`, 2) || !w.LogHas(`newer_turned_down=0 turned_down="`+snaps[0].Base+`: `, 1) {
		b, _ := os.ReadFile(w.Log)
		t.Errorf("the log does not name the snapshot turned down and the one taken:\n%s", b)
	}
}

// spec: E2E-12
//
// e2eScenarioStreamJSONCompactions: one client process reading its turns as
// stream-json on stdin, compacted three times; on the pinned release and
// on the older ones E2E-10 measured (2.0.76 with the hooks install writes
// for it, without PostCompact, IN-18).
func e2eScenarioStreamJSONCompactions(version string) func(*testing.T, e2eBinaries) {
	return func(t *testing.T, bins e2eBinaries) { e2eStreamJSONCompactions(t, bins, version) }
}

func e2eStreamJSONCompactions(t *testing.T, bins e2eBinaries, version string) {
	claude := e2eRequireClaudeVersion(t, version)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект поток")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	s := w.StartStream(fake, proj)
	for k := 1; k <= 3; k++ {
		e2eScriptEditTurn(fake, proj, k)
		s.Turn(e2eCompactionPrompt(k))
		before := fake.Summaries()
		s.Turn(fmt.Sprintf("/compact compaction %d", k))
		if fake.Summaries() != before+1 {
			t.Fatalf("/compact %d sent %d compaction requests", k, fake.Summaries()-before)
		}
	}
	fake.Script(e2eReply{e2eText("Compacted three times.")})
	s.Turn("What was I doing?")
	sid := s.Close()

	if n := e2eCheckEveryPointer(t, fake, w.SnapDir, sid); n != 3 {
		t.Errorf("%d compactions, want 3", n)
	}
	w.CheckInstalledFor(version)
	if !transcript.VersionBefore(version, "2.1.76") {
		e2eCheckConfirmed(t, fake, w.SnapDir, sid)
	}
	w.CheckAudit(sid, 3)
}

// spec: E2E-13
//
// e2eScenarioAutoCompactions: the fake reports 190,000 input tokens on
// every request but the first after a compaction, and the client runs with
// --autocompact 100000: each turn with a tool call makes it compact by
// itself. Three turns, three automatic compactions.
func e2eScenarioAutoCompactions(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект авто много")
	fake := e2eNewFake(t, 190000)
	fake.lowAfterSummary = 3000
	e2eFailOnExit(t, fake)
	auto := []string{"--autocompact", "100000"}
	sid := ""
	for k := 1; k <= 3; k++ {
		fake.Script(
			e2eReply{e2eBash(fmt.Sprintf("echo step %d", k), "Run a step")},
			e2eReply{e2eWrite(filepath.Join(proj, fmt.Sprintf("step%d.txt", k)), "x\n")},
			e2eReply{e2eText(fmt.Sprintf("Done with step %d.", k))},
		)
		before := fake.Summaries()
		sid = w.Claude(fake, proj, sid, e2eCompactionPrompt(k), auto...).SessionID
		if fake.Summaries() == before {
			t.Fatalf("turn %d: the client did not compact by itself", k)
		}
	}
	if n := e2eCheckEveryPointer(t, fake, w.SnapDir, sid); n < 3 {
		t.Errorf("%d automatic compactions, want at least 3", n)
	}
	for _, e := range w.Transcript(sid) {
		if m, _ := e["compactMetadata"].(map[string]any); e["subtype"] == "compact_boundary" && m["trigger"] != "auto" {
			t.Errorf("a boundary with trigger %v, want auto", m["trigger"])
		}
	}
	e2eCheckConfirmed(t, fake, w.SnapDir, sid)
	w.CheckAudit(sid, e2eSummaryCount(fake))
}

func e2eSummaryCount(fake *e2eFake) int { return fake.Summaries() }

// spec: E2E-14
//
// e2eScenarioTUICompactions: the interactive client in a terminal (tmux), as
// a user meets it: the folder trust dialog and the API key question are
// answered with keys; the onboarding a returning user has already done is
// in ~/.claude.json. Three turns, each followed by /compact.
func e2eScenarioTUICompactions(t *testing.T, bins e2eBinaries) {
	claude := e2eRequireClaude(t)
	w := e2eNewWorld(t, bins, claude, e2eGuardHooks)
	proj := w.NewProject("проект терминал")
	fake := e2eNewFake(t, 2000)
	e2eFailOnExit(t, fake)
	w.ReturningUser()
	u := w.StartTUI(fake, proj, "--allowedTools", "Write Edit Bash", "--permission-mode", "default")
	u.Choose("Yes, I trust this folder", false) // the last option
	u.Choose("Yes", true)                       // the first: use the API key from the environment
	u.WaitScreen("the prompt", 60*time.Second, func(s string) bool {
		return strings.Contains(s, "? for shortcuts") || strings.Contains(s, "manual mode")
	})
	requests := func() int { return len(fake.Requests()) }
	for k := 1; k <= 3; k++ {
		e2eScriptEditTurn(fake, proj, k)
		n := requests()
		u.Submit(fmt.Sprintf("Step %d: edit step%d.txt before compaction %d", k, k, k), func() bool { return requests() > n })
		done := fmt.Sprintf("Done with step %d.", k)
		u.WaitScreen("the answer to turn "+fmt.Sprint(k), 90*time.Second, func(s string) bool { return strings.Contains(s, done) })
		before := fake.Summaries()
		u.Submit(fmt.Sprintf("/compact compaction %d", k), func() bool { return fake.Summaries() > before })
		if !e2eWaitFor(90*time.Second, func() bool { return w.LogHas("postcompact(PostCompact) session=", before+1) }) {
			t.Fatalf("/compact %d: no PostCompact run within 90 s; screen:\n%s", k, u.Screen())
		}
	}
	fake.Script(e2eReply{e2eText("Compacted three times in the terminal.")})
	n := requests()
	u.Submit("What was I doing?", func() bool { return requests() > n })
	u.WaitScreen("the last answer", 90*time.Second, func(s string) bool { return strings.Contains(s, "Compacted three times in the terminal.") })
	sid := e2eOnlySession(t, fake)
	if n := e2eCheckEveryPointer(t, fake, w.SnapDir, sid); n != 3 {
		t.Errorf("%d compactions, want 3", n)
	}
	e2eCheckConfirmed(t, fake, w.SnapDir, sid)
	w.CheckAudit(sid, 3)
}

// e2eOnlySession is the one session the fake's requests name.
func e2eOnlySession(t *testing.T, fake *e2eFake) string {
	t.Helper()
	ids := map[string]bool{}
	for _, r := range fake.Requests() {
		if s := r.SessionID(); s != "" {
			ids[s] = true
		}
	}
	if len(ids) != 1 {
		t.Fatalf("requests name sessions %v, want one", ids)
	}
	for id := range ids {
		return id
	}
	return ""
}

// ---------------------------------------------------------------------------
// The headless client reading stream-json.

// e2eStream is one client process reading user messages as stream-json on
// stdin and writing stream-json events on stdout.
type e2eStream struct {
	w      *e2eWorld
	stdin  io.WriteCloser
	events chan map[string]any
	done   chan error
	sid    string
	cancel context.CancelFunc
	// Seen holds every event the turns read, in order (E2E-26).
	Seen []map[string]any
}

// StartStream starts `claude -p --input-format stream-json --output-format
// stream-json --verbose` in project against fake.
func (w *e2eWorld) StartStream(fake *e2eFake, project string) *e2eStream {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	cmd := w.claude.Command(ctx, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--settings", w.Settings, "--allowedTools", "Write Edit Bash")
	cmd.Dir = project
	cmd.Env = w.env(fake)
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	s := &e2eStream{w: w, stdin: stdin, events: make(chan map[string]any, 1000), done: make(chan error, 1), cancel: cancel}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				s.events <- ev
			}
		}
		close(s.events)
		s.done <- cmd.Wait()
	}()
	w.t.Cleanup(func() {
		cancel()
		if w.t.Failed() {
			w.t.Logf("stream-json client stderr:\n%s", stderr.String())
		}
	})
	return s
}

// Turn sends one user message and waits for the turn's result event.
func (s *e2eStream) Turn(text string) map[string]any {
	s.w.t.Helper()
	line, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
	if _, err := s.stdin.Write(append(line, '\n')); err != nil {
		s.w.t.Fatalf("stream-json stdin: %v", err)
	}
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				s.w.t.Fatalf("the stream-json client ended during the turn %q: %v", text, <-s.done)
			}
			if id, _ := ev["session_id"].(string); id != "" {
				s.sid = id
			}
			s.Seen = append(s.Seen, ev)
			if ev["type"] == "result" {
				if ev["is_error"] == true {
					s.w.t.Fatalf("turn %q: %v", text, ev)
				}
				return ev
			}
		case <-timeout:
			s.w.t.Fatalf("turn %q: no result event within 2 minutes", text)
		}
	}
}

// Close ends the input, waits for the client to exit and returns the
// session id it reported.
func (s *e2eStream) Close() string {
	s.w.t.Helper()
	s.stdin.Close()
	for range s.events {
	}
	if err := <-s.done; err != nil {
		s.w.t.Errorf("stream-json client: %v", err)
	}
	return s.sid
}

// ---------------------------------------------------------------------------
// What the world shows after a run.

// ReturningUser writes the onboarding state a user has in ~/.claude.json
// after the client's first start (theme chosen, onboarding done), so that
// the interactive client opens on the folder trust dialog.
func (w *e2eWorld) ReturningUser() {
	w.t.Helper()
	e2eWriteSettings(w.t, filepath.Join(w.Home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true, "lastOnboardingVersion": w.claude.Version, "theme": "dark",
	})
}

// CheckInstalledFor checks that install, asking the client on PATH, left
// out the events the release does not know (IN-18: PostCompact before
// 2.1.76, which would make it load no hook at all).
func (w *e2eWorld) CheckInstalledFor(version string) {
	w.t.Helper()
	b, err := os.ReadFile(w.Settings)
	if err != nil {
		w.t.Fatal(err)
	}
	if has, want := strings.Contains(string(b), "PostCompact"), !transcript.VersionBefore(version, "2.1.76"); has != want {
		w.t.Errorf("Claude Code %s: PostCompact registered %v, want %v:\n%s", version, has, want, b)
	}
}

// LogHas reports whether at least n lines of the hook log contain s.
func (w *e2eWorld) LogHas(s string, n int) bool {
	b, _ := os.ReadFile(w.Log)
	return strings.Count(string(b), s) >= n
}

// CheckAudit runs `compact-guard audit --json` over the world's Claude
// Code folder and checks that it reports n compactions of the session,
// each with its own snapshot, delivered and naming that snapshot.
func (w *e2eWorld) CheckAudit(sid string, n int) {
	w.t.Helper()
	cmd := exec.Command(w.bins.Guard, "audit", "--json")
	cmd.Env = w.env(nil)
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("compact-guard audit --json: %v\n%s", err, out)
	}
	var rep struct {
		Sessions []struct {
			SessionID   string `json:"session_id"`
			Compactions []struct {
				Index     int    `json:"index"`
				Trigger   string `json:"trigger"`
				Snapshot  string `json:"snapshot"`
				Delivered string `json:"delivered"`
				Named     string `json:"named"`
				Own       bool   `json:"own"`
			} `json:"compactions"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		w.t.Fatalf("audit --json: %v\n%s", err, out)
	}
	for _, s := range rep.Sessions {
		if s.SessionID != sid {
			continue
		}
		if len(s.Compactions) != n {
			w.t.Errorf("audit: %d compactions of %s, want %d:\n%s", len(s.Compactions), sid, n, out)
		}
		// Releases before 2.1.120 record no hook context in the transcript
		// (reference §0): the audit cannot tell, and says so.
		recorded := !transcript.VersionBefore(w.claude.Version, "2.1.120")
		for _, c := range s.Compactions {
			switch {
			case c.Snapshot == "":
				w.t.Errorf("audit: compaction %d has no snapshot: %+v\n%s", c.Index, c, out)
			case recorded && (c.Delivered != "yes" || !c.Own || c.Named != c.Snapshot):
				w.t.Errorf("audit: compaction %d is not delivered and own: %+v\n%s", c.Index, c, out)
			case !recorded && (c.Delivered != "unknown" || c.Named != "" && !c.Own):
				w.t.Errorf("audit: compaction %d of Claude Code %s: %+v, want delivery unknown\n%s", c.Index, w.claude.Version, c, out)
			}
		}
		return
	}
	w.t.Errorf("audit does not report session %s:\n%s", sid, out)
}
