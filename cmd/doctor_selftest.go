package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// doctorSelfTest feeds a synthetic session through precompact and
// postcompact in a temporary folder, with an empty environment, as Claude
// Code would run them. The line names the summary hint only when agent is
// Claude Code, the one client whose summarizer takes it (PC-32): for the
// others the hint is no part of their setup.
func doctorSelfTest(agent settings.Agent) health.Result {
	start := time.Now()
	fail := func(format string, a ...any) health.Result {
		return health.Result{Status: health.Fail, Text: "round trip: " + fmt.Sprintf(format, a...),
			Fix: "report it with the output of 'compact-guard version'"}
	}
	tmp, err := os.MkdirTemp("", "compact-guard-doctor-")
	if err != nil {
		return fail("cannot make a temporary folder: %v", err)
	}
	defer os.RemoveAll(tmp)

	sid := fmt.Sprintf("d0c70000-0000-4000-8000-%012x", start.UnixNano()&0xffffffffffff)
	tpath := filepath.Join(tmp, "session.jsonl")
	if err := os.WriteFile(tpath, syntheticTranscript(sid, tmp, start), 0o600); err != nil {
		return fail("cannot write the transcript: %v", err)
	}
	dir := filepath.Join(tmp, "snapshots")
	noEnv := func(string) string { return "" }

	pre, _ := json.Marshal(map[string]any{
		"session_id": sid, "transcript_path": tpath, "cwd": tmp,
		"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": nil,
	})
	var preOut, preErr bytes.Buffer
	err = precompactRun(&PrecompactOptions{
		IO:  &IO{In: bytes.NewReader(pre), Out: &preOut, ErrOut: &preErr},
		Dir: dir, Lang: snapshot.English, Keep: defaultKeep, StateFileName: defaultStateFileName,
		Timeout: defaultTimeout, GitTimeout: defaultGitTimeout, EarlierBudget: defaultEarlierBudget,
		Getenv: noEnv, Now: time.Now,
	})
	if err != nil {
		return fail("precompact returned %v", err)
	}
	md := ""
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if base, ok := strings.CutSuffix(e.Name(), ".md"); ok {
				if _, ok := snapshot.ParseName(base); ok {
					md = e.Name()
				}
			}
		}
	}
	if md == "" {
		return fail("precompact wrote no snapshot in %s; its log says: %s", dir, lastLogLine(hookio.LogPath(dir)))
	}
	if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(md, ".md")+".json")); err != nil {
		return fail("snapshot %s has no .json record", md)
	}
	// DR-8: precompact's stdout is its summary hint, one line of plain text
	// naming the snapshot (PC-27), and nothing else.
	if hint := preOut.String(); strings.Count(hint, "\n") != 1 || !strings.HasSuffix(hint, "\n") ||
		strings.HasPrefix(hint, "{") || !strings.Contains(hint, filepath.Join(dir, md)) {
		return fail("precompact's stdout is not one summary hint naming %s: %q", md, hookio.TruncateRunes(hint, 300))
	}

	post, _ := json.Marshal(map[string]any{
		"session_id": sid, "transcript_path": tpath, "cwd": tmp,
		"hook_event_name": "SessionStart", "source": "compact",
	})
	var postOut, postErr bytes.Buffer
	err = postcompactRun(&PostcompactOptions{
		IO:  &IO{In: bytes.NewReader(post), Out: &postOut, ErrOut: &postErr},
		Dir: dir, Lang: snapshot.English, MaxAge: defaultMaxAge, MaxChars: defaultMaxChars,
		StateFileName: defaultStateFileName, Timeout: defaultPostcompactTime,
		Getenv: noEnv, Now: time.Now,
	})
	if err != nil {
		return fail("postcompact returned %v", err)
	}
	var hookOut struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(postOut.Bytes(), &hookOut); err != nil {
		return fail("postcompact output is not hook JSON (%v): %q", err, hookio.TruncateRunes(postOut.String(), 200))
	}
	if !strings.Contains(hookOut.HookSpecificOutput.AdditionalContext, md) {
		return fail("postcompact's pointer does not name %s: %q", md, hookio.TruncateRunes(hookOut.HookSpecificOutput.AdditionalContext, 300))
	}
	named := " and named it in its summary hint"
	if !agent.IsClaude() {
		named = ""
	}
	return health.Result{Status: health.OK, Text: fmt.Sprintf("round trip: precompact wrote %s%s, postcompact pointed at it (%d ms)", md, named, time.Since(start).Milliseconds())}
}

// syntheticTranscript is a minimal session: one typed prompt and one
// answer with usage.
func syntheticTranscript(sid, cwd string, t time.Time) []byte {
	ts := t.UTC().Add(-time.Minute).Format("2006-01-02T15:04:05.000Z")
	lines := []map[string]any{
		{"type": "user", "uuid": "00000000-0000-4000-8000-000000000001", "parentUuid": nil, "isSidechain": false,
			"userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.328", "gitBranch": "",
			"timestamp": ts, "promptSource": "typed",
			"message": map[string]any{"role": "user", "content": "compact-guard doctor: synthetic prompt"}},
		{"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002", "parentUuid": "00000000-0000-4000-8000-000000000001",
			"isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.328", "gitBranch": "",
			"timestamp": ts, "requestId": "req_doctor",
			"message": map[string]any{"model": "claude-doctor", "id": "msg_doctor", "type": "message", "role": "assistant",
				"content":     []any{map[string]any{"type": "text", "text": "ok"}},
				"stop_reason": "end_turn",
				"usage":       map[string]any{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 2}}},
	}
	var b bytes.Buffer
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func lastLogLine(path string) string {
	lines, err := snapshot.RecentLogLines(path, 1)
	if err != nil || len(lines) == 0 {
		return "(no log)"
	}
	return hookio.TruncateRunes(lines[0], 400)
}
