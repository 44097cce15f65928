package cmd

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// A precomputed compaction arms below the client's threshold: precompact
// runs then, yet the arm is no compaction, so the episode and the
// thresholds crossed before it stay, and the next fill counts against them.
// spec: WA-23
func TestWA23ArmIsNoCompaction(t *testing.T) {
	w := newWatchWorld(t)
	rbWriteFile(t, filepath.Join(w.Claude, "settings.json"), []byte(`{"autoCompactWindow": 200000}`))
	w.fill(t, 144000)
	if got := wtContext(t, w.hook(t, watch.PostToolUse, "p1", nil).Stdout, watch.PostToolUse); got == "" {
		t.Fatal("no notice at 144,000 of a 200,000 window")
	}
	before, err := watch.StoreFor(w.Snaps).Load(w.sid)
	if err != nil || before == nil || len(before.Crossings) == 0 {
		t.Fatalf("state before the arm: %+v %v", before, err)
	}
	w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
		"hook_event_name", "PreCompact", "trigger", "auto"))
	w.fill(t, 150000)
	if got := w.hook(t, watch.PostToolUse, "p1", nil).Stdout; got != "" {
		t.Errorf("a notice again after the arm, for thresholds already told: %q", got)
	}
	after, err := watch.StoreFor(w.Snaps).Load(w.sid)
	if err != nil || after == nil {
		t.Fatalf("state after the arm: %v", err)
	}
	if !after.Episode.Equal(before.Episode) || len(after.Crossings) < len(before.Crossings) ||
		!reflect.DeepEqual(after.Crossings[:len(before.Crossings)], before.Crossings) {
		t.Errorf("the arm started a new episode or dropped crossings:\nbefore %+v %+v\nafter  %+v %+v",
			before.Episode, before.Crossings, after.Episode, after.Crossings)
	}
}

// An idle compaction (the session left for an hour, then compacted with no
// prompt) gets no notice from watch; the next typed prompt runs the
// pointer's check as after any compaction: nothing when the client
// recorded postcompact's pointer, the late pointer when it recorded none.
// spec: WA-22
func TestWA22IdleCompactionNoNotice(t *testing.T) {
	for _, recorded := range []bool{true, false} {
		w := newWatchWorld(t)
		w.fill(t, 250000)
		w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
			"hook_event_name", "PreCompact", "trigger", "auto"))
		pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
		if pointer == "" {
			t.Fatal("postcompact gave no pointer")
		}
		var contexts []string
		if recorded {
			contexts = []string{pointer}
		}
		w.boundary(t, "2.1.328", contexts...)
		got := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p2", nil).Stdout, watch.UserPromptSubmit)
		switch {
		case recorded && got != "":
			t.Errorf("after an idle compaction whose pointer the client recorded, the next prompt got:\n%s", got)
		case !recorded && !strings.HasPrefix(got, "compact-guard: this pointer comes with the first prompt after the compaction, because "):
			t.Errorf("no late pointer after an idle compaction whose pointer the client did not record:\n%s", got)
		}
	}
}
