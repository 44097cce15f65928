package handover

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/take"
)

// precompact's snapshot and the one postcompact takes at SessionStart for a
// compaction that has none are gathered by the one function: on the same
// transcript they hold the same facts, read from the same point.
// spec: PC-35 PO-C10
func TestTakenAtSessionStartGatheredAsPrecompact(t *testing.T) {
	const sid = "d3ad11e5-0000-4000-8000-000000000035"
	tr := hooktest.SmallTranscript(t)
	load := func(dir string) *snapshot.Record {
		t.Helper()
		st := &snapshot.Store{Dir: dir}
		entries, err := st.Entries()
		if err != nil || len(entries) != 1 {
			t.Fatalf("snapshots %v, %v; log:\n%s", entries, err, hooktest.ReadLog(dir))
		}
		rec, err := st.Load(entries[0].Name)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	env := func(string) string { return "" }

	preDir := filepath.Join(t.TempDir(), "snaps")
	payload, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": tr, "trigger": "auto", "hook_event_name": "PreCompact"})
	if err := take.Run(&take.Options{
		In: bytes.NewReader(payload), Out: &strings.Builder{},
		Dir: preDir, Lang: snapshot.English, Keep: take.DefaultKeep, Timeout: 20 * time.Second, GitTimeout: time.Second,
		Getenv: env, Now: time.Now,
	}); err != nil {
		t.Fatal(err)
	}
	pre := load(preDir)

	takeDir := filepath.Join(t.TempDir(), "snaps")
	start, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": tr, "hook_event_name": "SessionStart", "source": "compact"})
	if err := Postcompact(&Options{
		In: bytes.NewReader(start), Out: &strings.Builder{},
		Dir: takeDir, Lang: snapshot.English, Timeout: 20 * time.Second, Getenv: env, Now: time.Now,
	}); err != nil {
		t.Fatal(err)
	}
	taken := load(takeDir)

	if pre.HookEvent != "PreCompact" || taken.HookEvent != "SessionStart" {
		t.Fatalf("hook events %q and %q", pre.HookEvent, taken.HookEvent)
	}
	for _, f := range []struct {
		name      string
		pre, take any
	}{
		{"prompts", hooktest.PromptTexts(pre), hooktest.PromptTexts(taken)},
		{"files", hooktest.FileSummaries(pre), hooktest.FileSummaries(taken)},
		{"commands", hooktest.CommandSummaries(pre), hooktest.CommandSummaries(taken)},
		{"failures", pre.Failures, taken.Failures},
		{"cwd", pre.Cwd, taken.Cwd},
		{"git", pre.Git, taken.Git},
		{"state file", pre.StateFile, taken.StateFile},
		{"transcript size", pre.Coverage.TranscriptSize, taken.Coverage.TranscriptSize},
		{"segment start", pre.Coverage.SegmentStart, taken.Coverage.SegmentStart},
	} {
		if !reflect.DeepEqual(f.pre, f.take) {
			t.Errorf("%s: precompact's %+v, taken at SessionStart %+v", f.name, f.pre, f.take)
		}
	}
	if len(pre.Prompts) == 0 || len(pre.Commands) == 0 || len(pre.Files) == 0 {
		t.Errorf("the transcript's facts were not read: %d prompts, %d commands, %d files", len(pre.Prompts), len(pre.Commands), len(pre.Files))
	}
}
