package watch

import (
	"testing"
	"time"
)

// spec: SS-27
func TestWentOn(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 0, 49, 53, 248311593, time.UTC)
	var st State
	if st.WentOnDue(PostToolUse, t0) || st.NoteWentOn(PostToolUse, t0) {
		t.Fatal("due without a mark")
	}
	if !st.MarkPreCompact(t0) || st.MarkPreCompact(t0) || st.MarkPreCompact(t0.Add(-time.Second)) {
		t.Fatal("a mark, then the same or an older one")
	}
	if st.NoteWentOn(PostToolUse, t0) || st.NoteWentOn(Stop, t0.Add(time.Second)) {
		t.Fatal("a run at the mark's own time, or a Stop, recorded")
	}
	if !st.WentOnDue(UserPromptSubmit, t0.Add(time.Millisecond)) || !st.NoteWentOn(UserPromptSubmit, t0.Add(time.Millisecond)) {
		t.Fatal("the first prompt after the mark not recorded")
	}
	if st.WentOnDue(PostToolUse, t0.Add(time.Second)) || st.NoteWentOn(PostToolUse, t0.Add(time.Second)) {
		t.Fatal("recorded twice")
	}
	if w := st.WentOn; !w.At.Equal(t0.Add(time.Millisecond)) || w.Event != UserPromptSubmit {
		t.Fatalf("%+v", w)
	}
	if !st.MarkPreCompact(t0.Add(time.Minute)) || !st.WentOn.At.IsZero() {
		t.Fatalf("a newer mark keeps the old run: %+v", st.WentOn)
	}
	var none *State
	if none.WentOnDue(PostToolUse, t0) {
		t.Fatal("a nil state is due")
	}
}
