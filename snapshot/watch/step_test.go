package watch

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// run is one hook run of a scripted session.
type run struct {
	event     string
	fill      int64
	boundary  bool
	turn      string
	gate      bool
	active    bool
	handoff   bool
	notice    bool
	block     bool
	told      []int64
	crossings int
}

func play(t *testing.T, runs []run) {
	t.Helper()
	st := &State{}
	thresholds := []int64{500, 600, 700}
	for i, r := range runs {
		asked := false
		a := Step(st, Input{
			Event: r.event, Now: t0.Add(time.Duration(i) * time.Minute), Fill: r.fill, FromBoundary: r.boundary,
			Thresholds: thresholds, Turn: r.turn, StopGate: r.gate, StopHookActive: r.active,
			Handoff: func() bool { asked = true; return r.handoff },
		})
		var told []int64
		for _, c := range a.Told {
			told = append(told, c.Tokens)
		}
		if a.Notice != r.notice || a.Block != r.block || !equal(told, r.told) || len(st.Crossings) != r.crossings {
			t.Errorf("run %d (%s, fill %d, turn %q): notice %v block %v told %v crossings %d; want %v %v %v %d",
				i, r.event, r.fill, r.turn, a.Notice, a.Block, told, len(st.Crossings), r.notice, r.block, r.told, r.crossings)
		}
		if asked && r.event != Stop {
			t.Errorf("run %d: the handoff was read for %s", i, r.event)
		}
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// spec: WA-5
func TestWA5CrossingsAndEpisodes(t *testing.T) {
	play(t, []run{
		{event: UserPromptSubmit, fill: 100, turn: "p1"},
		{event: PostToolUse, fill: 499, turn: "p1"},
		{event: PostToolUse, fill: 510, turn: "p1", notice: true, told: []int64{500}, crossings: 1},
		// jitter just under the threshold forgets nothing
		{event: PostToolUse, fill: 460, turn: "p1", crossings: 1},
		{event: PostToolUse, fill: 505, turn: "p1", crossings: 1},
		// the compaction: a boundary's fill starts a new episode
		{event: UserPromptSubmit, fill: 30, boundary: true, turn: "p2"},
		{event: PostToolUse, fill: 520, turn: "p2", notice: true, told: []int64{500}, crossings: 1},
		// a fill fallen under 90% of the first threshold does too
		{event: PostToolUse, fill: 440, turn: "p2"},
		{event: UserPromptSubmit, fill: 530, turn: "p3", notice: true, told: []int64{500}, crossings: 1},
	})
}

// spec: WA-6
func TestWA6OncePerCrossingNeverTwiceInATurn(t *testing.T) {
	play(t, []run{
		{event: UserPromptSubmit, fill: 510, turn: "p1", notice: true, told: []int64{500}, crossings: 1},
		{event: PostToolUse, fill: 520, turn: "p1", crossings: 1},
		// a second crossing in the same turn waits for the next turn
		{event: PostToolUse, fill: 610, turn: "p1", crossings: 2},
		{event: Stop, fill: 610, turn: "p1", crossings: 2},
		{event: UserPromptSubmit, fill: 615, turn: "p2", notice: true, told: []int64{600}, crossings: 2},
		{event: PostToolUse, fill: 620, turn: "p2", crossings: 2},
		// two thresholds crossed at once: one notice telling of both
		{event: UserPromptSubmit, fill: 30, boundary: true, turn: "p3"},
		{event: PostToolUse, fill: 650, turn: "p3", notice: true, told: []int64{500, 600}, crossings: 2},
	})
}

// spec: WA-6
func TestWA6TurnsWithoutPromptID(t *testing.T) {
	// Clients before 2.1.196 send no prompt_id: UserPromptSubmit marks the
	// turn in the state.
	play(t, []run{
		{event: UserPromptSubmit, fill: 510, notice: true, told: []int64{500}, crossings: 1},
		{event: PostToolUse, fill: 610, crossings: 2},
		{event: UserPromptSubmit, fill: 612, notice: true, told: []int64{600}, crossings: 2},
	})
}

// spec: WA-10
func TestWA10StopGate(t *testing.T) {
	play(t, []run{
		{event: PostToolUse, fill: 710, turn: "p1", notice: true, told: []int64{500, 600, 700}, crossings: 3},
		// without --stop-gate, Stop never blocks
		{event: Stop, fill: 710, turn: "p1", crossings: 3},
		{event: Stop, fill: 710, turn: "p1", gate: true, block: true, crossings: 3},
		// the client continues because of the block: never again
		{event: Stop, fill: 712, turn: "p1", gate: true, active: true, crossings: 3},
		// once per crossing, even without stop_hook_active
		{event: Stop, fill: 712, turn: "p2", gate: true, crossings: 3},
		// a new crossing after a compaction: once more, unless a handoff is current
		{event: UserPromptSubmit, fill: 20, boundary: true, turn: "p3"},
		{event: PostToolUse, fill: 705, turn: "p3", notice: true, told: []int64{500, 600, 700}, crossings: 3},
		{event: Stop, fill: 705, turn: "p3", gate: true, handoff: true, crossings: 3},
		{event: UserPromptSubmit, fill: 20, boundary: true, turn: "p4"},
		// below the last threshold the gate is open
		{event: PostToolUse, fill: 650, turn: "p4", notice: true, told: []int64{500, 600}, crossings: 2},
		{event: Stop, fill: 650, turn: "p4", gate: true, crossings: 2},
		// at it, with no handoff, the block also tells of what is untold
		{event: PostToolUse, fill: 720, turn: "p4", crossings: 3},
		{event: Stop, fill: 720, turn: "p4", gate: true, block: true, told: []int64{700}, crossings: 3},
	})
}

// The state changes monotonically in what was read, never in the order
// runs take the lock: a run whose fill came from an older line than the
// state's last change changes nothing by it and tells nothing; a newer
// one, or one from a replaced transcript whose line is newer, does; a
// compaction's boundary is recorded once even when nothing else changes.
// spec: WA-26
func TestWA26StepMonotonicInWhatWasRead(t *testing.T) {
	thresholds := []int64{500, 600, 700}
	in := func(fill int64, off int64, at time.Duration, boundary bool) Input {
		return Input{Event: PostToolUse, Now: t0.Add(at), Fill: fill, FromBoundary: boundary, Thresholds: thresholds,
			Turn: "p1", Read: Read{Offset: off, At: t0.Add(at)}}
	}
	st := &State{}
	if a := Step(st, in(520, 2000, 2*time.Second, false)); !a.Notice || st.Read == nil || st.Read.Offset != 2000 {
		t.Fatalf("the newer read: %+v, read %+v", a, st.Read)
	}
	// The older read, under 90% of the first threshold: no fall, no tell.
	if a := Step(st, in(400, 1000, time.Second, false)); a.Changed || a.Notice || len(st.Crossings) != 1 || st.Read.Offset != 2000 {
		t.Errorf("an older read changed the state: %+v, %+v", a, st)
	}
	// An older read past a threshold not crossed yet: not recorded either.
	if a := Step(st, in(650, 1500, time.Second, false)); a.Changed || len(st.Crossings) != 1 {
		t.Errorf("an older read crossed: %+v, %+v", a, st.Crossings)
	}
	// The same line again is no older: it changes what it would anyway.
	if a := Step(st, in(520, 2000, 2*time.Second, false)); a.Changed {
		t.Errorf("the same read changed the state again: %+v", a)
	}
	// The boundary: the crossings go, and the boundary is what the state
	// rests on; a read from before it tells nothing afterwards.
	if a := Step(st, in(3, 3000, 3*time.Second, true)); !a.Changed || len(st.Crossings) != 0 || st.Read.Offset != 3000 {
		t.Fatalf("the boundary: %+v, %+v", a, st)
	}
	if a := Step(st, in(710, 2500, 2*time.Second, false)); a.Changed || a.Notice || len(st.Crossings) != 0 {
		t.Errorf("a read from before the boundary: %+v, %+v", a, st.Crossings)
	}
	// A boundary seen with nothing crossed is recorded, once.
	st2 := &State{}
	if a := Step(st2, in(3, 3000, 3*time.Second, true)); !a.Changed || st2.Read == nil {
		t.Errorf("a boundary with nothing crossed was not recorded: %+v %+v", a, st2.Read)
	}
	if a := Step(st2, in(3, 3000, 3*time.Second, true)); a.Changed {
		t.Errorf("the same boundary recorded twice: %+v", a)
	}
	// A transcript replaced by a shorter one whose newest line is newer.
	if a := Step(st2, in(520, 100, time.Hour, false)); !a.Notice || st2.Read.Offset != 100 {
		t.Errorf("a newer line at a smaller offset: %+v, read %+v", a, st2.Read)
	}
	// Without a read (callers that know none), nothing is compared.
	st3 := &State{Read: &Read{Offset: 5000, At: t0.Add(time.Hour)}}
	if a := Step(st3, Input{Event: PostToolUse, Now: t0, Fill: 520, Thresholds: thresholds, Turn: "p1"}); !a.Notice || st3.Read.Offset != 5000 {
		t.Errorf("a run without a read: %+v, read %+v", a, st3.Read)
	}
}
