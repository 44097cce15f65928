package selectsnap

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// Why a compaction's pointer did not reach the model (SS-17); "" when it
// did.
const (
	// NotRecorded: the client records SessionStart context in the
	// transcript (2.1.120 and later), and none of compact-guard's is
	// recorded after the compaction: the hook failed, was deferred, or
	// handed nothing out.
	NotRecorded = "not-recorded"
	// Resumed: a client that keeps SessionStart context only in memory
	// (2.0.76 to 2.1.119) was started anew after the pointer was handed
	// out.
	Resumed = "resumed"
	// NotDelivered: such a client, and no pointer was handed out at
	// SessionStart.
	NotDelivered = "not-delivered"
	// OldClient: a client that passes no SessionStart context at all
	// (before 2.0.76).
	OldClient = "old-client"
)

// Releases that decide where SessionStart context goes (reference §0,
// measured end to end): from recordsContext on the client writes it into the
// transcript, so a resumed process gets it back; from deliversContext on it
// gives it to the model in the process that compacted.
const (
	recordsContext  = "2.1.120"
	deliversContext = "2.0.76"
)

// NoContextRecorded are the transcript formats whose client records no
// hook context and keeps the SessionStart context in the memory of the
// process that compacted (Qwen Code: its own releases put it into the
// system instruction); PointerFate judges them by that rule. Each
// registered client that does so adds its format.
var NoContextRecorded = map[transcript.Format]bool{}

// PointerFate decides whether the pointer of compaction c reached the model
// (SS-17). snapshotName is the compaction's own snapshot; delivery is its
// delivery record (SF-53, nil for none); resumed is when the session was last
// resumed in a new client process (SessionStart "resume"; zero for never).
// It reads nothing: a client other than Claude Code can use it with what it
// knows of its own transcripts. A compaction of a format in NoContextRecorded
// (Qwen Code's) follows the
// rule of the Claude Code releases that keep the context in memory only.
func PointerFate(c transcript.Compaction, snapshotName string, delivery *snapshot.Delivery, resumed time.Time) (reached bool, why string) {
	recorded := false
	for _, text := range c.Contexts {
		if name := NamedSnapshot(text); name != "" && name == snapshotName {
			recorded = true
		}
	}
	switch v := c.Version; {
	case NoContextRecorded[c.Format]:
		// Such a client (Qwen Code's own releases) puts SessionStart
		// context into the system instruction of the process that
		// compacted and records none of it; a process started with
		// --continue or --resume has only its own (measured with Qwen Code
		// 0.24.4, specs/e2e.md E2E-25): the rule below, with nothing ever
		// recorded.
	case v != "" && RecordsContext(v), v == "" && c.HookRecords > 0:
		// The client gives the model what the transcript holds, in this
		// process and after a resume alike.
		if recorded {
			return true, ""
		}
		return false, NotRecorded
	case v != "" && transcript.VersionBefore(v, deliversContext):
		return false, OldClient
	}
	// 2.0.76 to 2.1.119 give the context to the model in the process that
	// compacted, and record it, but a resumed process does not get it back
	// (measured with 2.1.119, specs/e2e.md E2E-19). So does Qwen Code, which
	// records nothing: the delivery record alone says it was handed out.
	at := c.Time
	switch {
	case delivery != nil && delivery.Event == "SessionStart":
		at = delivery.At
	case !recorded:
		return false, NotDelivered
	}
	if !resumed.IsZero() && resumed.After(at) {
		return false, Resumed
	}
	return true, ""
}

// Latest is the newest compaction of a transcript, its own snapshot and
// what became of the snapshot's pointer.
type Latest struct {
	Compaction transcript.Compaction
	// Record is the compaction's own snapshot (TakenFor), nil for none;
	// MDPath its Markdown.
	Record *snapshot.Record
	MDPath string
	// Delivery is the snapshot's delivery record, nil for none.
	Delivery *snapshot.Delivery
	// Reached and Why are PointerFate's answer.
	Reached bool
	Why     string
}

// LatestOptions say where the session's compactions and snapshots are.
type LatestOptions struct {
	Dir            string
	SessionID      string
	TranscriptPath string
	Transcript     *transcript.File
	// From is where reading starts: the transcript's size when precompact
	// ran for the compaction (its boundary is written after that), so that
	// only what was written since is read.
	From int64
	// After is when that precompact ran: the compaction's snapshot was
	// created then (its created_at is that run's start), an earlier run's
	// before. Zero when unknown.
	After time.Time
	// Resumed is when the session was last resumed in a new process.
	Resumed time.Time
	// MaxAge is how much older than the compaction's boundary the
	// snapshot may be (SS-2); zero or negative means DefaultMaxAge.
	MaxAge time.Duration
}

// LatestPointer finds the newest compaction whose boundary starts at or
// after o.From, its own snapshot and whether that snapshot's pointer
// reached the model (PointerFate, SS-17). The snapshot is TakenFor's
// (SS-14) created after o.After, or after the boundary before this one when
// there is one after o.From, and by this boundary's time (between the
// offsets when the boundary has no time); and, as selection would, no more than
// MaxAge older than the boundary (SS-2) and with no model response after it
// before the boundary (SS-8d). nil, nil when no boundary follows o.From
// (the compaction was abandoned, or its boundary is not written yet).
func LatestPointer(ctx context.Context, o LatestOptions) (*Latest, error) {
	if o.SessionID == "" || o.SessionID == snapshot.Unknown {
		return nil, ErrNoSessionID
	}
	comps, err := o.Transcript.Compactions(ctx, o.From)
	if err != nil || len(comps) == 0 {
		return nil, err
	}
	l := &Latest{Compaction: comps[len(comps)-1]}
	st := &snapshot.Store{Dir: o.Dir}
	entries, err := st.Entries()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var records []*snapshot.Record
	sid8 := snapshot.SID8(o.SessionID)
	for _, e := range entries {
		if e.SID8 != sid8 || e.MDPath == "" {
			continue
		}
		if r, err := st.Load(e.Name); err == nil && r.SessionID == o.SessionID {
			records = append(records, r)
		}
	}
	c := l.Compaction
	// From is a size a hook saw, not a boundary: a snapshot postcompact
	// took at that size is this compaction's (SS-22's bound is exclusive).
	prev, after := o.From-1, o.After
	if !after.IsZero() {
		// created_at is that run's start, to the nanosecond, and TakenFor
		// wants records created after its bound.
		after = after.Add(-time.Nanosecond)
	}
	if len(comps) > 1 {
		prev = comps[len(comps)-2].Offset
		if t := comps[len(comps)-2].Time; t.After(after) {
			after = t
		}
	}
	maxAge := o.MaxAge
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	r := TakenFor(records, o.TranscriptPath, after, c.Time, prev, c.Offset)
	if r != nil && !c.Time.IsZero() {
		if n, ok := snapshot.ParseName(r.Name); !ok || c.Time.Sub(n.Time) > maxAge {
			r = nil
		}
	}
	if r != nil {
		_, went, err := o.Transcript.NewestResponseIn(ctx, r.Coverage.TranscriptSize, c.Offset, r.CreatedAt)
		if err != nil {
			return nil, err
		}
		if went {
			r = nil
		}
	}
	if r != nil {
		l.Record = r
		for _, e := range entries {
			if e.Name == r.Name {
				l.MDPath = e.MDPath
			}
		}
		if d, err := snapshot.ReadDelivery(o.Dir, r.Name, o.SessionID); err == nil {
			l.Delivery = d
		}
	}
	name := ""
	if l.Record != nil {
		name = l.Record.Name
	}
	l.Reached, l.Why = PointerFate(c, name, l.Delivery, o.Resumed)
	return l, nil
}

// RecordsContext reports whether Claude Code release version writes the
// SessionStart context it gives the model into the transcript and gives it
// back when the session is resumed in a new process (2.1.120 and later):
// only then does the transcript tell whether a pointer reached the model.
func RecordsContext(version string) bool {
	return !transcript.VersionBefore(version, recordsContext)
}
