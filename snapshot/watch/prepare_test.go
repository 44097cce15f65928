package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// spec: WA-12
func TestWA12Prepare(t *testing.T) {
	block := func(at time.Time, complete bool) []handoff.Block {
		text := handoff.Template(snapshot.English, at)
		if complete {
			text = strings.ReplaceAll(text, "\n<!-- ", "\nnone <!-- ")
		}
		return handoff.Parse([]byte(text))
	}
	crossed := &State{Episode: t0, Crossings: []Crossing{{Tokens: 500_000, At: t0}, {Tokens: 600_000, At: t0.Add(10 * time.Minute)}}}
	reset := &State{Episode: t0}
	now := t0.Add(time.Hour)
	cases := []struct {
		name    string
		trigger string
		state   *State
		blocks  []handoff.Block
		prev    time.Time
		kind    string
		since   time.Time
		current bool
	}{
		{"a handoff after the first crossing: planned, even if automatic", "auto", crossed, block(t0.Add(time.Minute), true), time.Time{}, snapshot.Planned, t0, true},
		{"the crossing's own second counts", "manual", crossed, block(t0, true), time.Time{}, snapshot.Planned, t0, true},
		{"a handoff before the crossing: emergency", "auto", crossed, block(t0.Add(-time.Minute), true), time.Time{}, snapshot.Emergency, t0, false},
		{"an incomplete one: unplanned", "manual", crossed, block(t0.Add(time.Minute), false), time.Time{}, snapshot.Unplanned, t0, false},
		{"no crossing since a compaction: the episode's start bounds it", "manual", reset, block(t0.Add(-time.Second), true), time.Time{}, snapshot.Unplanned, t0, false},
		{"no watch state: the previous snapshot bounds it", "auto", nil, block(t0.Add(-time.Second), true), t0, snapshot.Emergency, t0, false},
		{"no watch state, no earlier snapshot: any complete block", "manual", nil, block(t0.Add(-48*time.Hour), true), time.Time{}, snapshot.Planned, time.Time{}, true},
		{"no block at all", "auto", crossed, nil, time.Time{}, snapshot.Emergency, t0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Prepare(PrepareInput{Trigger: tc.trigger, State: tc.state, Fill: 968_100, Model: "claude-opus-5-5",
				StateFile: "/p/SESSION-STATE.md", Blocks: tc.blocks, Previous: tc.prev, Now: now})
			if p.Kind != tc.kind || !p.Since.Equal(tc.since) || p.Watched != (tc.state != nil) {
				t.Errorf("kind %s since %s watched %v; want %s %s %v", p.Kind, p.Since, p.Watched, tc.kind, tc.since, tc.state != nil)
			}
			if (p.Handoff != nil) != (tc.blocks != nil) || p.Handoff != nil && (p.Handoff.Current != tc.current || p.Handoff.Line != 1 || p.Handoff.Path != "/p/SESSION-STATE.md") {
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
