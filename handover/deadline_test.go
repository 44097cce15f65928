package handover

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// tickClock is an injected clock for the transcript read: every call is
// step later than the one before, so the read's pace is decided by how many
// checks it makes, never by how fast the machine is (transcript TR-50).
func tickClock(step time.Duration) func() time.Time {
	base, n := time.Now(), 0
	return func() time.Time {
		n++
		return base.Add(time.Duration(n-1) * step)
	}
}

// deadlineRun runs precompact on transcript, then postcompact as the
// SessionStart(compact) hook, and returns the record and the pointer.
func deadlineRun(t *testing.T, transcriptPath string, clock func() time.Time) (*snapshot.Record, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "snaps")
	const sid = "d3ad11e5-0000-4000-8000-000000000012"
	payload, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": transcriptPath, "trigger": "auto", "hook_event_name": "PreCompact"})
	pre := &take.Options{
		In: bytes.NewReader(payload), Out: &strings.Builder{},
		Dir: dir, Lang: snapshot.English, Keep: take.DefaultKeep, Timeout: 20 * time.Second, GitTimeout: time.Second,
		Getenv: func(string) string { return "" }, Now: time.Now, ReadClock: clock,
	}
	if err := take.Run(pre); err != nil {
		t.Fatal(err)
	}
	st := &snapshot.Store{Dir: dir}
	entries, err := st.Entries()
	if err != nil || len(entries) != 1 {
		t.Fatalf("snapshots %v, %v; log:\n%s", entries, err, hooktest.ReadLog(dir))
	}
	rec, err := st.Load(entries[0].Name)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(entries[0].MDPath)
	if err != nil || !strings.Contains(string(md), "Transcript not read whole") {
		t.Errorf("the Markdown does not say the transcript was read in part (%v):\n%s", err, md)
	}
	start, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": transcriptPath, "hook_event_name": "SessionStart", "source": "compact"})
	var out strings.Builder
	post := &Options{
		In: bytes.NewReader(start), Out: &out,
		Dir: dir, Lang: snapshot.English, Getenv: func(string) string { return "" }, Now: time.Now,
	}
	if err := Postcompact(post); err != nil {
		t.Fatal(err)
	}
	var hook struct {
		HookSpecificOutput struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out.String()), &hook); err != nil {
		t.Fatalf("postcompact output %q: %v; log:\n%s", out.String(), err, hooktest.ReadLog(dir))
	}
	return rec, hook.HookSpecificOutput.AdditionalContext
}

// A segment the deadline cannot cover (the injected clock makes reading
// look slow: 2 s per 4 MiB) is read newest first: the record holds the
// newest prompt, command and edit, says which bytes were not read, and
// the pointer says so instead of "no edits were recorded".
// spec: PC-3, PC-22, PC-23, TR-50, SF-8, SF-11, PO-14
func TestPrecompactDeadlineNewestFirst(t *testing.T) {
	var b bytes.Buffer
	if _, err := transcripttest.Generate(&b, transcripttest.Options{Size: 24 << 20, Seed: 12}); err != nil {
		t.Fatal(err)
	}
	b.WriteString(strings.Join(hooktest.NewestTurns, "\n") + "\n")
	path := filepath.Join(t.TempDir(), "segment.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	rec, pointer := deadlineRun(t, path, tickClock(2*time.Second))

	if n := len(rec.Prompts); n == 0 || rec.Prompts[n-1].Text != "the newest prompt" {
		t.Errorf("newest prompt missing: %+v", rec.Prompts)
	}
	if n := len(rec.Commands); n == 0 || rec.Commands[n-1].Command != "go test ./..." || rec.Commands[n-1].Outcome != "error" {
		t.Errorf("newest command missing: %+v", rec.Commands)
	}
	if len(rec.Files) == 0 || rec.Files[0].Path != "/p/newest.go" {
		t.Errorf("newest edit missing: %+v", rec.Files)
	}
	c := rec.Coverage
	size := int64(b.Len())
	if len(c.Unread) != 1 || c.Unread[0].From <= 0 || c.Unread[0].To <= c.Unread[0].From || c.ReadTo == nil || *c.ReadTo != size || c.Incomplete || c.TranscriptSize != size {
		t.Fatalf("coverage %+v (read to %v): want an unread range and the read reaching %d", c, c.ReadTo, size)
	}
	want := "bytes " + group(c.Unread[0].From) + " to " + group(c.Unread[0].To) + " were not read, the newest having been read first"
	if !strings.Contains(pointer, "The transcript ("+group(size)+" bytes) was not read whole: "+want) {
		t.Errorf("pointer does not say which bytes were not read (%q):\n%s", want, pointer)
	}
	if !strings.Contains(strings.Join(rec.Warnings, "\n"), "the newest bytes were read first") {
		t.Errorf("warnings %q", rec.Warnings)
	}
}

// A file with no newline: no line is held whole, the read ends by its
// deadline, and record and pointer say the read was partial and that no
// prompt was found in what was read.
// spec: PC-3, TR-50, TR-11, PO-14, PO-2, PO-3
func TestPrecompactDeadlineNoNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "one-line.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"user","message":{"role":"user","content":"`), 0o600); err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	if err := os.Truncate(path, size); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	rec, pointer := deadlineRun(t, path, tickClock(2*time.Second))
	c := rec.Coverage
	if len(c.Unread) != 1 || c.Unread[0].From != 0 || c.ReadTo == nil || *c.ReadTo != size || len(rec.Prompts) != 0 {
		t.Fatalf("coverage %+v, prompts %d", c, len(rec.Prompts))
	}
	for _, s := range []string{
		"was not read whole: bytes 0 to " + group(c.Unread[0].To) + " were not read",
		"No typed prompts were found in the part of the transcript that was read.",
		"No file edits were recorded in the part of the transcript that was read.",
	} {
		if !strings.Contains(pointer, s) {
			t.Errorf("pointer lacks %q:\n%s", s, pointer)
		}
	}
}

// group writes n with thousands separators, as the English pointer does.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// A file system that stops answering holds no precompact step past its
// phase of the deadline: the hook ends, and the log says which step was
// given up. The hung step is made to hang by the test; only the deadline
// (--timeout) ends it. What the other steps do in the time left is not
// asserted: on a busy machine they may be given up too.
// spec: PC-3, PC-25
func TestPrecompactHungSteps(t *testing.T) {
	t.Parallel()
	const sid = "d3ad11e5-0000-4000-8000-0000000000a1"
	for _, tc := range []struct{ step, log string }{
		{"saving the snapshot", `outcome=failed .*detail="snapshot not written: saving the snapshot: not done within the deadline; given up`},
		{"finding the transcript", `finding the transcript: not done within the deadline; given up`},
		{"checking the working directory", `checking the working directory: not done within the deadline; given up`},
		{"earlier snapshot", `earlier snapshot: not done within the deadline; given up`},
		{"writing the log", ``},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "snaps")
			opts := &take.Options{
				In: bytes.NewReader(hooktest.PrePayload(sid, hooktest.SmallTranscript(t))), Out: &strings.Builder{},
				Dir: dir, Lang: snapshot.English, Keep: take.DefaultKeep, Timeout: 2 * time.Second, GitTimeout: 200 * time.Millisecond,
				Getenv: func(string) string { return "" }, Now: time.Now, BeforeStep: hooktest.Hang(tc.step),
			}
			if err := take.Run(opts); err != nil {
				t.Fatal(err)
			}
			log := hooktest.ReadLog(dir)
			if tc.log == "" {
				if log != "" {
					t.Errorf("a log written by a step that hangs: %q", log)
				}
				return
			}
			if !regexp.MustCompile(tc.log).MatchString(log) {
				t.Errorf("log does not say the step was given up (%s):\n%s", tc.log, log)
			}
		})
	}
}

// The same for postcompact: a selection that hangs gives no pointer, a
// delivery record or a confirmation that hangs is given up with the
// pointer already printed, and each is logged.
// spec: PO-C9
func TestPostcompactHungSteps(t *testing.T) {
	t.Parallel()
	const sid = "d3ad11e5-0000-4000-8000-0000000000b2"
	for _, tc := range []struct {
		step, event string
		pointer     bool
		log         string
	}{
		{"recording the delivery", "SessionStart", true, `outcome=ok .*recording the delivery: not done within the deadline; given up`},
		{"selecting the snapshot", "SessionStart", false, `outcome=none .*selecting the snapshot: not done within the deadline; given up`},
		{"opening the transcript", "SessionStart", true, `outcome=ok .*opening the transcript: not done within the deadline; given up`},
		{"confirming the compaction", "PostCompact", false, `outcome=failed .*confirming the compaction: not done within the deadline; given up`},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "snaps")
			tr := hooktest.SmallTranscript(t)
			pre := &take.Options{
				In: bytes.NewReader(hooktest.PrePayload(sid, tr)), Out: &strings.Builder{},
				Dir: dir, Lang: snapshot.English, Keep: take.DefaultKeep, Timeout: 20 * time.Second,
				Getenv: func(string) string { return "" }, Now: time.Now,
			}
			if err := take.Run(pre); err != nil {
				t.Fatal(err)
			}
			payload, _ := json.Marshal(map[string]string{"session_id": sid, "transcript_path": tr, "hook_event_name": tc.event, "source": "compact", "compact_summary": "s"})
			var out strings.Builder
			post := &Options{
				In: bytes.NewReader(payload), Out: &out,
				Dir: dir, Lang: snapshot.English, Timeout: 2 * time.Second,
				Getenv: func(string) string { return "" }, Now: time.Now, BeforeStep: hooktest.Hang(tc.step),
			}
			if err := Postcompact(post); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.String(), "additionalContext"); got != tc.pointer {
				t.Errorf("pointer printed: %v, want %v (%q)", got, tc.pointer, out.String())
			}
			if log := hooktest.ReadLog(dir); !regexp.MustCompile(tc.log).MatchString(log) {
				t.Errorf("log does not say the step was given up (%s):\n%s", tc.log, log)
			}
		})
	}
}
