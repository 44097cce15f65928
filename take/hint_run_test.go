package take

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
)

// hintRun runs precompact in process with opts and payload and returns
// what it printed.
func hintRun(t *testing.T, opts *Options, payload []byte) string {
	t.Helper()
	var out strings.Builder
	opts.In, opts.Out = bytes.NewReader(payload), &out
	if opts.Dir == "" {
		opts.Dir = filepath.Join(t.TempDir(), "snaps")
	}
	opts.Lang, opts.Keep, opts.Now = snapshot.English, DefaultKeep, time.Now
	if opts.Timeout == 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if err := Run(opts); err != nil {
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
			out := hintRun(t, &Options{Dir: dir, Timeout: 2 * time.Second, GitTimeout: 200 * time.Millisecond,
				BeforeStep: hooktest.Hang(tc.step)}, hooktest.PrePayload(sid, hooktest.SmallTranscript(t)))
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
			if log := hooktest.ReadLog(dir); !regexp.MustCompile(tc.log).MatchString(log) {
				t.Errorf("log (want %s):\n%s", tc.log, log)
			}
		})
	}
}
