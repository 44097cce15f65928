package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
)

// spec: PC-22, PC-3
// A transcript step whose file system stops answering once the file is
// open is given up at the gathering deadline: the record still holds the
// transcript's size and says nothing was read, and it is marked so that it
// is never chained from. The test ends the deadline itself, when the step
// hangs.
func TestGatherIncompleteReadKeepsSize(t *testing.T) {
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "s.jsonl")
	line := `{"type":"user","message":{"role":"user","content":"hello"},"timestamp":"2026-11-30T09:00:00.000Z"}` + "\n"
	if err := os.WriteFile(tr, []byte(strings.Repeat(line, 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := &PrecompactOptions{Dir: filepath.Join(tmp, "snaps"), Getenv: func(string) string { return "" }, Now: time.Now, Timeout: time.Second,
		beforeStep: func(step string) {
			if step == "reading the transcript" {
				cancel()
				select {} // the file system never answers
			}
		}}
	rec, warnings := gatherSnapshot(ctx, opts, hookio.Payload{SessionID: "s-1", TranscriptPath: tr}, nil, "s-1", time.Now())
	if rec == nil {
		t.Fatal("no record")
	}
	if want := int64(len(line) * 1000); rec.Coverage.TranscriptSize != want {
		t.Errorf("transcript_size = %d, want %d", rec.Coverage.TranscriptSize, want)
	}
	if c := rec.Coverage; !c.Incomplete || c.ReadTo == nil || *c.ReadTo != 0 {
		t.Errorf("coverage %+v: want incomplete, read to 0", c)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "transcript: not read within") {
		t.Errorf("warnings %q do not say the transcript was given up", warnings)
	}
}

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
		opts := &PostcompactOptions{
			IO:  &IO{In: strings.NewReader(`{"session_id":"` + sid + `","hook_event_name":"PostCompact","compact_summary":"x"}`), Out: &out, ErrOut: os.Stderr},
			Dir: dir, Getenv: func(string) string { return "" }, Now: time.Now,
		}
		if err := postcompactRun(opts); err != nil || out.Len() > 0 {
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
	if log := readLog(dir); !strings.Contains(log, "outcome=none") || !strings.Contains(log, "disk full") {
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

// spec: TR-33, SF-6
// The record says how many commands the session ran, also when a snapshot
// continues the chain of an earlier one and reads only what came after it.
func TestGatherRecordsTotalsAcrossTheChain(t *testing.T) {
	tmp := t.TempDir()
	tr := filepath.Join(tmp, "s.jsonl")
	var b strings.Builder
	n := 0
	stamp := func() string {
		n++
		return time.Date(2026, 11, 30, 9, 0, n, 0, time.UTC).Format(time.RFC3339Nano)
	}
	bash := func(i int) {
		id := fmt.Sprint("toolu_", i)
		fmt.Fprintf(&b, `{"type":"assistant","timestamp":%q,"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"echo %d"}}]}}`+"\n", stamp(), id, i)
		fmt.Fprintf(&b, `{"type":"user","timestamp":%q,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"ok"}]}}`+"\n", stamp(), id)
	}
	write := func() {
		if err := os.WriteFile(tr, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 25 {
		bash(i)
	}
	write()
	dir := filepath.Join(tmp, "snaps")
	opts := &PrecompactOptions{Dir: dir, Getenv: func(string) string { return "" }, Now: time.Now, Timeout: 10 * time.Second}
	gather := func() *snapshot.Record {
		t.Helper()
		rec, warnings := gatherSnapshot(context.Background(), opts, hookio.Payload{SessionID: "s-1", TranscriptPath: tr}, nil, "s-1", time.Now())
		if rec == nil {
			t.Fatalf("no record: %v", warnings)
		}
		return rec
	}
	first := gather()
	if first.Totals == nil || first.Totals.Commands != 25 || len(first.Commands) != 20 {
		t.Fatalf("first snapshot: totals %+v, %d commands listed; want 25 and 20", first.Totals, len(first.Commands))
	}
	if _, _, err := (&snapshot.Store{Dir: dir}).Save(first, snapshot.English); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","timestamp":%q,"compactMetadata":{"trigger":"auto","preTokens":1000}}`+"\n", stamp())
	for i := 25; i < 30; i++ {
		bash(i)
	}
	write()
	second := gather()
	if second.Coverage.Previous != first.Name {
		t.Fatalf("second snapshot did not continue the chain: %+v", second.Coverage)
	}
	if second.Totals == nil || second.Totals.Commands != 30 {
		t.Errorf("second snapshot: totals %+v, want 30 commands", second.Totals)
	}
}
