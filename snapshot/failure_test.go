package snapshot

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// isolateTemp points os.TempDir() at a fresh folder, so that the fallback
// folder of these tests is their own.
func isolateTemp(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	if runtime.GOOS == "windows" {
		t.Setenv("TMP", tmp)
		t.Setenv("TEMP", tmp)
	} else {
		t.Setenv("TMPDIR", tmp)
	}
	return tmp
}

// spec: SF-50
func TestFailureMarkerRoundTrip(t *testing.T) {
	isolateTemp(t)
	snapDir := filepath.Join(t.TempDir(), "state", "snapshots")
	const sid = "5b7c0d2e-aaaa-bbbb-cccc-000000000001"
	if f, err := ReadFailure(snapDir, sid); f != nil || err != nil {
		t.Fatalf("no marker: %v %v", f, err)
	}
	want := Failure{SessionID: sid, Time: t0, Reason: "snapshot folder: mkdir: not a directory",
		LogPath: "/x/compact-guard.log", TranscriptSize: 1234}
	if err := WriteFailure(snapDir, want); err != nil {
		t.Fatal(err)
	}
	primary, _ := FailureDirs(snapDir)
	if primary != filepath.Join(filepath.Dir(snapDir), FailureDirName) {
		t.Fatalf("primary folder %s", primary)
	}
	if _, err := os.Stat(snapDir); err == nil {
		t.Fatal("writing a marker created the snapshot folder")
	}
	des, _ := os.ReadDir(primary)
	if len(des) != 1 {
		t.Fatalf("marker folder holds %d files", len(des))
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(filepath.Join(primary, des[0].Name()))
		di, _ := os.Stat(primary)
		if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
			t.Errorf("modes %v %v", fi.Mode(), di.Mode())
		}
	}
	got, err := ReadFailure(snapDir, sid)
	if err != nil || got == nil || *got != want {
		t.Fatalf("ReadFailure = %+v, %v; want %+v", got, err, want)
	}
	ClearFailure(snapDir, sid)
	if f, err := ReadFailure(snapDir, sid); f != nil || err != nil {
		t.Fatalf("after Clear: %v %v", f, err)
	}
}

// spec: SF-51
func TestFailureMarkerNames(t *testing.T) {
	isolateTemp(t)
	snapDir := filepath.Join(t.TempDir(), "snapshots")
	primary, _ := FailureDirs(snapDir)
	safe := regexp.MustCompile(`^fail_[A-Za-z0-9-]{1,8}_[0-9a-f]{12}\.json$`)
	ids := []string{
		"../../etc/passwd", "/abs/path", `..\..\win`, "nul\x00byte", strings.Repeat("x", 10<<10),
		"🙂🙂", "", ".", "..", "CON", "same-sid8-one", "same-sid8-two",
	}
	for i, id := range ids {
		if err := WriteFailure(snapDir, Failure{SessionID: id, Time: t0.Add(time.Duration(i) * time.Second), Reason: id}); err != nil {
			t.Fatalf("%q: %v", id, err)
		}
	}
	des, _ := os.ReadDir(primary)
	if len(des) != len(ids) {
		t.Fatalf("%d markers for %d sessions", len(des), len(ids))
	}
	for _, de := range des {
		if !safe.MatchString(de.Name()) {
			t.Errorf("unsafe marker name %q", de.Name())
		}
	}
	for _, id := range ids {
		f, err := ReadFailure(snapDir, id)
		if err != nil || f == nil || f.Reason != id {
			t.Errorf("%q: read back %+v, %v", id, f, err)
		}
	}
	// Nothing outside the marker folder.
	parent, _ := os.ReadDir(filepath.Dir(primary))
	if len(parent) != 1 {
		t.Errorf("files written next to the marker folder: %v", parent)
	}
}

// spec: SF-52
func TestFailureMarkerFallback(t *testing.T) {
	tmp := isolateTemp(t)
	base := t.TempDir()
	snapDir := filepath.Join(base, "snapshots")
	// A regular file where the marker folder would go.
	os.WriteFile(filepath.Join(base, FailureDirName), []byte("x"), 0o600)
	const sid = "fallback-session"
	if err := WriteFailure(snapDir, Failure{SessionID: sid, Time: t0, Reason: "disk full"}); err != nil {
		t.Fatal(err)
	}
	_, fallback := FailureDirs(snapDir)
	if filepath.Dir(fallback) != tmp || !strings.HasPrefix(filepath.Base(fallback), "compact-guard-") {
		t.Fatalf("fallback %s is not in %s", fallback, tmp)
	}
	if _, err := os.Stat(filepath.Join(fallback, MarkerName(sid))); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFailure(snapDir, sid)
	if err != nil || f == nil || f.Reason != "disk full" {
		t.Fatalf("ReadFailure = %+v %v", f, err)
	}

	// With markers in both places the newer wins.
	os.Remove(filepath.Join(base, FailureDirName))
	if err := WriteFailure(snapDir, Failure{SessionID: sid, Time: t0.Add(-time.Minute), Reason: "older"}); err != nil {
		t.Fatal(err)
	}
	if f, _ := ReadFailure(snapDir, sid); f == nil || f.Reason != "disk full" {
		t.Fatalf("newer marker lost: %+v", f)
	}
	ClearFailure(snapDir, sid)
	if f, err := ReadFailure(snapDir, sid); f != nil || err != nil {
		t.Fatalf("Clear left %+v %v", f, err)
	}
}

// spec: SF-52, SEC-14, SEC-15
func TestFailureFallbackMustBeOwn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the temp folder is per user on Windows")
	}
	isolateTemp(t)
	base := t.TempDir()
	snapDir := filepath.Join(base, "snapshots")
	os.WriteFile(filepath.Join(base, FailureDirName), []byte("x"), 0o600)
	_, fallback := FailureDirs(snapDir)
	const sid = "planted-session"

	// A symlink planted where the fallback folder goes is refused.
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, fallback); err != nil {
		t.Fatal(err)
	}
	if err := WriteFailure(snapDir, Failure{SessionID: sid, Reason: "x"}); err == nil {
		t.Fatal("wrote through a planted symlink")
	}
	if des, _ := os.ReadDir(elsewhere); len(des) != 0 {
		t.Fatal("a file was written through the symlink")
	}
	os.Remove(fallback)

	// A marker in a folder others can write to is not believed.
	os.Mkdir(fallback, 0o700)
	os.WriteFile(filepath.Join(fallback, MarkerName(sid)), []byte(`{"session_id":"planted-session","reason":"planted"}`), 0o600)
	os.Chmod(fallback, 0o777)
	if f, err := ReadFailure(snapDir, sid); f != nil || !errors.Is(err, trust.ErrUntrusted) {
		t.Fatalf("believed a marker in a world-writable folder: %+v %v", f, err)
	}
	// Nor is it written to, or narrowed: compact-guard changes no folder
	// mode (SEC-15).
	if err := WriteFailure(snapDir, Failure{SessionID: sid, Reason: "real"}); err == nil {
		t.Fatal("wrote into a world-writable fallback folder")
	}
	if fi, _ := os.Stat(fallback); fi.Mode().Perm() != 0o777 {
		t.Fatalf("fallback mode changed to %v", fi.Mode())
	}
	os.Chmod(fallback, 0o700)
	if err := WriteFailure(snapDir, Failure{SessionID: sid, Reason: "real"}); err != nil {
		t.Fatal(err)
	}
	if f, _ := ReadFailure(snapDir, sid); f == nil || f.Reason != "real" {
		t.Fatalf("ReadFailure = %+v", f)
	}

	if os.Getuid() != 0 {
		return // only root can give the folder to another user
	}
	if err := os.Chown(fallback, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if f, err := ReadFailure(snapDir, sid); f != nil || err == nil {
		t.Fatalf("believed a marker in another user's folder: %+v %v", f, err)
	}
	if err := WriteFailure(snapDir, Failure{SessionID: sid, Reason: "x"}); err == nil {
		t.Fatal("wrote into another user's folder")
	}
}

// spec: SF-50
func TestFailureOldMarkersRemoved(t *testing.T) {
	isolateTemp(t)
	snapDir := filepath.Join(t.TempDir(), "snapshots")
	primary, _ := FailureDirs(snapDir)
	WriteFailure(snapDir, Failure{SessionID: "old-one", Reason: "x"})
	old := filepath.Join(primary, MarkerName("old-one"))
	past := time.Now().Add(-markerMaxAge - time.Hour)
	os.Chtimes(old, past, past)
	WriteFailure(snapDir, Failure{SessionID: "new-one", Reason: "y"})
	if _, err := os.Lstat(old); err == nil {
		t.Fatal("week-old marker kept")
	}
	if f, _ := ReadFailure(snapDir, "new-one"); f == nil {
		t.Fatal("new marker missing")
	}
}

// spec: SF-50, SEC-14, SEC-15
// An existing failures folder others can write to (say /tmp/failures made
// group-writable) is neither narrowed nor used: the marker goes to the
// per-user fallback. One others can only read (0755) is used as it is.
func TestWriteFailureLeavesForeignFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX modes")
	}
	for _, tc := range []struct {
		mode    os.FileMode
		primary bool
	}{{0o775, false}, {0o757, false}, {0o755, true}, {0o750, true}} {
		t.Run(fmt.Sprintf("%04o", tc.mode), func(t *testing.T) {
			tmp := isolateTemp(t)
			parent := filepath.Join(tmp, "shared")
			primary, fallback := FailureDirs(filepath.Join(parent, "snaps"))
			if err := os.MkdirAll(primary, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(primary, tc.mode); err != nil {
				t.Fatal(err)
			}
			if err := WriteFailure(filepath.Join(parent, "snaps"), Failure{SessionID: "s-1", Reason: "r"}); err != nil {
				t.Fatal(err)
			}
			if fi, _ := os.Stat(primary); fi.Mode().Perm() != tc.mode {
				t.Errorf("existing folder changed to %v", fi.Mode().Perm())
			}
			inPrimary, _ := filepath.Glob(filepath.Join(primary, "fail_*.json"))
			inFallback, _ := filepath.Glob(filepath.Join(fallback, "fail_*.json"))
			if tc.primary && (len(inPrimary) != 1 || len(inFallback) != 0) {
				t.Errorf("markers %v in the failures folder, %v in the fallback: want the failures folder used", inPrimary, inFallback)
			}
			if !tc.primary && (len(inPrimary) != 0 || len(inFallback) != 1) {
				t.Errorf("markers %v in a failures folder others can write to, %v in the fallback", inPrimary, inFallback)
			}
			if f, err := ReadFailure(filepath.Join(parent, "snaps"), "s-1"); err != nil || f == nil {
				t.Errorf("ReadFailure = %v, %v", f, err)
			}
		})
	}
}
