package copilot

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/transcript"
)

// spec: AU-21, AU-22
func TestCopilotDelivered(t *testing.T) {
	const ptr = "The context was compacted (manual); a mechanical snapshot taken just before is at /s/snap_20261202-012739_78095ab7.md"
	hookEnd := func(typ, text string) string {
		return `{"type":"hook.end","data":{"hookInvocationId":"x","hookType":"` + typ + `","success":true,"output":{"additionalContext":"` + text + `"}},"id":"h","timestamp":"2026-12-02T01:28:00.000Z","parentId":"p"}` + "\n"
	}
	prompt := func(text string) string {
		return `{"type":"user.message","data":{"content":"next","transformedContent":"next\n\n<system_reminder>\n` + text + `\n</system_reminder>"},"id":"u","timestamp":"2026-12-02T01:28:00.100Z","parentId":"h"}` + "\n"
	}
	for _, c := range []struct {
		name, after, delivered, named string
	}{
		{"prompt", hookEnd("userPromptSubmitted", ptr) + prompt(ptr), "yes", "snap_20261202-012739_78095ab7"},
		{"tool result", hookEnd("postToolUse", ptr), "yes", "snap_20261202-012739_78095ab7"},
		// Copilot keeps the last userPromptSubmitted hook's context only.
		{"another hook's won", hookEnd("userPromptSubmitted", ptr) + prompt("MK-other"), "no", ""},
		{"nothing", prompt(""), "no", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "events.jsonl")
			boundary := `{"type":"session.compaction_complete","data":{"success":true},"id":"b","timestamp":"2026-12-02T01:27:39.839Z","parentId":"a"}` + "\n"
			if err := os.WriteFile(p, []byte(boundary+c.after), 0o600); err != nil {
				t.Fatal(err)
			}
			var a audit.Compaction
			delivered(context.Background(), p, nil, transcript.Compaction{Offset: 0}, int64(len(boundary+c.after)), &a)
			if a.Delivered != c.delivered || a.Named != c.named {
				t.Errorf("delivered %q named %q, want %q %q", a.Delivered, a.Named, c.delivered, c.named)
			}
		})
	}
	if sid, ok := layout.Session("/h/.copilot/session-state/78095ab7-85ab-4ad8-aadf-55dd6303d151/events.jsonl"); !ok || sid != "78095ab7-85ab-4ad8-aadf-55dd6303d151" {
		t.Errorf("session %q %v", sid, ok)
	}
}
