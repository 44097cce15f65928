package transcript

import (
	"context"
	"testing"
)

// spec: AU-15
// Codex CLI 0.169.0 records each hook context as a developer message of
// kind hooks.additional_context, its text elided to a length; Qwen Code
// records none.
func TestHookContexts(t *testing.T) {
	f, err := Open("testdata/codex0.169.0/three-compactions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hcs, err := f.HookContexts(context.Background(), 0, f.Size())
	if err != nil || len(hcs) != 3 {
		t.Fatalf("%d contexts (%v)", len(hcs), err)
	}
	for k, want := range []int{826, 812, 809} {
		if hc := hcs[k]; !hc.Elided || hc.Chars != want || hc.Text != "" || hc.Time.IsZero() || k > 0 && hc.Offset <= hcs[k-1].Offset {
			t.Errorf("context %d: %+v", k+1, hc)
		}
	}
	comps, err := f.Compactions(context.Background(), 0)
	if err != nil || len(comps) != 3 {
		t.Fatal(len(comps), err)
	}
	if hcs, _ := f.HookContexts(context.Background(), comps[2].Offset, f.Size()); len(hcs) != 1 || hcs[0].Chars != 809 {
		t.Errorf("after the third compaction: %+v", hcs)
	}
	q, err := Open("testdata/qwen0.24.4/two-compactions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if hcs, err := q.HookContexts(context.Background(), 0, q.Size()); hcs != nil || err != nil {
		t.Errorf("qwen: %+v %v", hcs, err)
	}
	// Codex's placeholder of an elided text is read in clients/codex/reader
	// (its TestHookContexts).
}
