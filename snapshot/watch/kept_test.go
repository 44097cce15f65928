package watch

import (
	"reflect"
	"testing"
	"time"
)

// Per session the state keeps the episode's start, the crossings (with
// when they were told and when the gate blocked), the turn of the last
// notice, the newest handoff block seen, the compaction precompact noted,
// the last resume, the pointers handed over and what the last fill rests
// on: all of it comes back as it was written.
// spec: WA-7
func TestWA7StateKeepsWhatItSays(t *testing.T) {
	s := newStore(t)
	const sid = "7a7a7a7a-0000-4000-8000-000000000007"
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	want := State{
		Episode:    at(1),
		Crossings:  []Crossing{{Tokens: 500000, At: at(2), Fill: 510000, Told: at(3), Blocked: at(4)}},
		NoticeTurn: "prompt-7", NoticeAt: at(3),
		Handoff: &HandoffSeen{Path: "/p/SESSION-STATE.md", Line: 14, Time: at(5), Complete: true, Current: true, Seen: at(6)},
		Pending: &Pending{At: at(7), Trigger: "auto", Snapshot: "snap_20260314-090000_7a7a7a7a", TranscriptSize: 123456},
		Resumed: at(8),
		Fallbacks: []Fallback{{At: at(9), Snapshot: "snap_20260314-085000_7a7a7a7a", Boundary: 99999,
			Why: "the client recorded no SessionStart context after the compaction"}},
		Read: &Read{Offset: 4242, At: at(10)},
	}
	if _, err := s.Update(sid, func(st *State) bool {
		schema, id, updated := st.Schema, st.SessionID, st.Updated
		*st = want
		st.Schema, st.SessionID, st.Updated = schema, id, updated
		return true
	}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(sid)
	if err != nil || got == nil {
		t.Fatalf("Load: %v", err)
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"episode", got.Episode, want.Episode},
		{"crossings", got.Crossings, want.Crossings},
		{"notice turn", got.NoticeTurn, want.NoticeTurn},
		{"notice time", got.NoticeAt, want.NoticeAt},
		{"handoff", got.Handoff, want.Handoff},
		{"pending", got.Pending, want.Pending},
		{"resumed", got.Resumed, want.Resumed},
		{"fallbacks", got.Fallbacks, want.Fallbacks},
		{"read", got.Read, want.Read},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			t.Errorf("%s: kept %+v, wrote %+v", f.name, f.got, f.want)
		}
	}
}
