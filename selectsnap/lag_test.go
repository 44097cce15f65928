package selectsnap

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// spec: SS-26 SS-27 SS-28 SS-8d SS-9
// A precomputed compaction's swap while the transcript lags: the arm-time
// snapshot is not taken for the swap when watch recorded a tool call or a
// prompt after it, though the transcript holds no response after it yet.
// A record before the snapshot, another client's session, or no record
// leave the transcript to decide, as before.
func TestSelectWentOnUnderLag(t *testing.T) {
	min := time.Minute
	arm := []snap{{at: -5 * min, size: 2000}} // PreCompact at arm time
	lagging := func() *fakeTranscript {       // the responses after the arm are not written yet
		return &fakeTranscript{size: 2100, boundaries: []int64{1000}}
	}
	ran := func(at time.Duration, event string) *WentOn { return &WentOn{At: now.Add(at), Event: event} }
	for _, tc := range []struct {
		name     string
		snaps    []snap
		tr       Transcript
		wentOn   *WentOn
		agent    string
		want     int
		rejected []string
	}{
		{"a PostToolUse after the arm, no response in the file yet", arm, lagging(), ran(-5*min+time.Second, "PostToolUse"), "", -1,
			[]string{ReasonWentOn + " (a PostToolUse hook ran at"}},
		{"a prompt after the arm", arm, lagging(), ran(-4*min, "UserPromptSubmit"), AgentClaude, -1,
			[]string{"a UserPromptSubmit hook ran at"}},
		{"the tool call came before the snapshot: this compaction's", arm, lagging(), ran(-6*min, "PostToolUse"), "", 0, nil},
		{"no record: the lagging transcript decides, and shows nothing yet", arm, lagging(), nil, "", 0, nil},
		{"a record without a run", arm, lagging(), &WentOn{}, "", 0, nil},
		{"the transcript unreadable: the record still condemns", arm, nil, ran(-4*min, "PostToolUse"), "", -1,
			[]string{ReasonWentOn}},
		{"older snapshots are condemned with it", []snap{{at: -9 * min, size: 900}, {at: -5 * min, size: 2000}}, lagging(), ran(-4*min, "PostToolUse"), "", -1,
			[]string{ReasonWentOn, "older than"}},
		{"a Codex session: its SessionStart comes a turn late, the record says nothing",
			[]snap{{at: -5 * min, size: 2000, edit: func(r *snapshot.Record) { r.Agent = AgentCodex }}}, lagging(), ran(-4*min, "UserPromptSubmit"), AgentCodex, 0, nil},
		{"a Qwen Code session: its SessionStart runs in the background",
			[]snap{{at: -5 * min, size: 2000, edit: func(r *snapshot.Record) { r.Agent = AgentQwen }}}, lagging(), ran(-4*min, "PostToolUse"), AgentQwen, 0, nil},
		{"a snapshot taken at SessionStart after the tool call is this compaction's",
			[]snap{{at: -5 * min, size: 2000}, {at: -3 * min, size: 2100, edit: taken}}, lagging(), ran(-4*min, "PostToolUse"), "", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := privateDir(t)
			var bases []string
			for _, s := range tc.snaps {
				bases = append(bases, writeSnap(t, dir, s))
			}
			got, rej, err := Select(context.Background(), Options{Dir: dir, SessionID: ownID, Now: now, TranscriptPath: tpath,
				Transcript: tc.tr, WentOn: tc.wentOn, Agent: tc.agent})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want < 0 && got != nil:
				t.Fatalf("chose %s, want none (%v)", got.Record.Name, rej)
			case tc.want >= 0 && (got == nil || got.Record.Name != bases[tc.want]):
				t.Fatalf("chose %+v, want %s (%v)", got, bases[tc.want], rej)
			}
			if len(rej) != len(tc.rejected) {
				t.Fatalf("rejections %v, want %q", rej, tc.rejected)
			}
			for i, r := range rej {
				if !strings.Contains(r.Reason, tc.rejected[i]) {
					t.Errorf("rejection %+v, want %q", r, tc.rejected[i])
				}
			}
			// The snapshot taken at SessionStart keeps the arm's trigger (SS-18).
			if tc.want < 0 && PreparedEarlier(rej) != bases[len(bases)-1] {
				t.Errorf("PreparedEarlier(%v) = %q, want %s", rej, PreparedEarlier(rej), bases[len(bases)-1])
			}
		})
	}
}

// spec: SS-26 SS-12
// precompact's failure marker of an arm is not about the swap once a tool
// call came after it.
func TestCheckFailureWentOn(t *testing.T) {
	f := &snapshot.Failure{SessionID: ownID, Time: now.Add(-5 * time.Minute), TranscriptSize: 2000}
	o := Options{SessionID: ownID, Transcript: &fakeTranscript{size: 2100, boundaries: []int64{1000}}}
	if reason, _, err := CheckFailure(context.Background(), o, f); err != nil || reason != "" {
		t.Fatalf("without a record: %q, %v", reason, err)
	}
	o.WentOn = &WentOn{At: now.Add(-4 * time.Minute), Event: "PostToolUse"}
	if reason, _, err := CheckFailure(context.Background(), o, f); err != nil || !strings.HasPrefix(reason, ReasonWentOn) {
		t.Fatalf("with a PostToolUse after it: %q, %v", reason, err)
	}
}
