package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// spec: WA-12, HO-4, HO-10, HO-11
func TestWA12Prepare(t *testing.T) {
	const sid = "5f1c2a9e-0b7d-4c3e-9a51-2d8e6f4b7c10"
	blockOf := func(at time.Time, complete bool, session string) []handoff.Block {
		text := handoff.TemplateFor(snapshot.English, at, session)
		if complete {
			text = strings.ReplaceAll(text, "\n<!-- ", "\nnone <!-- ")
			text = strings.ReplaceAll(text, "\nnone <!-- compact-guard session:", "\n<!-- compact-guard session:")
		}
		return handoff.Parse([]byte(text))
	}
	block := func(at time.Time, complete bool) []handoff.Block { return blockOf(at, complete, sid) }
	crossed := &State{Episode: t0, Crossings: []Crossing{{Tokens: 500_000, At: t0}, {Tokens: 600_000, At: t0.Add(10 * time.Minute)}}}
	reset := &State{Episode: t0}
	unmarked := blockOf(t0.Add(time.Minute), true, "")
	claimed := &State{Episode: t0, Crossings: crossed.Crossings}
	claimed.Claim("/p/SESSION-STATE.md", &unmarked[0], t0.Add(2*time.Minute))
	now := t0.Add(time.Hour)
	cases := []struct {
		name    string
		trigger string
		state   *State
		blocks  []handoff.Block
		prev    time.Time
		started time.Time
		kind    string
		since   time.Time
		sinceK  string
		current bool
		others  int
	}{
		{"a handoff after the first crossing: planned, even if automatic", "auto", crossed, block(t0.Add(time.Minute), true), time.Time{}, time.Time{}, snapshot.Planned, t0, handoff.SinceCrossing, true, 0},
		{"the crossing's own second counts", "manual", crossed, block(t0, true), time.Time{}, time.Time{}, snapshot.Planned, t0, handoff.SinceCrossing, true, 0},
		{"a handoff before the crossing: emergency", "auto", crossed, block(t0.Add(-time.Minute), true), time.Time{}, time.Time{}, snapshot.Emergency, t0, handoff.SinceCrossing, false, 0},
		{"an incomplete one: unplanned", "manual", crossed, block(t0.Add(time.Minute), false), time.Time{}, time.Time{}, snapshot.Unplanned, t0, handoff.SinceCrossing, false, 0},
		{"no crossing since a compaction: the episode's start bounds it", "manual", reset, block(t0.Add(-time.Second), true), time.Time{}, time.Time{}, snapshot.Unplanned, t0, handoff.SinceCompaction, false, 0},
		{"no watch state: the previous snapshot bounds it", "auto", nil, block(t0.Add(-time.Second), true), t0, time.Time{}, snapshot.Emergency, t0, handoff.SinceSnapshot, false, 0},
		{"no watch state, no earlier snapshot: the session's start bounds it", "manual", nil, block(t0.Add(-48*time.Hour), true), time.Time{}, t0.Add(-time.Hour), snapshot.Unplanned, t0.Add(-time.Hour), handoff.SinceStart, false, 0},
		{"a block written after the session started counts", "manual", nil, block(t0, true), time.Time{}, t0.Add(-time.Hour), snapshot.Planned, t0.Add(-time.Hour), handoff.SinceStart, true, 0},
		{"nothing known: any complete block of the session", "manual", nil, block(t0.Add(-48*time.Hour), true), time.Time{}, time.Time{}, snapshot.Planned, time.Time{}, "", true, 0},
		{"no block at all", "auto", crossed, nil, time.Time{}, time.Time{}, snapshot.Emergency, t0, handoff.SinceCrossing, false, 0},
		// HO-10: a block of another session, even newer than the crossing,
		// is not this session's plan; nor is one naming no session that it
		// did not claim; one it claimed is.
		{"another session's block", "auto", crossed, blockOf(t0.Add(time.Minute), true, "b7a1c0de-0000-4000-8000-000000000000"), time.Time{}, time.Time{}, snapshot.Emergency, t0, handoff.SinceCrossing, false, 1},
		{"a block naming no session, not claimed", "manual", crossed, unmarked, time.Time{}, time.Time{}, snapshot.Unplanned, t0, handoff.SinceCrossing, false, 1},
		{"a block naming no session, claimed", "manual", claimed, unmarked, time.Time{}, time.Time{}, snapshot.Planned, t0, handoff.SinceCrossing, true, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Prepare(PrepareInput{Trigger: tc.trigger, State: tc.state, Fill: 968_100, Model: "claude-opus-5-5",
				StateFile: "/p/SESSION-STATE.md", Blocks: tc.blocks, Previous: tc.prev, SessionID: sid, Started: tc.started, Now: now})
			if p.Kind != tc.kind || !p.Since.Equal(tc.since) || p.SinceKind != tc.sinceK || p.Watched != (tc.state != nil) || p.OtherBlocks != tc.others {
				t.Errorf("kind %s since %s (%s) watched %v others %d; want %s %s (%s) %v %d", p.Kind, p.Since, p.SinceKind, p.Watched, p.OtherBlocks,
					tc.kind, tc.since, tc.sinceK, tc.state != nil, tc.others)
			}
			mine := tc.blocks != nil && tc.others == 0
			if (p.Handoff != nil) != mine || p.Handoff != nil && (p.Handoff.Current != tc.current || p.Handoff.Line != 1 || p.Handoff.Path != "/p/SESSION-STATE.md") {
				t.Errorf("handoff %+v, want current %v", p.Handoff, tc.current)
			}
			// HO-3, SF-12: the block's NEXT STEP goes with it.
			if p.Handoff != nil && p.Handoff.NextStep != tc.blocks[0].Next {
				t.Errorf("next step %q, want the block's %q", p.Handoff.NextStep, tc.blocks[0].Next)
			}
			if p.Window != 1_000_000 || p.AutoAt != 967_000 || p.Percent() != 96 {
				t.Errorf("window %d, auto at %d, %d%%", p.Window, p.AutoAt, p.Percent())
			}
			if tc.state == crossed && len(p.Crossings) != 2 {
				t.Errorf("crossings %v", p.Crossings)
			}
		})
	}
}

// spec: WA-41
// The window another client recorded with the fill is the window: Codex
// CLI's 258,400 and Qwen Code's 32,000 are not Claude Code's inferred
// 200,000, and no compaction point of Claude Code's is given for them.
func TestWA41ClientWindow(t *testing.T) {
	for _, tc := range []struct {
		name         string
		client, want int64
		wantAuto     bool
	}{
		{"Codex CLI", 258_400, 258_400, false},
		{"Qwen Code", 32_000, 32_000, false},
		{"Claude Code records none: inferred", 0, SmallWindow, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Prepare(PrepareInput{Trigger: "auto", Fill: 30_000, Model: "some-model", ClientWindow: tc.client, Now: t0})
			if p.Window != tc.want || (p.AutoAt > 0) != tc.wantAuto {
				t.Errorf("window %d, auto at %d; want %d, an auto point %v", p.Window, p.AutoAt, tc.want, tc.wantAuto)
			}
			if pct := p.Percent(); pct != 30_000*100/tc.want {
				t.Errorf("percent %d", pct)
			}
		})
	}
}
