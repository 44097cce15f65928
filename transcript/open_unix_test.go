//go:build unix

package transcript

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// openWithin runs Open in a goroutine so that a regression that blocks
// (opening a FIFO for reading) fails the test instead of hanging it.
func openWithin(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		f, err := Open(path)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatalf("Open(%s) blocked", path)
		return nil
	}
}

// spec: TR-1
func TestTR1OpenRefusesUnix(t *testing.T) {
	dir := t.TempDir()
	t.Run("FIFO", func(t *testing.T) {
		p := filepath.Join(dir, "fifo.jsonl")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		if err := openWithin(t, p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("FIFO behind a symlink", func(t *testing.T) {
		p := filepath.Join(dir, "fifo2")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		l := filepath.Join(dir, "to-fifo.jsonl")
		os.Symlink(p, l)
		if err := openWithin(t, l); !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("/dev/zero", func(t *testing.T) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip("no /dev/zero")
		}
		if err := openWithin(t, "/dev/zero"); !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("socket", func(t *testing.T) {
		p := filepath.Join(dir, "s.sock")
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Skip("unix socket:", err)
		}
		defer l.Close()
		if err := openWithin(t, p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("symlink loop", func(t *testing.T) {
		a, b := filepath.Join(dir, "loop-a"), filepath.Join(dir, "loop-b")
		os.Symlink(b, a)
		os.Symlink(a, b)
		err := openWithin(t, a)
		if err == nil {
			t.Fatal("no error")
		}
		if !errors.Is(err, syscall.ELOOP) {
			t.Logf("err = %v (not ELOOP, but an error)", err)
		}
	})
	t.Run("symlink to a regular file is followed", func(t *testing.T) {
		p := writeLines(t, prompt(1, "a", nil))
		l := filepath.Join(dir, "link.jsonl")
		if err := os.Symlink(p, l); err != nil {
			t.Fatal(err)
		}
		f := open(t, l)
		res := readAll(t, l)
		eqSlice(t, "prompts", promptTexts(res.Facts), []string{"a"})
		eq(t, "size", f.Size(), int64(len(prompt(1, "a", nil))+1))
	})
	t.Run("unreadable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads everything")
		}
		p := writeLines(t, prompt(1, "a", nil))
		os.Chmod(p, 0)
		if err := openWithin(t, p); err == nil {
			t.Error("no error")
		}
	})
}
