package restore

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
)

// spec: PO-12, PO-16
// The failure notice goes to the model as additionalContext and to the
// user as systemMessage, in one JSON line; without a message the output is
// HookOutput's, byte for byte.
func TestNoticeOutput(t *testing.T) {
	f := snapshot.Failure{Reason: "mkdir /s: not a directory\nmore", LogPath: "/l/compact-guard.log", Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	for _, lang := range []snapshot.Lang{snapshot.English, snapshot.Russian} {
		notice, msg := FailureNotice(f, lang), FailureMessage(f, lang)
		out, err := hookio.NoticeOutput(notice, msg)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(string(out), "\n") != 1 || !strings.HasSuffix(string(out), "}\n") {
			t.Errorf("not one JSON line: %q", out)
		}
		var got struct {
			HookSpecificOutput struct{ HookEventName, AdditionalContext string } `json:"hookSpecificOutput"`
			SystemMessage      string                                            `json:"systemMessage"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if got.HookSpecificOutput.HookEventName != "SessionStart" || got.HookSpecificOutput.AdditionalContext != notice || got.SystemMessage != msg {
			t.Errorf("%s: %s", lang, out)
		}
		if strings.ContainsAny(msg, "\n\r") || !strings.Contains(msg, "compact-guard") || !strings.Contains(msg, "/l/compact-guard.log") || !strings.Contains(msg, "mkdir /s: not a directory") {
			t.Errorf("%s: the user's line %q", lang, msg)
		}
		checkNoImperatives(t, lang, msg)
	}
	if got := FailureMessage(f, snapshot.English); got != `compact-guard wrote no snapshot before this compaction (2026-12-01 10:00:00 +00:00): "mkdir /s: not a directory". The compact-guard log is at /l/compact-guard.log` {
		t.Errorf("message %q", got)
	}
	a, _ := hookio.NoticeOutput("x", "")
	b, _ := hookio.HookOutput("x")
	if string(a) != string(b) {
		t.Errorf("without a message %s, want %s", a, b)
	}
}
