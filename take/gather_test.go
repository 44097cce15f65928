package take

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
	opts := &Options{Dir: filepath.Join(tmp, "snaps"), Getenv: func(string) string { return "" }, Now: time.Now, Timeout: time.Second,
		BeforeStep: func(step string) {
			if step == "reading the transcript" {
				cancel()
				select {} // the file system never answers
			}
		}}
	rec, warnings := Gather(ctx, opts, Client{}, hookio.Payload{SessionID: "s-1", TranscriptPath: tr}, nil, "s-1", time.Now())
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
	opts := &Options{Dir: dir, Getenv: func(string) string { return "" }, Now: time.Now, Timeout: 10 * time.Second}
	gather := func() *snapshot.Record {
		t.Helper()
		rec, warnings := Gather(context.Background(), opts, Client{}, hookio.Payload{SessionID: "s-1", TranscriptPath: tr}, nil, "s-1", time.Now())
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
