package selectsnap

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/health"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// CheckTurnedDown warns about postcompact runs of the last 24 hours that
// turned down a snapshot of the session newer than the one they handed out
// (or any fresh one, when they handed out none): that compaction's own
// snapshot was damaged, made from another transcript, from the future, or
// not taken for it at all (DR-13).
func CheckTurnedDown(path string, now time.Time) health.Result {
	lines, err := snapshot.RecentLogLines(path, snapshot.MaxLogLines)
	if err != nil || lines == nil {
		return health.Result{Status: health.OK, Text: "selection: no postcompact run turned down a newer snapshot of its session"}
	}
	since := now.Add(-24 * time.Hour)
	runs, bad := 0, 0
	var last snapshot.LogLine
	var lastTurned string
	for _, s := range lines {
		l, ok := snapshot.ParseLogLine(s)
		if !ok || l.At.Before(since) || !strings.HasPrefix(l.Command, "postcompact") {
			continue
		}
		runs++
		if n, turned := turnedDownFields(s); n > 0 {
			bad++
			last, lastTurned = l, turned
		}
	}
	if bad == 0 {
		return health.Result{Status: health.OK, Text: fmt.Sprintf("selection: none of %d postcompact runs in the last 24 h turned down a newer snapshot of its session", runs)}
	}
	return health.Result{Status: health.Warn,
		Text: fmt.Sprintf("selection: %d of %d postcompact runs in the last 24 h turned down a newer snapshot of their session; newest %s %s: %s",
			bad, runs, last.At.Local().Format("2006-01-02 15:04"), last.Command, textcut.Marked(textcut.Runes(lastTurned, 300))),
		Fix: "compact-guard audit shows each compaction and the snapshot its pointer named; read the log line for why"}
}

// turnedDownFields reads newer_turned_down and turned_down of a postcompact
// log line (cmd's logEntry.String); 0, "" when it has none.
func turnedDownFields(line string) (newer int, turned string) {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "newer_turned_down="); ok {
			newer, _ = strconv.Atoi(v)
			break
		}
	}
	if i := strings.Index(line, " turned_down="); i >= 0 {
		if q, err := strconv.QuotedPrefix(line[i+len(" turned_down="):]); err == nil {
			turned, _ = strconv.Unquote(q)
		}
	}
	return newer, turned
}
