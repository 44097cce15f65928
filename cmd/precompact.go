package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

func init() { register("precompact", newCmdPrecompactDefault) }

// PrecompactOptions configures one run of the PreCompact hook.
type PrecompactOptions struct {
	IO            *IO
	Dir           string
	Lang          snapshot.Lang
	Keep          int
	StateFileName string
	Timeout       time.Duration
	GitTimeout    time.Duration
	EarlierBudget int64
	NoRedact      bool
	// NoHint keeps stdout empty: no summary hint (PC-31).
	NoHint bool
	// GitPath is passed to snapshot.ReadGit ("" = git from PATH).
	GitPath  string
	CodePage int
	Getenv   func(string) string
	Now      func() time.Time
	// ReadClock is the clock the transcript read paces itself by against
	// its deadline (nil: time.Now; transcript TR-50); tests inject one.
	ReadClock func() time.Time

	// beforeStep, when set, is called as each step bounded by the deadline
	// begins, with the step's name: tests make a step hang with it.
	beforeStep func(string)
}

// Defaults of the precompact flags.
const (
	defaultKeep          = 40
	defaultStateFileName = "SESSION-STATE.md"
	defaultTimeout       = 10 * time.Second
	defaultGitTimeout    = 2 * time.Second
	defaultEarlierBudget = 64 << 20
)

func newCmdPrecompactDefault(ios *IO, g *GlobalOptions) *cobra.Command {
	return newCmdPrecompact(ios, g, precompactRun)
}

func newCmdPrecompact(ios *IO, g *GlobalOptions, runF func(*PrecompactOptions) error) *cobra.Command {
	opts := &PrecompactOptions{IO: ios, Getenv: os.Getenv, Now: time.Now}
	var budgetMiB int64
	c := &cobra.Command{
		Use:   "precompact",
		Short: "PreCompact hook: write a snapshot of the session before it is compacted",
		Long: `Reads the PreCompact hook payload from stdin, reads the session transcript and
git state, and writes snap_<time>_<sid8>.md and .json into the snapshot folder.

For a Claude Code session it then prints one paragraph of plain text on
stdout, the summary hint: where the snapshot is, the last request, the files
in work, the last failing command, which Claude Code hands its summarizer
(--no-hint, or COMPACT_GUARD_HINT=off in the environment or in the "env" of
settings.json, turn it off). It prints nothing else, nothing at all when the
snapshot could not be written, and exits 0 on every input, so that it can
never block a compaction; problems go to compact-guard.log in the folder
above the snapshot folder and to a failure marker that postcompact reports.

Try it by hand:
  echo '{"session_id":"demo","transcript_path":"/path/to/session.jsonl","trigger":"manual"}' | compact-guard precompact`,
		Args:        cobra.ArbitraryArgs,
		Annotations: map[string]string{hookAnnotation: "true"},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Dir = snapshotDir(g)
			opts.Lang = resolveLang(ios, g, opts.Getenv)
			opts.EarlierBudget = budgetMiB << 20
			return runF(opts)
		},
	}
	// Help goes to stderr: a hook's stdout is the client's input.
	c.SetOut(ios.ErrOut)
	f := c.Flags()
	f.IntVar(&opts.Keep, "keep", defaultKeep, "number of snapshots to keep in the folder (at least 1)")
	f.StringVar(&opts.StateFileName, "state-file", defaultStateFileName, "name of the project's state file")
	f.DurationVar(&opts.Timeout, "timeout", defaultTimeout, "total deadline; after it the snapshot holds what was gathered")
	f.DurationVar(&opts.GitTimeout, "git-timeout", defaultGitTimeout, "deadline for reading git state")
	f.Int64Var(&budgetMiB, "earlier-budget", defaultEarlierBudget>>20, "MiB of earlier transcript segments to read when no earlier snapshot covers them")
	f.BoolVar(&opts.NoRedact, "no-redact", false, "write prompts and commands verbatim, without redacting secrets")
	f.BoolVar(&opts.NoHint, "no-hint", false, "print no summary hint on stdout (as COMPACT_GUARD_HINT=off does)")
	return c
}

// precompactRun never returns an error: whatever goes wrong is logged, and a
// failure marker is left when no snapshot could be written.
func precompactRun(opts *PrecompactOptions) (err error) {
	start := opts.now()
	// The deadline starts now, so that it also bounds reading stdin. Every
	// step runs under it, in its phase (PC-3): the log line is the last.
	total := opts.timeout()
	ctx, cancel := context.WithTimeout(context.Background(), total)
	defer cancel()
	entry := logEntry{At: start, Command: "precompact", Outcome: outcomeFailed}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = outcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v: %s", r, firstLines(string(debug.Stack()), 6))
		}
		entry.Duration = opts.now().Sub(start)
		writeLogBounded(ctx, opts.beforeStep, opts.Dir, entry)
		err = nil
	}()

	payloadCtx, cancelPayload := phase(ctx, total, sharePayload)
	payload, perr := readPayload(payloadCtx, opts.IO.In, opts.CodePage)
	cancelPayload()
	sessionID := payload.SessionID
	if sessionID == "" {
		sessionID = opts.Getenv("CLAUDE_CODE_SESSION_ID")
	}
	entry.Session = sessionID
	entry.Warnings = append(entry.Warnings, opts.IO.hookWarnings...)
	rec, warnings := gatherSnapshot(ctx, opts, payload, perr, sessionID, start)
	entry.Warnings = append(entry.Warnings, warnings...)
	if rec == nil {
		entry.Detail = "no session id and no transcript: nothing to snapshot"
		return nil
	}
	// The session id may have come from the transcript's file name.
	sessionID = rec.SessionID
	entry.Session = sessionID

	keep := opts.Keep
	if keep < 1 {
		entry.Warnings = append(entry.Warnings, fmt.Sprintf("--keep %d is below 1; keeping %d", keep, defaultKeep))
		keep = defaultKeep
	}
	saveCtx, cancelSave := phase(ctx, total, shareSave)
	defer cancelSave()
	// WA-12: how the compaction was prepared; a step given up leaves the
	// record without it.
	if prep, perr := bounded(saveCtx, opts.beforeStep, "watch state and handoff", func() preparation {
		return readPreparation(opts, rec, payload, start)
	}); perr != nil {
		entry.Warnings = append(entry.Warnings, perr.Error())
	} else {
		rec.Preparation = prep.p
		entry.Warnings = append(entry.Warnings, prep.warnings...)
		if !opts.NoRedact {
			rec.Redactions += snapshot.RedactPreparation(rec.Preparation)
		}
	}
	store := &snapshot.Store{Dir: opts.Dir, Keep: keep, Now: opts.Now}
	type saved struct {
		mdPath   string
		warnings []string
		err      error
	}
	sv, berr := bounded(saveCtx, opts.beforeStep, "saving the snapshot", func() saved {
		md, w, err := store.Save(rec, opts.Lang)
		return saved{md, w, err}
	})
	if berr != nil {
		// Given up: a snapshot the step may still place is whole or absent
		// (SF-32), and a marker now would only race it.
		entry.Detail = "snapshot not written: " + berr.Error()
		return nil
	}
	entry.Warnings = append(entry.Warnings, sv.warnings...)
	// WA-11: the compaction noted for the next prompt's pointer check,
	// with its snapshot or none.
	nerr, nberr := bounded(saveCtx, opts.beforeStep, "noting the compaction for watch", func() error {
		return noteCompaction(opts, rec, sv.mdPath, start)
	})
	if nberr != nil {
		nerr = nberr
	}
	if nerr != nil {
		entry.Warnings = append(entry.Warnings, "watch state: "+nerr.Error())
	}
	if sv.err != nil {
		entry.Detail = "snapshot not written: " + sv.err.Error()
		if sessionID != "" {
			werr, merr := bounded(saveCtx, opts.beforeStep, "failure marker", func() error {
				// The notice names the log as written only when a line can
				// be appended to it now; otherwise it says where it was
				// tried and why it failed (RB-26).
				lp, logErr := logPath(opts.Dir), ""
				if err := snapshot.CheckLog(lp); err != nil {
					logErr = err.Error()
				}
				return snapshot.WriteFailure(opts.Dir, snapshot.Failure{
					SessionID: sessionID, Time: start, Reason: sv.err.Error(), LogPath: lp, LogError: logErr,
					TranscriptSize: rec.Coverage.TranscriptSize, PromptID: rec.PromptID,
				})
			})
			if merr == nil {
				merr = werr
			}
			if merr != nil {
				entry.Detail += "; failure marker not written: " + merr.Error()
			}
		}
		return nil
	}
	if _, cerr := bounded(saveCtx, opts.beforeStep, "clearing the failure marker", func() bool {
		snapshot.ClearFailure(opts.Dir, sessionID)
		return true
	}); cerr != nil {
		entry.Warnings = append(entry.Warnings, cerr.Error())
	}
	entry.Snapshot = filepath.Base(sv.mdPath)
	// PC-27: the summary hint, once the snapshot is saved, within the save
	// phase; the last thing on stdout, and the only one.
	hint, hwarn := printHint(saveCtx, opts, rec, payload, perr, sv.mdPath)
	entry.Hint = hint
	if hwarn != "" {
		entry.Warnings = append(entry.Warnings, hwarn)
	}
	entry.Outcome = outcomeOK
	if len(entry.Warnings) > 0 {
		entry.Outcome = outcomeWarn
	}
	return nil
}

// gatherSnapshot builds the record. The transcript and git steps run at the
// same time, each in its phase of the deadline (PC-3); whatever has not
// finished by then is recorded as a warning and the record holds the rest.
func gatherSnapshot(ctx context.Context, opts *PrecompactOptions, p Payload, perr error, sessionID string, now time.Time) (*snapshot.Record, []string) {

	var warnings []string
	warn := func(format string, a ...any) { warnings = append(warnings, fmt.Sprintf(format, a...)) }
	if perr != nil {
		warn("%v", perr)
	}
	warnings = append(warnings, p.Warnings...)

	total := opts.timeout()
	gatherCtx, cancelGather := phase(ctx, total, shareGather)
	defer cancelGather()

	// Where the transcript and the payload's cwd are: stats and a folder
	// listing, which a hung file system could hold.
	type located struct {
		transcriptPath, gitDir string
		warnings               []string
	}
	loc, lerr := bounded(gatherCtx, opts.beforeStep, "finding the transcript", func() (l located) {
		l.transcriptPath = p.TranscriptPath
		if l.transcriptPath == "" || !isRegularFile(l.transcriptPath) {
			if found := findTranscript(opts.Getenv, sessionID); found != "" {
				if l.transcriptPath != "" {
					l.warnings = append(l.warnings, fmt.Sprintf("transcript_path %q unreadable; using %s", l.transcriptPath, found))
				}
				l.transcriptPath = found
			}
		}
		// Git starts at once in the payload's cwd; it is read again below
		// only when the transcript names another, existing directory.
		if isDir(p.Cwd) {
			l.gitDir = p.Cwd
		}
		return l
	})
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

	store := &snapshot.Store{Dir: opts.Dir, Keep: opts.Keep, Now: opts.Now}
	gitTimeout := opts.GitTimeout
	if gitTimeout <= 0 {
		gitTimeout = defaultGitTimeout
	}
	gitOpts := snapshot.GitOptions{Timeout: gitTimeout, GitPath: opts.GitPath}

	gitCh := make(chan *snapshot.Git, 1)
	if gitDir != "" {
		go func() { gitCh <- readGitSafe(gatherCtx, gitDir, gitOpts) }()
	}

	readCtx, cancelRead := phase(ctx, total, shareRead)
	defer cancelRead()
	scanCtx, cancelScan := phase(ctx, total, shareScan)
	defer cancelScan()
	step := &transcriptStep{path: transcriptPath, sessionID: sessionID, store: store, budget: opts.EarlierBudget,
		clock: opts.ReadClock, before: opts.beforeStep}
	trCh := make(chan transcriptOutcome, 1)
	go func() { trCh <- readTranscriptSafe(readCtx, scanCtx, step) }()

	var tr transcriptOutcome
	select {
	case tr = <-trCh:
	case <-gatherCtx.Done():
		// The read stops at its own deadline, well before this one: only a
		// file system that does not answer gets here. Its facts are not
		// kept, the size (known once the file was open) still tells
		// postcompact which compaction this record was taken for (PC-22).
		tr.warnings = []string{fmt.Sprintf("transcript: not read within %s (the file system did not answer)", total)}
		tr.facts = &transcript.Facts{}
		tr.layout.segmentStart = -1
		tr.layout.incomplete = true
		tr.layout.readTo = new(int64(0))
		tr.layout.size = max(step.size.Load(), 0)
	}
	warnings = append(warnings, tr.warnings...)

	rec := &snapshot.Record{
		SessionID:          sessionID,
		CreatedAt:          now.UTC(),
		Trigger:            valueOr(p.Trigger, snapshot.Unknown),
		CustomInstructions: p.CustomInstructions,
		PromptID:           promptID(p),
		Agent:              valueOr(tr.agent, sessionAgent(p, nil)),
		HookEvent:          p.HookEventName,
		TranscriptPath:     transcriptPath,
	}
	if perr != nil {
		rec.PayloadError = perr.Error()
	}
	fillFromFacts(rec, tr.facts)
	rec.Coverage = snapshot.Coverage{
		TranscriptSize:  tr.layout.size,
		SegmentStart:    tr.layout.segmentStart,
		BoundaryUnknown: tr.layout.boundaryUnknown,
		ReadFrom:        tr.layout.readFrom,
		ReadTo:          tr.layout.readTo,
		Unread:          tr.layout.unread,
		Previous:        tr.layout.previous,
		Partial:         tr.layout.partial,
		Incomplete:      tr.layout.incomplete,
	}

	// The working directory, and whether git must be read again there.
	type cwdFacts struct {
		cwd, source   string
		exists, moved bool
	}
	cw, cerr := bounded(gatherCtx, opts.beforeStep, "checking the working directory", func() (c cwdFacts) {
		switch {
		case tr.facts.Cwd != "":
			c.cwd, c.source = tr.facts.Cwd, "transcript"
		case p.Cwd != "":
			c.cwd, c.source = p.Cwd, "payload"
		default:
			if wd, err := os.Getwd(); err == nil {
				c.cwd, c.source = wd, "process"
			}
		}
		c.exists = c.cwd != "" && isDir(c.cwd)
		c.moved = !sameFile(gitDir, c.cwd)
		return c
	})
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
	needGit := git == nil || (cw.moved && !(git.Repo && within(rec.Cwd, git.Root)))
	switch {
	case needGit && cw.exists:
		git = readGitSafe(gatherCtx, rec.Cwd, gitOpts)
	case git == nil && cerr != nil:
		git = &snapshot.Git{Error: "git: not read: the working directory could not be checked within the deadline"}
	case git == nil:
		git = &snapshot.Git{Error: fmt.Sprintf("git: cwd %q does not exist", rec.Cwd)}
	}
	rec.Git = git

	projectDir := opts.Getenv("CLAUDE_PROJECT_DIR")
	gitRoot := ""
	if git != nil {
		gitRoot = git.Root
	}
	rec.StateFile = snapshot.FindStateFile(gatherCtx, opts.stateFileName(), []string{projectDir, gitRoot, rec.Cwd, p.Cwd})
	if u := rec.StateFile.Unanswered; u != "" {
		warn("state file: %s did not answer within the deadline; the folders after it were not looked in", u)
	}

	if !opts.NoRedact {
		rec.Redactions = snapshot.RedactRecord(rec)
		for i := range warnings {
			warnings[i], _ = snapshot.Redact(warnings[i])
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
}

// readTranscriptSafe reads the transcript under readCtx, newest first when
// it cannot all be read in time (transcript TR-50), with the search for the
// last compaction boundary and for the chain's snapshot under scanCtx.
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
	f, err := transcript.Open(st.path)
	if err != nil {
		out.warnings = append(out.warnings, err.Error()) // already "transcript: …"
		out.layout.incomplete = true
		return out
	}
	if format, _ := f.Format(); format == transcript.FormatQwen {
		// Qwen Code queues its records and writes them in the background:
		// the last tool result may not be on disk yet (PC-24).
		f.Close()
		settleTranscript(readCtx, st.path)
		if f, err = transcript.Open(st.path); err != nil {
			out.warnings = append(out.warnings, err.Error())
			out.layout.incomplete = true
			return out
		}
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
	var prev *snapshot.Record
	if last >= 0 {
		type chain struct {
			rec *snapshot.Record
			err error
		}
		c, berr := bounded(scanCtx, st.before, "earlier snapshot", func() chain {
			r, err := st.store.FindChain(st.sessionID, st.path, last)
			return chain{r, err}
		})
		switch {
		case berr != nil:
			out.warnings = append(out.warnings, berr.Error())
		case c.err != nil:
			out.warnings = append(out.warnings, "earlier snapshot: "+c.err.Error())
		}
		if prev = c.rec; prev != nil {
			plan.ChainEnd = prev.Coverage.TranscriptSize
			plan.Seed = factsFromRecord(prev)
		}
	}
	res, err := f.Read(readCtx, plan)
	if err != nil {
		out.warnings = append(out.warnings, err.Error()) // already "transcript: …"
		out.layout.incomplete = true
	}
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
	if res.Interrupted || res.ReadTo < f.Size() {
		out.layout.incomplete = true
	}
	if res.Interrupted {
		out.warnings = append(out.warnings, fmt.Sprintf("transcript: deadline reached at byte %d of %d; facts cover what was read", res.ReadTo, f.Size()))
	}
	if res.Partial {
		out.warnings = append(out.warnings, "transcript: earlier segments only partly read (byte budget)")
	}
	return out
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
	size := func() int64 {
		if fi, err := os.Stat(path); err == nil {
			return fi.Size()
		}
		return -1
	}
	deadline := time.Now().Add(settleMax)
	last, since := size(), time.Now()
	for time.Since(since) < settleQuiet && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(25 * time.Millisecond):
		}
		if n := size(); n != last {
			last, since = n, time.Now()
		}
	}
}

func readGitSafe(ctx context.Context, dir string, opt snapshot.GitOptions) (g *snapshot.Git) {
	defer func() {
		if r := recover(); r != nil {
			g = &snapshot.Git{Error: fmt.Sprintf("git: panic: %v", r)}
		}
	}()
	return snapshot.ReadGit(ctx, dir, opt)
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

// safeSessionID: 1 to 128 of [A-Za-z0-9-] (a loop: the regexp x{1,128}
// cost every process start 0.2 ms to compile).
func safeSessionID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// findTranscript looks for <claude config dir>/projects/*/<session>.jsonl,
// for payloads that lost or garbled transcript_path.
func findTranscript(getenv func(string) string, sessionID string) string {
	if !safeSessionID(sessionID) {
		return ""
	}
	// Not filepath.Glob: the config folder's own name may hold [ ] * ?.
	projects := filepath.Join(claudeConfigDir(getenv), "projects")
	dirs, _ := os.ReadDir(projects)
	var best string
	var bestTime time.Time
	for _, d := range dirs {
		m := filepath.Join(projects, d.Name(), sessionID+".jsonl")
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && fi.ModTime().After(bestTime) {
			best, bestTime = m, fi.ModTime()
		}
	}
	return best
}

// claudeConfigDir is $CLAUDE_CONFIG_DIR or ~/.claude.
func claudeConfigDir(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".claude"
	}
	return filepath.Join(home, ".claude")
}

// sessionFromTranscriptPath uses the file name, which is the session id.
func sessionFromTranscriptPath(p string) string {
	base := filepath.Base(p)
	return base[:len(base)-len(filepath.Ext(base))]
}

func (o *PrecompactOptions) now() time.Time {
	if o.Now == nil {
		return time.Now()
	}
	return o.Now()
}

func (o *PrecompactOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return defaultTimeout
	}
	return o.Timeout
}

func (o *PrecompactOptions) stateFileName() string {
	if o.StateFileName == "" {
		return defaultStateFileName
	}
	return o.StateFileName
}

func valueOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func isDir(p string) bool {
	if p == "" {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func isRegularFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func firstLines(s string, n int) string {
	lines := 0
	for i, r := range s {
		if r == '\n' {
			lines++
			if lines == n {
				return s[:i]
			}
		}
	}
	return s
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
