package watch

import "time"

// Hook events watch acts on.
const (
	UserPromptSubmit = "UserPromptSubmit"
	PostToolUse      = "PostToolUse"
	// PostToolUseFailure runs instead of PostToolUse for a tool call that
	// failed; its context reaches the model as PostToolUse's does.
	PostToolUseFailure = "PostToolUseFailure"
	Stop               = "Stop"
	SessionStart       = "SessionStart"
)

// ResetBelow is the share of the first threshold the fill must fall under
// for the crossings to be forgotten (WA-5): a compaction, not the jitter of
// a few tokens around the threshold.
const ResetBelow = 0.9

// Input is one hook run as Step sees it.
type Input struct {
	Event string
	Now   time.Time
	// Fill is the context fill; FromBoundary says it comes from a
	// compaction's boundary (the fill right after a compaction).
	Fill         int64
	FromBoundary bool
	// Thresholds are resolved (Resolve), ascending.
	Thresholds []int64
	// Turn is the payload's prompt_id, "" when it has none.
	Turn string
	// StopGate is --stop-gate; StopHookActive the payload's
	// stop_hook_active: the client is already continuing because of a Stop
	// hook.
	StopGate       bool
	StopHookActive bool
	// Handoff reports whether a current handoff exists; it is asked only
	// when the answer decides something (it reads the state file).
	Handoff func() bool
	// Read is where the fill came from (WA-26); the zero Read is unknown,
	// never older than another and never recorded. Its time dates a
	// crossing and an episode's start, not the hook run that read it (WA-5).
	Read Read
}

// Read is where a run's fill came from in the transcript: the offset of the
// line that gave it (the model response, or the compaction boundary written
// after it) and that line's time.
type Read struct {
	Offset int64     `json:"offset"`
	At     time.Time `json:"at,omitzero"`
}

// Before reports whether r was read before o (WA-26): from an earlier line
// of the transcript, and not from a line written later. A transcript
// replaced by another whose newest response is newer is not before, though
// its offsets are smaller.
func (r Read) Before(o Read) bool { return r.Offset < o.Offset && !r.At.After(o.At) }

// Action is what a hook run does.
type Action struct {
	// Notice: tell the model (additionalContext), covering Told.
	Notice bool
	// Block: the Stop gate answers decision "block".
	Block bool
	// Told are the crossings this run tells of, lowest first.
	Told []Crossing
	// Changed: the state must be written.
	Changed bool
}

// Step applies one hook run to the session's state (WA-5, WA-6, WA-9,
// WA-10) and returns what to do; st is changed in place. The state changes
// monotonically in what was read, not in the order runs took the lock
// (WA-26): a run whose fill was read from an older line than the one the
// state's last change rests on changes nothing by it and tells nothing (a
// later run tells with the newer fill), and a change records its read.
func Step(st *State, in Input) Action {
	stale := st.Read != nil && in.Read != (Read{}) && in.Read.Before(*st.Read)
	a := step(st, in, stale)
	// A compaction's boundary is recorded even when nothing else changes
	// (once: its next reads are not newer), so that a run that read the
	// transcript before it tells nothing from that read afterwards.
	if !stale && in.FromBoundary && in.Read != (Read{}) && (st.Read == nil || st.Read.Before(in.Read)) {
		a.Changed = true
	}
	if a.Changed && !stale && in.Read != (Read{}) {
		r := in.Read
		st.Read = &r
	}
	return a
}

func step(st *State, in Input, stale bool) Action {
	var a Action
	if len(in.Thresholds) == 0 {
		return a
	}
	first, last := in.Thresholds[0], in.Thresholds[len(in.Thresholds)-1]
	at := in.Now.UTC()
	if !in.Read.At.IsZero() && in.Read.At.Before(in.Now) {
		at = in.Read.At.UTC()
	}

	// WA-5: a fill fallen back below the first threshold (a compaction)
	// starts a new episode. A stale fill is neither a fall nor a rise.
	if !stale && len(st.Crossings) > 0 && (in.FromBoundary || float64(in.Fill) < ResetBelow*float64(first)) {
		st.Crossings, st.NoticeTurn, st.NoticeAt = nil, "", time.Time{}
		st.Episode = at
		a.Changed = true
	}
	if !stale && !in.FromBoundary {
		for _, t := range in.Thresholds {
			if in.Fill >= t && st.crossing(t) == nil {
				if len(st.Crossings) == 0 {
					st.Episode = at
				}
				st.Crossings = append(st.Crossings, Crossing{Tokens: t, At: at, Fill: in.Fill})
				a.Changed = true
			}
		}
	}
	if len(st.Crossings) == 0 {
		return a
	}

	turn := in.Turn
	if turn == "" {
		if in.Event == UserPromptSubmit {
			st.Turn = in.Now.UTC().Format(time.RFC3339Nano)
			a.Changed = true
		}
		turn = st.Turn
	}
	untold := func() []Crossing {
		var out []Crossing
		for _, c := range st.Crossings {
			if c.Told.IsZero() {
				out = append(out, c)
			}
		}
		return out
	}
	markTold := func() {
		for i := range st.Crossings {
			if st.Crossings[i].Told.IsZero() {
				st.Crossings[i].Told = in.Now.UTC()
				a.Told = append(a.Told, st.Crossings[i])
			}
		}
		st.NoticeTurn, st.NoticeAt = turn, in.Now.UTC()
		a.Changed = true
	}

	if stale {
		return a // the turn is marked; what to tell waits for a newer read
	}
	switch in.Event {
	case UserPromptSubmit, PostToolUse:
		// WA-6: once per crossing, never twice in one turn.
		if len(untold()) > 0 && (turn == "" || turn != st.NoticeTurn) {
			a.Notice = true
			markTold()
		}
	case Stop:
		// WA-10: the gate blocks once per crossing of the last threshold,
		// never while the client continues because of a Stop hook, never
		// with a current handoff.
		c := st.crossing(last)
		if !in.StopGate || in.StopHookActive || c == nil || !c.Blocked.IsZero() {
			break
		}
		if in.Handoff != nil && in.Handoff() {
			break
		}
		c.Blocked = in.Now.UTC()
		a.Block = true
		markTold()
	}
	return a
}

func (s *State) crossing(t int64) *Crossing {
	for i := range s.Crossings {
		if s.Crossings[i].Tokens == t {
			return &s.Crossings[i]
		}
	}
	return nil
}

// Highest is the highest threshold crossed, 0 for none.
func (s *State) Highest() int64 {
	var h int64
	for _, c := range s.Crossings {
		h = max(h, c.Tokens)
	}
	return h
}
