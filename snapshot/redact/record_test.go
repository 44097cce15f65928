package redact_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/redact"
	"github.com/compact-guard/compact-guard/transcript"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// spec: SEC-3, SEC-4, SF-12
func TestRedactRecord(t *testing.T) {
	// Every free-text field, the payload's trigger, prompt id and hook event,
	// statuses and MCP tool names included, loses the secret; identifiers
	// and paths keep it.
	tok := redact.FakeToken("ghp_", 60, 36, redact.FakeAlnum)
	sid := "9b2f0c1e-8d7a-4c3b-9e5f-1a2b3c4d5e6f"
	custom := "keep the token " + tok
	exit := 1
	// Identifiers and paths that hold secret-looking text must still survive.
	path := "/home/dev/PASSWORD=EXAMPLEinpath1/" + tok + ".go"
	r := &snapshot.Record{
		Name:               "snap_20261130-101500_9b2f0c1e",
		SessionID:          sid,
		Trigger:            "manual " + tok,
		PromptID:           tok,
		HookEvent:          "PreCompact " + tok,
		CreatedAt:          time.Date(2026, 11, 30, 10, 15, 0, 0, time.UTC),
		CustomInstructions: &custom,
		PayloadError:       "invalid character near " + tok,
		TranscriptPath:     path + ".jsonl",
		Cwd:                path,
		GitBranch:          "feature/" + tok,
		Prompts:            []transcript.Prompt{{Text: "use " + tok}, {Text: "no secret here"}},
		Files:              []transcript.FileEdit{{Path: path, Edits: 1, LastTool: "Edit"}},
		Commands: []transcript.Command{{
			Tool: "Bash", Command: "GH_TOKEN=" + tok + " gh pr list", Description: "list with " + tok,
			Outcome: transcript.OutcomeError, ExitCode: &exit, ErrorLine: "bad credentials: " + tok,
		}},
		Todos: []transcript.Task{{Subject: "rotate " + tok, Status: "pending " + tok, ActiveForm: "rotating " + tok}},
		Tasks: []transcript.Task{{ID: "1", Subject: "revoke " + tok, Status: "in_progress", ActiveForm: "revoking " + tok}},
		Failures: []transcript.Failure{{Tool: "Bash", Input: "curl -u admin:EXAMPLEpw2024 x", Error: "401 for " + tok},
			{Tool: "mcp__" + tok + "__deploy", Input: "{}", Error: "denied"}},
		Plan: &transcript.Plan{Text: "1. export API_KEY=EXAMPLEplan2024\n2. run"},
		Git: &snapshot.Git{Repo: true, Root: path, Branch: "feature/" + tok, Head: "3f786850e387550fdab836ed7e6dc881de23001b",
			Subject: "remove " + tok, Error: "git: fetch https://u:EXAMPLEgitpw@h/r failed",
			Changes: []snapshot.GitChange{{Code: ".M", Path: path}}, ChangeCount: 1},
		StateFile: snapshot.StateFile{Name: "SESSION-STATE.md", Path: path, Searched: []string{path}},
		Warnings:  []string{"transcript: line mentions " + tok},
		Preparation: &snapshot.Preparation{Kind: snapshot.Planned, Handoff: &snapshot.HandoffRef{Path: path, Heading: "HANDOFF 2026-11-30T10:00:00Z " + tok,
			NextStep: "push with GH_TOKEN=" + tok}},
	}
	n := snapshot.RedactRecord(r)

	redacted := map[string]string{
		"trigger":             r.Trigger,
		"prompt id":           r.PromptID,
		"hook event":          r.HookEvent,
		"todo status":         r.Todos[0].Status,
		"mcp tool name":       r.Failures[1].Tool,
		"custom instructions": *r.CustomInstructions,
		"payload error":       r.PayloadError,
		"prompt":              r.Prompts[0].Text,
		"command":             r.Commands[0].Command,
		"description":         r.Commands[0].Description,
		"error line":          r.Commands[0].ErrorLine,
		"todo subject":        r.Todos[0].Subject,
		"todo active form":    r.Todos[0].ActiveForm,
		"task subject":        r.Tasks[0].Subject,
		"task active form":    r.Tasks[0].ActiveForm,
		"failure input":       r.Failures[0].Input,
		"failure error":       r.Failures[0].Error,
		"plan":                r.Plan.Text,
		"git subject":         r.Git.Subject,
		"git error":           r.Git.Error,
		"warning":             r.Warnings[0],
		"handoff heading":     r.Preparation.Handoff.Heading,
		"handoff next step":   r.Preparation.Handoff.NextStep,
	}
	for field, v := range redacted {
		if !strings.Contains(v, redact.RedactedPrefix) || strings.Contains(v, tok) || strings.Contains(v, "EXAMPLEpw2024") ||
			strings.Contains(v, "EXAMPLEplan2024") || strings.Contains(v, "EXAMPLEgitpw") {
			t.Errorf("%s not redacted: %q", field, v)
		}
	}
	if n != len(redacted) {
		t.Errorf("snapshot.RedactRecord = %d, want %d (one per field)", n, len(redacted))
	}
	if r.Prompts[1].Text != "no secret here" {
		t.Errorf("clean prompt changed: %q", r.Prompts[1].Text)
	}

	untouched := map[string][2]string{
		"session id":      {r.SessionID, sid},
		"name":            {r.Name, "snap_20261130-101500_9b2f0c1e"},
		"transcript path": {r.TranscriptPath, path + ".jsonl"},
		"cwd":             {r.Cwd, path},
		"branch":          {r.GitBranch, "feature/" + tok},
		"file path":       {r.Files[0].Path, path},
		"git root":        {r.Git.Root, path},
		"git branch":      {r.Git.Branch, "feature/" + tok},
		"git head":        {r.Git.Head, "3f786850e387550fdab836ed7e6dc881de23001b"},
		"git change path": {r.Git.Changes[0].Path, path},
		"state file path": {r.StateFile.Path, path},
		"state searched":  {r.StateFile.Searched[0], path},
		"handoff path":    {r.Preparation.Handoff.Path, path},
		"tool":            {r.Commands[0].Tool, "Bash"},
		"task id":         {r.Tasks[0].ID, "1"},
		"task status":     {r.Tasks[0].Status, "in_progress"},
		"command outcome": {r.Commands[0].Outcome, transcript.OutcomeError},
		"file last tool":  {r.Files[0].LastTool, "Edit"},
		"failure tool":    {r.Failures[0].Tool, "Bash"},
		"state file name": {r.StateFile.Name, "SESSION-STATE.md"},
	}
	for field, got := range untouched {
		if got[0] != got[1] {
			t.Errorf("%s changed: %q, want %q", field, got[0], got[1])
		}
	}

	if snapshot.RedactRecord(nil) != 0 {
		t.Error("snapshot.RedactRecord(nil) != 0")
	}
	empty := &snapshot.Record{}
	if got := snapshot.RedactRecord(empty); got != 0 {
		t.Errorf("empty record: %d", got)
	}
}

// corpusPlaces are the eight places of a record a secret can reach (issue
// 12): the transcript lines that put text there, and the custom
// instructions the payload gives.
func corpusTranscript(t testing.TB, text string) []byte {
	t.Helper()
	flat := strings.ReplaceAll(text, "\n", " ")
	ts := func(sec int) string { return time.Date(2026, 12, 1, 9, 0, sec, 0, time.UTC).Format(time.RFC3339Nano) }
	var lines []any
	user := func(sec int, content any) {
		lines = append(lines, map[string]any{"type": "user", "uuid": fmt.Sprintf("u%d", sec), "timestamp": ts(sec),
			"sessionId": "s", "promptSource": "typed", "message": map[string]any{"role": "user", "content": content}})
	}
	call := func(sec int, id, name string, input map[string]any) {
		lines = append(lines, map[string]any{"type": "assistant", "uuid": fmt.Sprintf("a%d", sec), "timestamp": ts(sec),
			"message": map[string]any{"model": "m", "id": id, "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
	}
	result := func(sec int, id string, isError bool, content string) {
		user(sec, []any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isError, "content": content}})
	}
	user(1, "deploy with this: "+text)                                                                    // prompt
	call(2, "t1", "Bash", map[string]any{"command": "deploy.sh --check && " + text, "description": text}) // command, description
	result(3, "t1", true, "Exit code 1\nerror: "+flat)                                                    // error line
	call(4, "t2", "mcp__vault__query", map[string]any{"query": text, "ttl": 3600})                        // failed tool input
	result(5, "t2", true, "Error: permission denied")
	call(6, "t3", "TodoWrite", map[string]any{"todos": []any{map[string]any{"content": "rotate " + text, "status": "pending", "activeForm": "Rotating " + text}}})
	result(7, "t3", false, "Todos have been modified successfully")
	call(8, "t4", "ExitPlanMode", map[string]any{"plan": "1. set the key\n" + text + "\n2. redeploy"})
	result(9, "t4", false, "User has approved your plan.")
	var b bytes.Buffer
	e := json.NewEncoder(&b) // one line each, as Claude Code writes them
	e.SetEscapeHTML(false)
	for _, l := range lines {
		if err := e.Encode(l); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// recordFromTranscript extracts a transcript the way precompact does and
// puts text in the custom instructions.
func recordFromTranscript(t testing.TB, jsonl []byte, custom string) *snapshot.Record {
	t.Helper()
	x := transcript.NewExtractor(nil)
	for l := range bytes.Lines(jsonl) {
		x.Feed(bytes.TrimSuffix(l, []byte("\n")))
	}
	f := x.Facts()
	return &snapshot.Record{
		SessionID: "9b2f0c1e-8d7a-4c3b-9e5f-1a2b3c4d5e6f", Trigger: "manual", CustomInstructions: &custom,
		Prompts: f.Prompts, Commands: f.Commands, Todos: f.Todos, Tasks: f.Tasks, Failures: f.Failures, Plan: f.Plan,
	}
}

// spec: SEC-5, SEC-12
func TestRedactCorpusInEveryPlace(t *testing.T) {
	s := redact.LoadGitleaksSamples(t)
	type job struct{ id, text, secret string }
	jobs := make(chan job)
	var wg sync.WaitGroup
	var checked atomic.Int64
	// Saving syncs files to disk: a few stores at once keep the test short.
	for w := range 6 {
		store := &snapshot.Store{Dir: filepath.Join(t.TempDir(), fmt.Sprintf("snapshots%d", w)), Keep: 2}
		wg.Go(func() {
			for j := range jobs {
				checkEveryPlace(t, store, j.id, j.text, j.secret)
				checked.Add(1)
			}
		})
	}
	for _, r := range s.Rules {
		for _, sm := range r.Samples {
			jobs <- job{r.ID, sm.Text, sm.Secret}
		}
		for _, sm := range redact.OwnSamples[r.ID] {
			jobs <- job{r.ID, sm[0], sm[1]}
		}
	}
	close(jobs)
	wg.Wait()
	t.Logf("%d samples of %d gitleaks rules, each in 8 places", checked.Load(), len(s.Rules))
}

// checkEveryPlace puts text in the eight places of a record, redacts and
// saves it, and fails t if any of secret is left in the .md or the .json.
func checkEveryPlace(t *testing.T, store *snapshot.Store, id, text, secret string) {
	rec := recordFromTranscript(t, corpusTranscript(t, text), text)
	places := map[string]bool{"prompt": len(rec.Prompts) == 1, "command": len(rec.Commands) == 1,
		"error line":        len(rec.Commands) == 1 && rec.Commands[0].ErrorLine != "",
		"failed tool input": len(rec.Failures) == 2, "todo": len(rec.Todos) == 1, "plan": rec.Plan != nil}
	for p, ok := range places {
		if !ok {
			t.Errorf("%s: the transcript put nothing in the %s", id, p)
			return
		}
	}
	snapshot.RedactRecord(rec)
	mdPath, _, err := store.Save(rec, snapshot.English)
	if err != nil {
		t.Error(err)
		return
	}
	md, err := os.ReadFile(mdPath)
	if err != nil {
		t.Error(err)
		return
	}
	js, err := os.ReadFile(strings.TrimSuffix(mdPath, ".md") + ".json")
	if err != nil {
		t.Error(err)
		return
	}
	var decoded any
	if err := json.Unmarshal(js, &decoded); err != nil {
		t.Error(err)
		return
	}
	var strs []string
	redact.EachString(decoded, func(s string) { strs = append(strs, s) })
	for name, out := range map[string]string{".md": string(md), ".json": string(js), ".json strings": strings.Join(strs, "\n")} {
		if l := redact.LeakedOutside(out, text, secret); l != "" {
			t.Errorf("%s: %q of secret %q survives in the %s\ntext: %s", id, l, secret, name, text)
		}
	}
}

// spec: SEC-11
func TestRedactBeforeCutting(t *testing.T) {
	ghp := "ghp_" + redact.FakeTokenBody(110, 36, redact.FakeAlnum)
	oat := "sk-ant-oat01-" + redact.FakeTokenBody(111, 90, redact.FakeB64URL)
	akia := "AKIA" + redact.FakeTokenBody(112, 16, redact.FakeBase32)
	pw := "EXAMPLE" + redact.FakeTokenBody(113, 30, redact.FakeAlnum)
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJ" + redact.FakeTokenBody(114, 2000, redact.FakeB64URL) + "." + redact.FakeTokenBody(115, 43, redact.FakeB64URL)
	// Each secret starts a few characters before its field's limit.
	cases := []struct {
		place, secret string
		text          func(*snapshot.Record) string
		line          any
	}{
		{"prompt", ghp, func(r *snapshot.Record) string { return r.Prompts[0].Text },
			userLine(pad(transcript.MaxPromptChars-10) + ghp + " and more")},
		{"command", pw, func(r *snapshot.Record) string { return r.Commands[0].Command },
			toolLine("t1", "Bash", map[string]any{"command": pad(transcript.MaxCommandChars-12) + " PASSWORD=" + pw})},
		{"description", oat, func(r *snapshot.Record) string { return r.Commands[0].Description },
			toolLine("t1", "Bash", map[string]any{"command": "ls", "description": pad(transcript.MaxDescriptionChars-5) + " " + oat})},
		{"todo", akia, func(r *snapshot.Record) string { return r.Todos[0].Subject },
			toolLine("t1", "TodoWrite", map[string]any{"todos": []any{map[string]any{"content": pad(transcript.MaxTaskChars-8) + " " + akia, "status": "pending"}}})},
		{"plan", jwt, func(r *snapshot.Record) string { return r.Plan.Text },
			toolLine("t1", "ExitPlanMode", map[string]any{"plan": pad(transcript.MaxPlanChars-30) + " " + jwt})},
		{"failed tool input", ghp, func(r *snapshot.Record) string { return r.Failures[0].Input },
			toolLine("t1", "mcp__db__query", map[string]any{"query": pad(transcript.MaxFailureInputChars-6) + " " + ghp})},
		{"error line", akia, func(r *snapshot.Record) string { return r.Commands[0].ErrorLine },
			toolLine("t1", "Bash", map[string]any{"command": "aws sts get-caller-identity"})},
	}
	for _, tc := range cases {
		t.Run(tc.place, func(t *testing.T) {
			result := resultLine("t1", tc.place == "failed tool input", "ok")
			if tc.place == "error line" {
				result = resultLine("t1", true, "Exit code 255\n"+pad(transcript.MaxErrorChars-7)+" "+akia+" is not valid")
			}
			var b bytes.Buffer
			for _, l := range []any{tc.line, result} {
				data, _ := json.Marshal(l)
				b.Write(append(data, '\n'))
			}
			rec := recordFromTranscript(t, b.Bytes(), "")
			before := tc.text(rec)
			if !strings.HasSuffix(before, textcut.Marker) || strings.Contains(before, tc.secret) {
				t.Fatalf("the %s was not cut inside the secret: %q", tc.place, before[max(0, len(before)-80):])
			}
			snapshot.RedactRecord(rec)
			after := tc.text(rec)
			if l := redact.LeakedPart(redact.MarkerRE.ReplaceAllString(after, "[]"), tc.secret[:min(len(tc.secret), 12)]); l != "" {
				t.Errorf("%q of the secret's start survives the cut: …%s", l, after[max(0, len(after)-80):])
			}
			if !strings.HasSuffix(after, "]"+textcut.Marker) {
				t.Errorf("the cut does not end in a whole marker: …%s", after[max(0, len(after)-80):])
			}
		})
	}
}

// spec: SEC-11
func TestRedactWindowIsBounded(t *testing.T) {
	// A 1 MB prompt is read, and redacted, only up to its limit and the tail.
	var b bytes.Buffer
	data, _ := json.Marshal(userLine(strings.Repeat("word ", 200_000)))
	b.Write(append(data, '\n'))
	rec := recordFromTranscript(t, b.Bytes(), "")
	seen := -1
	rec.Prompts[0].Rewrite(func(full string, keep int) string {
		seen = utf8.RuneCountInString(full)
		if keep != transcript.MaxPromptChars {
			t.Errorf("keep = %d, want %d", keep, transcript.MaxPromptChars)
		}
		return full[:keep]
	})
	if want := transcript.MaxPromptChars + transcript.TailChars; seen != want {
		t.Errorf("the redactor saw %d characters of a 1 MB prompt, want %d", seen, want)
	}
}

// spec: SEC-5, SEC-12
func TestRedactHeldOutKindsInEveryPlace(t *testing.T) {
	cases := redact.HeldOutCorpus()
	var wg sync.WaitGroup
	jobs := make(chan redact.HeldOutCase)
	for w := range 4 {
		store := &snapshot.Store{Dir: filepath.Join(t.TempDir(), fmt.Sprintf("snapshots%d", w)), Keep: 2}
		wg.Go(func() {
			for tc := range jobs {
				checkEveryPlace(t, store, tc.Kind(), tc.Text(), tc.Secret())
			}
		})
	}
	for _, tc := range cases {
		jobs <- tc
	}
	close(jobs)
	wg.Wait()
}

// spec: SEC-7
func TestRedactHeldOutNearMissesSurvive(t *testing.T) {
	for _, in := range redact.HeldOutNearMisses() {
		if out, n := redact.Text(in); out != in || n != 0 {
			t.Errorf("changed (%d):\n in: %s\nout: %s", n, in, out)
		}
		// And in every place a snapshot keeps text, with what surrounds it
		// there.
		rec := recordFromTranscript(t, corpusTranscript(t, in), in)
		if n := snapshot.RedactRecord(rec); n != 0 {
			t.Errorf("%d replacements in the record of %q", n, in)
		}
	}
}

// pad is n characters of prose.
func pad(n int) string { return strings.Repeat("x ", n/2+1)[:n] }

func userLine(content any) any {
	return map[string]any{"type": "user", "uuid": "u1", "timestamp": "2026-12-01T09:00:00Z", "sessionId": "s",
		"promptSource": "typed", "message": map[string]any{"role": "user", "content": content}}
}

func toolLine(id, name string, input map[string]any) any {
	return map[string]any{"type": "assistant", "uuid": "a1", "timestamp": "2026-12-01T09:00:01Z",
		"message": map[string]any{"model": "m", "id": "m1", "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}}
}

func resultLine(id string, isError bool, content string) any {
	return userLine([]any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isError, "content": content}})
}
