package restore

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot"
)

// The record's preparation keeps the window and the auto-compaction point,
// not the mode (it holds no release to decide it by), and the pointer
// states the fill against the window, never the point.
// spec: WA-24
func TestPreparationKeepsThePointNotTheMode(t *testing.T) {
	rec := prepared(snapshot.Emergency)
	b, err := json.Marshal(rec.Preparation)
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	if keys["window"] != float64(1000000) || keys["auto_at"] != float64(967000) {
		t.Errorf("preparation %s: want the window and the point", b)
	}
	for k := range keys {
		if strings.Contains(k, "mode") || strings.Contains(k, "version") || strings.Contains(k, "release") {
			t.Errorf("preparation holds %q: %s", k, b)
		}
	}
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		in := typicalInput(lang)
		in.Record = rec
		got := Pointer(in)
		if strings.Contains(got, "967") {
			t.Errorf("%s: the pointer states the point:\n%s", lang, got)
		}
		if !strings.Contains(got, "96%") { // 968,100 of the 1,000,000 window
			t.Errorf("%s: the pointer does not give the fill against the window:\n%s", lang, got)
		}
	}
}
