package selectsnap

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

func withAgent(a string) func(*snapshot.Record) {
	return func(r *snapshot.Record) { r.Agent = a }
}

func both(fs ...func(*snapshot.Record)) func(*snapshot.Record) {
	return func(r *snapshot.Record) {
		for _, f := range fs {
			f(r)
		}
	}
}

// TestSelectAgents runs selection in the orders Codex CLI and Qwen Code
// were measured to write their compaction records and run their hooks
// (specs/selectsnap.md, the table of SS-15).
func TestSelectAgents(t *testing.T) {
	min := time.Minute
	codex, qwen := withAgent(AgentCodex), withAgent(AgentQwen)
	tests := []struct {
		name       string
		agent      string
		event      string
		snaps      []snap
		transcript *fakeTranscript
		want       int
		rejected   []string
	}{
		// spec: SS-16
		{name: "another agent's snapshot is rejected, the own agent's older one chosen", agent: AgentClaude,
			snaps: []snap{{at: -3 * min, size: 5000}, {at: -1 * min, size: 9000, edit: codex}}, transcript: &fakeTranscript{}, want: 0,
			rejected: []string{"recorded for a codex session, this is a claude session"}},
		// spec: SS-16
		{name: "a record without agent is Claude Code's", agent: AgentCodex,
			snaps: []snap{{at: -1 * min, size: 9000}}, transcript: &fakeTranscript{}, want: -1,
			rejected: []string{"recorded for a claude session, this is a codex session"}},
		// spec: SS-16
		{name: "no agent in the options is Claude Code", snaps: []snap{{at: -1 * min, size: 9000, edit: withAgent(AgentClaude)}}, transcript: &fakeTranscript{}, want: 0},

		// spec: SS-15 (Codex: compacted is written before PostCompact)
		{name: "codex PostCompact after its compacted record", agent: AgentCodex, event: "PostCompact",
			snaps: []snap{{at: -1 * min, size: 5000, edit: codex}}, transcript: &fakeTranscript{boundaries: []int64{1000, 5200}}, want: 0},
		// spec: SS-15 (Codex: SessionStart after PostCompact confirmed it past the boundary)
		{name: "codex SessionStart after PostCompact", agent: AgentCodex,
			snaps: []snap{{at: -1 * min, size: 5000, edit: both(codex, confirmedAt(5600))}}, transcript: &fakeTranscript{boundaries: []int64{5200}}, want: 0},
		// spec: SS-15 (Codex: a manual compaction's SessionStart waits for the next turn)
		{name: "codex manual compaction, SessionStart at the next turn", agent: AgentCodex,
			snaps:      []snap{{at: -10 * min, size: 5000, edit: both(codex, confirmedAt(5600))}},
			transcript: &fakeTranscript{size: 6000, boundaries: []int64{5200}}, want: 0},
		// spec: SS-15, SS-8c (Codex: the next compaction, its PreCompact failed)
		{name: "codex next compaction without a snapshot", agent: AgentCodex,
			snaps:      []snap{{at: -5 * min, size: 5000, delivered: 5700, edit: both(codex, confirmedAt(5600))}},
			transcript: &fakeTranscript{boundaries: []int64{5200, 9000}, responses: []fakeResponse{{7000, -2 * min}}}, want: -1,
			rejected: []string{"before an earlier compaction"}},
		// spec: SS-15, SS-8d (Codex: the session went on after an abandoned PreCompact)
		{name: "codex session went on", agent: AgentCodex, event: "PostCompact",
			snaps:      []snap{{at: -5 * min, size: 5000, edit: codex}},
			transcript: &fakeTranscript{boundaries: []int64{9000}, responses: []fakeResponse{{7000, -2 * min}}}, want: -1,
			rejected: []string{"went on"}},

		// spec: SS-15 (Qwen: PostCompact runs before chat_compression is written)
		{name: "qwen PostCompact before its boundary", agent: AgentQwen, event: "PostCompact",
			snaps: []snap{{at: -1 * min, size: 5000, edit: qwen}}, transcript: &fakeTranscript{boundaries: []int64{1000}}, want: 0},
		// spec: SS-15, SS-15a, SS-15b (Qwen: SessionStart runs in the background, after the boundary and the next response)
		{name: "qwen late SessionStart after PostCompact and the continuation", agent: AgentQwen,
			snaps:      []snap{{at: -1 * min, size: 5000, edit: both(qwen, confirmedAt(5100))}},
			transcript: &fakeTranscript{boundaries: []int64{5200}, responses: []fakeResponse{{5400, -30 * time.Second}}}, want: 0},
		// spec: SS-15, SS-15a (the same transcript, read in Claude Code's order, condemns it)
		{name: "the same order is not Claude Code's", agent: AgentClaude,
			snaps:      []snap{{at: -1 * min, size: 5000, edit: confirmedAt(5100)}},
			transcript: &fakeTranscript{boundaries: []int64{5200}, responses: []fakeResponse{{5400, -30 * time.Second}}}, want: -1,
			rejected: []string{"handed to an earlier compaction"}},
		// spec: SS-15, SS-15b, SS-8d (Qwen: a response before the boundary still means the session went on)
		{name: "qwen session went on before the compaction", agent: AgentQwen,
			snaps:      []snap{{at: -5 * min, size: 5000, edit: qwen}},
			transcript: &fakeTranscript{boundaries: []int64{6000}, responses: []fakeResponse{{5500, -4 * min}}}, want: -1,
			rejected: []string{"went on"}},
		// spec: SS-15, SS-8c (Qwen: PostCompact of the next compaction, whose PreCompact failed)
		{name: "qwen next compaction's PostCompact", agent: AgentQwen, event: "PostCompact",
			snaps:      []snap{{at: -5 * min, size: 5000, delivered: 5600, edit: both(qwen, confirmedAt(5100))}},
			transcript: &fakeTranscript{boundaries: []int64{5200}}, want: -1,
			rejected: []string{"handed to an earlier compaction"}},
		// spec: SS-15, SS-15a, SS-8b (Qwen: SessionStart of the next compaction)
		{name: "qwen next compaction's SessionStart", agent: AgentQwen,
			snaps:      []snap{{at: -5 * min, size: 5000, delivered: 5600, edit: both(qwen, confirmedAt(5100))}},
			transcript: &fakeTranscript{boundaries: []int64{5200, 9000}}, want: -1,
			rejected: []string{"before an earlier compaction"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := privateDir(t)
			var bases []string
			for _, s := range tc.snaps {
				bases = append(bases, writeSnap(t, dir, s))
			}
			o := Options{Dir: dir, SessionID: ownID, Now: now, TranscriptPath: tpath, Agent: tc.agent, Event: tc.event}
			if tc.transcript != nil {
				o.Transcript = tc.transcript
			}
			got, rej, err := Select(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.want < 0 && got != nil:
				t.Fatalf("chose %s, want none (rejections %v)", got.Record.Name, rej)
			case tc.want >= 0 && (got == nil || got.Record.Name != bases[tc.want]):
				t.Fatalf("chose %v, want %s (rejections %v)", got, bases[tc.want], rej)
			}
			if len(rej) != len(tc.rejected) {
				t.Fatalf("rejections %v, want %q", rej, tc.rejected)
			}
			for i, r := range rej {
				if !strings.Contains(r.Reason, tc.rejected[i]) {
					t.Errorf("rejection %d = %+v, want %q", i, r, tc.rejected[i])
				}
			}
		})
	}
}
