//go:build e2e

package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/selectsnap"
)

// e2eKindsVersions are the releases the kinds of compaction are proven on
// (specs/e2e.md E2E-31 to E2E-35): one of 2.1.193 to 2.1.220, which arm a
// precomputed compaction under the same flag, and the pinned one.
var e2eKindsVersions = []string{"2.1.210", e2eClaudeVersion}

// e2eKindsModel compacts by itself only with an auto-compact window set, on
// both releases (specs/watch.md WA-20): without one it waits for the API to
// refuse a prompt.
const e2eKindsModel = "claude-opus-4-5"

// TestE2EKinds runs the kinds of compaction of issue 19 with the real
// client: precomputed (forced on offline) with and without a configured
// window, three swaps in one process, and reactive; after every compaction
// the next main request names the snapshot of that compaction and only it.
func TestE2EKinds(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	type scenario struct {
		name string
		run  func(*testing.T, e2eBinaries, string)
	}
	var scs []scenario
	for _, v := range e2eKindsVersions {
		scs = append(scs,
			scenario{"E2E31_PrecomputedWindow_" + v, func(t *testing.T, b e2eBinaries, v string) { e2ePrecomputed(t, b, v, true) }},
			scenario{"E2E32_PrecomputedNoWindow_" + v, func(t *testing.T, b e2eBinaries, v string) { e2ePrecomputed(t, b, v, false) }},
			scenario{"E2E33_Reactive_" + v, e2eReactive},
		)
	}
	for i, sc := range scs {
		v := e2eKindsVersions[i/3]
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			sc.run(t, bins, v)
		})
	}
}

// e2eKindsWorld is a world for the kinds: compact-guard's hooks with the
// silent recording hook beside them, the model that compacts only when told,
// and a fake whose reported tokens follow the size of the request's
// messages (a quarter of their bytes, plus the prompt and tools), so that a
// compaction really makes room, and which refuses a prompt above 200,000.
func e2eKindsWorld(t *testing.T, bins e2eBinaries, version string) (*e2eWorld, *e2eFake, string) {
	claude := e2eRequireClaudeVersion(t, version)
	w := e2eNewWorld(t, bins, claude, e2eGuardAndRecordingHooks)
	proj := w.NewProject("проект виды")
	fake := e2eNewFake(t, 2000)
	fake.tokensOf = func(r *e2eRequest) int {
		n := 0
		for _, m := range r.parsed.Messages {
			n += len(m.Content)
		}
		return 15000 + n/4
	}
	fake.tooLong = 200000
	e2eFailOnExit(t, fake)
	w.ExtraEnv = append(w.ExtraEnv, "ANTHROPIC_MODEL="+e2eKindsModel)
	// The tool calls' and prompts' hook runs, to check the order selection
	// rests on (SS-26): none between a compaction's PreCompact and its
	// SessionStart, some between an arm and its swap.
	e2eRegisterRecordingOn(t, w, "PostToolUse", "UserPromptSubmit")
	return w, fake, proj
}

// Precompute forces precomputed compaction on, offline, as specs/selectsnap.md
// SS-18 measured: the cached remote flag in ~/.claude.json, the setting, and
// non-essential traffic allowed (with it disabled the cached flag is not read).
func (w *e2eWorld) Precompute() {
	w.t.Helper()
	e2eWriteSettings(w.t, filepath.Join(w.Home, ".claude.json"), map[string]any{
		"cachedGrowthBookFeatures": map[string]any{"tengu_sepia_moth": true}})
	b, err := os.ReadFile(w.Settings)
	if err != nil {
		w.t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		w.t.Fatal(err)
	}
	s["precomputeCompactionEnabled"] = true
	e2eWriteSettings(w.t, w.Settings, s)
	w.ExtraEnv = append(w.ExtraEnv, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=")
}

// e2eFillerSteps scripts n replies, each a text of about 20,000 tokens (as
// the fake counts them) and a Bash call with a command of its own.
func e2eFillerSteps(fake *e2eFake, label string, n int) {
	filler := strings.Repeat("filler ", 80000/7)
	for i := 1; i <= n; i++ {
		fake.Script(e2eReply{e2eText(filler), e2eBash(fmt.Sprintf("echo %s step %d", label, i), "Run a step")})
	}
}

// spec: E2E-31 E2E-32 E2E-34 E2E-42
//
// e2ePrecomputed: one `claude -p` process, precomputed compaction forced on,
// with an auto-compact window of 200,000 (the client arms at about 144,000
// and swaps at 167,000) or without one (it swaps when the API refuses a
// prompt). The first prompt of a session does not arm (its first compaction
// is an ordinary one); later the client arms and swaps again and again: at
// least three swaps, each without a PreCompact of its own, each pointer its
// own.
func e2ePrecomputed(t *testing.T, bins e2eBinaries, version string, window bool) {
	w, fake, proj := e2eKindsWorld(t, bins, version)
	w.Precompute()
	if window {
		w.ExtraEnv = append(w.ExtraEnv, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000")
	}
	e2eFillerSteps(fake, "swap", 55)
	fake.Script(e2eReply{e2eText("Done with the steps.")})
	sid := w.Claude(fake, proj, "", "Шаг: run the steps one after another").SessionID
	got := e2eCheckKinds(t, w, fake, sid)
	if got.precomputed < 3 {
		t.Errorf("%d precomputed swaps in one process, want at least 3", got.precomputed)
	}
	w.CheckAudit(sid, got.compactions)
}

// spec: E2E-33 E2E-42 SS-19
//
// e2eReactive: no auto-compact window and no precomputation: the client
// compacts when the API refuses a prompt as too long, keeping the newest
// messages; from the second compaction on, the pointer says it supersedes
// the one before; watch's notice says where the client compacts without a
// figure.
func e2eReactive(t *testing.T, bins e2eBinaries, version string) {
	w, fake, proj := e2eKindsWorld(t, bins, version)
	sid := ""
	for k := 1; k <= 3; k++ {
		e2eFillerSteps(fake, fmt.Sprintf("turn %d", k), 11)
		fake.Script(e2eReply{e2eText(fmt.Sprintf("Done with turn %d.", k))})
		sid = w.Claude(fake, proj, sid, fmt.Sprintf("Шаг %d: run the steps", k)).SessionID
	}
	got := e2eCheckKinds(t, w, fake, sid)
	if got.compactions < 3 || got.refused < 3 {
		t.Errorf("%d compactions after %d refused prompts, want at least 3 of each", got.compactions, got.refused)
	}
	if got.superseding < got.compactions-1 {
		t.Errorf("%d pointers say they supersede the one before, want %d", got.superseding, got.compactions-1)
	}
	notice := fmt.Sprintf("Automatic compaction comes when the API refuses a prompt as too long (Claude Code %s sets no auto-compact window for %s).", version, e2eKindsModel)
	found := false
	for _, r := range fake.Requests() {
		found = found || strings.Contains(e2eAllText(r), notice)
	}
	if !found {
		t.Errorf("no request carries watch's notice %q", notice)
	}
	w.CheckAudit(sid, got.compactions)
}

// e2eKindsResult is what e2eCheckKinds counted.
type e2eKindsResult struct {
	compactions, precomputed, refused, superseding int
}

// e2eKindsRecord is the part of a snapshot record the kinds check.
type e2eKindsRecord struct {
	HookEvent string `json:"hook_event"`
	Trigger   string `json:"trigger"`
	Coverage  struct {
		TranscriptSize int64 `json:"transcript_size"`
	} `json:"coverage"`
	Commands []struct {
		Command string `json:"command"`
	} `json:"commands"`
	Compaction *struct {
		At time.Time `json:"at"`
	} `json:"compaction"`
}

// e2eBoundary is a compact_boundary line of the transcript.
type e2eBoundary struct {
	Offset      int64
	Precomputed bool
}

// e2eCheckKinds checks every compaction of the session (E2E-34): the k-th
// SessionStart(compact) saw k-1 boundaries, and the client then wrote the
// k-th at or after the size it saw; a precomputed one's PreCompact ran at
// arm time, model responses came between it and the swap, and none ran at
// the swap; the next main request after the k-th SessionStart carries one
// compact-guard pointer, naming a snapshot of this compaction (covering the
// transcript past the previous boundary and up to that SessionStart, with
// the last command run before it; for a swap, taken at SessionStart) that
// no other compaction's pointer named, and names no other snapshot of the
// session; PostCompact confirmed it. It logs the measured table.
func e2eCheckKinds(t *testing.T, w *e2eWorld, fake *e2eFake, sid string) e2eKindsResult {
	t.Helper()
	data, err := os.ReadFile(w.TranscriptPath(sid))
	if err != nil {
		t.Fatal(err)
	}
	var bounds []e2eBoundary
	var off int64
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		var e struct {
			Subtype string `json:"subtype"`
			Meta    struct {
				Precomputed bool `json:"precomputed"`
			} `json:"compactMetadata"`
		}
		if json.Unmarshal(line, &e) == nil && e.Subtype == "compact_boundary" {
			bounds = append(bounds, e2eBoundary{Offset: off, Precomputed: e.Meta.Precomputed})
		}
		off += int64(len(line))
	}
	var starts, pres, loops []e2eHookRun
	for _, r := range w.HookRuns() {
		switch {
		case r.Event == "SessionStart" && r.Source == "compact":
			starts = append(starts, r)
		case r.Event == "PreCompact":
			pres = append(pres, r)
		case r.Event == "PostToolUse" || r.Event == "UserPromptSubmit":
			loops = append(loops, r)
		}
	}
	if len(starts) != len(bounds) {
		t.Fatalf("%d SessionStart(compact) runs, %d boundaries", len(starts), len(bounds))
	}
	snaps := e2eSnapshots(t, w.SnapDir, sid)
	reqs := fake.Requests()
	var res e2eKindsResult
	for _, r := range reqs {
		if r.Kind == "too_long" {
			res.refused++
		}
	}
	named := map[string]int{}
	var table []string
	prevBoundary, prevStart := int64(-1), ""
	prevNamed := ""
	for k, s := range starts {
		res.compactions++
		b := bounds[k]
		if b.Precomputed {
			res.precomputed++
		}
		if s.Probe.Boundaries != k || b.Offset < s.Probe.Size {
			t.Errorf("compaction %d: SessionStart saw %d boundaries at %d bytes; the boundary is at %d", k+1, s.Probe.Boundaries, s.Probe.Size, b.Offset)
		}
		var since []e2eHookRun // this compaction's PreCompact runs
		for _, p := range pres {
			if p.Probe.At > prevStart && p.Probe.At < s.Probe.At {
				since = append(since, p)
			}
		}
		// What came after the last PreCompact and before this compaction's
		// boundary: model responses made after it started (those made
		// before it may be written after it, E2E-41), and the tool calls'
		// and prompts' hook runs that started after it and before
		// SessionStart.
		went, ran := 0, 0
		if len(since) > 0 {
			last := since[len(since)-1]
			lastAt, _ := time.Parse(time.RFC3339Nano, last.Probe.At)
			went = e2eResponsesAfter(data, last.Probe.Size, b.Offset, lastAt)
			for _, l := range loops {
				if l.Probe.At > last.Probe.At && l.Probe.At < s.Probe.At {
					ran++
				}
			}
		}
		switch {
		case b.Precomputed && (len(since) == 0 || went == 0 || ran == 0):
			t.Errorf("compaction %d, precomputed: %d PreCompact runs since the one before, %d responses and %d tool call or prompt hooks after the last: want the arm's, then both", k+1, len(since), went, ran)
		case !b.Precomputed && (went > 0 || ran > 0):
			t.Errorf("compaction %d: %d responses and %d tool call or prompt hooks between its PreCompact and its SessionStart, want none (SS-26)", k+1, went, ran)
		}
		at, _ := time.Parse(time.RFC3339Nano, s.Probe.At)
		var next *e2eRequest
		for _, r := range reqs {
			if r.Kind == "tools" && r.Time.After(at) {
				next = r
				break
			}
		}
		if next == nil {
			t.Errorf("compaction %d: no main request after it", k+1)
			continue
		}
		var ours []string
		for _, c := range e2eAdditionalContexts(next) {
			if strings.Contains(c, "compact-guard") || strings.Contains(c, "snapshot") {
				ours = append(ours, c)
			}
		}
		if len(ours) != 1 {
			t.Errorf("compaction %d: request #%d carries %d pointers, want 1:\n%s", k+1, next.Seq, len(ours), strings.Join(ours, "\n----\n"))
			continue
		}
		name := selectsnap.NamedSnapshot(ours[0])
		rec := e2eReadKindsRecord(t, w.SnapDir, name)
		switch {
		case rec == nil:
			t.Errorf("compaction %d: the pointer names no snapshot of the session:\n%s", k+1, ours[0])
			continue
		case named[name] > 0:
			t.Errorf("compaction %d: %s was compaction %d's", k+1, name, named[name])
		case rec.Coverage.TranscriptSize <= prevBoundary || rec.Coverage.TranscriptSize > b.Offset:
			t.Errorf("compaction %d: %s covers %d bytes, not past the previous boundary (%d) up to this one (%d)", k+1, name, rec.Coverage.TranscriptSize, prevBoundary, b.Offset)
		case b.Precomputed && (rec.HookEvent != "SessionStart" || !strings.Contains(ours[0], "taken at the compaction is at")):
			t.Errorf("compaction %d, precomputed: %s (hook %q) is not taken at the swap:\n%s", k+1, name, rec.HookEvent, ours[0])
		case rec.Compaction == nil:
			t.Errorf("compaction %d: PostCompact did not confirm %s", k+1, name)
		}
		named[name] = k + 1
		// The client writes nothing of the session's own between a
		// compaction's hooks and its boundary but what it made before them
		// (E2E-41): the snapshot, completed by the later hooks (PO-C18), holds the
		// last command before the boundary.
		if last, want := e2eLastCommandOf(rec), e2eLastBash(data[:b.Offset]); last != want {
			t.Errorf("compaction %d: %s's last command is %q, the transcript's before the compaction %q", k+1, name, last, want)
		}
		text := e2eAllText(next)
		for _, o := range snaps {
			if o.Base != name && (strings.Contains(text, o.Base+".md") || strings.Contains(text, o.Base+".json")) {
				t.Errorf("compaction %d: request #%d names %s too", k+1, next.Seq, o.Base)
			}
		}
		if prevNamed != "" && strings.Contains(ours[0], "This pointer supersedes the one of ") {
			res.superseding++
		}
		table = append(table, fmt.Sprintf("compaction %d: precomputed %v; PreCompact runs since the one before %d, responses after the last %d, tool call or prompt hooks %d; SessionStart at %d bytes (%d boundaries), boundary at %d; pointer in request #%d names %s (hook %s, trigger %s, %d bytes)",
			k+1, b.Precomputed, len(since), went, ran, s.Probe.Size, s.Probe.Boundaries, b.Offset, next.Seq, name, rec.HookEvent, rec.Trigger, rec.Coverage.TranscriptSize))
		prevBoundary, prevStart, prevNamed = b.Offset, s.Probe.At, name
	}
	t.Logf("Claude Code %s, %d requests refused as too long:\n%s", w.claude.Version, res.refused, strings.Join(table, "\n"))
	return res
}

func e2eReadKindsRecord(t *testing.T, dir, name string) *e2eKindsRecord {
	t.Helper()
	if name == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		return nil
	}
	var r e2eKindsRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

func e2eLastCommandOf(r *e2eKindsRecord) string {
	if n := len(r.Commands); n > 0 {
		return r.Commands[n-1].Command
	}
	return ""
}

// e2eLastBash is the command of the last Bash call in the transcript's
// bytes data: what was run last before a compaction.
func e2eLastBash(data []byte) string {
	last := ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"Bash"`)) {
			continue
		}
		var e struct {
			Type    string `json:"type"`
			Side    bool   `json:"isSidechain"`
			Message struct {
				Content []struct {
					Type  string `json:"type"`
					Name  string `json:"name"`
					Input struct {
						Command string `json:"command"`
					} `json:"input"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "assistant" || e.Side {
			continue
		}
		for _, c := range e.Message.Content {
			if c.Type == "tool_use" && c.Name == "Bash" {
				last = c.Input.Command
			}
		}
	}
	return last
}

// e2eResponsesAfter counts the model responses (as e2eResponsesIn) among
// the lines that start in [from, to) and are timestamped after at.
func e2eResponsesAfter(data []byte, from, to int64, at time.Time) int {
	n := 0
	var off int64
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		start := off
		off += int64(len(line))
		if start < from || start >= to {
			continue
		}
		var e struct {
			Timestamp time.Time `json:"timestamp"`
		}
		if json.Unmarshal(line, &e) == nil && e.Timestamp.After(at) && e2eResponsesIn(line, 0, 1) == 1 {
			n++
		}
	}
	return n
}
