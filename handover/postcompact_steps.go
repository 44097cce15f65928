package handover

import (
	"context"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/restore"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// The steps of Postcompact, each bounded by the phase the run gives it
// (PO-C9) under the step name tests hook into: functions of their own so
// that the run reads as the order of its steps.

// openTranscriptWithin opens the payload's transcript under checkCtx, at
// once (PO-C14: SessionStart waits for nothing; what the client writes late
// is folded in, PO-C18). It returns nil, with the reason among the
// warnings, when there is none or it cannot be opened; the caller closes
// it.
func openTranscriptWithin(checkCtx context.Context, opts *Options, p hookio.Payload, entry *hookio.Entry) *transcript.File {
	if p.TranscriptPath == "" {
		return nil
	}
	type opened struct {
		f   *transcript.File
		err error
	}
	o, berr := hookio.Bounded(checkCtx, opts.BeforeStep, "opening the transcript", func() opened {
		f, err := transcript.Open(p.TranscriptPath)
		return opened{f, err}
	})
	switch {
	case berr != nil:
		entry.Warnings = append(entry.Warnings, "transcript: "+berr.Error())
	case o.err != nil:
		entry.Warnings = append(entry.Warnings, "transcript: "+o.err.Error())
	default:
		return o.f
	}
	return nil
}

// selectWithin finds this compaction's snapshot or failure marker under
// gatherCtx, and logs what selection warned of and turned down. The error
// is the step's own: given up or a panic.
func selectWithin(checkCtx, gatherCtx context.Context, opts *Options, p hookio.Payload, agent, sessionID string, start time.Time, f *transcript.File, entry *hookio.Entry) (thisCompaction, error) {
	type selection struct {
		found thisCompaction
		notes hookio.Entry // the warnings and turned-down snapshots to log
	}
	sel, serr := hookio.Bounded(gatherCtx, opts.BeforeStep, "selecting the snapshot", func() (s selection) {
		s.found = findThisCompaction(checkCtx, gatherCtx, opts, p, agent, sessionID, start, f, &s.notes)
		return s
	})
	if serr != nil {
		entry.Warnings = append(entry.Warnings, serr.Error())
	}
	entry.Warnings = append(entry.Warnings, sel.notes.Warnings...)
	entry.TurnedDown, entry.NewerTurnedDown = sel.notes.TurnedDown, sel.notes.NewerTurnedDown
	return sel.found, serr
}

// pointerText is the pointer to choice: its project folder, the state file
// (looked up under gatherCtx unless the snapshot was just taken, which
// looked it up already), and the earlier pointer it supersedes, looked for
// under takeCtx (PO-18, PO-19).
func pointerText(gatherCtx, takeCtx context.Context, opts *Options, p hookio.Payload, f *transcript.File, choice *selectsnap.Choice, taken *restore.Taken, entry *hookio.Entry) string {
	rec := choice.Record
	projectDir := opts.Getenv("CLAUDE_PROJECT_DIR")
	if projectDir == "" && rec.Git != nil && rec.Git.Root != "" {
		projectDir = rec.Git.Root
	}
	if projectDir == "" {
		projectDir = rec.Cwd
	}
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	var state snapshot.StateFile // a snapshot just taken looked it up already
	if taken == nil {
		state = snapshot.FindStateFile(gatherCtx, opts.EffectiveStateFileName(), []string{opts.Getenv("CLAUDE_PROJECT_DIR"), gitRoot, rec.Cwd, p.Cwd})
	}
	if u := state.Unanswered; u != "" {
		entry.Warnings = append(entry.Warnings, "state file: "+u+" did not answer within the deadline; the folders after it were not looked in")
	}
	return restore.Pointer(restore.PointerInput{
		Record: rec, MDPath: choice.MDPath, ProjectDir: projectDir,
		StateFile: state, Lang: opts.Lang, MaxChars: opts.EffectiveMaxChars(),
		Taken: taken, Supersedes: supersededPointer(takeCtx, opts, f, rec.Name, entry), // PO-18, PO-19
	})
}

// writeNotice writes the hook's one JSON object, text for the agent's
// client and message for the user (PO-38). It reports whether it was
// written; when not, the log line says why.
func writeNotice(opts *Options, agent, text, message string, entry *hookio.Entry) bool {
	out, jerr := hookio.NoticeOutput(restore.ForClient(agent, text), message) // PO-38
	if jerr != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "encoding hook output: "+jerr.Error()
		return false
	}
	if _, werr := opts.Out.Write(out); werr != nil {
		entry.Outcome, entry.Detail = hookio.OutcomeFailed, "writing hook output: "+werr.Error()
		return false
	}
	return true
}

// recordDelivery records that the snapshot name was handed out, so that a
// later compaction whose PreCompact never ran cannot be handed it again
// (SS-8c).
func recordDelivery(saveCtx context.Context, opts *Options, sessionID string, start time.Time, size int64, name string, entry *hookio.Entry) {
	d := snapshot.Delivery{SessionID: sessionID, At: start, Event: "SessionStart", TranscriptSize: size}
	derr, berr := hookio.Bounded(saveCtx, opts.BeforeStep, "recording the delivery", func() error {
		return snapshot.WriteDelivery(opts.Dir, name, d)
	})
	if berr != nil {
		derr = berr
	}
	if derr != nil {
		entry.Warnings = append(entry.Warnings, derr.Error())
	}
}
