package snapshot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/transcript"
)

// latest.json holds the newest snapshot's path and name, the time, the
// session id, the cwd and the trigger, and no free text: a prompt the
// snapshot holds is not in it.
// spec: SEC-2
func TestLatestHoldsNoFreeText(t *testing.T) {
	s := newStore(t)
	r := rec("dddddddd-2", t0, "")
	r.Prompts = []transcript.Prompt{{Text: "deploy the thing with the staging password"}}
	ci := "keep the staging password"
	r.CustomInstructions = &ci
	mustSave(t, s, r, English)
	b, err := os.ReadFile(filepath.Join(s.Dir, LatestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"cwd", "name", "path", "session", "time", "trigger"}; !slices.Equal(keys, want) {
		t.Errorf("latest.json holds %v, want %v", keys, want)
	}
	if strings.Contains(string(b), "password") {
		t.Errorf("latest.json holds free text:\n%s", b)
	}
	rb, err := os.ReadFile(filepath.Join(s.Dir, r.Name+".json"))
	if err != nil || !strings.Contains(string(rb), "deploy the thing with the staging password") {
		t.Errorf("the snapshot does not hold the prompt verbatim (%v)", err)
	}
}
