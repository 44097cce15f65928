package watch

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// DirName is the folder, next to the snapshot folder (where the log and the
// failure markers live), that holds one watch state file per session.
const DirName = "watch"

// Bounds of the store (WA-8).
const (
	// MaxStateBytes bounds a state file that Load reads.
	MaxStateBytes = 64 << 10
	// MaxAge is when a session's state file is pruned.
	MaxAge = 30 * 24 * time.Hour
	// maxCrossings and maxFallbacks bound the lists a state holds.
	maxCrossings = 10
	maxFallbacks = 10
	// lockWait bounds how long Update waits for another hook of the
	// session; lockStale is when a lock is taken to be a crashed run's,
	// and so is one dated more than lockAhead ahead of the clock (WA-9).
	lockWait  = 2 * time.Second
	lockStale = 10 * time.Second
	lockAhead = time.Minute
)

// Schema is the version of the state file's layout.
const Schema = 1

// State is what watch keeps for one session between hook runs (WA-7).
type State struct {
	Schema    int       `json:"schema"`
	SessionID string    `json:"session_id"`
	Updated   time.Time `json:"updated"`
	// Episode is when the current stretch of the session began: its first
	// crossing's run, or the run that saw the fill fall back after a
	// compaction. Crossings belong to it.
	Episode   time.Time  `json:"episode"`
	Crossings []Crossing `json:"crossings,omitempty"`
	// Turn is the turn key set by UserPromptSubmit for clients whose
	// payloads carry no prompt_id.
	Turn string `json:"turn,omitempty"`
	// NoticeTurn and NoticeAt say which turn the last notice went into, and
	// when.
	NoticeTurn string    `json:"notice_turn,omitempty"`
	NoticeAt   time.Time `json:"notice_at,omitempty"`
	// Handoff is the newest handoff block watch saw.
	Handoff *HandoffSeen `json:"handoff,omitempty"`
	// Pending is the compaction precompact noted whose pointer the next
	// UserPromptSubmit checks (WA-11).
	Pending *Pending `json:"pending,omitempty"`
	// Resumed is the last SessionStart with source "resume": a new client
	// process, which keeps only what the transcript holds.
	Resumed time.Time `json:"resumed,omitempty"`
	// Fallbacks are the pointers handed over through UserPromptSubmit,
	// newest last.
	Fallbacks []Fallback `json:"fallbacks,omitempty"`
	// Read is what the last change made by a fill rests on: where in the
	// transcript that fill came from (WA-26). A run that read an older
	// line changes nothing by its fill.
	Read *Read `json:"read,omitempty"`

	// Residue is the compaction whose residue the next prompt or tool call
	// hands over (WA-14); nil when none is due.
	Residue *ResidueDue `json:"residue,omitempty"`
	// Ownership is when the session started and the handoff blocks it
	// claimed (WA-30, owner.go).
	Ownership

	// WentOn says whether a tool call or a prompt came after the newest
	// PreCompact run (selectsnap SS-26, SS-27); wenton.go.
	WentOn *WentOn `json:"went_on,omitempty"`
}

// ResidueDue is a compaction whose residue is due (WA-14): the snapshot
// taken for it, when that was taken and how far the transcript reached
// then (the compaction's boundary is written after it), and when the note
// was made.
type ResidueDue struct {
	Snapshot       string    `json:"snapshot"`
	Taken          time.Time `json:"taken"`
	TranscriptSize int64     `json:"transcript_size"`
	Noted          time.Time `json:"noted"`
}

// Crossing is a threshold the fill reached in the current episode.
type Crossing struct {
	Tokens int64     `json:"tokens"`
	At     time.Time `json:"at"`
	Fill   int64     `json:"fill"`
	// Told is when the model was told of it (zero: not yet).
	Told time.Time `json:"told,omitempty"`
	// Blocked is when the Stop gate blocked for it.
	Blocked time.Time `json:"blocked,omitempty"`
}

// HandoffSeen is a handoff block as watch last saw it.
type HandoffSeen struct {
	Path     string    `json:"path"`
	Line     int       `json:"line"`
	Time     time.Time `json:"time"`
	Complete bool      `json:"complete"`
	Current  bool      `json:"current"`
	Seen     time.Time `json:"seen"`
}

// Pending is a compaction precompact ran for.
type Pending struct {
	At      time.Time `json:"at"`
	Trigger string    `json:"trigger"`
	// Snapshot is the snapshot written for it ("" when none could be).
	Snapshot string `json:"snapshot,omitempty"`
	// TranscriptSize is how far the transcript reached at precompact: the
	// compaction's boundary is written after it.
	TranscriptSize int64 `json:"transcript_size"`
}

// Fallback is a pointer handed over through UserPromptSubmit.
type Fallback struct {
	At       time.Time `json:"at"`
	Snapshot string    `json:"snapshot,omitempty"`
	Boundary int64     `json:"boundary"`
	Why      string    `json:"why"`
}

// Since is what a handoff must not be older than (HO-4): when the handoff
// threshold was crossed in the current episode (the earliest crossing's
// time), else the episode's start (the fill's fall after the last
// compaction), zero when neither is known. It does not depend on the
// thresholds watch runs with, which handoff --check does not know.
func (s *State) Since() time.Time {
	var t time.Time
	if s == nil {
		return t
	}
	for _, c := range s.Crossings {
		if t.IsZero() || c.At.Before(t) {
			t = c.At
		}
	}
	if t.IsZero() {
		t = s.Episode
	}
	return t
}

// Store is the folder of watch state files.
type Store struct {
	Dir string
	Now func() time.Time
}

// StoreFor is the store beside the snapshot folder snapshotDir.
func StoreFor(snapshotDir string) Store {
	return Store{Dir: filepath.Join(filepath.Dir(filepath.Clean(snapshotDir)), DirName)}
}

func (s Store) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Path is the session's state file: its sid8 for people and an FNV-1a hash
// of the whole id, so that sessions sharing a sid8 never share a file and
// nothing of the id but [A-Za-z0-9-] reaches the name (WA-8).
func (s Store) Path(sessionID string) string {
	h := fnv.New64a()
	h.Write([]byte(sessionID))
	return filepath.Join(s.Dir, snapshot.SID8(sessionID)+"_"+hex.EncodeToString(h.Sum(nil)[:6])+".json")
}

// ErrForeign is returned for a state file or folder another user owns or
// can write to: nothing in it is trusted (WA-8).
var ErrForeign = errors.New("not private to this user")

// Load returns the session's state; nil, nil when there is none. A file
// that is not a regular file, is larger than MaxStateBytes, is owned by
// another user or writable by others, sits in a folder others can write to,
// does not decode, has another schema or names another session is an error.
func (s Store) Load(sessionID string) (*State, error) {
	path := s.Path(sessionID)
	f, err := trust.OpenTrusted(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, trust.ErrUntrusted) {
		return nil, fmt.Errorf("watch state %s: %w (%v)", path, ErrForeign, err)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := trust.CheckPrivateDir(s.Dir); err != nil {
		return nil, fmt.Errorf("watch folder %s: %w (%v)", s.Dir, ErrForeign, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxStateBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxStateBytes {
		return nil, fmt.Errorf("watch state %s is larger than %d bytes", path, MaxStateBytes)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("watch state %s: %w", path, err)
	}
	if st.Schema != Schema {
		return nil, fmt.Errorf("watch state %s: schema %d, want %d", path, st.Schema, Schema)
	}
	if st.SessionID != sessionID {
		return nil, fmt.Errorf("watch state %s names another session", path)
	}
	return &st, nil
}

// Update runs change on the session's state (a new one when there is none
// or it cannot be used) while holding the session's lock, and writes the
// state back atomically when change reports a change (WA-8, WA-9); a state
// that could not be read is started anew and the error returned with it. Hooks of
// one session that run at once take turns; a lock older than lockStale is a
// crashed run's and is taken over. It returns the state as written, or as
// read when nothing changed.
func (s Store) Update(sessionID string, change func(*State) bool) (*State, error) {
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	unlock, err := s.lock(sessionID)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, lerr := s.Load(sessionID)
	fresh := st == nil
	if fresh {
		st = &State{Schema: Schema, SessionID: sessionID}
	}
	if !change(st) {
		return st, lerr
	}
	st.Schema, st.SessionID, st.Updated = Schema, sessionID, s.now().UTC()
	trim(st)
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := snapshot.WriteFileAtomic(s.Path(sessionID), append(data, '\n'), 0o600); err != nil {
		return nil, err
	}
	if fresh {
		s.prune(sessionID)
	}
	return st, lerr
}

// trim keeps the lists bounded, dropping the oldest entries.
func trim(st *State) {
	if n := len(st.Crossings); n > maxCrossings {
		st.Crossings = st.Crossings[n-maxCrossings:]
	}
	if n := len(st.Fallbacks); n > maxFallbacks {
		st.Fallbacks = st.Fallbacks[n-maxFallbacks:]
	}
	if st.Handoff != nil && len(st.Handoff.Path) > 4096 {
		st.Handoff.Path = st.Handoff.Path[:4096]
	}
}

// ensureDir makes the folder 0700 when missing and refuses one that is not
// this user's alone (SEC-14); an existing folder is never narrowed
// (SEC-15).
func (s Store) ensureDir() error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	if err := trust.CheckPrivateDir(s.Dir); err != nil {
		return fmt.Errorf("watch folder %s: %w (%v)", s.Dir, ErrForeign, err)
	}
	return nil
}

// lock takes the session's lock file, waiting up to lockWait for another
// run to release it. A lock older than lockStale is a crashed run's, and so
// is one dated more than lockAhead ahead of the clock: a run holds the lock
// for milliseconds, so its file is never that far from now unless the clock
// was ahead when a run that then crashed made it (WA-9).
func (s Store) lock(sessionID string) (func(), error) {
	path := s.LockPath(sessionID)
	deadline := time.Now().Add(lockWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			mine, serr := f.Stat()
			f.Close()
			return func() {
				// A run that took over a lock this run held too long
				// keeps its own.
				if fi, err := os.Lstat(path); err == nil && (serr != nil || os.SameFile(fi, mine)) {
					os.Remove(path)
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if fi, serr := os.Lstat(path); serr == nil && isStaleLock(fi, time.Now()) {
			takeOver(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("watch state of %s is locked by another run (%s)", snapshot.SID8(sessionID), path)
		}
		time.Sleep(wait)
	}
}

// isStaleLock reports whether a lock file is a crashed run's (WA-9).
func isStaleLock(fi fs.FileInfo, now time.Time) bool {
	age := now.Sub(fi.ModTime())
	return age > lockStale || age < -lockAhead
}

// takeOver removes a crashed run's lock. It moves the lock aside first and
// judges what it moved: when another run took the lock over meanwhile and
// made a fresh one, that one is put back (a link, which replaces nothing),
// so that two runs never both hold the lock through one takeover.
func takeOver(path string) {
	aside := strings.TrimSuffix(path, ".lock") + ".stale-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid()) + ".lock"
	if err := os.Rename(path, aside); err != nil {
		return
	}
	if fi, err := os.Lstat(aside); err == nil && !isStaleLock(fi, time.Now()) {
		os.Link(aside, path)
	}
	os.Remove(aside)
}

// prune removes state files, and locks, of sessions untouched for MaxAge;
// it runs when a session's first state is written, so a folder is listed
// once per session, not per hook.
func (s Store) prune(keep string) {
	des, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	own := filepath.Base(s.Path(keep))
	now := time.Now()
	for _, de := range des {
		n := de.Name()
		if n == own || !(strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".lock")) {
			continue
		}
		if fi, err := de.Info(); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > MaxAge {
			os.Remove(filepath.Join(s.Dir, n))
		}
	}
}
