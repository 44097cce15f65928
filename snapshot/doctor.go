package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/health"
	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// doctor's checks of what snapshot owns (specs/install.md DR-6, DR-7,
// DR-11): the snapshot folder, the snapshots' confirmations and the hook
// log. cmd's doctor runs them and prints their lines.

// Hook outcomes as the log writes them (outcome=); doctor counts the
// failed and the warned runs.
const (
	OutcomeFailed = "failed"
	OutcomeWarn   = "warn"
)

// CheckFolder judges the snapshot folder dir as the hooks will use it
// (DR-6): it exists or can be created, precompact's own checks accept it
// (SEC-14, SEC-15), a file can be made in it; with how many snapshots it
// holds.
func CheckFolder(dir string) health.Result {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		parent := dir
		for {
			parent = filepath.Dir(parent)
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
		}
		if werr := probeWritable(parent); werr != nil {
			return health.Result{Status: health.Fail, Text: fmt.Sprintf("snapshot folder %s does not exist and cannot be created: %v", dir, werr),
				Fix: "make " + parent + " writable, or choose another folder with COMPACT_GUARD_DIR in Claude Code's environment"}
		}
		return health.Result{Status: health.OK, Text: fmt.Sprintf("snapshot folder %s: not created yet (the first snapshot creates it, mode 0700)", dir)}
	}
	if err != nil {
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("snapshot folder %s: %v", dir, err)}
	}
	if !st.IsDir() {
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("snapshot folder %s is not a folder", dir), Fix: "move it away"}
	}
	// precompact refuses a folder another user owns or others can write
	// to, or one in a folder others can rename it in, and postcompact reads
	// nothing from it: the hooks' own check decides (SEC-14, SEC-15).
	if err := trust.CheckPrivateDir(dir); err != nil {
		fix := "choose a folder of your own with COMPACT_GUARD_DIR in Claude Code's environment"
		var ue *trust.UntrustedError
		if errors.As(err, &ue) && strings.HasPrefix(ue.Fix, "chmod ") {
			fix = ue.Fix
		}
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("snapshot folder %s: compact-guard refuses it: %v", dir, err), Fix: fix}
	}
	if err := probeWritable(dir); err != nil {
		why, fix := unwritableDir(dir, st.Mode().Perm(), err)
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("snapshot folder %s is not writable: %s (%v)", dir, why, err), Fix: fix}
	}
	count, newest := countSnapshots(dir)
	what := "no snapshots yet"
	if count > 0 {
		what = fmt.Sprintf("%d snapshot(s), newest %s", count, newest.Local().Format("2006-01-02 15:04"))
	}
	return health.Result{Status: health.OK, Text: fmt.Sprintf("snapshot folder %s: writable, private (%s)", dir, what)}
}

func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".compact-guard-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func countSnapshots(dir string) (int, time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, time.Time{}
	}
	n := 0
	var newest time.Time
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if nm, ok := ParseName(base); ok {
			n++
			if nm.Time.After(newest) {
				newest = nm.Time
			}
		}
	}
	return n, newest
}

// unwritableDir says why no file can be made in dir, an existing folder
// of mode perm, and the fix that mends it (DR-6, DR-19): the mode when it
// lacks the owner's write bit, else what the error says — a read-only
// file system, an immutable or append-only folder (root gets EPERM there
// whatever the mode), a full disk.
func unwritableDir(dir string, perm fs.FileMode, err error) (why, fix string) {
	other := "choose another folder with COMPACT_GUARD_DIR in Claude Code's environment"
	switch {
	case errors.Is(err, syscall.EROFS):
		return "its file system is mounted read-only", other
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "the disk (or the user's quota) is full", "free space on it, or " + other
	case runtime.GOOS != "windows" && perm&0o200 == 0:
		return fmt.Sprintf("its mode %04o lacks the owner's write permission", perm), "chmod u+w " + health.ShellQuote(dir)
	case runtime.GOOS == "linux" && errors.Is(err, syscall.EPERM):
		return fmt.Sprintf("it refuses new files although its mode %04o allows them: it is immutable or append-only (lsattr -d shows an i or an a)", perm),
			"chattr -i -a " + health.ShellQuote(dir) + " (as root), or " + other
	}
	return err.Error(), other
}

// CheckConfirmations tells snapshots of compactions that completed (a
// PostCompact run confirmed them) from those whose compaction never did:
// Claude Code can fire PreCompact for a compaction it then skips. It is
// information, not a failure; ok is false when there is nothing to say.
func CheckConfirmations(dir string, now time.Time) (health.Result, bool) {
	st := &Store{Dir: dir}
	entries, err := st.Entries()
	if err != nil || len(entries) == 0 {
		return health.Result{}, false
	}
	confirmed, skipped, pending := 0, 0, 0
	for _, e := range entries {
		rec, err := st.Load(e.Name)
		switch {
		case err != nil:
			continue
		case rec.Compaction != nil:
			confirmed++
		case now.Sub(rec.CreatedAt) > ConfirmWindow:
			skipped++
		default:
			pending++
		}
	}
	text := fmt.Sprintf("snapshots: %d confirmed by PostCompact, %d never confirmed (the compaction was skipped, or PostCompact did not run)", confirmed, skipped)
	if pending > 0 {
		text += fmt.Sprintf(", %d too recent to tell", pending)
	}
	return health.Result{Status: health.Info, Text: text}, true
}

// LogLine is what doctor needs of a log line (see logEntry.String).
type LogLine struct {
	At      time.Time
	Command string
	Outcome string
	Detail  string
}

// ParseLogLine reads a log line as the hooks write it (cmd's
// logEntry.String); ok is false for a line that is not one.
func ParseLogLine(s string) (LogLine, bool) {
	fields := strings.Fields(s)
	if len(fields) < 3 {
		return LogLine{}, false
	}
	at, err := time.Parse(time.RFC3339, fields[0])
	if err != nil {
		return LogLine{}, false
	}
	l := LogLine{At: at, Command: fields[1]}
	for _, f := range fields[2:] {
		if v, ok := strings.CutPrefix(f, "outcome="); ok {
			l.Outcome = v
			break
		}
	}
	if i := strings.Index(s, " detail="); i >= 0 {
		if d, err := strconv.Unquote(s[i+len(" detail="):]); err == nil {
			l.Detail = d
		}
	}
	return l, l.Outcome != ""
}

// MaxLogLines bounds the lines doctor reads; the log itself is kept small
// by AppendLog.
const MaxLogLines = 100000

// CheckLogRuns counts the hook runs the log at path records for the last
// 24 hours, and warns with the newest failure (DR-7).
func CheckLogRuns(path string, now time.Time) health.Result {
	lines, err := RecentLogLines(path, MaxLogLines)
	if err != nil {
		return health.Result{Status: health.Warn, Text: fmt.Sprintf("log %s: %v", path, err)}
	}
	if lines == nil {
		return health.Result{Status: health.OK, Text: fmt.Sprintf("log %s: no hook runs recorded yet", path)}
	}
	since := now.Add(-24 * time.Hour)
	runs, warned, failed := 0, 0, 0
	var last LogLine
	for _, s := range lines {
		l, ok := ParseLogLine(s)
		if !ok || l.At.Before(since) {
			continue
		}
		runs++
		switch l.Outcome {
		case OutcomeFailed:
			failed++
			last = l
		case OutcomeWarn:
			warned++
		}
	}
	if failed > 0 {
		return health.Result{Status: health.Warn,
			Text: fmt.Sprintf("log %s: %d of %d hook runs in the last 24 h failed; newest %s %s: %s", path, failed, runs, last.At.Local().Format("2006-01-02 15:04"), last.Command, textcut.Marked(textcut.Runes(last.Detail, 300))),
			Fix:  "read the log; a failure stops being reported 24 h after it happened"}
	}
	text := fmt.Sprintf("log %s: %d hook runs in the last 24 h, none failed", path, runs)
	if warned > 0 {
		text += fmt.Sprintf(" (%d with warnings)", warned)
	}
	return health.Result{Status: health.OK, Text: text}
}
