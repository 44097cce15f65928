package handover

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
)

// spec: PO-C6
// PostCompact after a failed precompact confirms nothing: the newest record
// belongs to an earlier compaction.
func TestPostCompactSkipsConfirmAfterFailure(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "snaps")
	const sid = "eeee1111-0000-0000-0000-000000000001"
	now := time.Now()
	st := &snapshot.Store{Dir: dir}
	if _, _, err := st.Save(&snapshot.Record{SessionID: sid, CreatedAt: now.Add(-10 * time.Minute), Trigger: "auto", TranscriptPath: "/t.jsonl"}, snapshot.English); err != nil {
		t.Fatal(err)
	}
	if err := snapshot.WriteFailure(dir, snapshot.Failure{SessionID: sid, Time: now.Add(-time.Minute), Reason: "disk full"}); err != nil {
		t.Fatal(err)
	}
	run := func() {
		var out strings.Builder
		opts := &Options{
			In: strings.NewReader(`{"session_id":"` + sid + `","hook_event_name":"PostCompact","compact_summary":"x"}`), Out: &out,
			Dir: dir, Getenv: func(string) string { return "" }, Now: time.Now,
		}
		if err := Postcompact(opts); err != nil || out.Len() > 0 {
			t.Fatalf("postcompact: err %v, stdout %q", err, out.String())
		}
	}
	run()
	entries, _ := st.Entries()
	rec, err := st.Load(entries[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Compaction != nil {
		t.Errorf("an earlier compaction's snapshot was confirmed: %+v", rec.Compaction)
	}
	if log := hooktest.ReadLog(dir); !strings.Contains(log, "outcome=none") || !strings.Contains(log, "disk full") {
		t.Errorf("log does not say why nothing was confirmed:\n%s", log)
	}

	// Once a snapshot newer than the marker exists, PostCompact confirms it.
	snapshot.ClearFailure(dir, sid)
	run()
	rec, _ = st.Load(entries[0].Name)
	if rec.Compaction == nil {
		t.Error("without a failure marker the compaction is confirmed")
	}
}
