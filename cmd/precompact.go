package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
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
	// GitPath is passed to snapshot.ReadGit ("" = git from PATH).
	GitPath  string
	CodePage int
	Getenv   func(string) string
	Now      func() time.Time
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

It prints nothing on stdout and exits 0 on every input, so that it can never
block or alter a compaction; problems go to compact-guard.log in the folder
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
	return c
}

// precompactRun never returns an error: whatever goes wrong is logged, and a
// failure marker is left when no snapshot could be written.
func precompactRun(opts *PrecompactOptions) (err error) {
	start := opts.now()
	entry := logEntry{At: start, Command: "precompact", Outcome: outcomeFailed}
	defer func() {
		if r := recover(); r != nil {
			entry.Outcome = outcomeFailed
			entry.Detail = fmt.Sprintf("panic: %v: %s", r, firstLines(string(debug.Stack()), 6))
		}
		entry.Duration = opts.now().Sub(start)
		writeLog(opts.Dir, entry)
		err = nil
	}()

	// The deadline starts now, so that it also bounds reading stdin.
	ctx, cancel := context.WithTimeout(context.Background(), opts.timeout())
	defer cancel()
	payload, perr := readPayload(ctx, opts.IO.In, opts.CodePage)
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
	store := &snapshot.Store{Dir: opts.Dir, Keep: keep, Now: opts.Now}
	mdPath, saveWarnings, serr := store.Save(rec, opts.Lang)
	entry.Warnings = append(entry.Warnings, saveWarnings...)
	if serr != nil {
		entry.Detail = "snapshot not written: " + serr.Error()
		if sessionID != "" {
			// The notice names the log as written only when a line can be
			// appended to it now; otherwise it says where it was tried and
			// why it failed (RB-26).
			lp, logErr := logPath(opts.Dir), ""
			if err := snapshot.CheckLog(lp); err != nil {
				logErr = err.Error()
			}
			ferr := snapshot.WriteFailure(opts.Dir, snapshot.Failure{
				SessionID: sessionID, Time: start, Reason: serr.Error(), LogPath: lp, LogError: logErr,
				TranscriptSize: rec.Coverage.TranscriptSize, PromptID: rec.PromptID,
			})
			if ferr != nil {
				entry.Detail += "; failure marker not written: " + ferr.Error()
			}
		}
		return nil
	}
	snapshot.ClearFailure(opts.Dir, sessionID)
	entry.Snapshot = filepath.Base(mdPath)
	entry.Outcome = outcomeOK
	if len(entry.Warnings) > 0 {
		entry.Outcome = outcomeWarn
	}
	return nil
}

// gatherSnapshot builds the record. The transcript and git steps run at the
// same time under the total deadline; whatever has not finished by then is
// recorded as a warning and the record holds the rest.
func gatherSnapshot(ctx context.Context, opts *PrecompactOptions, p Payload, perr error, sessionID string, now time.Time) (*snapshot.Record, []string) {

	var warnings []string
	warn := func(format string, a ...any) { warnings = append(warnings, fmt.Sprintf(format, a...)) }
	if perr != nil {
		warn("%v", perr)
	}
	warnings = append(warnings, p.Warnings...)

	transcriptPath := p.TranscriptPath
	if transcriptPath == "" || !isRegularFile(transcriptPath) {
		if found := findTranscript(opts.Getenv, sessionID); found != "" {
			if transcriptPath != "" {
				warn("transcript_path %q unreadable; using %s", transcriptPath, found)
			}
			transcriptPath = found
		}
	}
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

	// Git starts at once in the payload's cwd; it is read again below only
	// when the transcript names another, existing directory.
	gitDir := ""
	if isDir(p.Cwd) {
		gitDir = p.Cwd
	}
	gitCh := make(chan *snapshot.Git, 1)
	if gitDir != "" {
		go func() { gitCh <- readGitSafe(ctx, gitDir, gitOpts) }()
	}

	trCh := make(chan transcriptOutcome, 1)
	go func() { trCh <- readTranscriptSafe(ctx, transcriptPath, sessionID, store, opts.EarlierBudget) }()

	var tr transcriptOutcome
	select {
	case tr = <-trCh:
	case <-ctx.Done():
		tr.warnings = []string{fmt.Sprintf("transcript: not read within %s", opts.timeout())}
		tr.facts = &transcript.Facts{}
		tr.layout.segmentStart = -1
		tr.layout.incomplete = true
		// The size still tells postcompact which compaction this record
		// was taken for (selectsnap compares it with the boundaries).
		if fi, err := os.Stat(transcriptPath); err == nil && fi.Mode().IsRegular() {
			tr.layout.size = fi.Size()
		}
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
		TranscriptSize: tr.layout.size,
		SegmentStart:   tr.layout.segmentStart,
		ReadFrom:       tr.layout.readFrom,
		Previous:       tr.layout.previous,
		Partial:        tr.layout.partial,
		Incomplete:     tr.layout.incomplete,
	}

	switch {
	case tr.facts.Cwd != "":
		rec.Cwd, rec.CwdSource = tr.facts.Cwd, "transcript"
	case p.Cwd != "":
		rec.Cwd, rec.CwdSource = p.Cwd, "payload"
	default:
		if wd, err := os.Getwd(); err == nil {
			rec.Cwd, rec.CwdSource = wd, "process"
		}
	}
	if rec.Cwd != "" && !isDir(rec.Cwd) {
		warn("cwd %q does not exist", rec.Cwd)
	}

	var git *snapshot.Git
	if gitDir != "" {
		select {
		case git = <-gitCh:
		case <-ctx.Done():
			git = &snapshot.Git{Error: fmt.Sprintf("git: not read within %s", opts.timeout())}
		}
	}
	needGit := git == nil || (!sameFile(gitDir, rec.Cwd) && !(git.Repo && within(rec.Cwd, git.Root)))
	switch {
	case needGit && isDir(rec.Cwd):
		git = readGitSafe(ctx, rec.Cwd, gitOpts)
	case git == nil:
		git = &snapshot.Git{Error: fmt.Sprintf("git: cwd %q does not exist", rec.Cwd)}
	}
	rec.Git = git

	projectDir := opts.Getenv("CLAUDE_PROJECT_DIR")
	gitRoot := ""
	if git != nil {
		gitRoot = git.Root
	}
	rec.StateFile = snapshot.FindStateFile(opts.stateFileName(), []string{projectDir, gitRoot, rec.Cwd, p.Cwd})

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
	previous                     string
	partial                      bool
	// incomplete: the transcript was not read to its end, so the record's
	// facts do not cover [0, size) and it must not be chained from.
	incomplete bool
}

func readTranscriptSafe(ctx context.Context, path, sessionID string, store *snapshot.Store, budget int64) (out transcriptOutcome) {
	out.facts = &transcript.Facts{}
	out.layout.segmentStart = -1
	defer func() {
		if r := recover(); r != nil {
			out.warnings = append(out.warnings, fmt.Sprintf("transcript: panic: %v", r))
		}
	}()
	if path == "" {
		out.warnings = append(out.warnings, "transcript: no transcript_path and none found for the session")
		out.layout.incomplete = true
		return out
	}
	f, err := transcript.Open(path)
	if err != nil {
		out.warnings = append(out.warnings, err.Error()) // already "transcript: …"
		out.layout.incomplete = true
		return out
	}
	if format, _ := f.Format(); format == transcript.FormatQwen {
		// Qwen Code queues its records and writes them in the background:
		// the last tool result may not be on disk yet (PC-24).
		f.Close()
		settleTranscript(ctx, path)
		if f, err = transcript.Open(path); err != nil {
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
	last, err := f.LastBoundary(ctx)
	if err != nil {
		out.warnings = append(out.warnings, "transcript: finding the last compaction: "+err.Error())
		last = -1
	}
	out.layout.segmentStart = last

	plan := transcript.ReadPlan{LastBoundary: last, ChainEnd: -1, EarlierBudget: budget}
	var prev *snapshot.Record
	if last >= 0 {
		prev, err = store.FindChain(sessionID, path, last)
		if err != nil {
			out.warnings = append(out.warnings, "earlier snapshot: "+err.Error())
		}
		if prev != nil {
			plan.ChainEnd = prev.Coverage.TranscriptSize
			plan.Seed = factsFromRecord(prev)
		}
	}
	res, err := f.Read(ctx, plan)
	if err != nil {
		out.warnings = append(out.warnings, err.Error()) // already "transcript: …"
		out.layout.incomplete = true
	}
	if res.Facts != nil {
		out.facts = res.Facts
	}
	out.layout.readFrom = res.ReadFrom
	out.layout.partial = res.Partial
	if prev != nil && res.Chained {
		out.layout.previous = prev.Name
		out.layout.partial = out.layout.partial || prev.Coverage.Partial
	}
	if res.Interrupted {
		out.warnings = append(out.warnings, "transcript: deadline reached; facts cover what was read")
		out.layout.incomplete = true
	}
	if out.layout.partial {
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
