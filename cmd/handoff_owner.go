package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
)

// started is the session's start, its transcript's first entry (TR-61),
// read once per run; zero when it cannot be read.
func (r *watchTurn) started() time.Time {
	if r.start == nil {
		t, _ := r.f.Started()
		r.start = &t
	}
	return *r.start
}

// claimsOf is the handoff blocks the session claimed (HO-10), none without
// a state.
func claimsOf(st *watch.State) []handoff.Claim {
	if st == nil {
		return nil
	}
	return st.Claims
}

// transcriptStarted is when the transcript at path began (TR-61), zero when
// it cannot be read.
func transcriptStarted(path string) time.Time {
	if path == "" {
		return time.Time{}
	}
	f, err := transcript.Open(path)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	t, _ := f.Started()
	return t
}

// sessionTranscript finds a Claude Code session's transcript by its id,
// projects/<folder>/<id>.jsonl under the client's folder, for handoff
// --check, which runs in the agent's shell and is given no path: "" when
// there is none or the id is not one a file name can hold.
func sessionTranscript(getenv func(string) string, sid string) string {
	if sid == "" || strings.IndexFunc(sid, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return ""
	}
	matches, _ := filepath.Glob(filepath.Join(claudeConfigDir(getenv), "projects", "*", sid+".jsonl"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
			return m
		}
	}
	return ""
}

// notReady prints that the block is not this session's handoff, and why
// (HO-6).
func notReady(report handoffReport, path string, b *handoff.Block, problems []string) {
	if b != nil {
		report.line(mHoNotReadyLine, path, lineNo(b.Line))
	} else {
		report.line(mHoNotReady, path)
	}
	for _, p := range problems {
		report.line(mHoProblem, p)
	}
}

// foreignProblem says that the state file's newest block was written by
// another session (HO-10), naming both by their first 8 characters.
func foreignProblem(report handoffReport, b *handoff.Block, sid string) string {
	return report.p.Sprintf(mHoForeign, snapshot.SID8(b.Session), snapshot.SID8(sid))
}

func stampUTC(t time.Time) string { return t.UTC().Format(time.RFC3339) }
