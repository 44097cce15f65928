package selectsnap

// Select's steps before the check against the transcript: which of the
// folder's files are the session's, their order by the clock, each
// candidate's own checks (age, record, .md, agent, transcript) and its
// delivery record.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// sessionFiles are the session's files in the snapshot folder.
type sessionFiles struct {
	// cands are the session's .json records, unsorted.
	cands []candidate
	// md says of each base with a .md whether it is a regular file;
	// delivered holds the bases with a delivery record.
	md, delivered map[string]bool
	// rejected are the records that are not regular files.
	rejected []Rejection
}

// sessionFilesOf picks the session's files (named with its SID8) out of the
// folder's entries.
func sessionFilesOf(entries []os.DirEntry, sid8 string) sessionFiles {
	marker := "_" + sid8
	fs := sessionFiles{md: map[string]bool{}, delivered: map[string]bool{}}
	for _, e := range entries {
		n := e.Name()
		// Cheap string tests first: the folder may hold many unrelated
		// files and other sessions' snapshots.
		if !strings.HasPrefix(n, snapshot.NamePrefix) || !strings.Contains(n, marker) {
			continue
		}
		var base string
		var isMD, isDelivery bool
		switch {
		case strings.HasSuffix(n, ".json"):
			base = strings.TrimSuffix(n, ".json")
		case strings.HasSuffix(n, ".md"):
			base, isMD = strings.TrimSuffix(n, ".md"), true
		case strings.HasSuffix(n, snapshot.DeliverySuffix):
			base, isDelivery = strings.TrimSuffix(n, snapshot.DeliverySuffix), true
		default:
			continue
		}
		sn, ok := snapshot.ParseName(base)
		if !ok || sn.SID8 != sid8 {
			continue
		}
		switch {
		case isMD:
			fs.md[base] = e.Type().IsRegular()
		case isDelivery:
			fs.delivered[base] = true
		case !e.Type().IsRegular():
			fs.rejected = append(fs.rejected, Rejection{base, "not a regular file"})
		default:
			fs.cands = append(fs.cands, candidate{base: base, name: sn})
		}
	}
	return fs
}

// newestFirst sorts the candidates newest first by the clock: a name dated
// more than MaxFuture ahead of it is not the newest (SS-2, SS-6, SF-69). It
// is turned down, and listed in ahead, which Select gives after the others
// whatever the outcome.
func newestFirst(cands []candidate, o Options) (_ []candidate, ahead []Rejection) {
	sort.Slice(cands, func(i, j int) bool {
		return snapshot.NewestFirst(cands[i].name, cands[j].name, o.Now, o.MaxFuture) < 0
	})
	for len(cands) > 0 && aheadReason(cands[len(cands)-1].name, o) != "" {
		c := cands[len(cands)-1]
		ahead = append([]Rejection{{c.base, aheadReason(c.name, o)}}, ahead...)
		cands = cands[:len(cands)-1]
	}
	return cands, ahead
}

// candidateRecord reads a candidate's record and runs the checks that need
// no transcript scan: its age, the record itself, its .md, the agent, the
// transcript's path and size. reason is "" when it passes them.
func candidateRecord(o Options, c candidate, md map[string]bool, cc *compactionCheck) (rec *snapshot.Record, jsonPath, reason string) {
	if age := o.Now.Sub(c.name.Time); age > o.MaxAge {
		return nil, "", fmt.Sprintf("older than %s (%s)", o.MaxAge, age.Truncate(time.Second))
	}
	jsonPath = filepath.Join(o.Dir, c.base+".json")
	rec, reason = readRecord(jsonPath, c.base, c.name, o.SessionID)
	if reason == "" {
		if isReg, ok := md[c.base]; !ok {
			reason = "no .md file"
		} else if !isReg {
			reason = ".md is not a regular file"
		} else if err := trust.CheckTrustedFile(filepath.Join(o.Dir, c.base+".md")); err != nil {
			reason = ".md " + untrustedReason(err)
		}
	}
	if reason == "" && agentOr(rec.Agent) != agentOr(o.Agent) {
		reason = fmt.Sprintf("recorded for a %s session, this is a %s session", agentOr(rec.Agent), agentOr(o.Agent))
	}
	if reason == "" && o.TranscriptPath != "" && !samePath(rec.TranscriptPath, o.TranscriptPath) {
		reason = fmt.Sprintf("made from another transcript (%q)", rec.TranscriptPath)
	}
	if reason == "" && cc.t != nil && rec.Coverage.TranscriptSize > cc.t.Size() {
		reason = fmt.Sprintf("covers the transcript up to %d, but it holds %d bytes (another file)", rec.Coverage.TranscriptSize, cc.t.Size())
	}
	return rec, jsonPath, reason
}

// takenOf is what the record says of when it was taken and which hook
// already handled its compaction (the PostCompact the record itself notes).
func takenOf(rec *snapshot.Record) Taken {
	tk := Taken{At: rec.CreatedAt, Size: rec.Coverage.TranscriptSize, PromptID: rec.PromptID, AtSessionStart: rec.HookEvent == HookSessionStart}
	if rec.Compaction != nil && rec.Compaction.TranscriptSize > 0 {
		tk.Handled = append(tk.Handled, Handled{Event: "PostCompact", At: rec.Compaction.At, Size: rec.Compaction.TranscriptSize})
	}
	return tk
}

// candidateDelivery reads the candidate's delivery record and adds the hook
// that handed it over to tk. ok is false when the record could not be read:
// the candidate is then turned down (in rejected).
func candidateDelivery(o Options, base string, tk *Taken) (dl *snapshot.Delivery, rejected []Rejection, ok bool) {
	d, derr := snapshot.ReadDelivery(o.Dir, base, o.SessionID)
	if errors.Is(derr, trust.ErrUntrusted) {
		// Not the user's: ignored, as if absent, and said (SEC-16).
		rejected = append(rejected, Rejection{base + snapshot.DeliverySuffix, "ignored: " + untrustedReason(derr)})
		d, derr = nil, nil
	}
	if derr != nil {
		return nil, append(rejected, Rejection{base, "delivery record: " + derr.Error()}), false
	}
	if d != nil && d.TranscriptSize > 0 {
		tk.Handled = append(tk.Handled, Handled{Event: d.Event, At: d.At, Size: d.TranscriptSize})
	}
	return d, rejected, true
}
