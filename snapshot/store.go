package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/transcript"
)

// DefaultKeep is how many snapshots a Store keeps when Keep is not set.
const DefaultKeep = 40

// LatestFile names the file in the snapshot folder that describes the newest
// snapshot written. It is informational: nothing selects by it (SF-40).
const LatestFile = "latest.json"

// MaxRecordBytes bounds a record file that Load will read: records hold
// bounded lists, so anything larger is not one of ours.
const MaxRecordBytes = 4 << 20

// ConfirmWindow is how long before a PostCompact confirmation a snapshot may
// have been taken and still be the one of that compaction (SF-45).
const ConfirmWindow = 30 * time.Minute

// Hidden working files in the snapshot folder. They never match a snapshot
// name, so that no reader ever sees them as snapshots.
const (
	tempPrefix    = ".cg-tmp-"
	reservePrefix = ".cg-rsv-"
	// staleAfter is when a temp file or reservation left by a killed
	// process is removed: a Save holds them for milliseconds.
	staleAfter = 5 * time.Minute
	// orphanAfter is when a snapshot .md without its .json (a Save killed
	// between its two renames) is removed.
	orphanAfter = 10 * time.Minute
	maxSuffix   = 9999
)

var (
	// ErrNoSnapshot is returned by Confirm when the session has no snapshot
	// that can be the one of the compaction being confirmed.
	ErrNoSnapshot = errors.New("no snapshot of this session to confirm")
	// ErrAlreadyConfirmed is returned by Confirm when the snapshot already
	// records a completed compaction.
	ErrAlreadyConfirmed = errors.New("the snapshot is already confirmed")
)

// Store is a snapshot folder. The zero values of Keep and Now mean
// DefaultKeep and time.Now. Several processes may use one folder at once.
type Store struct {
	Dir  string
	Keep int
	Now  func() time.Time
}

// Entry is one snapshot in the folder: a snapshot name with a .json file.
type Entry struct {
	Name string
	Time time.Time
	SID8 string
	// JSONPath is the record; MDPath is its Markdown, "" when missing.
	JSONPath, MDPath string
	// Ahead is set when the name's time was more than MaxAhead ahead of
	// the clock when the folder was listed: it comes after the others
	// (SF-69).
	Ahead  bool
	suffix int
}

// Latest is the content of latest.json.
type Latest struct {
	Path    string    `json:"path"`
	Name    string    `json:"name"`
	Time    time.Time `json:"time"`
	Session string    `json:"session"`
	Cwd     string    `json:"cwd"`
	Trigger string    `json:"trigger"`
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) keep() int {
	if s.Keep > 0 {
		return s.Keep
	}
	return DefaultKeep
}

// Save writes r as <name>.md and <name>.json, updates latest.json and prunes
// the folder to the newest Keep snapshots. It sets r.Schema, r.Lang, r.Name
// (and r.CreatedAt when zero). An existing snapshot is never overwritten: the
// name takes the next free suffix. The .md is in place before the .json, and
// each is renamed into place only once complete and synced, so a snapshot
// exists (has a .json) only when both files are whole, whenever the process
// is killed (SF-30 to SF-36). What went wrong after the snapshot was in place
// (latest.json, pruning, syncing the folder) is returned as warnings.
func (s *Store) Save(r *Record, lang Lang) (mdPath string, warnings []string, err error) {
	if err := ensurePrivateDir(s.Dir); err != nil {
		return "", nil, fmt.Errorf("snapshot folder: %w", err)
	}
	warnings = append(warnings, s.cleanStale()...)

	if r.CreatedAt.IsZero() {
		r.CreatedAt = s.now().UTC()
	}
	r.Schema = SchemaVersion
	normaliseLists(r)
	if lang != Russian {
		lang = English
	}
	r.Lang = lang
	warnings = append(warnings, fitRecord(r)...)

	name, err := s.place(r, lang)
	if err != nil {
		r.Name = ""
		return "", warnings, err
	}
	if err := syncDir(s.Dir); err != nil {
		warnings = append(warnings, fmt.Sprintf("sync snapshot folder: %v", err))
	}
	mdPath = filepath.Join(s.Dir, name+".md")
	if err := s.writeLatest(r, mdPath); err != nil {
		warnings = append(warnings, fmt.Sprintf("update %s: %v", LatestFile, err))
	}
	warnings = append(warnings, s.prune(name)...)
	return mdPath, warnings, nil
}

// normaliseLists turns missing lists the schema declares as arrays into
// empty ones, so that readers never meet null (SF-4).
func normaliseLists(r *Record) {
	if r.Prompts == nil {
		r.Prompts = []transcript.Prompt{}
	}
	if r.Files == nil {
		r.Files = []transcript.FileEdit{}
	}
	if r.Commands == nil {
		r.Commands = []transcript.Command{}
	}
	if r.Failures == nil {
		r.Failures = []transcript.Failure{}
	}
	if r.StateFile.Searched == nil {
		r.StateFile.Searched = []string{}
	}
}

// place picks the first free name and moves the rendered files into place.
// A hidden reservation file, created with O_EXCL, makes the choice exclusive
// between processes; the final names are only ever reached by rename from a
// complete, synced temp file (SF-31, SF-32).
func (s *Store) place(r *Record, lang Lang) (string, error) {
	for suffix := 0; suffix <= maxSuffix; suffix++ {
		name := BaseName(r.CreatedAt, r.SessionID, suffix)
		taken, err := s.nameTaken(name)
		if err != nil {
			return "", err
		}
		if taken {
			continue
		}
		rsv := filepath.Join(s.Dir, reservePrefix+name)
		f, err := os.OpenFile(rsv, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("reserve snapshot name: %w", err)
		}
		f.Close()
		placed, err := s.placeReserved(r, lang, name)
		os.Remove(rsv)
		if err != nil {
			return "", err
		}
		if placed {
			return name, nil
		}
	}
	return "", fmt.Errorf("no free snapshot name for %s", BaseName(r.CreatedAt, r.SessionID, 0))
}

// placeReserved writes the snapshot under a name this process has reserved.
// It reports false when the name turned out to be taken after all.
func (s *Store) placeReserved(r *Record, lang Lang, name string) (bool, error) {
	// Another process may have finished with this name and dropped its
	// reservation between our first look and our reservation.
	if taken, err := s.nameTaken(name); err != nil || taken {
		return false, err
	}
	r.Name = name
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return false, fmt.Errorf("encode snapshot record: %w", err)
	}
	js = append(js, '\n')
	if len(js) > MaxRecordBytes {
		// fitRecord left it larger than Load reads: better no snapshot and
		// a failure marker than one that no reader can open.
		return false, fmt.Errorf("snapshot record is %d bytes, over the %d-byte limit", len(js), MaxRecordBytes)
	}
	md := RenderMarkdown(r, lang)

	mdTmp, err := writeTemp(s.Dir, md)
	if err != nil {
		return false, fmt.Errorf("write snapshot: %w", err)
	}
	jsTmp, err := writeTemp(s.Dir, js)
	if err != nil {
		os.Remove(mdTmp)
		return false, fmt.Errorf("write snapshot: %w", err)
	}
	mdPath := filepath.Join(s.Dir, name+".md")
	jsPath := filepath.Join(s.Dir, name+".json")
	if err := renameRetry(mdTmp, mdPath); err != nil {
		os.Remove(mdTmp)
		os.Remove(jsTmp)
		return false, fmt.Errorf("write snapshot: %w", err)
	}
	if err := renameRetry(jsTmp, jsPath); err != nil {
		os.Remove(mdPath)
		os.Remove(jsTmp)
		return false, fmt.Errorf("write snapshot: %w", err)
	}
	return true, nil
}

// nameTaken reports whether either file of a snapshot name exists, even an
// .md left alone by a killed process: such a name is never reused.
func (s *Store) nameTaken(name string) (bool, error) {
	for _, ext := range []string{".md", ".json"} {
		_, err := os.Lstat(filepath.Join(s.Dir, name+ext))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("snapshot folder: %w", err)
		}
	}
	return false, nil
}

// writeLatest replaces latest.json unless it already names a newer snapshot
// (another session saving at the same time). One dated more than MaxAhead
// ahead of the clock is not newer: it is replaced (SF-40, SF-69).
func (s *Store) writeLatest(r *Record, mdPath string) error {
	path := filepath.Join(s.Dir, LatestFile)
	if cur, err := readLatest(path); err == nil && cur.Time.After(r.CreatedAt) && !Ahead(cur.Time, s.now(), MaxAhead) {
		return nil
	}
	data, err := json.MarshalIndent(Latest{
		Path: mdPath, Name: r.Name, Time: r.CreatedAt.UTC(),
		Session: r.SessionID, Cwd: r.Cwd, Trigger: r.Trigger,
	}, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// Latest reads latest.json.
func (s *Store) Latest() (*Latest, error) {
	return readLatest(filepath.Join(s.Dir, LatestFile))
}

func readLatest(path string) (*Latest, error) {
	var l Latest
	if err := readJSONRecord(path, 1<<20, LatestFile, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// Entries lists the snapshots in the folder, newest first by the time in
// their names (then by suffix and name, so that the order is total), those
// dated more than MaxAhead ahead of the clock last (NewestFirst). Files
// that are not snapshot names, and snapshot names without a .json, are left
// out (SF-37, SF-69).
func (s *Store) Entries() ([]Entry, error) {
	if err := trust.CheckPrivateDir(s.Dir); err != nil {
		return nil, err
	}
	des, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, err
	}
	mds := map[string]bool{}
	var out []Entry
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		fn := de.Name()
		if base, ok := strings.CutSuffix(fn, ".md"); ok {
			mds[base] = true
			continue
		}
		base, ok := strings.CutSuffix(fn, ".json")
		if !ok {
			continue
		}
		n, ok := ParseName(base)
		if !ok {
			continue
		}
		out = append(out, Entry{Name: base, Time: n.Time, SID8: n.SID8, suffix: n.Suffix,
			JSONPath: filepath.Join(s.Dir, fn)})
	}
	now := s.now()
	for i := range out {
		if mds[out[i].Name] {
			out[i].MDPath = filepath.Join(s.Dir, out[i].Name+".md")
		}
		out[i].Ahead = Ahead(out[i].Time, now, MaxAhead)
	}
	sortEntries(out, now)
	return out, nil
}

func sortEntries(es []Entry, now time.Time) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if c := NewestFirst(Name{Time: a.Time, Suffix: a.suffix}, Name{Time: b.Time, Suffix: b.suffix}, now, MaxAhead); c != 0 {
			return c < 0
		}
		return a.Name > b.Name
	})
}

// Load reads and checks one record: the name must be a snapshot name, the
// folder and the file trusted (SEC-13, SEC-14), the file a regular file of
// at most MaxRecordBytes, the schema known, the recorded name equal to the
// file's and created_at within the second the name gives (SF-38, SEC-17).
func (s *Store) Load(name string) (*Record, error) {
	n, ok := ParseName(name)
	if !ok {
		return nil, fmt.Errorf("%q is not a snapshot name", name)
	}
	if err := trust.CheckPrivateDir(s.Dir); err != nil {
		return nil, err
	}
	var r Record
	if err := readJSONRecord(filepath.Join(s.Dir, name+".json"), MaxRecordBytes, "snapshot "+name, &r); err != nil {
		return nil, err
	}
	if r.Schema != SchemaVersion {
		return nil, fmt.Errorf("snapshot %s: unknown schema %d", name, r.Schema)
	}
	if r.Name != name {
		return nil, fmt.Errorf("snapshot %s: record names %q", name, r.Name)
	}
	if !NameTimeMatches(n, r.CreatedAt) {
		return nil, fmt.Errorf("snapshot %s: created_at %s is not the time in its name", name, r.CreatedAt.UTC().Format(time.RFC3339))
	}
	return &r, nil
}

// NameTimeMatches reports whether createdAt falls within the second that
// the snapshot name n gives: Save names a snapshot after its created_at,
// so a record claiming another time was not written as it says (SEC-17).
func NameTimeMatches(n Name, createdAt time.Time) bool {
	return createdAt.UTC().Truncate(time.Second).Equal(n.Time)
}

// sessionRecords calls fn with the session's readable records, newest first,
// until fn returns true. Records of other sessions that share the sid8 are
// skipped: the session id must be equal byte for byte.
func (s *Store) sessionRecords(sessionID string, fn func(Entry, *Record) bool) error {
	if sessionID == "" {
		return nil // without an id no record can be shown to be the session's
	}
	es, err := s.Entries()
	if err != nil {
		return err
	}
	sid8 := SID8(sessionID)
	for _, e := range es {
		if e.SID8 != sid8 {
			continue
		}
		r, err := s.Load(e.Name)
		if err != nil || r.SessionID != sessionID {
			continue
		}
		if fn(e, r) {
			return nil
		}
	}
	return nil
}

// FindChain returns the newest record of this session (sid8 from the name,
// then the session id byte for byte) made from the same transcript and
// covering it up to at most maxEnd, so that the next run can start reading
// there; nil, nil when there is none (SF-39). An incomplete record is
// skipped: its facts stop short of its transcript_size, and chaining from
// it would lose what lies between.
func (s *Store) FindChain(sessionID, transcriptPath string, maxEnd int64) (*Record, error) {
	var found *Record
	err := s.sessionRecords(sessionID, func(_ Entry, r *Record) bool {
		if r.TranscriptPath == transcriptPath && r.Coverage.TranscriptSize <= maxEnd && !r.Coverage.Incomplete {
			found = r
			return true
		}
		return false
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return found, err
}

// Confirm records in the snapshot named name, of session sessionID, that
// the compaction it was taken for completed (c): the .md is re-rendered and
// the .json rewritten, each atomically. Which snapshot belongs to the
// compaction is for the caller to decide (selectsnap); Confirm refuses, with
// ErrNoSnapshot, a record of another session, one taken more than
// ConfirmWindow before c.At or more than a minute after it, and one pruned
// meanwhile; with ErrAlreadyConfirmed one that is confirmed already (SF-45).
func (s *Store) Confirm(name, sessionID string, c CompactionConfirmation) error {
	if sessionID == "" {
		return ErrNoSnapshot
	}
	rec, err := s.Load(name)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s was removed", ErrNoSnapshot, name)
	}
	if err != nil {
		return err
	}
	if rec.SessionID != sessionID {
		return fmt.Errorf("%w: %s belongs to another session", ErrNoSnapshot, name)
	}
	if rec.Compaction != nil {
		return ErrAlreadyConfirmed
	}
	if age := c.At.Sub(rec.CreatedAt); age > ConfirmWindow || age < -time.Minute {
		return fmt.Errorf("%w: %s was taken %s before the compaction ended",
			ErrNoSnapshot, name, age.Round(time.Second))
	}
	c.At = c.At.UTC()
	rec.Compaction = &c
	if err := s.writeBoth(rec); err != nil {
		if errors.Is(err, ErrNoSnapshot) {
			return err
		}
		return fmt.Errorf("confirm snapshot: %w", err)
	}
	return nil
}

// ensurePrivateDir creates dir (and its missing parents) 0700 and accepts
// it, new or existing, only as trust.CheckPrivateDir does: a folder compact-guard
// did not create is never chmod-ed, through a symlink or not, so no sticky
// bit or project folder mode is ever changed (SF-33, SEC-15). Windows has
// no such mode bits: its folders inherit the profile's ACL.
func ensurePrivateDir(dir string) error {
	if dir == "" {
		return errors.New("no folder given")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return trust.CheckPrivateDir(dir)
}

// writeTemp writes data to a new hidden temp file in dir (mode 0600) and
// syncs it, so that a rename can publish it whole.
func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// renameRetry renames, retrying briefly on Windows, where a rename over a
// file another process has open fails until it closes it.
func renameRetry(from, to string) error {
	err := os.Rename(from, to)
	for i := 1; err != nil && runtime.GOOS == "windows" && i <= 5; i++ {
		time.Sleep(time.Duration(i) * 20 * time.Millisecond)
		err = os.Rename(from, to)
	}
	return err
}

// syncDir makes renames in dir durable. Windows cannot sync a folder handle;
// some file systems refuse to, which is not worth a warning.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
