//go:build unix

package selectsnap

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// A candidate .json swapped for a FIFO after the folder was listed is
// refused, not waited on: readRecord is what Select calls for it.
// spec: SS-4
func TestReadRecordRefusesFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	var reason string
	done := make(chan struct{})
	go func() { _, reason = readRecord(path, "x", snapshot.Name{}, "s"); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("readRecord blocked on a FIFO")
	}
	if !strings.Contains(reason, "not a regular file") {
		t.Errorf("reason %q", reason)
	}
}
