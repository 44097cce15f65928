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
	"runtime"
	"strconv"
	"strings"
	"time"
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

// markerName is the marker's file name: the sid8 for people, and a hash of
// the whole session id so that sessions sharing a sid8 never share a marker.
// Nothing of the id but [A-Za-z0-9-] reaches the name (SF-51). The hash is
// FNV-1a: telling sessions apart needs no cryptographic hash, and
// crypto/sha256 would link the FIPS module, whose initialisation every
// process pays (PF-16).
func markerName(sessionID string) string {
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
	name := markerName(f.SessionID)
	err1 := writeMarker(primary, name, data, false)
	if err1 == nil {
		return nil
	}
	if err2 := writeMarker(fallback, name, data, true); err2 != nil {
		return fmt.Errorf("write failure marker: %w", errors.Join(err1, err2))
	}
	return nil
}

func writeMarker(dir, name string, data []byte, shared bool) error {
	if shared {
		if err := ensureOwnDir(dir, true); err != nil {
			return err
		}
	} else {
		// The folder above the snapshot folder may be anyone's (--dir
		// /tmp/x): make ours 0700 when missing, never narrow an existing one,
		// and use it only when it is this user's and closed to others.
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := ensureOwnDir(dir, false); err != nil {
			return err
		}
	}
	now := time.Now()
	cleanStaleIn(dir, now)
	removeOldMarkers(dir, now)
	return WriteFileAtomic(filepath.Join(dir, name), data, 0o600)
}

// ReadFailure returns the session's marker, the newer one when both folders
// hold one; nil, nil when there is none. A marker in the shared temp folder
// counts only when that folder belongs to this user and no one else can
// write to it, so that another user cannot plant text for the pointer.
func ReadFailure(snapshotDir, sessionID string) (*Failure, error) {
	primary, fallback := FailureDirs(snapshotDir)
	name := markerName(sessionID)
	var best *Failure
	var errs []error
	for _, dir := range []string{primary, fallback} {
		path := filepath.Join(dir, name)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if dir == fallback {
			if err := ensureOwnDir(dir, false); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		data, err := readRegular(path, maxMarkerBytes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var f Failure
		if err := json.Unmarshal(data, &f); err != nil {
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
	if best != nil {
		return best, nil
	}
	return nil, errors.Join(errs...)
}

// ClearFailure removes the session's markers, after a snapshot was written.
func ClearFailure(snapshotDir, sessionID string) {
	primary, fallback := FailureDirs(snapshotDir)
	name := markerName(sessionID)
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

// ensureOwnDir checks a folder in a place others can write to (the temp
// folder): it must be a real folder, not a symlink, owned by this user, and
// closed to others. With create it is made (0700) when missing and narrowed
// to 0700 when it is this user's but open to others.
func ensureOwnDir(dir string, create bool) error {
	if create {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if !ownedByMe(fi) {
		return fmt.Errorf("%s belongs to another user", dir)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		if !create {
			return fmt.Errorf("%s is open to other users", dir)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
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
