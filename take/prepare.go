package take

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore/residue"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
	"github.com/compact-guard/compact-guard/transcript"
)

// Preparation is how a compaction was prepared, with what went wrong
// finding out.
type Preparation struct {
	// P is what the record keeps of it.
	P *snapshot.Preparation
	// Warnings say what could not be read.
	Warnings []string
}

// ReadPreparation says how the compaction was prepared (WA-12): the
// session's watch state, the state file's newest handoff block, the fill
// against the window. precompact puts it into the record before saving.
func ReadPreparation(opts *Options, rec *snapshot.Record, p hookio.Payload, now time.Time) Preparation {
	var out Preparation
	st, err := watch.StoreFor(opts.Dir).Load(rec.SessionID)
	if err != nil {
		out.Warnings = append(out.Warnings, "watch state: "+err.Error())
	}
	var blocks []handoff.Block
	if rec.StateFile.Path != "" {
		if blocks, err = handoff.Read(rec.StateFile.Path); err != nil {
			out.Warnings = append(out.Warnings, "handoff: "+err.Error())
		}
	}
	in := watch.PrepareInput{Trigger: rec.Trigger, State: st, StateFile: rec.StateFile.Path, Blocks: blocks, Now: now,
		Window:    watch.WindowInput{Getenv: opts.Getenv, Settings: ClaudeSettingsFiles(opts.Getenv, p.Cwd)},
		SessionID: rec.SessionID}
	if st == nil || st.Started.IsZero() {
		in.Started = TranscriptStarted(rec.TranscriptPath) // HO-11
	}
	if u := rec.Context; u != nil && !u.FromBoundary {
		in.Fill, in.Model, in.ClientWindow = u.Tokens, u.Model, u.Window // WA-41
	}
	if n, ok := snapshot.ParseName(rec.Coverage.Previous); ok {
		in.Previous = n.Time
	}
	out.P = watch.Prepare(in)
	return out
}

// NoteCompaction notes in the session's watch state the compaction
// precompact ran for, so that the next prompt checks whether its pointer
// reached the model (WA-11). mdPath is the snapshot written, "" when none
// could be: the note then keeps an earlier snapshot from being taken for
// this compaction.
func NoteCompaction(opts *Options, rec *snapshot.Record, mdPath string, now time.Time) error {
	name := ""
	if mdPath != "" {
		name = strings.TrimSuffix(filepath.Base(mdPath), ".md")
	}
	_, err := watch.StoreFor(opts.Dir).Update(rec.SessionID, func(st *watch.State) bool {
		st.Pending = &watch.Pending{At: now.UTC(), Trigger: rec.Trigger, Snapshot: name, TranscriptSize: rec.Coverage.TranscriptSize}
		noteResidue(st, rec, name, now)
		return true
	})
	return err
}

// ClaudeSettingsFiles are the settings files the window may be set in,
// lowest precedence first: user, project, local (WA-2).
func ClaudeSettingsFiles(getenv func(string) string, cwd string) []string {
	files := []string{filepath.Join(ClaudeConfigDir(getenv), "settings.json")}
	project := cmp.Or(getenv("CLAUDE_PROJECT_DIR"), cwd)
	if project != "" {
		files = append(files, filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json"))
	}
	return files
}

// ResidueDue is the note that the residue of the compaction rec was taken
// for is due (WA-14); nil when there is no snapshot (name "") or the
// session's client gets no residue (RS-1).
func ResidueDue(rec *snapshot.Record, name string, now time.Time) *watch.ResidueDue {
	if name == "" || !residue.ForAgent(rec.Agent) {
		return nil
	}
	return &watch.ResidueDue{Snapshot: name, Taken: rec.CreatedAt.UTC(), TranscriptSize: rec.Coverage.TranscriptSize, Noted: now.UTC()}
}

// noteResidue is precompact's note (WA-14): a compaction without a
// snapshot, or another client's, replaces an earlier compaction's due
// residue with none, since that one is no longer this compaction's.
func noteResidue(st *watch.State, rec *snapshot.Record, name string, now time.Time) {
	st.Residue = ResidueDue(rec, name, now)
}

// TranscriptStarted is when the transcript at path began (TR-61), zero when
// it cannot be read.
func TranscriptStarted(path string) time.Time {
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

// SessionTranscript finds a Claude Code session's transcript by its id,
// projects/<folder>/<id>.jsonl under the client's folder, for handoff
// --check, which runs in the agent's shell and is given no path: "" when
// there is none or the id is not one a file name can hold.
func SessionTranscript(getenv func(string) string, sid string) string {
	if sid == "" || strings.IndexFunc(sid, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return ""
	}
	matches, _ := filepath.Glob(filepath.Join(ClaudeConfigDir(getenv), "projects", "*", sid+".jsonl"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
			return m
		}
	}
	return ""
}
