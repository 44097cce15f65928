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
	"sort"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
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
	// LastBoundary is the offset of the last compact_boundary line, -1 when
	// there is none.
	LastBoundary(ctx context.Context) (int64, error)
	// BoundaryIn reports whether a compact_boundary line starts within
	// [from, to).
	BoundaryIn(ctx context.Context, from, to int64) (bool, error)
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
	// TranscriptPath is the payload's transcript_path; when it and
	// Transcript are set, a record made from another transcript is rejected.
	TranscriptPath string
}

// Choice is the selected snapshot.
type Choice struct {
	Record   *snapshot.Record
	MDPath   string
	JSONPath string
	// Unverified says why the compaction check was not made; empty when it
	// was made and passed.
	Unverified string
}

// Rejection is a snapshot of the session that was not chosen, and why; for
// logs and doctor.
type Rejection struct {
	Name   string
	Reason string
}

// openFile is swapped by tests to count which files selection opens. It
// opens only a regular file, and never blocks: a .json swapped for a FIFO
// after the folder was listed would otherwise hang the hook.
var openFile = func(name string) (io.ReadCloser, error) { return snapshot.OpenRegular(name) }

type candidate struct {
	base string
	name snapshot.Name
	md   bool
}

// Select returns the session's newest snapshot that passes every check, or
// nil when there is none. Rejections list the session's snapshots examined
// and turned down, newest first. The error is set only when the folder
// cannot be listed (a missing folder is not an error), the context ends or
// SessionID is empty.
func Select(ctx context.Context, o Options) (*Choice, []Rejection, error) {
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
	entries, err := readDirUnsorted(o.Dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read snapshot folder: %w", err)
	}

	sid8 := snapshot.SID8(o.SessionID)
	marker := "_" + sid8
	var cands []candidate
	md := map[string]bool{}
	var rejected []Rejection
	for _, e := range entries {
		n := e.Name()
		// Cheap string tests first: the folder may hold many unrelated
		// files and other sessions' snapshots.
		if !strings.HasPrefix(n, snapshot.NamePrefix) || !strings.Contains(n, marker) {
			continue
		}
		var base string
		var isMD bool
		switch {
		case strings.HasSuffix(n, ".json"):
			base = strings.TrimSuffix(n, ".json")
		case strings.HasSuffix(n, ".md"):
			base, isMD = strings.TrimSuffix(n, ".md"), true
		default:
			continue
		}
		sn, ok := snapshot.ParseName(base)
		if !ok || sn.SID8 != sid8 {
			continue
		}
		if isMD {
			md[base] = e.Type().IsRegular()
			continue
		}
		if !e.Type().IsRegular() {
			rejected = append(rejected, Rejection{base, "not a regular file"})
			continue
		}
		cands = append(cands, candidate{base: base, name: sn})
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i].name, cands[j].name
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return a.Suffix > b.Suffix
	})

	cc := compactionCheck{t: o.Transcript, path: o.TranscriptPath}
	for i, c := range cands {
		if err := ctx.Err(); err != nil {
			return nil, rejected, err
		}
		if age := o.Now.Sub(c.name.Time); age > o.MaxAge {
			rejected = append(rejected, Rejection{c.base, fmt.Sprintf("older than %s (%s)", o.MaxAge, age.Truncate(time.Second))})
			continue
		}
		if ahead := c.name.Time.Sub(o.Now); ahead > o.MaxFuture {
			rejected = append(rejected, Rejection{c.base, fmt.Sprintf("%s in the future (more than %s)", ahead.Truncate(time.Second), o.MaxFuture)})
			continue
		}
		jsonPath := filepath.Join(o.Dir, c.base+".json")
		rec, reason := readRecord(jsonPath, c.base, o.SessionID)
		if reason == "" {
			if isReg, ok := md[c.base]; !ok {
				reason = "no .md file"
			} else if !isReg {
				reason = ".md is not a regular file"
			}
		}
		if reason != "" {
			rejected = append(rejected, Rejection{c.base, reason})
			continue
		}
		reason, earlier, err := cc.check(ctx, rec)
		if err != nil {
			return nil, rejected, err
		}
		if reason != "" {
			rejected = append(rejected, Rejection{c.base, reason})
			if earlier {
				// Snapshots older than one taken before an earlier
				// compaction belong to that compaction or one before it.
				for _, older := range cands[i+1:] {
					rejected = append(rejected, Rejection{older.base, "older than " + c.base + ", which predates an earlier compaction"})
				}
				return nil, rejected, nil
			}
			continue
		}
		return &Choice{
			Record:     rec,
			MDPath:     filepath.Join(o.Dir, c.base+".md"),
			JSONPath:   jsonPath,
			Unverified: cc.skipped,
		}, rejected, nil
	}
	return nil, rejected, nil
}

// readRecord reads and checks one .json file; the reason is empty when the
// record is usable.
func readRecord(path, base, sessionID string) (*snapshot.Record, string) {
	f, err := openFile(path)
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
	return &rec, ""
}

// compactionCheck tells a snapshot of the compaction that just happened
// from one of an earlier compaction, asking the transcript for the last
// boundary only once and only when a record gets that far.
type compactionCheck struct {
	t       Transcript
	path    string
	asked   bool
	last    int64
	skipped string
}

// check returns a reason when rec must be rejected; earlier is set when rec
// predates an earlier compaction's boundary, which condemns older ones too.
// A transcript error other than the context's skips the check, as an
// unreadable transcript does.
func (c *compactionCheck) check(ctx context.Context, rec *snapshot.Record) (reason string, earlier bool, err error) {
	if c.t == nil {
		c.skipped = "transcript not readable"
		return "", false, nil
	}
	if !c.asked {
		c.asked = true
		c.last, err = c.t.LastBoundary(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return "", false, ctx.Err()
			}
			c.t, c.skipped = nil, "transcript: "+err.Error()
			return "", false, nil
		}
	}
	if c.path != "" && !samePath(rec.TranscriptPath, c.path) {
		return fmt.Sprintf("made from another transcript (%q)", rec.TranscriptPath), false, nil
	}
	if c.last < 0 {
		// A SessionStart(compact) normally follows the boundary; with none
		// written (a lagging transcript, a changed format) the check cannot
		// be made, and the session and age checks stand alone.
		c.skipped = "no compact_boundary in the transcript"
		return "", false, nil
	}
	size := rec.Coverage.TranscriptSize
	if size > c.last {
		return fmt.Sprintf("covers the transcript up to %d, past the last compaction boundary at %d", size, c.last), false, nil
	}
	in, err := c.t.BoundaryIn(ctx, size, c.last)
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		c.t, c.skipped = nil, "transcript: "+err.Error()
		return "", false, nil
	}
	if in {
		return fmt.Sprintf("taken for an earlier compaction (a boundary lies between %d and %d)", size, c.last), true, nil
	}
	return "", false, nil
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
