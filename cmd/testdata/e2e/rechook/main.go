// Command rechook is the recording hook of the end-to-end harness
// (specs/e2e.md, E2E-3): it stores every hook payload it receives in
// $E2E_HOOK_RECORD_DIR and, after a compaction, hands the session a marker
// through SessionStart additionalContext. It proves the harness without
// depending on compact-guard's own hooks.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

func main() {
	in, _ := io.ReadAll(os.Stdin)
	var p struct {
		Event     string `json:"hook_event_name"`
		Source    string `json:"source"`
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(in, &p)
	if dir := os.Getenv("E2E_HOOK_RECORD_DIR"); dir != "" {
		name := fmt.Sprintf("%d-%s-%s.json", time.Now().UnixNano(), p.Event, p.Source)
		_ = os.WriteFile(filepath.Join(dir, name), in, 0o600)
	}
	if p.Event == "PreCompact" {
		// Lets the harness see where the client records a PreCompact
		// hook's stdout (E2E-4).
		os.Stdout.WriteString(os.Getenv("E2E_PRECOMPACT_STDOUT"))
	}
	if p.Event == "SessionStart" && p.Source == "compact" {
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":     "SessionStart",
			"additionalContext": "E2E-RECORDING-HOOK session " + p.SessionID + " compacted",
		}})
		os.Stdout.Write(out)
	}
}
