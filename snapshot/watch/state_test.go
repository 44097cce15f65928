package watch

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func newStore(t *testing.T) Store {
	return StoreFor(filepath.Join(t.TempDir(), "compact guard данные", "snapshots"))
}

// spec: WA-8
func TestWA8StoreRoundTripAndPlace(t *testing.T) {
	s := newStore(t)
	if !strings.HasSuffix(s.Dir, filepath.Join("compact guard данные", "watch")) {
		t.Errorf("store folder %s, want watch beside the snapshot folder", s.Dir)
	}
	sid := "0123abcd-a/../b\x00c"
	if st, err := s.Load(sid); st != nil || err != nil {
		t.Fatalf("Load with no file: %v %v", st, err)
	}
	st, err := s.Update(sid, func(st *State) bool {
		st.Crossings = append(st.Crossings, Crossing{Tokens: 500, At: t0, Fill: 510})
		return true
	})
	if err != nil || st.Schema != Schema || st.SessionID != sid {
		t.Fatalf("Update: %+v %v", st, err)
	}
	base := filepath.Base(s.Path(sid))
	if filepath.Dir(s.Path(sid)) != s.Dir || !strings.HasPrefix(base, "0123abcd_") || strings.ContainsAny(base, "/\\\x00.") && !strings.HasSuffix(base, ".json") {
		t.Errorf("state file name %q", base)
	}
	if other := s.Path("0123abcd-other"); other == s.Path(sid) {
		t.Error("two sessions sharing a sid8 share a state file")
	}
	got, err := s.Load(sid)
	if err != nil || len(got.Crossings) != 1 || got.Crossings[0].Fill != 510 {
		t.Fatalf("Load: %+v %v", got, err)
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{s.Dir, s.Path(sid)} {
			fi, _ := os.Stat(p)
			want := os.FileMode(0o600)
			if fi.IsDir() {
				want = 0o700
			}
			if fi.Mode().Perm() != want {
				t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
			}
		}
	}
	// Nothing changed: nothing written.
	fi1, _ := os.Stat(s.Path(sid))
	if _, err := s.Update(sid, func(*State) bool { return false }); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(s.Path(sid)); !fi2.ModTime().Equal(fi1.ModTime()) {
		t.Error("an Update that changed nothing rewrote the file")
	}
}

// spec: WA-8
func TestWA8StoreRefusesWhatItCannotTrust(t *testing.T) {
	s := newStore(t)
	sid := "trust-me"
	write := func(body string) {
		if err := os.MkdirAll(s.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.Path(sid), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cases := map[string]func(){
		"not JSON":        func() { write("{") },
		"another schema":  func() { write(`{"schema":99,"session_id":"trust-me"}`) },
		"another session": func() { write(`{"schema":1,"session_id":"trust-you"}`) },
		"too large": func() {
			write(`{"schema":1,"session_id":"trust-me","turn":"` + strings.Repeat("x", MaxStateBytes) + `"}`)
		},
		"a folder": func() { os.RemoveAll(s.Path(sid)); os.MkdirAll(s.Path(sid), 0o700) },
	}
	if runtime.GOOS != "windows" {
		cases["writable by others"] = func() { write(`{"schema":1,"session_id":"trust-me"}`); os.Chmod(s.Path(sid), 0o622) }
		cases["a symlink"] = func() {
			target := filepath.Join(t.TempDir(), "x.json")
			os.WriteFile(target, []byte(`{"schema":1,"session_id":"trust-me"}`), 0o600)
			os.MkdirAll(s.Dir, 0o700)
			os.Symlink(target, s.Path(sid))
		}
		cases["in a folder others can write"] = func() { write(`{"schema":1,"session_id":"trust-me"}`); os.Chmod(s.Dir, 0o777) }
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			os.RemoveAll(s.Dir)
			setup()
			if st, err := s.Load(sid); err == nil || st != nil {
				t.Fatalf("Load accepted it: %+v", st)
			}
			if name == "a folder" {
				return
			}
			// Update starts anew, says why, and leaves a private file; in
			// a folder others can write to it writes nothing: the folder is
			// never narrowed (SEC-15), and nothing in it is trusted.
			st, err := s.Update(sid, func(st *State) bool { st.Turn = "new"; return true })
			if name == "in a folder others can write" {
				if !errors.Is(err, ErrForeign) || st != nil {
					t.Fatalf("Update in a folder others can write to: %+v %v", st, err)
				}
				if fi, _ := os.Stat(s.Dir); fi.Mode().Perm() != 0o777 {
					t.Errorf("the folder was changed to %v", fi.Mode().Perm())
				}
				return
			}
			if err == nil || st == nil || st.Turn != "new" {
				t.Fatalf("Update: %+v %v", st, err)
			}
			if got, err := s.Load(sid); err != nil || got.Turn != "new" {
				t.Errorf("after Update: %+v %v", got, err)
			}
		})
	}
}

// An existing watch folder others can read but not write (mkdir under
// umask 022) is used as it is, never narrowed: write access is what
// matters (SEC-14, SEC-15); one others can write to is refused above.
// spec: WA-8, SEC-14
func TestWA8StoreUsesAFolderOthersCanRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	s := newStore(t)
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("readable", func(st *State) bool { st.Turn = "t1"; return true }); err != nil {
		t.Fatalf("Update in a 0755 folder: %v", err)
	}
	if got, err := s.Load("readable"); err != nil || got == nil || got.Turn != "t1" {
		t.Fatalf("Load in a 0755 folder: %+v %v", got, err)
	}
	if fi, _ := os.Stat(s.Dir); fi.Mode().Perm() != 0o755 {
		t.Errorf("the folder was changed to %v", fi.Mode().Perm())
	}
}

// spec: WA-8
func TestWA8StoreBoundsAndPrunes(t *testing.T) {
	s := newStore(t)
	st, err := s.Update("a", func(st *State) bool {
		for i := 0; i < 3*maxCrossings; i++ {
			st.Crossings = append(st.Crossings, Crossing{Tokens: int64(i)})
			st.Fallbacks = append(st.Fallbacks, Fallback{Boundary: int64(i)})
		}
		return true
	})
	if err != nil || len(st.Crossings) != maxCrossings || st.Crossings[0].Tokens != 2*maxCrossings || len(st.Fallbacks) != maxFallbacks {
		t.Fatalf("lists not bounded to the newest: %d %d %v", len(st.Crossings), len(st.Fallbacks), err)
	}
	old := time.Now().Add(-MaxAge - time.Hour)
	for _, n := range []string{"old_0123456789ab.json", "old.lock", "keep.txt"} {
		p := filepath.Join(s.Dir, n)
		os.WriteFile(p, []byte("{}"), 0o600)
		os.Chtimes(p, old, old)
	}
	os.Chtimes(s.Path("a"), old, old)
	if _, err := s.Update("b", func(*State) bool { return true }); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{"old_0123456789ab.json": false, "old.lock": false, "keep.txt": true} {
		if _, err := os.Stat(filepath.Join(s.Dir, n)); (err == nil) != want {
			t.Errorf("%s kept %v, want %v", n, err == nil, want)
		}
	}
	if _, err := os.Stat(s.Path("a")); err == nil {
		t.Error("a state untouched for longer than MaxAge was kept")
	}
}

// spec: WA-9
func TestWA9ConcurrentUpdatesTakeTurns(t *testing.T) {
	s := newStore(t)
	const n = 20
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Update("busy", func(st *State) bool {
				st.Fallbacks = append(st.Fallbacks, Fallback{})
				st.Crossings = append(st.Crossings[:0], Crossing{Tokens: int64(len(st.Turn) + 1)})
				st.Turn += "x"
				return true
			}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	st, err := s.Load("busy")
	if err != nil || len(st.Turn) != n {
		t.Fatalf("%d of %d updates survived: %v", len(st.Turn), n, err)
	}
	// A crashed run's lock is taken over.
	lock := strings.TrimSuffix(s.Path("busy"), ".json") + ".lock"
	os.WriteFile(lock, nil, 0o600)
	stale := time.Now().Add(-2 * lockStale)
	os.Chtimes(lock, stale, stale)
	if _, err := s.Update("busy", func(*State) bool { return true }); err != nil {
		t.Errorf("stale lock not taken over: %v", err)
	}
}

// A lock dated ahead of the clock (a run that crashed while the clock was
// ahead) is taken over once it is more than a minute ahead, as a lock
// older than 10 s is: before, every change waited 2 s and failed, and
// precompact's note was lost. A run's lock is never left behind, nor is a
// lock moved aside to judge it.
// spec: WA-9
func TestWA9LockDatedAheadTakenOver(t *testing.T) {
	s := newStore(t)
	if _, err := s.Update("ahead", func(*State) bool { return true }); err != nil {
		t.Fatal(err)
	}
	lock := strings.TrimSuffix(s.Path("ahead"), ".json") + ".lock"
	for _, d := range []time.Duration{time.Hour, 365 * 24 * time.Hour, -time.Hour} {
		if err := os.WriteFile(lock, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(d)
		if err := os.Chtimes(lock, at, at); err != nil {
			t.Fatal(err)
		}
		st, err := s.Update("ahead", func(st *State) bool { st.Turn = d.String(); return true })
		if err != nil || st.Turn != d.String() {
			t.Fatalf("lock dated %s from now: %+v, %v; want it taken over", d, st, err)
		}
		des, _ := os.ReadDir(s.Dir)
		for _, de := range des {
			if strings.HasSuffix(de.Name(), ".lock") {
				t.Errorf("after a lock dated %s from now: %s left in the folder", d, de.Name())
			}
		}
	}
	// A fresh lock, or one a few seconds ahead (a clock stepped back by
	// NTP), is a live run's: taken over only once it has aged.
	for _, at := range []time.Time{time.Now(), time.Now().Add(5 * time.Second)} {
		os.WriteFile(lock, nil, 0o600)
		os.Chtimes(lock, at, at)
		if fi, err := os.Lstat(lock); err != nil || isStaleLock(fi, time.Now()) {
			t.Errorf("a lock dated %s is taken for a crashed run's (%v)", at.Format(time.RFC3339), err)
		}
	}
	os.Remove(lock)
}

// Taking a lock over moves it aside and judges what it moved: a fresh lock
// another run made meanwhile is put back, not removed.
// spec: WA-9
func TestWA9TakeOverKeepsAFreshLock(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(s.Dir, 0o700)
	lock := filepath.Join(s.Dir, "x.lock")
	if err := os.WriteFile(lock, []byte("fresh"), 0o600); err != nil {
		t.Fatal(err)
	}
	takeOver(lock)
	if got, err := os.ReadFile(lock); err != nil || string(got) != "fresh" {
		t.Errorf("a fresh lock was not put back: %q, %v", got, err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(lock, old, old)
	takeOver(lock)
	if des, _ := os.ReadDir(s.Dir); len(des) != 0 {
		t.Errorf("after taking a stale lock over: %v", des)
	}
}
