// Command rechook is the recording hook of the end-to-end harness
// (specs/e2e.md, E2E-3): it stores every hook payload it receives in
// $E2E_HOOK_RECORD_DIR and, after a compaction, hands the session a marker
// through SessionStart additionalContext. It proves the harness without
// depending on compact-guard's own hooks.
//
// Each stored payload gains a "_probe" object: what the session's transcript
// held when the hook started (size, lines, compact_boundary lines and the
// offset of the last one). That is how the harness measures when the client
// writes a compaction's boundary relative to its hooks (E2E-10).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

func main() {
	start := time.Now()
	in, _ := io.ReadAll(os.Stdin)
	var p struct {
		Event          string `json:"hook_event_name"`
		Source         string `json:"source"`
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
	}
	_ = json.Unmarshal(in, &p)
	if dir := os.Getenv("E2E_HOOK_RECORD_DIR"); dir != "" {
		var rec map[string]any
		if json.Unmarshal(in, &rec) != nil || rec == nil {
			rec = map[string]any{"_raw": string(in)}
		}
		rec["_probe"] = probe(p.TranscriptPath, start)
		out, _ := json.Marshal(rec)
		name := fmt.Sprintf("%d-%s-%s.json", start.UnixNano(), p.Event, p.Source)
		_ = os.WriteFile(filepath.Join(dir, name), out, 0o600)
	}
	if p.Event == "PreCompact" {
		// Lets the harness see where the client records a PreCompact
		// hook's stdout (E2E-4).
		os.Stdout.WriteString(os.Getenv("E2E_PRECOMPACT_STDOUT"))
	}
	if p.Event == "SessionStart" && p.Source == "compact" && os.Getenv("E2E_RECHOOK_SILENT") == "" {
		out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName":     "SessionStart",
			"additionalContext": "E2E-RECORDING-HOOK session " + p.SessionID + " compacted",
		}})
		os.Stdout.Write(out)
	}
}

// probe describes the transcript at path as it stands now.
func probe(path string, at time.Time) map[string]any {
	out := map[string]any{"at": at.UTC().Format(time.RFC3339Nano)}
	f, err := os.Open(path)
	if err != nil {
		out["error"] = err.Error()
		return out
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var off, lastBoundary int64 = 0, -1
	lines, boundaries := 0, 0
	var types []string
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && bytes.HasSuffix(line, []byte("\n")) {
			lines++
			var e struct {
				Type    string `json:"type"`
				Subtype string `json:"subtype"`
			}
			_ = json.Unmarshal(line, &e)
			t := e.Type
			if e.Subtype != "" {
				t += "/" + e.Subtype
			}
			if e.Subtype == "compact_boundary" {
				boundaries++
				lastBoundary = off
				types = types[:0]
			}
			types = append(types, t)
			off += int64(len(line))
		}
		if err != nil {
			break
		}
	}
	out["size"] = off
	out["lines"] = lines
	out["boundaries"] = boundaries
	out["last_boundary"] = lastBoundary
	if len(types) > 40 {
		types = types[len(types)-40:]
	}
	out["types_since_last_boundary"] = types
	return out
}
