package hookio

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Share is a part of a hook's --timeout, Num/Den of it counted from the
// run's start: a step of that phase is given up when it is over (PC-3,
// PO-C9).
type Share struct{ Num, Den int64 }

// The phases of a hook run. Each ends at its share of the deadline, so a
// step that overruns takes time from no later step but its own phase's.
var (
	SharePayload = Share{1, 4}  // reading stdin
	ShareScan    = Share{1, 4}  // precompact: the search for the last compaction boundary
	ShareRead    = Share{1, 2}  // precompact: reading the transcript; postcompact: the compaction check
	ShareGather  = Share{3, 4}  // git, the state-file lookup, selection
	ShareSave    = Share{9, 10} // writing the snapshot, the failure marker, the delivery record
)

// Phase returns a context that ends when s of total has passed since the
// run began (ctx's deadline is the run's start plus total), or when ctx
// ends.
func Phase(ctx context.Context, total time.Duration, s Share) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, dl.Add(-total+time.Duration(int64(total)*s.Num/s.Den)))
}

// ReadPayloadWithin reads the payload from in within the payload phase
// (SharePayload) of ctx, whose deadline is the run's start plus total.
func ReadPayloadWithin(ctx context.Context, total time.Duration, in io.Reader, codePage int) (Payload, error) {
	payloadCtx, cancel := Phase(ctx, total, SharePayload)
	defer cancel()
	return ReadPayload(payloadCtx, in, codePage)
}

// Bounded runs step in its own goroutine and waits for it until ctx ends.
// When ctx ends first the step is given up and an error says so: its
// goroutine is left to finish, or to end with the process (a hung network
// file system then holds a goroutine, not the hook). That is safe because
// every file compact-guard writes is written to a temporary name and renamed
// (SF-32): a write given up leaves at worst a temporary file the next save
// removes. A panic in step comes back as an error, since a goroutine's panic
// would end the process with status 2 (PC-1). before, when not nil, is
// called in the goroutine first with name: tests make a step hang with it.
func Bounded[T any](ctx context.Context, before func(string), name string, step func() T) (v T, err error) {
	if err := ctx.Err(); err != nil {
		return v, fmt.Errorf("%s: not started: the deadline had passed", name)
	}
	type outcome struct {
		v   T
		err error
	}
	ch := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o.err = fmt.Errorf("%s: panic: %v", name, r)
			}
			ch <- o
		}()
		if before != nil {
			before(name)
		}
		o.v = step()
	}()
	select {
	case o := <-ch:
		return o.v, o.err
	case <-ctx.Done():
		return v, fmt.Errorf("%s: not done within the deadline; given up", name)
	}
}

// WriteLogBounded appends the run's log line under ctx, the run's whole
// deadline: the log is the last step, and a log on a file system that does
// not answer holds the hook no longer than any other step.
func WriteLogBounded(ctx context.Context, before func(string), dir string, e Entry) {
	if _, err := Bounded(ctx, before, "writing the log", func() bool { WriteLog(dir, e); return true }); err != nil {
		os.Stderr.WriteString("compact-guard: " + err.Error() + "\n")
	}
}
