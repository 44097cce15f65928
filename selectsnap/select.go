// Package selectsnap chooses the snapshot a compacted session gets pointed
// to: its own, fresh, intact, and taken for the compaction that just
// happened. It reads the snapshot folder once and opens only the files named
// for the session.
package selectsnap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// Defaults for Options.
const (
	DefaultMaxAge    = 30 * time.Minute
	DefaultMaxFuture = 60 * time.Second
)

// MaxRecordBytes bounds how much of a .json file is read: a record holds
// bounded lists, so anything larger is not one of ours.
const MaxRecordBytes = 4 << 20

// ErrNoSessionID is returned when the payload gave no session id: without
// one no snapshot can be shown to belong to the session.
var ErrNoSessionID = errors.New("no session id to select a snapshot for")

// Transcript is what selection needs from the session's transcript;
// *transcript.File satisfies it.
type Transcript interface {
	// Size is the transcript's size; nothing past it is read.
	Size() int64
	// BoundariesAfter is the offsets of the last n distinct compaction
	// boundaries that start within [from, to) and are timestamped after
	// after, newest first; an entry written twice counts once.
	BoundariesAfter(ctx context.Context, from, to int64, after time.Time, n int) ([]int64, error)
	// NewestResponseIn is the time of the last model response that starts
	// within [from, to) and is timestamped after after.
	NewestResponseIn(ctx context.Context, from, to int64, after time.Time) (time.Time, bool, error)
}

// AgentClaude is Claude Code's name, the baseline whose order is known
// here (SS-15); "" is AgentClaude. Every other client's order comes from
// its folder under clients/ (agent.Register puts it in Orders).
const AgentClaude = "claude"

// Order is when a client writes a compaction's boundary relative to the
// hooks that run selection, as measured with the real clients (SS-15).
type Order struct {
	// BoundaryBefore says, per hook event ("SessionStart", "PostCompact"),
	// whether the client has written the compaction's boundary when that
	// hook of the same compaction starts.
	BoundaryBefore map[string]bool
	// LateSessionStart is set when SessionStart(compact) may start after
	// the compacted session's next model responses (the client runs it in
	// the background): at SessionStart only the responses before the first
	// boundary after the snapshot count for SS-8d.
	LateSessionStart bool
}

// Orders are the measured orders by agent (specs/selectsnap.md): Claude
// Code's, and each registered client's.
var Orders = map[string]Order{
	AgentClaude: {},
}

// agentOr is the agent a record or an Options names, "" read as
// Claude Code (records written before the field existed).
func agentOr(a string) string {
	if a == "" {
		return AgentClaude
	}
	return a
}

// Options says whose snapshot to look for, where and when.
type Options struct {
	// Dir is the snapshot folder.
	Dir string
	// SessionID is the payload's session id; records must hold exactly it.
	SessionID string
	// Now is the current time; zero means time.Now().
	Now time.Time
	// MaxAge is how old the time in a snapshot's name may be; zero or
	// negative means DefaultMaxAge.
	MaxAge time.Duration
	// MaxFuture is how far ahead of Now the name's time may be (clock skew);
	// zero or negative means DefaultMaxFuture.
	MaxFuture time.Duration
	// Transcript is the session's transcript, nil when it cannot be read:
	// the compaction check is then skipped.
	Transcript Transcript
	// TranscriptPath is the payload's transcript_path; a record made from
	// another transcript is rejected.
	TranscriptPath string
	// PromptID is the payload's prompt_id, "" when it has none: a record
	// taken during another prompt is not this compaction's (SS-8a).
	PromptID string
	// Agent is the client the session runs in ("" is AgentClaude): only
	// its own snapshots are candidates (SS-16), and its Order applies.
	Agent string
	// Event is the hook running selection, "SessionStart" (also for "")
	// or "PostCompact" (SS-15).
	Event string
	// WentOn is the first tool call's or prompt's hook run after the
	// session's newest PreCompact, as watch recorded it, nil when none is
	// known: a snapshot taken before it is not this compaction's, even
	// while the transcript does not show the session going on (SS-26).
	WentOn *WentOn
}

// Choice is the selected snapshot.
type Choice struct {
	Record   *snapshot.Record
	MDPath   string
	JSONPath string
	// Unverified says why the compaction check was not made; empty when it
	// was made and passed.
	Unverified string
	// Delivery is the snapshot's delivery record (SF-53), nil when it was
	// not handed out before.
	Delivery *snapshot.Delivery
}

// Rejection is a snapshot of the session that was not chosen, and why; for
// logs and doctor.
type Rejection struct {
	Name   string
	Reason string
}

// openFile is swapped by tests to count which files selection opens. It
// opens only a regular file, and never blocks: a .json swapped for a FIFO
// after the folder was listed would otherwise hang the hook. The file must
// be the user's and closed to writes by others (SEC-13).
var openFile = func(name string) (io.ReadCloser, error) { return trust.OpenTrusted(name) }

type candidate struct {
	base string
	name snapshot.Name
}

// Select returns the session's newest snapshot that passes every check, or
// nil when there is none. Rejections list the session's snapshots examined
// and turned down, newest first. The error is set only when the folder
// cannot be listed (a missing folder is not an error), the context ends or
// SessionID is empty.
func Select(ctx context.Context, o Options) (_ *Choice, rejected []Rejection, _ error) {
	if o.SessionID == "" || o.SessionID == snapshot.Unknown {
		return nil, nil, ErrNoSessionID
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.MaxFuture <= 0 {
		o.MaxFuture = DefaultMaxFuture
	}
	// A folder precompact would refuse to write to is not read from either
	// (SEC-14): anyone who can write to it could have put the records there.
	err := trust.CheckPrivateDir(o.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot folder: %w", err)
	}
	entries, err := readDirUnsorted(o.Dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read snapshot folder: %w", err)
	}

	// The helpers (candidates.go) each take one step: the session's files,
	// their order, each candidate's own checks and its delivery record;
	// the check against the transcript and the answer stay here.
	files := sessionFilesOf(entries, snapshot.SID8(o.SessionID))
	rejected = files.rejected
	cands, ahead := newestFirst(files.cands, o)
	defer func() { rejected = append(rejected, ahead...) }()

	cc := newCheck(o)
	for i, c := range cands {
		if err := ctx.Err(); err != nil {
			return nil, rejected, err
		}
		rec, jsonPath, reason := candidateRecord(o, c, files.md, cc)
		if reason != "" {
			rejected = append(rejected, Rejection{c.base, reason})
			continue
		}
		tk := takenOf(rec)
		var dl *snapshot.Delivery
		if files.delivered[c.base] {
			d, rs, ok := candidateDelivery(o, c.base, &tk)
			rejected = append(rejected, rs...)
			if !ok {
				continue
			}
			dl = d
		}
		reason, err := cc.check(ctx, tk)
		if err != nil {
			return nil, rejected, err
		}
		if reason != "" {
			rejected = append(rejected, Rejection{c.base, reason})
			for _, older := range cands[i+1:] {
				rejected = append(rejected, Rejection{older.base, "older than " + c.base + ", which is not this compaction's"})
			}
			return nil, rejected, nil
		}
		return &Choice{
			Record:     rec,
			MDPath:     filepath.Join(o.Dir, c.base+".md"),
			JSONPath:   jsonPath,
			Unverified: cc.skipped,
			Delivery:   dl,
		}, rejected, nil
	}
	return nil, rejected, nil
}

// aheadReason says why a name dated more than MaxFuture ahead of Now is
// turned down (SS-2), "" for one that is not.
func aheadReason(n snapshot.Name, o Options) string {
	if ahead := n.Time.Sub(o.Now); ahead > o.MaxFuture {
		return fmt.Sprintf("%s in the future (more than %s)", ahead.Truncate(time.Second), o.MaxFuture)
	}
	return ""
}

// Taken is what selection knows of a snapshot or a failure marker: when it
// was taken, how far the transcript reached then, during which prompt, and
// when compaction hooks already acted on it.
type Taken struct {
	At       time.Time
	Size     int64
	PromptID string
	Handled  []Handled
	// AtSessionStart is set for a snapshot postcompact took at
	// SessionStart (SS-21): its own compaction's boundary may carry an
	// earlier time than it.
	AtSessionStart bool
}

// Handled is a compaction hook's run that acted on a snapshot (a
// SessionStart delivery, a PostCompact confirmation) and the transcript's
// size at that moment.
type Handled struct {
	Event string
	At    time.Time
	Size  int64
}

// CheckFailure tells whether precompact's failure marker f is about the
// compaction that just happened (SS-12): reason is empty when it is, and
// otherwise says why not. unverified is set when the transcript could not
// be consulted. Only the context's error is returned.
func CheckFailure(ctx context.Context, o Options, f *snapshot.Failure) (reason, unverified string, err error) {
	cc := newCheck(o)
	if cc.t != nil && f.TranscriptSize > cc.t.Size() {
		return fmt.Sprintf("covers the transcript up to %d, but it holds %d bytes (another file)", f.TranscriptSize, cc.t.Size()), "", nil
	}
	reason, err = cc.check(ctx, Taken{At: f.Time, Size: f.TranscriptSize, PromptID: f.PromptID})
	return reason, cc.skipped, err
}

// readRecord reads and checks one .json file; the reason is empty when the
// record is usable.
func readRecord(path, base string, name snapshot.Name, sessionID string) (*snapshot.Record, string) {
	f, err := openFile(path)
	if errors.Is(err, trust.ErrUntrusted) {
		return nil, untrustedReason(err)
	}
	if err != nil {
		return nil, "unreadable: " + err.Error()
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxRecordBytes+1))
	f.Close()
	if err != nil {
		return nil, "unreadable: " + err.Error()
	}
	if len(data) > MaxRecordBytes {
		return nil, fmt.Sprintf("larger than %d bytes", MaxRecordBytes)
	}
	var rec snapshot.Record
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&rec); err != nil {
		return nil, "broken json: " + err.Error()
	}
	if rec.Schema != snapshot.SchemaVersion {
		return nil, fmt.Sprintf("unknown schema %d (want %d)", rec.Schema, snapshot.SchemaVersion)
	}
	if rec.Name != base {
		return nil, fmt.Sprintf("recorded name %q differs from the file name", rec.Name)
	}
	if rec.SessionID != sessionID {
		return nil, "recorded for another session with the same sid8"
	}
	if !snapshot.NameTimeMatches(name, rec.CreatedAt) {
		return nil, fmt.Sprintf("created_at %s is not the time in its name (SEC-17)", rec.CreatedAt.UTC().Format(time.RFC3339))
	}
	return &rec, ""
}

// untrustedReason is "not trusted: <why>" for an error about a file that
// is another user's or open to writes by others, without its path (the log
// names the snapshot already); the error's text otherwise.
func untrustedReason(err error) string {
	var ue *trust.UntrustedError
	if errors.As(err, &ue) {
		return "not trusted: " + ue.Why
	}
	return err.Error()
}

// compactionCheck tells what was taken for the compaction that just
// happened from what was taken for an earlier one, or for one that did not
// happen (SS-8).
type compactionCheck struct {
	t        Transcript
	promptID string
	order    Order
	event    string
	// wentOn is Options.WentOn where the client's order lets it tell
	// (SS-28), else nil.
	wentOn *WentOn
	// skipped says why the transcript was not consulted (SS-9).
	skipped string
}

func newCheck(o Options) *compactionCheck {
	ev := o.Event
	if ev == "" {
		ev = "SessionStart"
	}
	return &compactionCheck{t: o.Transcript, promptID: o.PromptID, order: Orders[agentOr(o.Agent)], event: ev, wentOn: wentOnFor(o)}
}

// ownBoundaryBetween reports whether the client writes a compaction's
// boundary after the hook for event handled ran and before the hook
// running now: a boundary after that handling is then the handled
// compaction's own (SS-8c).
func (c *compactionCheck) ownBoundaryBetween(handled string) bool {
	return !c.order.BoundaryBefore[handled] && c.order.BoundaryBefore[c.event]
}

// check returns why tk is not this compaction's, "" when it is. Every
// reason condemns older candidates too. A transcript error other than the
// context's skips the transcript's part of the check, as an unreadable
// transcript does.
func (c *compactionCheck) check(ctx context.Context, tk Taken) (string, error) {
	if c.promptID != "" && tk.PromptID != "" && tk.PromptID != c.promptID {
		return fmt.Sprintf("taken during another prompt (prompt_id %s, this compaction's is %s)", tk.PromptID, c.promptID), nil
	}
	if r := c.wentOnAfter(tk); r != "" {
		return r, nil
	}
	if c.t == nil {
		if c.skipped == "" {
			c.skipped = "transcript not readable"
		}
		return "", nil
	}
	reason, err := c.checkTranscript(ctx, tk)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		c.t, c.skipped = nil, "transcript: "+err.Error()
		return "", nil
	}
	return reason, nil
}

func (c *compactionCheck) checkTranscript(ctx context.Context, tk Taken) (string, error) {
	// Only boundaries of compactions that happened after the snapshot was
	// taken count: a boundary's time is taken when its summary is ready,
	// after that compaction's PreCompact; one an earlier compaction's
	// client wrote late carries an earlier time.
	bs, err := c.t.BoundariesAfter(ctx, tk.Size, c.t.Size(), tk.boundariesSince(), 2)
	if err != nil {
		return "", err
	}
	if len(bs) == 2 {
		return fmt.Sprintf("taken before an earlier compaction (boundaries at %d and %d follow its %d bytes)", bs[1], bs[0], tk.Size), nil
	}
	if len(bs) == 1 {
		last := bs[0]
		for _, h := range tk.Handled {
			if last >= h.Size && !c.ownBoundaryBetween(h.Event) {
				return fmt.Sprintf("handed to an earlier compaction (%s at %s, when the transcript held %d bytes; a boundary at %d follows)",
					h.Event, h.At.UTC().Format(time.RFC3339), h.Size, last), nil
			}
		}
	}
	to := c.t.Size()
	if len(bs) == 1 && c.order.LateSessionStart && c.event == "SessionStart" {
		// The client may have gone on after this compaction before running
		// SessionStart: only responses before its boundary count.
		to = bs[0]
	}
	if t, ok, err := c.t.NewestResponseIn(ctx, tk.Size, to, tk.At); err != nil {
		return "", err
	} else if ok {
		return fmt.Sprintf("the session went on after it (a model response at %s)", t.UTC().Format(time.RFC3339)), nil
	}
	return "", nil
}

// samePath compares transcript paths as the payloads gave them; Windows
// paths are case-insensitive.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return a == b
	}
	a, b = filepath.Clean(a), filepath.Clean(b)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// readDirUnsorted is os.ReadDir without its sort by name: the candidates
// are sorted by time anyway, and the folder may hold many other files.
func readDirUnsorted(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
