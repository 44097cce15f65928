package cmd

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// postCompactWith runs the PostCompact hook of s with summary as
// compact_summary (nil: a payload without it).
func (s *simSession) postCompactWith(summary *string) {
	s.t.Helper()
	s.tick(2 * time.Second)
	extra := map[string]any{"trigger": "manual"}
	if summary != nil {
		extra["compact_summary"] = *summary
	}
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

// spec: PO-C6 SF-63 SF-66 WA-14
//
// PostCompact compares compact_summary (its summary part) with this
// compaction's snapshot, records the verdicts beside it and notes the
// residue due; a PostCompact without compact_summary notes it due all the
// same.
func TestPostCompactRecordsTheResidue(t *testing.T) {
	s := newSimSession(t, "resid000-1111-4222-8333-444455556666")
	s.turn("Make the parser total and keep the old API")
	s.turn("Then document every exported name")
	s.preCompact()
	s.tick(3 * time.Second)
	s.pointer = s.postcompact("SessionStart")
	summary := "<analysis>\n\"Then document every exported name\"\n</analysis>\n<summary>\n- \"Make the parser total and keep the old API\"\n- Edited file1.txt\n</summary>"
	s.postCompactWith(&summary)
	names := s.snapshots()
	if len(names) != 1 {
		t.Fatalf("snapshots %v", names)
	}
	r, err := snapshot.ReadResidue(s.dir, names[0], s.sid)
	if err != nil || r == nil {
		t.Fatalf("no residue record: %v; log:\n%s", err, readLog(s.dir))
	}
	var got []string
	for _, f := range r.Facts {
		got = append(got, f.Key+"="+f.Kept)
	}
	// The analysis does not count (RS-2); file1.txt by its bare name.
	if want := "prompt:0=summary prompt:1= file:0= file:1=summary"; strings.Join(got, " ") != want {
		t.Errorf("facts %s, want %s", strings.Join(got, " "), want)
	}
	if r.Source != snapshot.ResidueFromHook || r.Given != nil || r.SummaryChars == 0 {
		t.Errorf("record %+v", r)
	}
	st, err := watch.StoreFor(s.dir).Load(s.sid)
	if err != nil || st == nil || st.Residue == nil || st.Residue.Snapshot != names[0] {
		t.Fatalf("residue not noted due: %+v, %v", st, err)
	}
	if !strings.Contains(readLog(s.dir), "residue: the summary kept 2 of 4 facts") {
		t.Errorf("log:\n%s", readLog(s.dir))
	}

	// Without compact_summary: no record, the residue still due.
	s2 := newSimSession(t, "resid001-1111-4222-8333-444455556666")
	s2.turn("One prompt")
	s2.preCompact()
	s2.postCompactWith(nil)
	n2 := s2.snapshots()
	if r, err := snapshot.ReadResidue(s2.dir, n2[0], s2.sid); r != nil || err != nil {
		t.Errorf("a residue recorded without a summary: %+v %v", r, err)
	}
	if st, _ := watch.StoreFor(s2.dir).Load(s2.sid); st == nil || st.Residue == nil || st.Residue.Snapshot != n2[0] {
		t.Errorf("residue not due without compact_summary: %+v", st)
	}
}
