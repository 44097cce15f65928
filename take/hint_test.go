package take

import (
	"context"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// spec: PC-33
// Once the save phase is over nothing is written, even by a step that
// gets to run.
func TestPrintHintNeverAfterThePhase(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	opts := &Options{Out: &out, Getenv: func(string) string { return "" }, Lang: snapshot.English}
	rec := &snapshot.Record{Agent: "claude", Prompts: []transcript.Prompt{{Text: "x"}}}
	if why, _ := printHint(ctx, opts, rec, hookio.Payload{HookEventName: "PreCompact"}, nil, "/s/snap.md"); why != hintNotWrote || out.Len() > 0 {
		t.Errorf("after the deadline: %s, %q", why, out.String())
	}
}

// spec: PC-27, PC-32
// Claude Code's sessions get the hint; Codex CLI's and Qwen Code's, whose
// PreCompact stdout reaches no summarizer (measured, PC-32), get nothing.
func TestSummaryHintPerClient(t *testing.T) {
	rec := func(agent string) *snapshot.Record {
		return &snapshot.Record{Agent: agent, Prompts: []transcript.Prompt{{Text: "fix it"}}, Cwd: "/p"}
	}
	opts := func(env map[string]string) *Options {
		return &Options{Lang: snapshot.English, Getenv: func(k string) string { return env[k] }}
	}
	pre := hookio.Payload{HookEventName: "PreCompact"}
	for _, tc := range []struct {
		name  string
		opts  *Options
		rec   *snapshot.Record
		p     hookio.Payload
		perr  error
		why   string
		warns bool
	}{
		{"claude", opts(nil), rec("claude"), pre, nil, hintPrinted, false},
		{"codex", opts(nil), rec("codex"), pre, nil, "none:codex", false},
		{"qwen", opts(nil), rec("qwen"), pre, nil, "none:qwen", false},
		{"no event", opts(nil), rec("claude"), hookio.Payload{}, nil, hintNoEvent, false},
		{"SessionStart", opts(nil), rec("claude"), hookio.Payload{HookEventName: "SessionStart"}, nil, hintNoEvent, false},
		{"payload error", opts(nil), rec("claude"), pre, hookio.ErrPayload, hintNoEvent, false},
		{"env off", opts(map[string]string{EnvHint: "no"}), rec("claude"), pre, nil, hintOffEnv, false},
		{"env unknown", opts(map[string]string{EnvHint: "later"}), rec("claude"), pre, nil, hintOffEnv, true},
		{"env on", opts(map[string]string{EnvHint: " YES "}), rec("claude"), pre, nil, hintPrinted, false},
		{"flag", &Options{NoHint: true, Getenv: func(string) string { return "" }}, rec("claude"), pre, nil, hintOffFlag, false},
		{"flags dropped", &Options{FlagsDropped: true, Getenv: func(string) string { return "" }}, rec("claude"), pre, nil, hintNoFlags, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, why, warn := summaryHint(tc.opts, tc.rec, tc.p, tc.perr, "/s/snap.md")
			if why != tc.why || (text != "") != (why == hintPrinted) || (warn != "") != tc.warns {
				t.Errorf("summaryHint = %q, %q, %q; want %s (warning %v)", text, why, warn, tc.why, tc.warns)
			}
		})
	}
}
