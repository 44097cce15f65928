package take

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// spec: PC-37
// The wait for the PreCompact's note goes on while the note is merely
// slow (the looks find no other run's lock), whatever the machine's load;
// it gives up, with a warning, on evidence that another run holds the
// session's watch lock, or at the deadline. The looks are driven by the
// test, not by time.
func TestPreCompactNoteWait(t *testing.T) {
	var warnings []string
	warn := func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) }
	t.Run("slow, not held up", func(t *testing.T) {
		warnings = nil
		marked, tick := make(chan error, 1), make(chan time.Time)
		done := make(chan struct{})
		looks := 0
		go func() {
			waitPreCompactNote(context.Background(), marked, tick, func() bool { looks++; return false }, warn)
			close(done)
		}()
		for range 5 { // five looks, 1.25 s of a busy machine
			tick <- time.Time{}
		}
		marked <- nil
		<-done
		if looks != 5 || len(warnings) != 0 {
			t.Errorf("looks %d, warnings %q: want it to wait for the note", looks, warnings)
		}
	})
	t.Run("held by another run", func(t *testing.T) {
		warnings = nil
		tick := make(chan time.Time, 1)
		tick <- time.Time{}
		waitPreCompactNote(context.Background(), make(chan error), tick, func() bool { return true }, warn)
		if len(warnings) != 1 || !strings.Contains(warnings[0], "another run holds the session's watch lock") {
			t.Errorf("warnings %q", warnings)
		}
	})
	t.Run("the deadline", func(t *testing.T) {
		warnings = nil
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		waitPreCompactNote(ctx, make(chan error), make(chan time.Time), func() bool { return false }, warn)
		if len(warnings) != 1 || !strings.Contains(warnings[0], "not written by the deadline") {
			t.Errorf("warnings %q", warnings)
		}
	})
	t.Run("whose lock", func(t *testing.T) {
		dir := t.TempDir()
		const sid = "7c1d0e5a-0000-4000-8000-00000000f020"
		path := watch.StoreFor(dir).LockPath(sid)
		since := time.Now()
		held := watchLockHeldSince(dir, sid, since)
		if held() {
			t.Errorf("no lock file: held")
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, d := range []time.Duration{time.Second, -10 * time.Millisecond} {
			if err := os.Chtimes(path, since.Add(d), since.Add(d)); err != nil {
				t.Fatal(err)
			}
			if held() {
				t.Errorf("a lock dated %s from the note's start (this run's own, the file clock coarse): held by another", d)
			}
		}
		if err := os.Chtimes(path, since.Add(-time.Second), since.Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if !held() {
			t.Errorf("a lock taken before the note started: not held by another")
		}
	})
}
