//go:build unix

package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// within runs fn and fails the test when it has not returned after a while:
// the defect guarded against is an open that blocks forever, and a hung
// test would say less than a failed one.
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// A FIFO, a device or a symlink at the log's name is refused with an error,
// never waited on (a hook stuck on its log would block the compaction).
// spec: SF-60, SF-62
func TestLogRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "compact-guard.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	var err error
	within(t, "AppendLog on a FIFO", func() { err = AppendLog(fifo, "x") })
	if err == nil {
		t.Error("AppendLog wrote to a FIFO")
	}
	// With a reader at the other end the open succeeds; the type check
	// still refuses it.
	r, rerr := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if rerr != nil {
		t.Fatal(rerr)
	}
	within(t, "AppendLog on a FIFO with a reader", func() { err = AppendLog(fifo, "x") })
	r.Close()
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("AppendLog on a FIFO with a reader: %v", err)
	}
	within(t, "RecentLogLines on a FIFO", func() { _, err = RecentLogLines(fifo, 3) })
	if err == nil {
		t.Error("RecentLogLines read a FIFO")
	}
	within(t, "trust.OpenRegular on a FIFO", func() {
		var f *os.File
		if f, err = trust.OpenRegular(fifo); err == nil {
			f.Close()
		}
	})
	if err == nil {
		t.Error("trust.OpenRegular opened a FIFO")
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		if err := AppendLog("/dev/null", "x"); err == nil {
			t.Error("AppendLog wrote to a device")
		}
	}

	target := filepath.Join(dir, "elsewhere")
	os.WriteFile(target, []byte("keep\n"), 0o600)
	link := filepath.Join(dir, "linked.log")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := AppendLog(link, "x"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("AppendLog through a symlink: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("symlink target written: %q", b)
	}
	if _, err := RecentLogLines(link, 3); err == nil {
		t.Error("RecentLogLines followed a symlink")
	}
	// A dangling symlink is not created through either.
	dangling := filepath.Join(dir, "dangling.log")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	if err := AppendLog(dangling, "x"); err == nil {
		t.Error("AppendLog created a file through a dangling symlink")
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("symlink target created")
	}
}
