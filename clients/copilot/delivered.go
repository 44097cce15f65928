package copilot

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/transcript"
)

// copilotWindow bounds how much of a Copilot session after a boundary is
// read for the pointer (AU-22): the hooks of the next prompt or tool
// call come within the first few hundred KB.
const copilotWindow = 16 << 20

// delivered judges GitHub Copilot CLI's record (AU-22): Copilot
// writes each hook's output into events.jsonl (hook.end, output
// .additionalContext), and the model gets a userPromptSubmitted's in the
// prompt (user.message transformedContent, inside <system_reminder>) and a
// postToolUse's with the tool result (measured, 1.0.102). The first of
// them after this boundary and before the next that names a snapshot is
// the pointer; a userPromptSubmitted context counts only when the prompt
// the model got holds it (Copilot keeps the last hook's only).
func delivered(_ context.Context, path string, _ *transcript.File, c transcript.Compaction, end int64, a *audit.Compaction) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	buf := make([]byte, min(end-c.Offset, copilotWindow))
	n, err := f.ReadAt(buf, c.Offset)
	if err != nil && err != io.EOF {
		return
	}
	buf = buf[:n]
	a.Delivered = "no"
	var pending string // a userPromptSubmitted context not yet seen in its prompt
	for _, line := range bytes.Split(buf, []byte("\n")) {
		switch {
		case bytes.Contains(line, []byte(`"type":"hook.end"`)) && bytes.Contains(line, []byte(`"additionalContext"`)):
			var e struct {
				Data struct {
					HookType string `json:"hookType"`
					Output   struct {
						AdditionalContext string `json:"additionalContext"`
					} `json:"output"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &e) != nil {
				continue
			}
			text := e.Data.Output.AdditionalContext
			a.Contexts++
			a.ContextChars += len(text)
			name := selectsnap.NamedSnapshot(text)
			switch {
			case name == "":
			case e.Data.HookType == "postToolUse" || e.Data.HookType == "postToolUseFailure":
				a.Delivered, a.Named = "yes", name
				return
			case e.Data.HookType == "userPromptSubmitted":
				pending = name
			}
		case pending != "" && bytes.Contains(line, []byte(`"type":"user.message"`)):
			var e struct {
				Data struct {
					Transformed string `json:"transformedContent"`
				} `json:"data"`
			}
			if json.Unmarshal(line, &e) == nil && strings.Contains(e.Data.Transformed, pending) {
				a.Delivered, a.Named = "yes", pending
				return
			}
			pending = "" // another hook's context won
		}
	}
}

// layout is where audit finds Copilot CLI's sessions:
// session-state/<session id>/events.jsonl (AU-21).
var layout = audit.Layout{Title: "GitHub Copilot CLI", Depth: 1, Session: func(path string) (string, bool) {
	if filepath.Base(path) != "events.jsonl" {
		return "", false
	}
	return filepath.Base(filepath.Dir(path)), true
}, Delivered: delivered}
