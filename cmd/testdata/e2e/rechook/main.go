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
//
// With E2E_RECHOOK_FOLLOW naming the hook (an event, or event:source, in a
// comma-separated list), the hook also follows the transcript after it
// started, until it has not grown for E2E_RECHOOK_FOLLOW_QUIET_MS (default
// 1000) or E2E_RECHOOK_FOLLOW_MAX_MS (default 8000) have passed, and
// records each growth ("_follow"): that is how the harness measures how far
// the transcript lags a hook, and whether the client writes it while the
// hook runs (E2E-41). With E2E_RECHOOK_FOLLOW_DETACH set, a copy of the
// hook started in the background follows instead, writing the record to
// the folder "follow" beside $E2E_HOOK_RECORD_DIR, and the hook returns at
// once: that measures when the client writes without holding it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 5 && os.Args[1] == "-follow" {
		// The detached follower: path, start (UnixNano), record file.
		ns, _ := strconv.ParseInt(os.Args[3], 10, 64)
		out, _ := json.Marshal(follow(os.Args[2], time.Unix(0, ns)))
		_ = os.WriteFile(os.Args[4], out, 0o600)
		return
	}
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
		name := fmt.Sprintf("%d-%s-%s.json", start.UnixNano(), p.Event, p.Source)
		if follows(p.Event, p.Source) {
			if os.Getenv("E2E_RECHOOK_FOLLOW_DETACH") != "" {
				detach(p.TranscriptPath, start, filepath.Join(filepath.Dir(filepath.Clean(dir)), "follow", name))
			} else {
				rec["_follow"] = follow(p.TranscriptPath, start)
			}
		}
		out, _ := json.Marshal(rec)
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

// detach starts a copy of this program that follows the transcript in the
// background and writes what it saw to record.
func detach(path string, start time.Time, record string) {
	_ = os.MkdirAll(filepath.Dir(record), 0o700)
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, "-follow", path, strconv.FormatInt(start.UnixNano(), 10), record)
	cmd.SysProcAttr = detachedAttr()
	if cmd.Start() == nil {
		_ = cmd.Process.Release()
	}
}

// follows reports whether E2E_RECHOOK_FOLLOW names this hook.
func follows(event, source string) bool {
	for _, f := range strings.Split(os.Getenv("E2E_RECHOOK_FOLLOW"), ",") {
		if f = strings.TrimSpace(f); f != "" && (f == event || f == event+":"+source) {
			return true
		}
	}
	return false
}

func envMillis(name string, def int) time.Duration {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		def = n
	}
	return time.Duration(def) * time.Millisecond
}

// follow polls the transcript's size every 5 ms from start until it has
// not grown for the quiet period, or the cap, and records every growth
// with the milliseconds since the hook started.
func follow(path string, start time.Time) map[string]any {
	quiet, limit := envMillis("E2E_RECHOOK_FOLLOW_QUIET_MS", 1000), envMillis("E2E_RECHOOK_FOLLOW_MAX_MS", 8000)
	size := func() int64 {
		if fi, err := os.Stat(path); err == nil {
			return fi.Size()
		}
		return -1
	}
	type growth struct {
		Ms   float64 `json:"ms"`
		Size int64   `json:"size"`
	}
	var grew []growth
	last, since := size(), time.Now()
	for time.Since(since) < quiet && time.Since(start) < limit {
		time.Sleep(5 * time.Millisecond)
		if n := size(); n != last {
			last, since = n, time.Now()
			grew = append(grew, growth{float64(time.Since(start).Microseconds()) / 1000, n})
		}
	}
	return map[string]any{"growth": grew, "end_ms": float64(time.Since(start).Microseconds()) / 1000, "end_size": last}
}
