// Package gitstate reads the git state a snapshot records (specs/git-state.md):
// branch, HEAD, HEAD's subject and the uncommitted changes, through git with
// the guards that keep a repository's configuration from running programs
// (guard.go), and through go-git where git is missing or too slow
// (gogit.go, ignore.go), in a repository this user owns (owner.go). It
// never fails: what could not be learnt is said in snapshot.Git.Error.
package gitstate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// DefaultTimeout is the shared deadline of Read when Options.Timeout
// is not set.
const DefaultTimeout = 2 * time.Second

// gitGrace is how long past its deadline Read still waits for a git
// that has exited to hand over its output.
const gitGrace = 100 * time.Millisecond

// maxSubject bounds Git.Subject: %s joins a whole first paragraph into one
// line, which can be long.
const maxSubject = 500

// The steps Read runs in goroutines; tests swap them to make one panic.
var (
	goGitStep   = readGoGit
	statusStep  = gitStatus
	subjectStep = gitSubject
)

// panicError is a panic in a Read goroutine, caught so that a bug in
// go-git or in parsing git's output costs the git facts, not the hook (an
// uncaught panic exits 2, which would block the compaction).
type panicError struct{ v any }

func (p panicError) Error() string {
	return textcut.Marked(textcut.Bytes(fmt.Sprintf("panic: %v", p.v), 300))
}

// Options tunes Read.
type Options struct {
	// Timeout is the one deadline shared by every step; DefaultTimeout
	// when zero or negative.
	Timeout time.Duration
	// GitPath is the git binary: "" looks "git" up in PATH, "-" behaves as
	// if git were missing (go-git does everything then).
	GitPath string
}

// Read records the state of the git work tree holding dir: branch, HEAD,
// HEAD's subject and the uncommitted changes. It never fails: what could not
// be learnt is said in Git.Error, next to what could. It returns within
// opt.Timeout plus a small margin, whatever git does.
func Read(ctx context.Context, dir string, opt Options) *snapshot.Git {
	g := &snapshot.Git{}
	fi, err := os.Stat(dir)
	if err != nil {
		g.Error = "git: " + err.Error()
		return g
	}
	if !fi.IsDir() {
		g.Error = fmt.Sprintf("git: %s is not a directory", dir)
		return g
	}
	root, ok := findWorkTree(dir)
	if !ok {
		return g
	}
	g.Repo = true
	g.Root = root

	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	budget := timeout
	if d, ok := ctx.Deadline(); ok && time.Until(d) < budget {
		budget = max(time.Until(d), 0).Round(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// failed words a step's failure; ctxErr is the context's state when the
	// step gave up, so that a git that failed on its own before the deadline
	// is not said to have timed out.
	failed := func(step string, err, ctxErr error) string {
		switch {
		case errors.Is(ctxErr, context.DeadlineExceeded):
			return fmt.Sprintf("%s: timed out after %s", step, budget)
		case ctxErr != nil:
			return step + ": canceled"
		}
		return step + ": " + err.Error()
	}

	// Past gaveUp, gitGrace after the deadline (or the caller's cancel),
	// Read waits for nothing: a git that has not delivered by then counts
	// as timed out, whatever its goroutine is still doing.
	gaveUp := make(chan struct{})
	stopGiveUp := context.AfterFunc(ctx, func() {
		time.AfterFunc(gitGrace, func() { close(gaveUp) })
	})
	defer stopGiveUp()

	bin, missing := lookGit(opt.GitPath)
	type statusRes struct {
		p           *porcelainV2
		err, ctxErr error
	}
	type logRes struct {
		subject     string
		err, ctxErr error
	}
	stc := make(chan statusRes, 1)
	lgc := make(chan logRes, 1)
	if !missing {
		go func() {
			defer func() {
				if v := recover(); v != nil {
					stc <- statusRes{err: panicError{v}}
				}
			}()
			p, err := statusStep(ctx, bin, root)
			stc <- statusRes{p, err, ctx.Err()}
		}()
		go func() {
			defer func() {
				if v := recover(); v != nil {
					lgc <- logRes{err: panicError{v}}
				}
			}()
			s, err := subjectStep(ctx, bin, root)
			lgc <- logRes{s, err, ctx.Err()}
		}()
	}

	// go-git reads the refs in every case, and does the rest when git is
	// missing. It cannot be cancelled: stop waiting for it at the deadline
	// when it does the status, or when git is given up on.
	gg := make(chan goGitState, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				gg <- goGitState{err: panicError{v}}
			}
		}()
		gg <- goGitStep(root, missing)
	}()
	ggStop := (<-chan struct{})(gaveUp)
	if missing {
		ggStop = ctx.Done()
	}
	var (
		refs     goGitState
		refsDone bool
		st       *porcelainV2
		stE      error
		stCtx    error
		lg       string
		lgE      error
		lgCtx    error
	)
	select {
	case refs = <-gg:
		refsDone = true
	case <-ggStop:
	}
	if !missing {
		select {
		case r := <-stc:
			st, stE, stCtx = r.p, r.err, r.ctxErr
		case <-gaveUp:
			stE, stCtx = ctx.Err(), ctx.Err()
		}
		select {
		case r := <-lgc:
			lg, lgE, lgCtx = r.subject, r.err, r.ctxErr
		case <-gaveUp:
			lgE, lgCtx = ctx.Err(), ctx.Err()
		}
	}

	var errs []string
	if refsDone {
		g.Branch, g.Head, g.Detached = refs.branch, refs.head, refs.detached
	}
	if missing {
		g.Source = "go-git"
		switch {
		case !refsDone:
			errs = append(errs, failed("go-git", nil, ctx.Err()))
			g.ChangeCount = -1
		case refs.err != nil:
			errs = append(errs, "go-git: "+refs.err.Error())
			g.ChangeCount = -1
		default:
			g.Subject = refs.subject
			g.Changes, g.ChangeCount = refs.changes, refs.count
		}
		g.Error = strings.Join(errs, "; ")
		return g
	}

	g.Source = "git"
	// A go-git failure matters only where git status did not fill the gap
	// (go-git refuses some repository extensions git accepts); a panic is
	// always said, being a bug.
	var gp panicError
	if refsDone && refs.err != nil && (stE != nil || st.oid == "" || errors.As(refs.err, &gp)) {
		errs = append(errs, "go-git: "+refs.err.Error())
	}
	if stE != nil {
		errs = append(errs, failed("git status", stE, stCtx))
		g.ChangeCount = -1
	} else {
		if g.Branch == "" && !g.Detached {
			if st.head == "(detached)" {
				g.Detached = true
			} else {
				g.Branch = st.head
			}
		}
		if g.Head == "" && st.oid != "(initial)" {
			g.Head = st.oid
		}
		g.Changes, g.ChangeCount = st.changes, st.count
		if st.malformed > 0 {
			errs = append(errs, fmt.Sprintf("git status: %d records not understood", st.malformed))
		}
	}
	unborn := g.Head == "" && (stE == nil && st.oid == "(initial)" || refsDone && refs.err == nil)
	switch {
	case lgE == nil:
		g.Subject = lg
	case unborn:
		// git log fails on a branch without commits: nothing to report.
	default:
		errs = append(errs, failed("git log", lgE, lgCtx))
	}
	if !refsDone && stE != nil {
		errs = append(errs, failed("go-git", nil, ctx.Err()))
	}
	g.Error = strings.Join(errs, "; ")
	return g
}

// findWorkTree walks up from dir to the folder holding .git, as git does: a
// .git folder counts when it holds HEAD, a .git file when it names its
// gitdir (linked worktrees, submodules).
func findWorkTree(dir string) (string, bool) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				if _, err := os.Stat(filepath.Join(p, "HEAD")); err == nil {
					return d, true
				}
			} else if fi.Mode().IsRegular() {
				if b, err := readHead(p, 512); err == nil && bytes.HasPrefix(b, []byte("gitdir:")) {
					return d, true
				}
			}
		}
		up := filepath.Dir(d)
		if up == d {
			return "", false
		}
		d = up
	}
}

// readHead reads at most n bytes of a file.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := f.Read(b)
	if k > 0 {
		err = nil
	}
	return b[:k], err
}

// lookGit resolves Options.GitPath; missing is true when git is not there
// to be run.
func lookGit(path string) (bin string, missing bool) {
	switch path {
	case "-":
		return "", true
	case "":
		// exec.ErrDot (git found through a relative PATH entry) counts as
		// missing: running it would run whatever the repository holds.
		p, err := exec.LookPath("git")
		if err != nil {
			return "", true
		}
		return p, false
	}
	return path, false
}

// gitEnvDrop are variables a git hook exports that would point git at
// another repository, index or object store than the one found from dir.
var gitEnvDrop = map[string]bool{
	"GIT_DIR":                          true,
	"GIT_WORK_TREE":                    true,
	"GIT_INDEX_FILE":                   true,
	"GIT_OBJECT_DIRECTORY":             true,
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR":                   true,
	"GIT_NAMESPACE":                    true,
	"GIT_PREFIX":                       true,
	"GIT_CEILING_DIRECTORIES":          true,
	"GIT_DISCOVERY_ACROSS_FILESYSTEM":  true,
	"GIT_OPTIONAL_LOCKS":               true,
	"GIT_NO_LAZY_FETCH":                true,
	"GIT_PAGER":                        true,
	"PAGER":                            true,
	"LC_ALL":                           true,
	"GIT_TERMINAL_PROMPT":              true,
}

// gitEnv is the environment git runs in: the process's own, less what could
// point it elsewhere, with no optional locks (a snapshot must not fight the
// user's git for index.lock, nor write the index: GS-15), no lazy fetch of
// a partial clone's missing objects (which would run the transport the
// repository's config names: GS-13), no pager, no prompt and untranslated
// messages.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if gitEnvDrop[strings.ToUpper(k)] {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_OPTIONAL_LOCKS=0",
		lazyFetchOff,
		"GIT_PAGER=cat",
		"PAGER=cat",
		"LC_ALL=C",
		"GIT_TERMINAL_PROMPT=0",
	)
}

// lazyFetchOff turns lazy fetching off (git 2.45.1, and the security
// releases 2.39.4 to 2.44.1); a test turns it back on, to show that the
// protocol settings of the guard stop older gits as well.
var lazyFetchOff = "GIT_NO_LAZY_FETCH=1"

// runGit runs git in root, guarded by the settings guard, with stdout going
// to out. A hung git is killed at
// the deadline, and its pipes are closed gitGrace later even when a child of
// it still holds them. WaitDelay counts from the earlier of exit and
// deadline, so it must reach past the deadline: a git that exits in time
// keeps its output even when a loaded machine is slow to drain the pipe.
func runGit(ctx context.Context, bin, root string, guard []string, out *limitedWriter, args ...string) error {
	var stderr limitedWriter
	stderr.max = 4 << 10
	cmd := exec.CommandContext(ctx, bin, gitArgs(root, guard, args...)...)
	cmd.Env = gitEnv()
	cmd.Stdout = out
	cmd.Stderr = &stderr
	cmd.WaitDelay = gitGrace
	if d, ok := ctx.Deadline(); ok {
		cmd.WaitDelay += max(time.Until(d), 0)
	}
	hideWindow(cmd)
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if msg := errLine(stderr.buf.String()); msg != "" {
		return fmt.Errorf("%w: %s", err, msg)
	}
	return err
}

// gitStatus runs the one git status compact-guard needs, guarded against the
// repository's filter drivers and protocols, and parses it while it streams,
// keeping only MaxGitChanges entries whatever the output's size. Submodules
// are compared by commit: finding their changed files would run git inside
// each, under that repository's own config (GS-14).
func gitStatus(ctx context.Context, bin, root string) (*porcelainV2, error) {
	guard, err := gitRepoGuard(ctx, bin, root)
	if err != nil {
		return nil, err
	}
	p := newPorcelainV2(snapshot.MaxGitChanges)
	out := &limitedWriter{w: p}
	err = runGit(ctx, bin, root, guard, out, "status", "--porcelain=v2", "--branch", "-z", "--ignore-submodules=dirty")
	if len(p.pending) > 0 {
		// Every -z record ends in NUL: a rest without one is torn.
		p.malformed++
	}
	return p, err
}

// gitSubject returns HEAD's subject line.
func gitSubject(ctx context.Context, bin, root string) (string, error) {
	out := &limitedWriter{max: 64 << 10}
	if err := runGit(ctx, bin, root, gitGuard, out, "log", "-1", "--no-show-signature", "--format=%s"); err != nil {
		return "", err
	}
	return cutSubject(strings.TrimRight(out.buf.String(), "\r\n")), nil
}

// cutSubject bounds a subject to maxSubject runes with the marker.
func cutSubject(s string) string { return textcut.Marked(textcut.Runes(s, maxSubject)) }

// errLine picks the line of git's stderr that says why it failed: the first
// "fatal:" or "error:" line, else the first non-empty one.
func errLine(s string) string {
	first := ""
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "fatal:") || strings.HasPrefix(line, "error:") {
			return line
		}
		if first == "" {
			first = line
		}
	}
	return first
}

// limitedWriter keeps the first max bytes written to it in buf, or passes
// everything on to w when set; it never fails a write, so git is never
// stopped by a full pipe.
type limitedWriter struct {
	w   *porcelainV2
	max int
	buf bytes.Buffer
}

func (l *limitedWriter) Write(b []byte) (int, error) {
	if l.w != nil {
		return l.w.Write(b)
	}
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// maxRecord bounds one porcelain record kept in memory; no real path comes
// near it.
const maxRecord = 64 << 10

// porcelainV2 parses `git status --porcelain=v2 --branch -z` as it is
// written: NUL-terminated records, a rename ("2") followed by one more record
// holding the original path.
type porcelainV2 struct {
	max     int
	changes []snapshot.GitChange
	count   int
	// head and oid are the "# branch.head" and "# branch.oid" values:
	// "(detached)" and "(initial)" when HEAD has no branch or no commit.
	head, oid string
	// malformed counts records that fit no known shape.
	malformed int

	pending []byte
	// origOf is where the next record, a rename's original path, goes: an
	// index into changes, -1 when that rename was not kept, -2 when no
	// original path is due.
	origOf int
}

func newPorcelainV2(max int) *porcelainV2 {
	return &porcelainV2{max: max, origOf: -2}
}

func (p *porcelainV2) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			p.pending = append(p.pending, b[:min(len(b), max(maxRecord-len(p.pending), 0))]...)
			break
		}
		rec := b[:i]
		if len(p.pending) > 0 {
			p.pending = append(p.pending, rec[:min(len(rec), max(maxRecord-len(p.pending), 0))]...)
			rec = p.pending
		}
		p.record(rec)
		p.pending = p.pending[:0]
		b = b[i+1:]
	}
	return n, nil
}

func (p *porcelainV2) record(rec []byte) {
	if p.origOf != -2 {
		if p.origOf >= 0 {
			p.changes[p.origOf].From = string(rec)
		}
		p.origOf = -2
		return
	}
	if len(rec) < 2 || rec[1] != ' ' {
		p.malformed++
		return
	}
	// fields is how many space-separated fields precede the path.
	var fields int
	switch rec[0] {
	case '#':
		p.header(string(rec[2:]))
		return
	case '!':
		return
	case '?':
		fields = 1
	case '1':
		fields = 8
	case '2':
		fields = 9
		p.origOf = -1
	case 'u':
		fields = 10
	default:
		p.malformed++
		return
	}
	p.count++
	if len(p.changes) >= p.max {
		return
	}
	f := bytes.SplitN(rec, []byte{' '}, fields+1)
	if len(f) != fields+1 {
		p.count--
		p.malformed++
		return
	}
	code := "??"
	if rec[0] != '?' {
		code = string(f[1])
	}
	if rec[0] == '2' {
		p.origOf = len(p.changes)
	}
	p.changes = append(p.changes, snapshot.GitChange{Code: code, Path: string(f[fields])})
}

func (p *porcelainV2) header(h string) {
	k, v, _ := strings.Cut(h, " ")
	switch k {
	case "branch.head":
		p.head = v
	case "branch.oid":
		p.oid = v
	}
}
