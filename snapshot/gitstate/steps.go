package gitstate

// Read's steps, split out of Read so that each part stays readable: running
// git status, git log and go-git side by side under one deadline
// (runSteps), then merging what each delivered into a snapshot.Git
// (fillFromGoGit when git is missing, fillFromGit otherwise).

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// stepResults is what Read's steps delivered by the time Read stopped
// waiting. Each err is the step's failure and each ctxErr the context's
// state when that step gave up, so that a git that failed on its own before
// the deadline is not said to have timed out.
type stepResults struct {
	// refs is go-git's reading; refsDone is false when Read stopped waiting
	// for it.
	refs     goGitState
	refsDone bool
	// st is git status's parse (nil on a failure).
	st           *porcelainV2
	stErr, stCtx error
	// subject is git log's subject line.
	subject        string
	logErr, logCtx error
}

// stepFailer words a step's failure; budget is the deadline the user set, or
// the caller's shorter one, said when a step timed out.
type stepFailer struct{ budget time.Duration }

func (f stepFailer) failed(step string, err, ctxErr error) string {
	switch {
	case errors.Is(ctxErr, context.DeadlineExceeded):
		return fmt.Sprintf("%s: timed out after %s", step, f.budget)
	case ctxErr != nil:
		return step + ": canceled"
	}
	return step + ": " + err.Error()
}

// runSteps runs git status and git log (unless git is missing) and go-git in
// goroutines, and waits for each until it delivers or is given up on. A
// panic in a step is caught and becomes that step's error.
func runSteps(ctx context.Context, bin, root string, missing bool) stepResults {
	// Past gaveUp, gitGrace after the deadline (or the caller's cancel),
	// Read waits for nothing: a git that has not delivered by then counts
	// as timed out, whatever its goroutine is still doing.
	gaveUp := make(chan struct{})
	stopGiveUp := context.AfterFunc(ctx, func() {
		time.AfterFunc(gitGrace, func() { close(gaveUp) })
	})
	defer stopGiveUp()

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
	var r stepResults
	select {
	case r.refs = <-gg:
		r.refsDone = true
	case <-ggStop:
	}
	if !missing {
		select {
		case s := <-stc:
			r.st, r.stErr, r.stCtx = s.p, s.err, s.ctxErr
		case <-gaveUp:
			r.stErr, r.stCtx = ctx.Err(), ctx.Err()
		}
		select {
		case l := <-lgc:
			r.subject, r.logErr, r.logCtx = l.subject, l.err, l.ctxErr
		case <-gaveUp:
			r.logErr, r.logCtx = ctx.Err(), ctx.Err()
		}
	}
	return r
}

// fillFromGoGit fills g when git is missing: go-git did everything.
func fillFromGoGit(ctx context.Context, g *snapshot.Git, r stepResults, f stepFailer) {
	var errs []string
	if r.refsDone {
		g.Branch, g.Head, g.Detached = r.refs.branch, r.refs.head, r.refs.detached
	}
	g.Source = "go-git"
	switch {
	case !r.refsDone:
		errs = append(errs, f.failed("go-git", nil, ctx.Err()))
		g.ChangeCount = -1
	case r.refs.err != nil:
		errs = append(errs, "go-git: "+r.refs.err.Error())
		g.ChangeCount = -1
	default:
		g.Subject = r.refs.subject
		g.Changes, g.ChangeCount = r.refs.changes, r.refs.count
	}
	g.Error = strings.Join(errs, "; ")
}

// fillFromGit fills g from git status and git log, with go-git's refs first
// where it read them.
func fillFromGit(ctx context.Context, g *snapshot.Git, r stepResults, f stepFailer) {
	var errs []string
	if r.refsDone {
		g.Branch, g.Head, g.Detached = r.refs.branch, r.refs.head, r.refs.detached
	}
	g.Source = "git"
	st := r.st
	// A go-git failure matters only where git status did not fill the gap
	// (go-git refuses some repository extensions git accepts); a panic is
	// always said, being a bug.
	var gp panicError
	if r.refsDone && r.refs.err != nil && (r.stErr != nil || st.oid == "" || errors.As(r.refs.err, &gp)) {
		errs = append(errs, "go-git: "+r.refs.err.Error())
	}
	if r.stErr != nil {
		errs = append(errs, f.failed("git status", r.stErr, r.stCtx))
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
	unborn := g.Head == "" && (r.stErr == nil && st.oid == "(initial)" || r.refsDone && r.refs.err == nil)
	switch {
	case r.logErr == nil:
		g.Subject = r.subject
	case unborn:
		// git log fails on a branch without commits: nothing to report.
	default:
		errs = append(errs, f.failed("git log", r.logErr, r.logCtx))
	}
	if !r.refsDone && r.stErr != nil {
		errs = append(errs, f.failed("go-git", nil, ctx.Err()))
	}
	g.Error = strings.Join(errs, "; ")
}
