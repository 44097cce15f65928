package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// When the state cannot be written (a full or read-only watch folder; here
// a folder in the state file's place), nothing is told that the state
// cannot record, and the log says so instead of claiming a notice.
// spec: WA-25, WA-13
func TestWA25UnwritableStateSaysNothingAndLogsIt(t *testing.T) {
	w := newWatchWorld(t)
	w.fill(t, 612000)
	store := watch.StoreFor(w.Snaps)
	rbWriteFile(t, filepath.Join(store.Path(w.sid), "in-the-way"), []byte("x"))
	if r := w.hook(t, watch.PostToolUse, "p1", nil); r.Stdout != "" {
		t.Errorf("a notice the state could not record: %q", r.Stdout)
	}
	lines := rbLogLines(t, w.Log())
	last := lines[len(lines)-1]
	if !strings.Contains(last, "watch(PostToolUse) session="+w.sid+" outcome=failed") ||
		!strings.Contains(last, `detail="not said, for the watch state could not be written: notice: 500000,600000; watch state: `) {
		t.Errorf("log line %s", last)
	}
}
