//go:build unix

package snapshot

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSaveSurvivesSIGKILL kills a process that saves in a loop (with pruning
// at Keep 12) at random moments, then checks the folder after every kill:
// no empty or partial .md or .json under a snapshot name, every record
// whole and rendered, latest.json valid, and the earlier snapshots (newer by
// the clock than any the child saves, so that pruning keeps them) byte for
// byte intact.
// spec: SF-32, SF-34, SF-40
func TestSaveSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	dir := filepath.Join(t.TempDir(), "snaps")
	s := &Store{Dir: dir, Keep: 12}
	// The child saves 100 days back: the earlier snapshots, taken now,
	// stay the newest (a name dated ahead of the clock would not, SF-69).
	earlier := prefill(t, s, 4, time.Now().UTC().Truncate(time.Second))
	// latest.json from the prefill names them: start over so that the
	// child's saves keep replacing it.
	os.Remove(filepath.Join(dir, LatestFile))
	before := map[string][]byte{}
	for _, n := range earlier {
		for _, ext := range []string{".md", ".json"} {
			data, err := os.ReadFile(filepath.Join(dir, n+ext))
			if err != nil {
				t.Fatal(err)
			}
			before[n+ext] = data
		}
	}

	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	start := time.Now().UTC().AddDate(0, 0, -100).Truncate(time.Hour)
	const rounds = 30
	saved := 0
	for round := 0; round < rounds; round++ {
		cmd := childCmd(t, dir, "CG_STORE_MODE=loop", "CG_STORE_ID=r"+strconv.Itoa(round),
			"CG_STORE_KEEP=12", "CG_STORE_TIME="+start.Add(time.Duration(round)*time.Hour).Format(time.RFC3339))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the child is about to save (start-up time varies a
		// lot, e.g. under -race), then kill it anywhere in its first few
		// saves. Every other round waits for its first whole save too, so
		// that some rounds surely kill a child between saves whatever the
		// machine's load (a random delay alone found none at load 27).
		ready := make(chan bool, 1)
		afterSave := round%2 == 1
		go func() {
			r := bufio.NewReader(out)
			line, _ := r.ReadString('\n')
			if line == "ready\n" && afterSave {
				line, _ = r.ReadString('\n')
				line = strings.Replace(line, "saved", "ready", 1)
			}
			ready <- line == "ready\n"
		}()
		select {
		case ok := <-ready:
			if !ok {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: child did not start", round)
			}
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child did not start in 30s", round)
		}
		time.Sleep(time.Duration(rng.IntN(25000)) * time.Microsecond)
		cmd.Process.Signal(syscall.SIGKILL)
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: child was not killed: %v", round, err)
		}
		records := checkFolder(t, dir)
		saved += len(records)
		for name, data := range before {
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("round %d: earlier snapshot %s changed or gone (%v)", round, name, err)
			}
		}
	}
	if saved == len(earlier)*rounds {
		t.Fatal("the child never saved a snapshot before it was killed: the test proved nothing")
	}
	// Whatever the kills left behind is cleaned by a later Save once stale.
	n0 := len(checkFolder(t, dir))
	later := &Store{Dir: dir, Keep: 12, Now: func() time.Time { return time.Now().Add(time.Hour) }}
	mustSave(t, later, rec("after-the-kills", start.Add(1000*time.Hour), ""), English)
	// A kill between placing a snapshot and pruning leaves one too many;
	// the next whole Save prunes back to Keep.
	if n, want := len(checkFolder(t, dir)), min(12, n0+1); n != want {
		t.Errorf("%d snapshots after a whole Save, want %d", n, want)
	}
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if n := de.Name(); n[0] == '.' {
			t.Errorf("working file %s survived the cleanup", n)
		}
	}
}
