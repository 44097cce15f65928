//go:build e2e

package cmd_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/selectsnap"
)

// e2eLagFollow is the recording hook's follow mode for the lag
// measurement (cmd/testdata/e2e/rechook): it follows the transcript after
// PreCompact and SessionStart(compact) start until it has been quiet for a
// second, at most eight.
var e2eLagFollow = []string{
	"E2E_RECHOOK_FOLLOW=PreCompact,SessionStart:compact",
	"E2E_RECHOOK_FOLLOW_QUIET_MS=1000",
	"E2E_RECHOOK_FOLLOW_MAX_MS=8000",
}

// e2eLagRun is a recorded hook run with what it followed.
type e2eLagRun struct {
	Event    string   `json:"hook_event_name"`
	Source   string   `json:"source,omitempty"`
	ToolName string   `json:"tool_name,omitempty"`
	PromptID string   `json:"prompt_id,omitempty"`
	Probe    e2eProbe `json:"_probe"`
	Follow   *struct {
		Growth []struct {
			Ms   float64 `json:"ms"`
			Size int64   `json:"size"`
		} `json:"growth"`
		EndMs   float64 `json:"end_ms"`
		EndSize int64   `json:"end_size"`
	} `json:"_follow"`
}

// e2eLagEntry is one transcript line as the lag measurement sees it.
type e2eLagEntry struct {
	Offset, End int64
	Type        string
	Subtype     string
	Time        time.Time
	Sidechain   bool
	Summary     bool
	Precomputed bool
	What        string // tool_use NAME(command), tool_result, text, …
	// Copy: a line whose uuid an earlier line holds (2.1.193 to 2.1.300
	// append copies of earlier lines before a compaction's, E2E-12).
	Copy bool
}

func e2eLagEntries(data []byte) []e2eLagEntry {
	var out []e2eLagEntry
	var off int64
	seen := map[string]bool{}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		start := off
		off += int64(len(line))
		var e struct {
			UUID      string `json:"uuid"`
			Type      string `json:"type"`
			Subtype   string `json:"subtype"`
			Timestamp string `json:"timestamp"`
			Sidechain bool   `json:"isSidechain"`
			Summary   bool   `json:"isCompactSummary"`
			Meta      struct {
				Precomputed bool `json:"precomputed"`
			} `json:"compactMetadata"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		le := e2eLagEntry{Offset: start, End: off, Type: e.Type, Subtype: e.Subtype, Sidechain: e.Sidechain, Summary: e.Summary,
			Precomputed: e.Meta.Precomputed, Copy: e.UUID != "" && seen[e.UUID]}
		seen[e.UUID] = e.UUID != ""
		le.Time, _ = time.Parse(time.RFC3339Nano, e.Timestamp)
		var blocks []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Input struct {
				Command string `json:"command"`
			} `json:"input"`
		}
		if json.Unmarshal(e.Message.Content, &blocks) == nil {
			var w []string
			for _, b := range blocks {
				switch b.Type {
				case "tool_use":
					w = append(w, fmt.Sprintf("tool_use %s(%s)", b.Name, b.Input.Command))
				default:
					w = append(w, b.Type)
				}
			}
			le.What = strings.Join(w, "+")
		}
		out = append(out, le)
	}
	return out
}

// e2eLagRow is what the measurement found for one hook run.
type e2eLagRow struct {
	Version, Scenario, Hook string
	// Missing are the entries timestamped before the hook started but not
	// in the transcript then; Arrived is, for each, when it was written,
	// in ms after the hook started (-1: after the hook's follow ended).
	Missing []string
	Arrived []float64
	// MissingEnd is where each missing entry ends in the file, and
	// MissingOwn whether it is one of the session's own (user, assistant,
	// attachment): those a snapshot must hold (E2E-62).
	MissingEnd []int64
	MissingOwn []bool
	// At is when the hook started.
	At time.Time
	// Growth is how the file grew during the follow (ms:bytes).
	Growth string
	// AfterArm counts, for a swap's SessionStart, the PostToolUse runs
	// since the arm's PreCompact, and the model responses after the arm
	// that the transcript held at SessionStart and holds in the end.
	AfterArm                      int
	ResponsesAtHook, ResponsesEnd int
	// Order is the hook runs from the last PreCompact to this one, in ms
	// after that PreCompact, and the tool calls near them.
	Order string
	// Swap: the compaction's boundary is precomputed (a SessionStart row).
	Swap bool
}

// e2eMeasureLag measures, for each followed hook run of the session, which
// entries the client had made before the hook started and not written yet
// (they are timestamped before it and start at or after the size the hook
// saw, before the compaction's boundary), and when each was written.
func e2eMeasureLag(t *testing.T, w *e2eWorld, sid, scenario string) []e2eLagRow {
	t.Helper()
	data, err := os.ReadFile(w.TranscriptPath(sid))
	if err != nil {
		t.Fatal(err)
	}
	entries := e2eLagEntries(data)
	var runs []e2eLagRun
	ents, err := os.ReadDir(w.RecordDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range ents { // names start with a nanosecond time
		b, err := os.ReadFile(filepath.Join(w.RecordDir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var r e2eLagRun
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(filepath.Dir(w.RecordDir), "follow", de.Name())); err == nil {
			if err := json.Unmarshal(b, &r.Follow); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, r)
	}
	var rows []e2eLagRow
	lastPre := -1
	for i, r := range runs {
		if r.Event == "PreCompact" {
			lastPre = i
		}
		if r.Follow == nil {
			continue
		}
		at, _ := time.Parse(time.RFC3339Nano, r.Probe.At)
		row := e2eLagRow{Version: w.claude.Version, Scenario: scenario, Hook: r.Event, At: at}
		if r.Source != "" {
			row.Hook += "(" + r.Source + ")"
		}
		for _, g := range r.Follow.Growth {
			row.Growth += fmt.Sprintf(" %.0fms:+%d", g.Ms, g.Size-r.Probe.Size)
		}
		for _, e := range entries {
			if e.Offset < r.Probe.Size {
				continue
			}
			if e.Subtype == "compact_boundary" {
				break
			}
			if e.Time.IsZero() || !e.Time.Before(at) || e.Summary || e.Copy {
				continue
			}
			what := e.Type
			if e.What != "" {
				what += " " + e.What
			}
			if e.Sidechain {
				what += " (sidechain)"
			}
			row.Missing = append(row.Missing, fmt.Sprintf("%s [%.0fms before]", what, float64(at.Sub(e.Time).Microseconds())/1000))
			row.MissingEnd = append(row.MissingEnd, e.End)
			row.MissingOwn = append(row.MissingOwn, e.Type == "user" || e.Type == "assistant" || e.Type == "attachment")
			arrived := -1.0
			for _, g := range r.Follow.Growth {
				if g.Size >= e.End {
					arrived = g.Ms
					break
				}
			}
			row.Arrived = append(row.Arrived, arrived)
		}
		if r.Event == "SessionStart" && lastPre >= 0 {
			pre := runs[lastPre]
			for _, q := range runs[lastPre+1 : i] {
				if q.Event == "PostToolUse" || q.Event == "UserPromptSubmit" {
					row.AfterArm++
				}
			}
			row.ResponsesAtHook = e2eResponsesIn(data, pre.Probe.Size, r.Probe.Size)
			end := int64(len(data))
			for _, e := range entries {
				if e.Offset >= r.Probe.Size && e.Subtype == "compact_boundary" {
					end = e.Offset
					break
				}
			}
			row.ResponsesEnd = e2eResponsesIn(data, pre.Probe.Size, end)
			for _, e := range entries {
				if e.Offset == end && e.Subtype == "compact_boundary" {
					row.Swap = e.Precomputed
				}
			}
			preAt, _ := time.Parse(time.RFC3339Nano, pre.Probe.At)
			for _, q := range runs[lastPre : i+1] {
				qa, _ := time.Parse(time.RFC3339Nano, q.Probe.At)
				row.Order += fmt.Sprintf(" %s@%.0f", q.Event, float64(qa.Sub(preAt).Microseconds())/1000)
			}
			for _, e := range entries {
				if e.Offset >= end {
					break
				}
				if e.Type == "assistant" && !e.Sidechain && strings.Contains(e.What, "tool_use") && e.Time.After(preAt.Add(-2*time.Second)) {
					row.Order += fmt.Sprintf(" [%s@%.0f written %v]", e.What, float64(e.Time.Sub(preAt).Microseconds())/1000, e.Offset < r.Probe.Size)
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// e2eRegisterRecordingOn adds the recording hook for more events (the
// tool calls and prompts between an arm and its swap).
func e2eRegisterRecordingOn(t *testing.T, w *e2eWorld, events ...string) {
	t.Helper()
	b, err := os.ReadFile(w.Settings)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	hooks, _ := s["hooks"].(map[string]any)
	h := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": e2eQuote(w.bins.RecHook), "timeout": 15}}}
	for _, ev := range events {
		list, _ := hooks[ev].([]any)
		hooks[ev] = append(list, h)
	}
	s["hooks"] = hooks
	e2eWriteSettings(t, w.Settings, s)
}

// e2eLagVersions are the releases the lag is measured and caught on
// (E2E-41, E2E-62): the kinds' two and the newest.
var e2eLagVersions = append(append([]string{}, e2eKindsVersions...), e2eClaudeNewest)

// e2eLagManual is how many typed /compact the manual scenario runs, so that
// the three scenarios make at least 20 compactions per release (E2E-62).
const e2eLagManual = 11

// spec: E2E-41 E2E-62 SS-26 PC-48 PO-C18
//
// TestE2ELag measures how far the transcript lags the compaction hooks
// (specs/selectsnap.md, "Transcripts lag hooks"), on 2.1.210, 2.1.328 and
// 2.1.337: E2E-31's precomputed compactions, E2E-33's reactive ones, and
// typed /compact in one stream-json process, with compact-guard's hooks and
// the recording hook on every event, following the transcript from the start
// of each PreCompact and SessionStart(compact) until it has been quiet for a
// second. For each compaction it checks the order selection rests on: no
// tool call's or prompt's hook starts between a compaction's PreCompact and
// its SessionStart, and one does between an arm and its swap; that every
// line of the session (a prompt, a response, a tool result, an attachment)
// the client made before a compaction hook started and wrote after it
// started, it wrote while the hook ran; and (E2E-62) that each such line is
// in the snapshot the compaction's pointer names, whose last command is the
// transcript's last before the boundary, over at least 20 compactions per
// release. It logs the table. COMPACT_GUARD_E2E_LAG_OUT=FILE appends the
// rows as JSON lines; COMPACT_GUARD_E2E_LAG_DETACH=1 follows beside the hook
// instead of holding it (the client's own timing, nothing checked of
// arrivals).
func TestE2ELag(t *testing.T) {
	bins := e2eBuild(t, t.TempDir())
	detach := os.Getenv("COMPACT_GUARD_E2E_LAG_DETACH") != ""
	var mu sync.Mutex
	caught := map[string]*e2eLagCaught{}
	t.Run("scenarios", func(t *testing.T) {
		for _, v := range e2eLagVersions {
			for _, sc := range []string{"precomputed", "reactive", "manual"} {
				t.Run(sc+"_"+v, func(t *testing.T) {
					t.Parallel()
					w, fake, sid := e2eLagScenario(t, bins, v, sc, detach)
					rows := e2eMeasureLag(t, w, sid, sc)
					e2eCheckLag(t, rows, detach)
					c := e2eCheckLagCaught(t, w, fake, sid, rows)
					e2eLogLag(t, rows)
					mu.Lock()
					defer mu.Unlock()
					if caught[v] == nil {
						caught[v] = &e2eLagCaught{}
					}
					caught[v].add(c)
				})
			}
		}
	})
	for _, v := range e2eLagVersions {
		c := caught[v]
		if c == nil {
			// Its scenarios did not run (-run chose others) or failed on
			// their own before counting.
			t.Logf("%s: nothing measured", v)
			continue
		}
		t.Logf("%s: %d compactions; %d lines of the session's written after a compaction hook started, %d of them not in the snapshot the pointer names", v, c.Compactions, c.Lagging, c.Missed)
		if c.Compactions < 20 || c.Missed > 0 {
			t.Errorf("%s: %d compactions (want at least 20), %d lagging lines missed (want 0)", v, c.Compactions, c.Missed)
		}
	}
}

// e2eLagScenario runs one scenario of TestE2ELag and returns its world,
// fake and session.
func e2eLagScenario(t *testing.T, bins e2eBinaries, v, sc string, detach bool) (*e2eWorld, *e2eFake, string) {
	w, fake, proj := e2eKindsWorld(t, bins, v)
	w.ExtraEnv = append(w.ExtraEnv, e2eLagFollow...)
	w.ClientTimeout = 6 * time.Minute
	if detach {
		w.ExtraEnv = append(w.ExtraEnv, "E2E_RECHOOK_FOLLOW_DETACH=1")
	}
	sid := ""
	switch sc {
	case "precomputed":
		w.Precompute()
		w.ExtraEnv = append(w.ExtraEnv, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000")
		e2eFillerSteps(fake, "swap", 40)
		fake.Script(e2eReply{e2eText("Done with the steps.")})
		sid = w.Claude(fake, proj, "", "Шаг: run the steps one after another").SessionID
	case "reactive":
		for k := 1; k <= 4; k++ {
			e2eFillerSteps(fake, fmt.Sprintf("turn %d", k), 11)
			fake.Script(e2eReply{e2eText(fmt.Sprintf("Done with turn %d.", k))})
			sid = w.Claude(fake, proj, sid, fmt.Sprintf("Шаг %d: run the steps", k)).SessionID
		}
	case "manual":
		s := w.StartStream(fake, proj)
		for k := 1; k <= e2eLagManual; k++ {
			e2eScriptEditTurn(fake, proj, k)
			s.Turn(e2eCompactionPrompt(k))
			s.Turn(fmt.Sprintf("/compact compaction %d", k))
		}
		// One more turn, whose request carries the last compaction's pointer.
		fake.Script(e2eReply{e2eText("Noted.")})
		s.Turn("What next?")
		sid = s.Close()
	}
	return w, fake, sid
}

// e2eLagCaught counts, for E2E-62, the compactions checked, the session's
// lines written after a compaction hook started, and those of them the
// snapshot the pointer names does not hold.
type e2eLagCaught struct{ Compactions, Lagging, Missed int }

func (c *e2eLagCaught) add(o e2eLagCaught) {
	c.Compactions += o.Compactions
	c.Lagging += o.Lagging
	c.Missed += o.Missed
}

// e2eCheckLagCaught checks E2E-62 for each compaction of the session: the
// next main request after its SessionStart(compact) names one snapshot,
// which covers every line of the session's own that a hook of this
// compaction found missing (its coverage reaches past the line's end, and no
// further than the compaction's boundary), and whose last command is the
// transcript's last before the boundary.
func e2eCheckLagCaught(t *testing.T, w *e2eWorld, fake *e2eFake, sid string, rows []e2eLagRow) (c e2eLagCaught) {
	t.Helper()
	data, err := os.ReadFile(w.TranscriptPath(sid))
	if err != nil {
		t.Fatal(err)
	}
	var bounds []int64
	for _, e := range e2eLagEntries(data) {
		if e.Subtype == "compact_boundary" && !e.Copy {
			bounds = append(bounds, e.Offset)
		}
	}
	reqs := fake.Requests()
	var pending []int64
	for _, r := range rows {
		for i, own := range r.MissingOwn {
			if own {
				pending = append(pending, r.MissingEnd[i])
			}
		}
		if !strings.HasPrefix(r.Hook, "SessionStart") {
			continue
		}
		k := c.Compactions
		c.Compactions++
		c.Lagging += len(pending)
		if k >= len(bounds) {
			t.Errorf("compaction %d: no boundary in the transcript", k+1)
			c.Missed += len(pending)
			continue
		}
		b := bounds[k]
		rec := e2eLagPointed(t, w, reqs, r.At)
		switch {
		case rec == nil:
			t.Errorf("compaction %d: no pointer to a snapshot of the session in the next request", k+1)
			c.Missed += len(pending)
		case rec.Coverage.TranscriptSize > b:
			t.Errorf("compaction %d: the snapshot covers %d bytes, past the boundary at %d", k+1, rec.Coverage.TranscriptSize, b)
		default:
			for _, end := range pending {
				if end > rec.Coverage.TranscriptSize {
					c.Missed++
					t.Errorf("compaction %d: a line ending at byte %d, written after a hook started, is not in the snapshot (it covers %d bytes)", k+1, end, rec.Coverage.TranscriptSize)
				}
			}
			if last, want := e2eLastCommandOf(rec), e2eLastBash(data[:b]); last != want {
				t.Errorf("compaction %d: the snapshot's last command is %q, the transcript's before the boundary %q", k+1, last, want)
			}
		}
		pending = nil
	}
	return c
}

// e2eLagPointed is the snapshot named by the pointer in the first main
// request after at, nil when there is none.
func e2eLagPointed(t *testing.T, w *e2eWorld, reqs []*e2eRequest, at time.Time) *e2eKindsRecord {
	t.Helper()
	for _, r := range reqs {
		if r.Kind != "tools" || !r.Time.After(at) {
			continue
		}
		for _, ctx := range e2eAdditionalContexts(r) {
			if name := selectsnap.NamedSnapshot(ctx); name != "" {
				return e2eReadKindsRecord(t, w.SnapDir, name)
			}
		}
		return nil
	}
	return nil
}

// e2eCheckLag checks the order and the arrivals of E2E-41.
func e2eCheckLag(t *testing.T, rows []e2eLagRow, detach bool) {
	t.Helper()
	starts := 0
	for _, r := range rows {
		if !detach {
			// The session's own lines, whose facts a snapshot records; the
			// client's bookkeeping (2.1.210 writes a turn's
			// stop_hook_summary only after the compaction's hooks) is in
			// the table, not checked.
			for i, a := range r.Arrived {
				m := r.Missing[i]
				own := strings.HasPrefix(m, "user") || strings.HasPrefix(m, "assistant") || strings.HasPrefix(m, "attachment")
				if a < 0 && own {
					t.Errorf("%s: %s was written after the hook ended: the client waited for it", r.Hook, m)
				}
			}
		}
		if !strings.HasPrefix(r.Hook, "SessionStart") {
			continue
		}
		starts++
		switch {
		case r.Swap && r.AfterArm == 0:
			t.Errorf("swap at SessionStart %d: no tool call's or prompt's hook since the arm's PreCompact (%s)", starts, r.Order)
		case !r.Swap && r.AfterArm > 0:
			t.Errorf("compaction at SessionStart %d: %d tool call or prompt hooks between its PreCompact and its SessionStart (%s)", starts, r.AfterArm, r.Order)
		}
	}
	if starts < 3 {
		t.Errorf("%d compactions, want at least 3", starts)
	}
}

func e2eLogLag(t *testing.T, rows []e2eLagRow) {
	t.Helper()
	var lines []string
	for _, r := range rows {
		var parts []string
		for i, m := range r.Missing {
			parts = append(parts, fmt.Sprintf("%s → %.0fms", m, r.Arrived[i]))
		}
		line := fmt.Sprintf("%s %s %s: missing %d [%s]; growth%s", r.Version, r.Scenario, r.Hook, len(r.Missing), strings.Join(parts, "; "), r.Growth)
		if strings.HasPrefix(r.Hook, "SessionStart") {
			line += fmt.Sprintf("; swap %v; since the last PreCompact: %d PostToolUse/UserPromptSubmit, responses %d at the hook, %d in the end;%s", r.Swap, r.AfterArm, r.ResponsesAtHook, r.ResponsesEnd, r.Order)
		}
		lines = append(lines, line)
	}
	t.Logf("lag:\n%s", strings.Join(lines, "\n"))
	if out := os.Getenv("COMPACT_GUARD_E2E_LAG_OUT"); out != "" {
		f, err := os.OpenFile(filepath.Clean(out), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, r := range rows {
			b, _ := json.Marshal(r)
			f.Write(append(b, '\n'))
		}
	}
}
