package take

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// spec: PC-24
// The wait for a transcript to settle, driven by a clock that moves one
// poll per look: it ends a quiet period after the last growth, at the cap
// while the file still grows, or when the deadline ends it.
func TestSettler(t *testing.T) {
	const poll = 10 * time.Millisecond
	for _, tc := range []struct {
		name   string
		sizes  []int64 // the size at each look; the last repeats
		cut    int     // the deadline ends the wait at this pause (0: never)
		want   Settled
		quiet  time.Duration
		maxDur time.Duration
	}{
		{"nothing comes: one quiet period", []int64{100}, 0, Settled{Quiet: true, Waited: 400 * time.Millisecond}, 400 * time.Millisecond, time.Second},
		{"a write after 30 ms, then quiet", []int64{100, 100, 100, 250}, 0,
			Settled{Quiet: true, Waited: 430 * time.Millisecond, Grew: 150}, 400 * time.Millisecond, time.Second},
		{"two writes of one drain", []int64{100, 200, 300}, 0, Settled{Quiet: true, Waited: 420 * time.Millisecond, Grew: 200}, 400 * time.Millisecond, time.Second},
		{"it keeps growing: the cap", nil, 0, Settled{Waited: time.Second, Grew: 100 * 100}, 400 * time.Millisecond, time.Second},
		{"the deadline", []int64{100}, 5, Settled{Waited: 40 * time.Millisecond}, 400 * time.Millisecond, time.Second},
		{"no quiet period asked for", []int64{100}, 0, Settled{Quiet: true}, 0, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
			looks, pauses := 0, 0
			s := settler{quiet: tc.quiet, max: tc.maxDur, now: func() time.Time { return clock },
				size: func() int64 {
					defer func() { looks++ }()
					if tc.sizes == nil {
						return int64(100 * looks)
					}
					return tc.sizes[min(looks, len(tc.sizes)-1)]
				},
				wait: func() bool {
					pauses++
					if pauses == tc.cut {
						return false
					}
					clock = clock.Add(poll)
					return true
				},
			}
			if got := s.run(); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// The record's JSON keeps the mark's time to the nanosecond, so that the
// snapshot's created_at and the mark compare equal.
func TestWentOnRoundTrip(t *testing.T) {
	at := time.Date(2026, 12, 2, 0, 49, 53, 248311593, time.UTC)
	b, err := json.Marshal(watch.State{WentOn: &watch.WentOn{PreCompact: at}})
	if err != nil {
		t.Fatal(err)
	}
	var st watch.State
	if err := json.Unmarshal(b, &st); err != nil || !st.WentOn.PreCompact.Equal(at) {
		t.Fatalf("%s → %+v, %v", b, st.WentOn, err)
	}
	rec := snapshot.Record{CreatedAt: at}
	if b, _ := json.Marshal(rec); !strings.Contains(string(b), fmt.Sprint(at.Format(time.RFC3339Nano))) {
		t.Errorf("record %s", b)
	}
}

// spec: PC-24
// precompact waits for a Qwen Code transcript to stop growing: it returns
// only once no write came for 300 ms, and never later than 3 s.
func TestSettleTranscript(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(p, []byte(hooktest.AgentLines["qwen"][0]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var writes []time.Time
	go func() {
		for _, l := range hooktest.AgentLines["qwen"][1:] {
			time.Sleep(50 * time.Millisecond)
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.WriteString(l + "\n")
			f.Close()
			mu.Lock()
			writes = append(writes, time.Now())
			mu.Unlock()
		}
	}()
	start := time.Now()
	settleTranscript(context.Background(), p)
	done := time.Now()
	mu.Lock()
	defer mu.Unlock()
	for _, w := range writes {
		if w.Before(done) && done.Sub(w) < settleQuiet-30*time.Millisecond {
			t.Errorf("returned %s after a write", done.Sub(w))
		}
	}
	if d := done.Sub(start); d < settleQuiet || d > settleMax+time.Second {
		t.Errorf("waited %s", d)
	}
}
