package cmd

import (
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
)

// rbPrefill saves n snapshots of n sessions into dir, the newest taken at
// newest, one minute apart, and returns their names oldest first.
func rbPrefill(t testing.TB, dir string, n int, newest time.Time) []string {
	t.Helper()
	s := &snapshot.Store{Dir: dir, Keep: 40}
	var names []string
	for i := 0; i < n; i++ {
		r := &snapshot.Record{
			SessionID: fmt.Sprintf("01d%05d-0000-4000-8000-%012d", i, i),
			CreatedAt: newest.Add(-time.Duration(n-1-i) * time.Minute),
			Trigger:   "auto",
		}
		if _, _, err := s.Save(r, snapshot.English); err != nil {
			t.Fatal(err)
		}
		names = append(names, r.Name)
	}
	return names
}

// TestRBTwentySessionsAtOnce starts 20 precompact processes for 20 sessions,
// released at the same moment, into a folder already holding 40 older
// snapshots. Ten of the sessions share their sid8, so that they race for the
// same names. Afterwards exactly the newest 40 remain, every file parses,
// the log holds one whole line per run, and each session's postcompact
// points at its own snapshot.
// spec: RB-7 (SF-31, SF-34, SF-41, SF-43, SF-60, SS-5, PO-C3)
func TestRBTwentySessionsAtOnce(t *testing.T) {
	t.Parallel()
	w := rbNewWorld(t)
	old := rbPrefill(t, w.Snaps, 40, time.Now().Add(-2*time.Hour))

	type session struct {
		sid, tr, prompt string
		cmd             *exec.Cmd
		stdin           io.WriteCloser
		out, errOut     strings.Builder
	}
	sessions := make([]*session, 20)
	for i := range sessions {
		sid := fmt.Sprintf("%08x-7a1e-4c0d-9a3b-%012d", 0x7000_0000+i*7919, i)
		if i < 10 {
			sid = fmt.Sprintf("0f3c2a1b-%04d-4c0d-9a3b-%012d", i, i) // one sid8 for ten
		}
		s := &session{sid: sid, prompt: fmt.Sprintf("Prompt of session %d", i)}
		s.tr = rbWriteFile(t, filepath.Join(w.Root, "tr", sid+".jsonl"), rbTranscript(sid, s.prompt, fmt.Sprintf("/p/file%02d.go", i), "", false))
		s.cmd = exec.Command(rbBinary(t), "precompact")
		s.cmd.Env, s.cmd.Dir = w.env, w.Root
		s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.errOut
		var err error
		if s.stdin, err = s.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		sessions[i] = s
	}
	// Every process blocks reading stdin until all have started; then all
	// payloads go at once.
	for _, s := range sessions {
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	guard := time.AfterFunc(rbHangGuard, func() {
		for _, s := range sessions {
			s.cmd.Process.Kill()
		}
	})
	for _, s := range sessions {
		go func() {
			s.stdin.Write(rbPrePayload(s.sid, s.tr, ""))
			s.stdin.Close()
		}()
	}
	for _, s := range sessions {
		err := s.cmd.Wait()
		if err != nil || s.out.Len() > 0 && hooktest.HintProblem(s.out.String()) != "" {
			t.Errorf("session %s: %v, stdout %q, stderr %q", s.sid, err, s.out.String(), s.errOut.String())
		}
	}
	if !guard.Stop() {
		t.Fatalf("the 20 processes did not finish within %s", rbHangGuard)
	}

	records := rbCheckFolder(t, w.Snaps)
	want := map[string]bool{}
	for _, n := range old[20:] {
		want[n] = true
	}
	own := map[string]string{}
	for _, s := range sessions {
		name, rec := rbSessionSnapshot(t, records, s.sid)
		if len(rec.Prompts) != 1 || rec.Prompts[0].Text != s.prompt {
			t.Errorf("%s: prompts %+v, want only %q", name, rec.Prompts, s.prompt)
		}
		want[name] = true
		own[s.sid] = name
	}
	var missing []string
	for n := range records {
		if !want[n] {
			t.Errorf("%s remains; it is not among the newest 40", n)
		}
	}
	for n := range want {
		if records[n] == nil {
			missing = append(missing, n)
		}
	}
	var mine []string
	for _, n := range own {
		mine = append(mine, n)
	}
	sort.Strings(mine)
	t.Logf("the 20 new snapshots: %v", mine)
	if len(records) != 40 || len(missing) > 0 {
		t.Errorf("%d snapshots remain, want the newest 40; missing %v", len(records), missing)
	}

	lines := rbLogLines(t, w.Log())
	logged := map[string]bool{}
	for _, l := range lines {
		for sid, name := range own {
			if strings.Contains(l, " precompact session="+sid+" outcome=ok ") && strings.Contains(l, " snapshot="+name+".md ") {
				logged[sid] = true
			}
		}
	}
	if len(lines) != 20 || len(logged) != 20 {
		t.Errorf("log: %d lines, %d sessions logged with their snapshot; want 20 and 20:\n%s", len(lines), len(logged), strings.Join(lines, "\n"))
	}

	for _, s := range sessions {
		text, _ := w.postcompact(t, rbStartPayload(s.sid, s.tr, ""))
		if want := filepath.Join(w.Snaps, own[s.sid]+".md"); !strings.Contains(text, want) || !strings.Contains(text, s.prompt) {
			t.Errorf("postcompact for %s does not point at %s with its prompt:\n%s", s.sid, want, text)
		}
	}
}
