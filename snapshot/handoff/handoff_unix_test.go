//go:build unix

package handoff

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// spec: HO-7
func TestHO7ReadRefusesAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "SESSION-STATE.md")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Read of a FIFO gave no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read blocked on a FIFO")
	}
}
