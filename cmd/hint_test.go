package cmd

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// checkHintOnly fails unless stdout is empty or exactly one summary hint
// (PC-2, PC-27): plain text, one line and its line end, never JSON, at
// most restore.HintMaxChars, naming a snapshot's .md.
func checkHintOnly(t *testing.T, stdout string) {
	t.Helper()
	if stdout == "" {
		return
	}
	if msg := hintProblem(stdout); msg != "" {
		t.Errorf("precompact's stdout is not one summary hint (%s): %q", msg, stdout)
	}
}

// hintProblem says what keeps stdout from being one summary hint, "" when
// nothing does.
func hintProblem(stdout string) string {
	text, ok := strings.CutSuffix(stdout, "\n")
	switch {
	case !ok || strings.ContainsAny(text, "\r\n"):
		return "not one line with its line end"
	case strings.HasPrefix(strings.TrimSpace(text), "{") || strings.HasPrefix(strings.TrimSpace(text), "["):
		return "JSON"
	case textcut.UTF16Len(text) > restore.HintMaxChars:
		return "too long"
	case !strings.HasPrefix(text, "compact-guard ") || !strings.Contains(text, `.md"`):
		return "names no snapshot"
	}
	return ""
}

// hintWriter is precompact's stdout in tests that run it in process: it
// accepts one summary hint and fails the test on anything else.
type hintWriter struct {
	t *testing.T
	n *int
}

func (w hintWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	if *w.n++; *w.n > 1 {
		w.t.Errorf("precompact wrote to stdout twice: %q", p)
	}
	checkHintOnly(w.t, string(p))
	return len(p), nil
}

func newHintWriter(t *testing.T) hintWriter { return hintWriter{t, new(int)} }

// hintRun runs precompact in process with opts and payload and returns
// what it printed.
func hintRun(t *testing.T, opts *PrecompactOptions, payload []byte) string {
	t.Helper()
	var out strings.Builder
	opts.IO = &IO{In: bytes.NewReader(payload), Out: &out, ErrOut: &strings.Builder{}}
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "snaps")
	}
	opts.Lang, opts.Keep, opts.Now = snapshot.English, defaultKeep, time.Now
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if err := precompactRun(opts); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// spec: PC-27, PC-33, PC-3
// The hint comes only with a saved snapshot and never after the save
// phase: a save or a print that the deadline gives up prints nothing, and
// the log says why.
func TestPrecompactHintNeverAfterTheDeadline(t *testing.T) {
	t.Parallel()
	const sid = "d3ad11e5-0000-4000-8000-0000000000c3"
	for _, tc := range []struct{ step, log string }{
		{"saving the snapshot", `outcome=failed .*snapshot not written: saving the snapshot: not done within the deadline; given up`},
		{"printing the summary hint", `outcome=warn .*hint=none:write .*summary hint: printing the summary hint: not done within the deadline; given up`},
	} {
		t.Run(tc.step, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "snaps")
			out := hintRun(t, &PrecompactOptions{Dir: dir, Timeout: 2 * time.Second, GitTimeout: 200 * time.Millisecond,
				beforeStep: hooktest.Hang(tc.step)}, hooktest.PrePayload(sid, hooktest.SmallTranscript(t)))
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if log := hooktest.ReadLog(dir); !regexp.MustCompile(tc.log).MatchString(log) {
				t.Errorf("log (want %s):\n%s", tc.log, log)
			}
		})
	}
}
