package take

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	geminireader "github.com/compact-guard/compact-guard/clients/gemini/reader"
	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/gitstate"
	"github.com/compact-guard/compact-guard/snapshot/redact"
	"github.com/compact-guard/compact-guard/transcript"
)

// The gathering of a snapshot's facts, shared by precompact (PreCompact,
// specs/precompact.md PC-3, PC-11 to PC-15) and postcompact, which takes the
// snapshot itself at SessionStart(compact) when none was taken before the
// compaction (specs/postcompact.md PO-C10, PC-35).

// Gather builds the record. The transcript and git steps run at the
// same time, each in its phase of the deadline (PC-3); whatever has not
// finished by then is recorded as a warning and the record holds the rest.
// Its steps are in gather_steps.go, in the order they run here.
func Gather(ctx context.Context, opts *Options, client Client, p hookio.Payload, perr error, sessionID string, now time.Time) (*snapshot.Record, []string) {

	var warnings []string
	warn := func(format string, a ...any) { warnings = append(warnings, fmt.Sprintf(format, a...)) }
	if perr != nil {
		warn("%v", perr)
	}
	warnings = append(warnings, p.Warnings...)

	total := opts.timeout()
	gatherCtx, cancelGather := hookio.Phase(ctx, total, hookio.ShareGather)
	defer cancelGather()

	loc, lerr := locateTranscript(gatherCtx, opts, p, sessionID)
	if lerr != nil {
		warn("%v", lerr)
		loc.transcriptPath = p.TranscriptPath
	}
	warnings = append(warnings, loc.warnings...)
	transcriptPath, gitDir := loc.transcriptPath, loc.gitDir
	if sessionID == "" && transcriptPath == "" {
		return nil, warnings
	}
	if sessionID == "" {
		sessionID = sessionFromTranscriptPath(transcriptPath)
	}

	noteStart := time.Now()
	marked := notePreCompactAsync(gatherCtx, opts, p, sessionID, now)

	store := &snapshot.Store{Dir: opts.Dir, Keep: opts.Keep, Now: opts.Now}
	gitOpts := opts.gitOptions()
	gitCh := make(chan *snapshot.Git, 1)
	if gitDir != "" {
		go func() { gitCh <- readGitSafe(gatherCtx, gitDir, gitOpts) }()
	}

	step := &transcriptStep{path: transcriptPath, sessionID: sessionID, store: store, budget: opts.EarlierBudget,
		clock: opts.ReadClock, before: opts.BeforeStep, cwd: p.Cwd, chatWindow: client.ChatWindow, writesLate: client.WritesLate}
	tr := readTranscriptWithin(ctx, gatherCtx, total, step)
	warnings = append(warnings, tr.warnings...)

	rec := newRecord(p, perr, sessionID, now, transcriptPath, client.Name, tr)

	cw, cerr := checkCwd(gatherCtx, opts, p, tr.facts.Cwd, gitDir)
	if cerr != nil {
		warn("%v", cerr)
		switch {
		case tr.facts.Cwd != "":
			cw.cwd, cw.source = tr.facts.Cwd, "transcript"
		case p.Cwd != "":
			cw.cwd, cw.source = p.Cwd, "payload"
		}
	}
	rec.Cwd, rec.CwdSource = cw.cwd, cw.source
	if rec.Cwd != "" && cerr == nil && !cw.exists {
		warn("cwd %q does not exist", rec.Cwd)
	}

	var git *snapshot.Git
	if gitDir != "" {
		select {
		case git = <-gitCh:
		case <-gatherCtx.Done():
			git = &snapshot.Git{Error: fmt.Sprintf("git: not read within %s", total)}
		}
	}
	rec.Git = gitAtCwd(gatherCtx, git, cw, cerr, rec.Cwd, gitOpts)

	projectDir := opts.Getenv("CLAUDE_PROJECT_DIR")
	gitRoot := ""
	if rec.Git != nil {
		gitRoot = rec.Git.Root
	}
	rec.StateFile = snapshot.FindStateFile(gatherCtx, opts.stateFileName(), []string{projectDir, gitRoot, rec.Cwd, p.Cwd})
	if u := rec.StateFile.Unanswered; u != "" {
		warn("state file: %s did not answer within the deadline; the folders after it were not looked in", u)
	}

	noteTicker := time.NewTicker(markWait)
	waitPreCompactNote(gatherCtx, marked, noteTicker.C, watchLockHeldSince(opts.Dir, sessionID, noteStart), warn)
	noteTicker.Stop()

	if !opts.NoRedact {
		rec.Redactions = snapshot.RedactRecord(rec)
		for i := range warnings {
			warnings[i], _ = redact.Text(warnings[i])
		}
	}
	rec.Warnings = warnings
	return rec, warnings
}

// transcriptOutcome is what the transcript step hands back.
type transcriptOutcome struct {
	// agent is the client the transcript's start shows, "" when unknown.
	agent    string
	facts    *transcript.Facts
	layout   layoutInfo
	warnings []string
}

type layoutInfo struct {
	size, segmentStart, readFrom int64
	readTo                       *int64
	unread                       []transcript.ByteRange
	previous                     string
	partial, boundaryUnknown     bool
	// incomplete: the transcript was not read to its end, so the record's
	// facts do not cover [0, size) and it must not be chained from.
	incomplete bool
}

// transcriptStep is what the transcript step needs, and the one thing it
// tells while it runs: the transcript's size, once it is open, which the
// record keeps even when the step is given up.
type transcriptStep struct {
	path, sessionID string
	store           *snapshot.Store
	budget          int64
	clock           func() time.Time
	before          func(string)
	size            atomic.Int64
	// cwd is the payload's: a Gemini CLI chat names edited files relative
	// to it (TR-84).
	cwd string
	// chatWindow is Client.ChatWindow, writesLate Client.WritesLate.
	chatWindow func(model string) int64
	writesLate func(format transcript.Format) bool
}

// readTranscriptSafe reads the transcript under readCtx, newest first when
// it cannot all be read in time (transcript TR-50), with the search for the
// last compaction boundary and for the chain's snapshot under scanCtx. Its
// steps (opening after the settle, the boundary and the chain, what the
// read tells) are functions below it, each adding its warnings to out.
func readTranscriptSafe(readCtx, scanCtx context.Context, st *transcriptStep) (out transcriptOutcome) {
	out.facts = &transcript.Facts{}
	out.layout.segmentStart = -1
	out.layout.readTo = new(int64(0))
	st.size.Store(-1)
	defer func() {
		if r := recover(); r != nil {
			out.warnings = append(out.warnings, fmt.Sprintf("transcript: panic: %v", r))
			out.layout.incomplete = true
		}
	}()
	if st.path == "" {
		out.warnings = append(out.warnings, "transcript: no transcript_path and none found for the session")
		out.layout.incomplete = true
		return out
	}
	if geminireader.IsChatPath(st.path) {
		return readWholeChat(readCtx, st) // PC-45
	}
	f := openTranscriptSettled(readCtx, st, &out)
	if f == nil {
		return out
	}
	defer f.Close()
	if format, known := f.Format(); known {
		out.agent = string(format)
	}
	out.layout.size = f.Size()
	st.size.Store(f.Size())
	if st.before != nil {
		st.before("reading the transcript")
	}
	last, err := f.LastBoundary(scanCtx)
	if err != nil {
		if scanCtx.Err() != nil {
			out.warnings = append(out.warnings, "transcript: the search for the last compaction was cut short by the deadline; the file is read as one segment")
			out.layout.boundaryUnknown = true
		} else {
			out.warnings = append(out.warnings, "transcript: finding the last compaction: "+err.Error())
		}
		last = -1
	}
	out.layout.segmentStart = last

	plan := transcript.ReadPlan{LastBoundary: last, ChainEnd: -1, EarlierBudget: st.budget, Now: st.clock}
	prev := findChainWithin(scanCtx, st, last, &plan, &out)
	res, err := f.Read(readCtx, plan)
	if err != nil {
		out.warnings = append(out.warnings, err.Error()) // already "transcript: …"
		out.layout.incomplete = true
	}
	out.noteRead(res, prev, f.Size())
	return out
}

// openTranscriptSettled opens the transcript, and when its client writes it
// late in the background (Qwen Code, PC-24) opens it again once it has
// settled. A Claude Code transcript is read at once (PC-48): what its
// client writes late, the compaction's later hooks fold in (PO-C18). It
// returns nil, with the reason in out, when it cannot be opened.
func openTranscriptSettled(readCtx context.Context, st *transcriptStep, out *transcriptOutcome) *transcript.File {
	f, err := transcript.Open(st.path)
	if err != nil {
		out.warnings = append(out.warnings, err.Error()) // already "transcript: …"
		out.layout.incomplete = true
		return nil
	}
	if format, _ := f.Format(); st.writesLate != nil && st.writesLate(format) {
		// Qwen Code queues its records and writes them in the background:
		// the last tool result may not be on disk yet (PC-24).
		f.Close()
		if st.before != nil {
			st.before(StepSettle)
		}
		settleTranscript(readCtx, st.path)
		if f, err = transcript.Open(st.path); err != nil {
			out.warnings = append(out.warnings, err.Error())
			out.layout.incomplete = true
			return nil
		}
	}
	return f
}

// findChainWithin looks, under scanCtx, for the session's snapshot that
// covers the transcript up to the last boundary (at last, -1 for none), and
// seeds plan with its facts. It returns that snapshot, nil for none.
func findChainWithin(scanCtx context.Context, st *transcriptStep, last int64, plan *transcript.ReadPlan, out *transcriptOutcome) *snapshot.Record {
	if last < 0 {
		return nil
	}
	type chain struct {
		rec *snapshot.Record
		err error
	}
	c, berr := hookio.Bounded(scanCtx, st.before, "earlier snapshot", func() chain {
		r, err := st.store.FindChain(st.sessionID, st.path, last)
		return chain{r, err}
	})
	switch {
	case berr != nil:
		out.warnings = append(out.warnings, berr.Error())
	case c.err != nil:
		out.warnings = append(out.warnings, "earlier snapshot: "+c.err.Error())
	}
	prev := c.rec
	if prev != nil {
		plan.ChainEnd = prev.Coverage.TranscriptSize
		plan.Seed = factsFromRecord(prev)
	}
	return prev
}

// noteRead records what the read of a transcript of size bytes yielded and
// what it left out, chained from prev when not nil.
func (out *transcriptOutcome) noteRead(res transcript.Result, prev *snapshot.Record, size int64) {
	if res.Facts != nil {
		out.facts = res.Facts
	}
	out.layout.readFrom = res.ReadFrom
	out.layout.readTo = new(res.ReadTo)
	out.layout.unread = res.Unread
	out.layout.partial = res.Partial
	if prev != nil && res.Chained {
		out.layout.previous = prev.Name
		// What the previous snapshot missed, this one misses too.
		out.layout.partial = out.layout.partial || prev.Coverage.Partial || len(prev.Coverage.Unread) > 0
	}
	if len(res.Unread) > 0 {
		ranges := make([]string, len(res.Unread))
		for i, u := range res.Unread {
			ranges[i] = fmt.Sprintf("%d to %d", u.From, u.To)
		}
		out.warnings = append(out.warnings, "transcript: not all of it could be read by the deadline; the newest bytes were read first, bytes "+strings.Join(ranges, ", ")+" not read")
	}
	if res.Interrupted || res.ReadTo < size {
		out.layout.incomplete = true
	}
	if res.Interrupted {
		out.warnings = append(out.warnings, fmt.Sprintf("transcript: deadline reached at byte %d of %d; facts cover what was read", res.ReadTo, size))
	}
	if res.Partial {
		out.warnings = append(out.warnings, "transcript: earlier segments only partly read (byte budget)")
	}
}

// Settling: how long a transcript must stay the same size to count as
// written out, and how long precompact waits for that at most.
const (
	settleQuiet = 300 * time.Millisecond
	settleMax   = 3 * time.Second
)

// settleTranscript waits until the file at path has not grown for
// settleQuiet, at most settleMax or until ctx ends (PC-24).
func settleTranscript(ctx context.Context, path string) {
	settle(ctx, path, settleQuiet, settleMax, 25*time.Millisecond)
}

// Settled is how a wait for a transcript to settle ended.
type Settled struct {
	// Quiet is set when the file stopped growing for the quiet period;
	// otherwise the cap or the deadline ended the wait while it grew.
	Quiet bool
	// Waited is how long the wait took; Grew how many bytes came during it.
	Waited time.Duration
	Grew   int64
}

// StepSettle is the name the wait goes by for a test's BeforeStep.
const StepSettle = "waiting for the transcript to settle"

// settle waits until the file at path has not grown for quiet, checking
// every poll, at most max or until ctx ends.
func settle(ctx context.Context, path string, quiet, max, poll time.Duration) Settled {
	return settler{quiet: quiet, max: max, now: time.Now,
		size: func() int64 {
			if fi, err := os.Stat(path); err == nil {
				return fi.Size()
			}
			return -1
		},
		wait: func() bool {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(poll):
				return true
			}
		},
	}.run()
}

// settler is the wait of settle, with its clock, its look at the file and
// its pause between looks as functions, so that a test can drive it.
type settler struct {
	quiet, max time.Duration
	now        func() time.Time
	size       func() int64
	// wait pauses until the next look; false when the deadline ended it.
	wait func() bool
}

func (s settler) run() Settled {
	start := s.now()
	first := s.size()
	last, since := first, start
	for s.now().Sub(since) < s.quiet {
		if s.now().Sub(start) >= s.max || !s.wait() {
			return Settled{Waited: s.now().Sub(start), Grew: last - first}
		}
		if n := s.size(); n != last {
			last, since = n, s.now()
		}
	}
	return Settled{Quiet: true, Waited: s.now().Sub(start), Grew: last - first}
}

func readGitSafe(ctx context.Context, dir string, opt gitstate.Options) (g *snapshot.Git) {
	defer func() {
		if r := recover(); r != nil {
			g = &snapshot.Git{Error: fmt.Sprintf("git: panic: %v", r)}
		}
	}()
	return gitstate.Read(ctx, dir, opt)
}

// fillFromFacts copies the extracted facts into the record.
func fillFromFacts(rec *snapshot.Record, f *transcript.Facts) {
	rec.Prompts = f.Prompts
	rec.Files = f.Files
	rec.Commands = f.Commands
	rec.Todos = f.Todos
	rec.Tasks = f.Tasks
	rec.Failures = f.Failures
	rec.Totals = &f.Totals
	rec.Plan = f.Plan
	rec.Context = f.Usage
	rec.EarlierCompactions = f.Compactions
	rec.GitBranch = f.GitBranch
	rec.Stats = f.Stats
}

// factsFromRecord turns an earlier snapshot back into the facts it carried,
// the seed of the chain.
func factsFromRecord(r *snapshot.Record) *transcript.Facts {
	var totals transcript.Totals
	if r.Totals != nil {
		totals = *r.Totals
	}
	return &transcript.Facts{
		Prompts:     r.Prompts,
		Files:       r.Files,
		Commands:    r.Commands,
		Todos:       r.Todos,
		Tasks:       r.Tasks,
		Failures:    r.Failures,
		Plan:        r.Plan,
		Compactions: r.EarlierCompactions,
		Totals:      totals,
		Cwd:         r.Cwd,
		GitBranch:   r.GitBranch,
	}
}
