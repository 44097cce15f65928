//go:build unix

package cmd

import (
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// rbKills is how many times the crash test kills precompact.
const rbKills = 60

// rbLogLine is a whole log line of precompact (SF-60, PC-20).
var rbLogLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ precompact session=\S+ outcome=(ok|warn|failed) duration=\d+ms( snapshot=\S+)?( hint=\S+)? warnings=\d+( detail=".*")?$`)

// TestRBPrecompactSurvivesSIGKILL runs the real binary on a realistic
// transcript of a few MB, again and again, and SIGKILLs it at random moments
// over its whole run, into a folder already holding 38 older snapshots.
// After every kill: every .json under a snapshot name is a whole record
// with its .md exactly its rendering, an .md alone is whole, every earlier
// snapshot still there is byte for byte what it was and every one gone has
// 40 newer ones beside it (pruned), latest.json is valid JSON, and the log
// holds only whole lines.
// A whole run at the end leaves exactly 40.
// spec: RB-6 (SF-32, SF-34, SF-38, SF-40, SF-41, SF-60, PC-1)
func TestRBPrecompactSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the real binary 60 times")
	}
	// Not parallel: the kill moments are spread over a run length measured
	// here, which other tests running at the same time would distort.
	w := rbNewWorld(t)
	const sid = "5e1f0c1d-dead-4b0d-9e1a-c0ffee000001"
	tr := filepath.Join(w.Root, sid+".jsonl")
	info, err := transcripttest.Write(tr, transcripttest.Options{Size: 6 << 20, Compactions: 2, LastSegment: 3 << 20, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}
	payload := filepath.Join(w.Root, "payload.json")
	rbWriteFile(t, payload, rbPrePayload(sid, tr, ""))

	old := rbPrefill(t, w.Snaps, 38, time.Now().Add(-time.Hour))
	before := map[string][]byte{}
	for _, n := range old {
		for _, ext := range []string{".md", ".json"} {
			b, err := os.ReadFile(filepath.Join(w.Snaps, n+ext))
			if err != nil {
				t.Fatal(err)
			}
			before[n+ext] = b
		}
	}

	start := func() *exec.Cmd {
		in, err := os.Open(payload)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { in.Close() })
		c := exec.Command(rbBinary(t), "precompact")
		c.Env, c.Dir, c.Stdin = w.env, w.Root, in
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	whole := func() time.Duration {
		t0 := time.Now()
		c := start()
		if err := c.Wait(); err != nil {
			t.Fatalf("whole run: %v", err)
		}
		return time.Since(t0)
	}

	// check verifies the folder after a kill and returns the number of
	// snapshots and of earlier ones still there.
	check := func(round int) (snaps, earlier int) {
		t.Helper()
		records := rbCheckFolder(t, w.Snaps)
		for _, n := range old {
			js, jerr := os.ReadFile(filepath.Join(w.Snaps, n+".json"))
			md, merr := os.ReadFile(filepath.Join(w.Snaps, n+".md"))
			switch {
			case jerr == nil:
				if !bytes.Equal(js, before[n+".json"]) || merr != nil || !bytes.Equal(md, before[n+".md"]) {
					t.Fatalf("round %d: earlier snapshot %s changed (%v)", round, n, merr)
				}
				earlier++
			case os.IsNotExist(jerr):
				// Pruned (SF-42: .json first, then .md; an .md left behind
				// is the old one, whole). Pruning removes a snapshot only
				// with Keep newer ones, and those are never pruned before
				// it, so they are all still here.
				if merr == nil && !bytes.Equal(md, before[n+".md"]) {
					t.Fatalf("round %d: pruned %s left a changed .md", round, n)
				}
				pn, _ := snapshot.ParseName(n)
				newer := 0
				for r := range records {
					if pr, _ := snapshot.ParseName(r); pr.Time.After(pn.Time) {
						newer++
					}
				}
				if newer < snapshot.DefaultKeep {
					t.Fatalf("round %d: %s was pruned with only %d newer snapshots", round, n, newer)
				}
			default:
				t.Fatalf("round %d: %s: %v", round, n, jerr)
			}
		}
		for _, l := range rbLogLines(t, w.Log()) {
			if !rbLogLine.MatchString(l) {
				t.Fatalf("round %d: log line not whole: %q", round, l)
			}
		}
		return len(records), earlier
	}

	// The kills are spread over the length of a whole run, the median of
	// the last runs that ended on their own: whole runs now and before
	// every tenth kill, and runs that ended before their kill. So the
	// spread follows the machine's load as the test goes (the binary is
	// built first, so that its build is not counted).
	rbBinary(t)
	var runs []time.Duration
	measure := func() {
		runs = append(runs, whole())
	}
	runLength := func() time.Duration {
		last := append([]time.Duration(nil), runs[max(0, len(runs)-5):]...)
		slices.Sort(last)
		return last[len(last)/2]
	}
	measure()
	measure()
	measure()
	snaps0, _ := check(-1)
	t.Logf("transcript %d bytes, %d lines; a whole run takes %s", info.Size, info.Lines, runLength().Round(time.Millisecond))

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 6))
	var killed, finished, grew, inSave, orphans int
	hidden := map[string]bool{}
	last := snaps0
	for round := 0; round < rbKills; round++ {
		if round > 0 && round%10 == 0 {
			measure()
			last, _ = check(round)
		}
		// Half the kills anywhere in the run, half in its last third and
		// just past it, where the files are written and pruning runs.
		run := runLength()
		var at time.Duration
		if round%2 == 0 {
			at = time.Duration(rng.Int64N(int64(run)))
		} else {
			at = run*2/3 + time.Duration(rng.Int64N(int64(run/2)))
		}
		c := start()
		t0 := time.Now()
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
			runs = append(runs, time.Since(t0))
		case <-time.After(at):
			c.Process.Signal(syscall.SIGKILL)
			<-done
		}
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			killed++
		} else if c.ProcessState.ExitCode() == 0 {
			finished++
		} else {
			t.Fatalf("round %d: exit %d", round, c.ProcessState.ExitCode())
		}
		n, _ := check(round)
		if n > last {
			grew++
		}
		last = n
		des, _ := os.ReadDir(w.Snaps)
		newHidden := false
		for _, de := range des {
			fn := de.Name()
			switch {
			case strings.HasPrefix(fn, ".cg-") && !hidden[fn]:
				hidden[fn], newHidden = true, true
			case strings.HasSuffix(fn, ".md") && !hidden[fn]:
				if _, err := os.Stat(filepath.Join(w.Snaps, strings.TrimSuffix(fn, ".md")+".json")); os.IsNotExist(err) {
					hidden[fn] = true
					orphans++
				}
			}
		}
		if newHidden {
			inSave++
		}
	}
	_, earlier := check(rbKills)
	t.Logf("%d kills: %d killed (%d while saving, leaving a reservation or temp file; %d between the .md and the .json), %d had finished; the folder grew %d times; %d earlier snapshots of 38 remain",
		rbKills, killed, inSave, orphans, finished, grew, earlier)
	if killed < rbKills/3 {
		t.Fatalf("only %d of %d runs were killed before they finished: the kills missed the run", killed, rbKills)
	}

	whole()
	if n, _ := check(rbKills + 1); n != snapshot.DefaultKeep {
		t.Errorf("%d snapshots after a whole run, want %d", n, snapshot.DefaultKeep)
	}
}
