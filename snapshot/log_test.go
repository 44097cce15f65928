package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// spec: SF-60
func TestAppendLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "compact-guard.log")
	for _, l := range []string{"first", "two\nlines\r\x1b[31m", strings.Repeat("é", maxLogLine)} {
		if err := AppendLog(path, l); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "first" || lines[1] != `two\nlines\r\x1b[31m` {
		t.Fatalf("log lines %q", lines[:min(2, len(lines))])
	}
	if !strings.HasSuffix(lines[2], textcut.Marker) || len(lines[2]) > maxLogLine+len(textcut.Marker) ||
		!strings.HasPrefix(lines[2], "éé") || strings.ContainsRune(lines[2], '\uFFFD') {
		t.Fatalf("long line not cut cleanly: %d bytes", len(lines[2]))
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(path)
		di, _ := os.Stat(filepath.Dir(path))
		if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
			t.Errorf("modes %v %v", fi.Mode(), di.Mode())
		}
	}
}

// spec: SF-61
func TestAppendLogStaysUnderLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "compact-guard.log")
	line := strings.Repeat("x", 990)
	n := 0
	for ; n < 2*MaxLogBytes/1000; n++ {
		if err := AppendLog(path, fmt.Sprintf("%06d %s", n, line)); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(path); fi.Size() > MaxLogBytes {
			t.Fatalf("log is %d bytes after line %d", fi.Size(), n)
		}
	}
	data, _ := os.ReadFile(path)
	if len(data) < MaxLogBytes/4 {
		t.Fatalf("trim kept only %d bytes", len(data))
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		if len(l) != 997 {
			t.Fatalf("line %d is %d bytes: trimmed mid-line", i, len(l))
		}
	}
	if want := fmt.Sprintf("%06d ", n-1); !strings.HasPrefix(lines[len(lines)-1], want) {
		t.Fatalf("newest line %q lost", lines[len(lines)-1][:7])
	}
	if _, err := os.Lstat(path + ".trim"); err == nil {
		t.Fatal("trim lock left behind")
	}
}

// spec: SF-60
func TestAppendLogConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "compact-guard.log")
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if err := AppendLog(path, fmt.Sprintf("g%02d i%02d %s", g, i, strings.Repeat("y", 200))); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	wg.Wait()
	lines, err := RecentLogLines(path, 10000)
	if err != nil || len(lines) != 16*50 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	for _, l := range lines {
		if len(l) != 208 {
			t.Fatalf("mixed line %q", l)
		}
	}
}

// spec: SF-62
func TestRecentLogLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "compact-guard.log")
	if l, err := RecentLogLines(path, 5); l != nil || err != nil {
		t.Fatalf("missing log: %v %v", l, err)
	}
	for i := 0; i < 8; i++ {
		AppendLog(path, fmt.Sprintf("line %d", i))
	}
	for _, tc := range []struct {
		n    int
		want string
	}{
		{3, "line 5|line 6|line 7"},
		{100, "line 0|line 1|line 2|line 3|line 4|line 5|line 6|line 7"},
		{0, ""},
	} {
		got, err := RecentLogLines(path, tc.n)
		if err != nil || strings.Join(got, "|") != tc.want {
			t.Errorf("RecentLogLines(%d) = %q, %v", tc.n, got, err)
		}
	}
	// A log far past the limit (written by something else) is read from
	// its tail only, starting at a whole line.
	big := filepath.Join(dir, "big.log")
	var b strings.Builder
	for i := 0; b.Len() < 3*MaxLogBytes; i++ {
		fmt.Fprintf(&b, "entry %07d %s\n", i, strings.Repeat("z", 100))
	}
	os.WriteFile(big, []byte(b.String()), 0o600)
	got, err := RecentLogLines(big, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || len(got) > 2*MaxLogBytes/100 || !strings.HasPrefix(got[0], "entry ") || len(got[0]) != len(got[1]) {
		t.Fatalf("tail read wrong: %d lines, first %q", len(got), got[0])
	}
	if err := os.Mkdir(filepath.Join(dir, "d.log"), 0o700); err == nil {
		if _, err := RecentLogLines(filepath.Join(dir, "d.log"), 1); err == nil {
			t.Error("a folder read as a log")
		}
	}
}

// The log lives in the folder above the snapshot folder, which may be the
// user's home or /tmp: AppendLog must not narrow it.
// spec: SEC-1, SF-60
func TestAppendLogLeavesExistingFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes on Windows")
	}
	for _, mode := range []os.FileMode{0o755, 0o777 | os.ModeSticky} {
		parent := filepath.Join(t.TempDir(), "parent")
		if err := os.Mkdir(parent, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(parent, mode); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(parent, "compact-guard.log")
		if err := AppendLog(path, "x"); err != nil {
			t.Fatal(err)
		}
		di, _ := os.Stat(parent)
		if di.Mode()&(os.ModePerm|os.ModeSticky) != mode {
			t.Errorf("existing folder changed from %v to %v", mode, di.Mode())
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("log file mode %v, want 0600", fi.Mode())
		}
	}
}

// The user's own log is trusted only while no one else can write to it:
// one others could write to is refused; one others could only read is
// narrowed to 0600 on the open file.
// spec: SEC-13, SEC-16
func TestTrustModesLog(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes; Windows checks the owner only (SEC-18)")
	}
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The user's own log: one others could write to is refused; one
	// others could only read is narrowed to 0600 on the open file.
	log := file("compact-guard.log", 0o666)
	if err := AppendLog(log, "x"); !errors.Is(err, trust.ErrUntrusted) {
		t.Errorf("appended to a log others can write to: %v", err)
	}
	if _, err := RecentLogLines(log, 5); !errors.Is(err, trust.ErrUntrusted) {
		t.Errorf("read a log others can write to: %v", err)
	}
	os.Chmod(log, 0o644)
	if err := AppendLog(log, "x"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(log); fi.Mode().Perm() != 0o600 {
		t.Errorf("the user's readable log is mode %v after an append, want 0600", fi.Mode().Perm())
	}
}
