package watch

import "time"

// WentOn is what tells a precomputed compaction's swap from the arm whose
// PreCompact ran turns before it, whatever the transcript holds yet
// (selectsnap SS-26, SS-27): the client's main loop waits from a
// compaction's PreCompact to its SessionStart, so a tool call's or a
// prompt's hook that starts between them says the PreCompact was an arm and
// the session went on after its snapshot. precompact marks when it starts;
// the first such watch run after the mark records itself. Each is one
// state write per PreCompact, never one per tool call.
type WentOn struct {
	// PreCompact is when the newest PreCompact run started: precompact's
	// start, which is its snapshot's created_at.
	PreCompact time.Time `json:"precompact"`
	// At is when the first PostToolUse, PostToolUseFailure or
	// UserPromptSubmit run that started after PreCompact started; zero
	// while none has.
	At time.Time `json:"at,omitempty"`
	// Event is that run's hook event.
	Event string `json:"event,omitempty"`
}

// WentOnEvent reports whether a run of the hook event tells that the
// session went on (SS-26): a tool call's or a prompt's. Stop is not one:
// it was not measured between a compaction's hooks.
func WentOnEvent(event string) bool {
	switch event {
	case PostToolUse, PostToolUseFailure, UserPromptSubmit:
		return true
	}
	return false
}

// MarkPreCompact notes a PreCompact run that started at t, and reports
// whether the state changed. A mark older than the one held (a run that
// took the lock late) changes nothing.
func (s *State) MarkPreCompact(t time.Time) bool {
	if s.WentOn != nil && !t.After(s.WentOn.PreCompact) {
		return false
	}
	s.WentOn = &WentOn{PreCompact: t.UTC()}
	return true
}

// WentOnDue reports whether a run of event that started at t is the first
// tool call or prompt after the marked PreCompact, so that NoteWentOn
// would record it (and watch must take the lock to let it, SS-27).
func (s *State) WentOnDue(event string, t time.Time) bool {
	return WentOnEvent(event) && s != nil && s.WentOn != nil && s.WentOn.At.IsZero() && t.After(s.WentOn.PreCompact)
}

// NoteWentOn records a run of event that started at t when it is due
// (WentOnDue), and reports whether the state changed.
func (s *State) NoteWentOn(event string, t time.Time) bool {
	if !s.WentOnDue(event, t) {
		return false
	}
	s.WentOn.At, s.WentOn.Event = t.UTC(), event
	return true
}
