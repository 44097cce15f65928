package snapshot

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// FailureDirName is the folder, next to the snapshot folder, that holds
// failure markers. They live outside the snapshot folder because that folder
// may be what failed (SF-50).
const FailureDirName = "failures"

// maxMarkerBytes bounds a marker file that ReadFailure reads.
const maxMarkerBytes = 64 << 10

// markerMaxAge is when WriteFailure removes other sessions' markers: the
// restore hook only reports a marker of the compaction that just happened.
const markerMaxAge = 7 * 24 * time.Hour

// Failure is the marker precompact leaves when it could not write a
// snapshot, so that postcompact can say so.
type Failure struct {
	SessionID string    `json:"session_id"`
	Time      time.Time `json:"time"`
	Reason    string    `json:"reason"`
	LogPath   string    `json:"log_path"`
	// LogError is set when the log at LogPath could not be written, with
	// why: the notice then says that no log was written, and where it was
	// tried (RB-26).
	LogError string `json:"log_error,omitempty"`
	// TranscriptSize is how far the transcript reached when precompact ran,
	// so that postcompact can tell which compaction the marker is about.
	TranscriptSize int64 `json:"transcript_size"`
	// PromptID is the payload's prompt_id, when it had one: selection tells
	// the compaction the marker is about by it too.
	PromptID string `json:"prompt_id,omitempty"`
}

// FailureDirs returns where markers for snapshotDir are kept: the folder
// above it (where the log lives), and, when that cannot be written, a
// per-user folder in os.TempDir() (SF-50, SF-52).
func FailureDirs(snapshotDir string) (primary, fallback string) {
	primary = filepath.Join(filepath.Dir(filepath.Clean(snapshotDir)), FailureDirName)
	fallback = filepath.Join(os.TempDir(), "compact-guard-"+userTag())
	return primary, fallback
}

// MarkerName is the marker's file name: the sid8 for people, and a hash of
// the whole session id so that sessions sharing a sid8 never share a marker.
// Nothing of the id but [A-Za-z0-9-] reaches the name (SF-51). The hash is
// FNV-1a: telling sessions apart needs no cryptographic hash, and
// crypto/sha256 would link the FIPS module, whose initialisation every
// process pays (PF-16).
func MarkerName(sessionID string) string {
	h := fnv.New64a()
	h.Write([]byte(sessionID))
	return "fail_" + SID8(sessionID) + "_" + hex.EncodeToString(h.Sum(nil)[:6]) + ".json"
}

// WriteFailure leaves the marker for f.SessionID, replacing an earlier one.
// It tries the folder above the snapshot folder, then the per-user folder in
// os.TempDir(); the error says why both failed.
func WriteFailure(snapshotDir string, f Failure) error {
	if f.Time.IsZero() {
		f.Time = time.Now()
	}
	f.Time = f.Time.UTC()
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	primary, fallback := FailureDirs(snapshotDir)
	name := MarkerName(f.SessionID)
	err1 := writeMarker(primary, name, data)
	if err1 == nil {
		return nil
	}
	if err2 := writeMarker(fallback, name, data); err2 != nil {
		return fmt.Errorf("write failure marker: %w", errors.Join(err1, err2))
	}
	return nil
}

// writeMarker writes the marker into dir, making dir 0700 when missing.
// dir is used only when it is a real folder of this user's closed to others
// and its own folder is one others cannot swap entries in (SEC-14); an
// existing folder is never chmod-ed (SEC-15).
func writeMarker(dir, name string, data []byte) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	if err := trust.CheckSharedDir(parent); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if err := trust.CheckPrivateDirNoFollow(dir); err != nil {
		return err
	}
	now := time.Now()
	cleanStaleIn(dir, now)
	removeOldMarkers(dir, now)
	return WriteFileAtomic(filepath.Join(dir, name), data, 0o600)
}

// ReadFailure returns the session's marker, the newer one when both folders
// hold one; nil when there is none. A marker counts only when it, its
// folder and the folder above pass the trust checks (SEC-13, SEC-14), so
// that another user cannot plant text for the pointer. The error says why
// a marker found was not used; it may come with a marker that was.
func ReadFailure(snapshotDir, sessionID string) (*Failure, error) {
	primary, fallback := FailureDirs(snapshotDir)
	name := MarkerName(sessionID)
	var best *Failure
	var errs []error
	for _, dir := range []string{primary, fallback} {
		path := filepath.Join(dir, name)
		if _, err := os.Lstat(path); err != nil {
			continue // no marker there (or no folder, or a file in its place)
		}
		err := trust.CheckSharedDir(filepath.Dir(dir))
		if err == nil {
			err = trust.CheckPrivateDirNoFollow(dir)
		}
		var f Failure
		if err == nil {
			err = readJSONRecord(path, maxMarkerBytes, "", &f)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("failure marker %s: %w", path, err))
			continue
		}
		if f.SessionID != sessionID {
			continue
		}
		if best == nil || f.Time.After(best.Time) {
			best = &f
		}
	}
	return best, errors.Join(errs...)
}

// ClearFailure removes the session's markers, after a snapshot was written.
func ClearFailure(snapshotDir, sessionID string) {
	primary, fallback := FailureDirs(snapshotDir)
	name := MarkerName(sessionID)
	os.Remove(filepath.Join(primary, name))
	os.Remove(filepath.Join(fallback, name))
}

func removeOldMarkers(dir string, now time.Time) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, de := range des {
		n := de.Name()
		if !strings.HasPrefix(n, "fail_") || !strings.HasSuffix(n, ".json") {
			continue
		}
		if fi, err := de.Info(); err == nil && now.Sub(fi.ModTime()) > markerMaxAge {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// userTag names this user in the shared temp folder: the uid where there is
// one, else the user name reduced to safe characters.
func userTag() string {
	if uid := os.Getuid(); uid >= 0 {
		return strconv.Itoa(uid)
	}
	name := os.Getenv("USERNAME")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
		if b.Len() >= 32 {
			break
		}
	}
	if s := strings.Trim(b.String(), "."); s != "" {
		return s
	}
	return "user"
}
