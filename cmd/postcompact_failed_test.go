package cmd

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// spec: PO-C17
//
// A PostCompact whose payload says the compaction failed (newer Codex CLI
// sources: status "failed" and the error) confirms nothing, compares
// nothing and drops precompact's notes, so that no pointer is handed over
// late and no residue is given for a compaction that did not happen; the
// log says so. The same session's next compaction, which completes, gets
// both again.
func TestPOC17FailedCompactionGetsNoPointerNoResidue(t *testing.T) {
	s := newSimSession(t, "failcomp-1111-4222-8333-444455556666")
	s.turn("Keep the parser total")
	s.preCompact()
	names := s.snapshots()
	st, err := watch.StoreFor(s.dir).Load(s.sid)
	if len(names) != 1 || err != nil || st == nil || st.Pending == nil || st.Residue == nil {
		t.Fatalf("precompact noted nothing to drop: snapshots %v, state %+v, %v", names, st, err)
	}
	s.postCompactPayload(map[string]any{"trigger": "manual", "reason": "user_requested", "phase": "manual",
		"implementation": "responses", "status": "failed", "error": "summary request failed"})
	if rec := s.record(names[0]); rec.Compaction != nil {
		t.Errorf("a failed compaction was confirmed: %+v", rec.Compaction)
	}
	if r, err := snapshot.ReadResidue(s.dir, names[0], s.sid); r != nil || err != nil {
		t.Errorf("a residue was recorded for a failed compaction: %+v, %v", r, err)
	}
	if st, _ := watch.StoreFor(s.dir).Load(s.sid); st == nil || st.Pending != nil || st.Residue != nil {
		t.Errorf("the failed compaction's notes stay: %+v", st)
	}
	log := hooktest.ReadLog(s.dir)
	if !strings.Contains(log, `the compaction failed (failed: summary request failed); no pointer, no residue (reason \"user_requested\", phase \"manual\")`) {
		t.Errorf("log:\n%s", log)
	}

	// The next compaction completes: its notes and its confirmation are made.
	s.turn("Then document it")
	s.preCompact()
	s.postCompactPayload(map[string]any{"trigger": "manual", "status": "completed"})
	names = s.snapshots()
	if len(names) != 2 || s.record(names[1]).Compaction == nil {
		t.Errorf("the completed compaction was not confirmed: %v", names)
	}
	if st, _ := watch.StoreFor(s.dir).Load(s.sid); st == nil || st.Residue == nil || st.Residue.Snapshot != names[1] {
		t.Errorf("the completed compaction's residue is not due: %+v", st)
	}
}

// postCompactPayload runs the PostCompact hook of s with the given fields.
func (s *simSession) postCompactPayload(extra map[string]any) {
	s.t.Helper()
	s.tick(2 * time.Second)
	var out strings.Builder
	opts := &PostcompactOptions{
		IO:  &IO{In: strings.NewReader(s.payload("PostCompact", extra)), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 5 * time.Second,
	}
	if err := postcompactRun(opts); err != nil {
		s.t.Fatal(err)
	}
	if out.Len() != 0 {
		s.t.Errorf("PostCompact printed %q", out.String())
	}
}
