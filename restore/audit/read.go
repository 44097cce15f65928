package audit

import (
	"context"
	"time"

	"github.com/compact-guard/compact-guard/transcript"
)

// Deadline bounds the reading of one transcript (AU-12).
const Deadline = 30 * time.Second

// FirstWindow is the part of a transcript read first, from its end,
// once a whole read did not finish in half the time; each further window
// is twice as large (AU-12).
const FirstWindow = 4 << 20

// StopHook, when set (by tests), is called before each read audit makes of
// a transcript (0: the whole read; 1, 2, …: the windows after it) with that
// read's cancel: calling it plays the deadline, without a clock.
var StopHook func(read int, stop func())

// compactionsRead is what readCompactions read of a transcript.
type compactionsRead struct {
	comps []transcript.Compaction
	// from is where the compactions listed start.
	from int64
	// stopped says the deadline ended the reading before it reached the
	// start it was asked for: from is then the start of the last window
	// read whole.
	stopped bool
}

// readCompactions reads the compactions of f whose boundary starts at or
// after from (AU-12). One read, linear in the bytes (PF-25), is given half
// of ctx's time; should it not finish, the time left goes to windows read
// backwards from the end, 4 MiB, then twice as much each time, so that the
// compactions of the windows read whole are reported, with where reading
// stopped — never none at all for a read that was merely slow.
func readCompactions(ctx context.Context, f *transcript.File, from int64) (compactionsRead, error) {
	read := func(k int, lo int64, ctx context.Context) ([]transcript.Compaction, bool, error) {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if StopHook != nil {
			StopHook(k, cancel)
		}
		comps, err := f.Compactions(rctx, lo)
		if err != nil && rctx.Err() != nil {
			return nil, true, nil
		}
		return comps, false, err
	}
	half, cancel := ctx, context.CancelFunc(func() {})
	if d, ok := ctx.Deadline(); ok {
		half, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(d)/2))
	}
	comps, late, err := read(0, from, half)
	cancel()
	if err != nil || !late {
		return compactionsRead{comps: comps, from: from}, err
	}
	out := compactionsRead{from: f.Size(), stopped: true}
	for k, window := 1, int64(FirstWindow); ; k, window = k+1, window*2 {
		lo := max(from, f.Size()-window)
		comps, late, err := read(k, lo, ctx)
		switch {
		case err != nil:
			return out, err
		case late:
			return out, nil
		}
		out.comps, out.from = comps, lo
		if lo <= from {
			// The windows reached the start after all.
			out.stopped = false
			return out, nil
		}
	}
}
