package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
	"github.com/compact-guard/compact-guard/transcript"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{Dir: filepath.Join(t.TempDir(), "snapshots"), Now: func() time.Time { return t0.Add(time.Hour) }}
}

// rec is a small record of a session at a time; marker goes to PromptID so
// that a test can tell records apart after the fact.
func rec(session string, at time.Time, marker string) *Record {
	r := minimalRecord()
	r.Name = ""
	r.SessionID = session
	r.CreatedAt = at
	r.PromptID = marker
	r.TranscriptPath = "/t/" + session + ".jsonl"
	return r
}

func mustSave(t testing.TB, s *Store, r *Record, lang Lang) string {
	t.Helper()
	md, warns, err := s.Save(r, lang)
	if err != nil {
		t.Fatalf("Save: %v", err)
	}
	for _, w := range warns {
		t.Logf("warning: %s", w)
	}
	return md
}

// prefill writes n snapshots of distinct sessions, the first at newest and
// each a minute older, straight through Save.
func prefill(t testing.TB, s *Store, n int, newest time.Time) []string {
	t.Helper()
	var names []string
	for i := 0; i < n; i++ {
		r := rec(fmt.Sprintf("pre%05d-session", i), newest.Add(-time.Duration(i)*time.Minute), "pre")
		mustSave(t, s, r, English)
		names = append(names, r.Name)
	}
	return names
}

// spec: SF-30, SF-33, SF-35
func TestSaveWritesBothFiles(t *testing.T) {
	s := newStore(t)
	r := fullRecord()
	r.Schema, r.Name = 0, ""
	md, warns, err := s.Save(r, Russian)
	if err != nil || len(warns) != 0 {
		t.Fatalf("Save: %v %v", err, warns)
	}
	want := BaseName(t0, r.SessionID, 0)
	if r.Name != want || r.Schema != SchemaVersion || r.Lang != Russian {
		t.Fatalf("record not stamped: name %q schema %d lang %q", r.Name, r.Schema, r.Lang)
	}
	if md != filepath.Join(s.Dir, want+".md") {
		t.Fatalf("md path %q", md)
	}
	gotMD, err := os.ReadFile(md)
	if err != nil || !bytes.Equal(gotMD, RenderMarkdown(r, Russian)) {
		t.Fatalf("md differs from the rendering (%v)", err)
	}
	loaded, err := s.Load(want)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(loaded)
	b, _ := json.Marshal(r)
	if !bytes.Equal(a, b) {
		t.Fatalf("record does not round-trip:\n%s\n%s", a, b)
	}
	if runtime.GOOS != "windows" {
		for _, p := range []string{md, filepath.Join(s.Dir, want+".json"), filepath.Join(s.Dir, LatestFile)} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, %v", p, fi.Mode(), err)
			}
		}
		if fi, _ := os.Stat(s.Dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("folder mode %v", fi.Mode())
		}
	}
	if left := hidden(t, s.Dir); len(left) != 0 {
		t.Errorf("working files left behind: %v", left)
	}
}

func hidden(t *testing.T, dir string) []string {
	t.Helper()
	des, _ := os.ReadDir(dir)
	var out []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), ".") {
			out = append(out, de.Name())
		}
	}
	return out
}

// An existing snapshot folder others can write to is refused, never
// chmod-ed, whether it is given directly or through a symlink, and a sticky
// bit stays; one others can only read (mkdir ~/snaps under umask 022) is
// used as it is, mode unchanged; the folders Save creates are 0700.
// spec: SF-33, SEC-14, SEC-15
func TestSaveLeavesExistingFolders(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes on Windows")
	}
	for _, tc := range []struct {
		name string
		mode os.FileMode
		link bool
		ok   bool
	}{
		{"0755", 0o755, false, true},
		{"0750", 0o750, false, true},
		{"0711", 0o711, false, true},
		{"symlink-to-0755", 0o755, true, true},
		{"0775", 0o775, false, false},
		{"0757", 0o757, false, false},
		{"0777-sticky", 0o777 | os.ModeSticky, false, false},
		{"symlink-to-0775", 0o775, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			real := filepath.Join(base, "real")
			if err := os.Mkdir(real, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(real, tc.mode); err != nil {
				t.Fatal(err)
			}
			dir := real
			if tc.link {
				dir = filepath.Join(base, "link")
				if err := os.Symlink(real, dir); err != nil {
					t.Fatal(err)
				}
			}
			s := &Store{Dir: dir}
			_, _, err := s.Save(rec("sess-mode", t0, ""), English)
			switch {
			case tc.ok && err != nil:
				t.Fatalf("Save into a %s folder: %v, want it used: only write access matters", tc.name, err)
			case !tc.ok && (!errors.Is(err, trust.ErrUntrusted) || !strings.Contains(err.Error(), "group or others can write to it")):
				t.Fatalf("Save into a %s folder: %v, want a refusal naming the mode", tc.name, err)
			}
			fi, _ := os.Stat(real)
			if got := fi.Mode() & (os.ModePerm | os.ModeSticky); got != tc.mode {
				t.Errorf("folder mode changed from %v to %v", tc.mode, got)
			}
			es, _ := os.ReadDir(real)
			if !tc.ok && len(es) != 0 {
				t.Errorf("files written into a refused folder: %v", es)
			}
			if tc.ok {
				if got, err := s.Entries(); err != nil || len(got) != 1 {
					t.Errorf("Entries of a %s folder: %v, %v, want the snapshot", tc.name, got, err)
				}
			}
		})
	}
	t.Run("created", func(t *testing.T) {
		base := t.TempDir()
		s := &Store{Dir: filepath.Join(base, "a", "b")}
		if _, _, err := s.Save(rec("sess-mode", t0, ""), English); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{filepath.Join(base, "a"), s.Dir} {
			if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
				t.Errorf("%s created with mode %v, want 0700", d, fi.Mode().Perm())
			}
		}
	})
}

// A private folder inside one others can write to without the sticky bit
// is refused: they could rename it and put their own in its place. Above a
// sticky folder (/tmp) it is used. The check goes up to the root, symlinks
// resolved first, as OpenSSH's StrictModes checks a path's components.
// spec: SEC-14
func TestSaveChecksTheFoldersAbove(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX modes on Windows")
	}
	for _, tc := range []struct {
		name string
		mode os.FileMode
		ok   bool
	}{
		{"0777", 0o777, false},
		{"0770", 0o770, false},
		{"1777", 0o777 | os.ModeSticky, true},
		{"0755", 0o755, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared := filepath.Join(t.TempDir(), "shared")
			snaps := filepath.Join(shared, "me", "snaps")
			if err := os.MkdirAll(snaps, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(shared, tc.mode); err != nil {
				t.Fatal(err)
			}
			// Reached through a symlink in a private folder, the folder is
			// judged where it really is.
			link := filepath.Join(t.TempDir(), "link")
			if err := os.Symlink(filepath.Join(shared, "me"), link); err != nil {
				t.Fatal(err)
			}
			for _, dir := range []string{snaps, filepath.Join(link, "snaps")} {
				s := &Store{Dir: dir}
				_, _, err := s.Save(rec("sess-above", t0, ""), English)
				if tc.ok {
					if err != nil {
						t.Errorf("Save into %s under a %s folder: %v", dir, tc.name, err)
					}
					continue
				}
				if !errors.Is(err, trust.ErrUntrusted) || !strings.Contains(err.Error(), shared+", a folder above it, can be written to by group or others and is not sticky") {
					t.Errorf("Save into %s under a %s folder: %v, want a refusal naming %s", dir, tc.name, err, shared)
				}
				if _, err := s.Entries(); !errors.Is(err, trust.ErrUntrusted) {
					t.Errorf("Entries under a %s folder: %v, want a refusal", tc.name, err)
				}
				var ue *trust.UntrustedError
				if errors.As(trust.CheckPrivateDir(dir), &ue) && ue.Fix != "chmod go-w "+shared {
					t.Errorf("fix = %q, want chmod go-w %s", ue.Fix, shared)
				}
			}
		})
	}
}

// spec: SF-30
func TestSaveFolderUnusable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "snapshots")
	os.WriteFile(file, []byte("x"), 0o600)
	s := &Store{Dir: file}
	if _, _, err := s.Save(rec("sess", t0, ""), English); err == nil {
		t.Fatal("Save into a regular file succeeded")
	}
	if got, _ := os.ReadFile(file); string(got) != "x" {
		t.Fatal("the file in the folder's place was changed")
	}
}

// spec: SF-31
func TestSaveNeverOverwrites(t *testing.T) {
	s := newStore(t)
	first := rec("same-session-id", t0, "first")
	mustSave(t, s, first, English)
	second := rec("same-session-id", t0, "second")
	mustSave(t, s, second, English)
	if second.Name != first.Name+"_1" {
		t.Fatalf("second name %q, want %q", second.Name, first.Name+"_1")
	}
	// An .md left alone by a killed Save still holds its name.
	orphan := BaseName(t0, "same-session-id", 2) + ".md"
	os.WriteFile(filepath.Join(s.Dir, orphan), []byte("# orphan\n"), 0o600)
	third := rec("same-session-id", t0, "third")
	mustSave(t, s, third, English)
	if third.Name != first.Name+"_3" {
		t.Fatalf("third name %q, want suffix _3", third.Name)
	}
	for name, marker := range map[string]string{first.Name: "first", second.Name: "second", third.Name: "third"} {
		r, err := s.Load(name)
		if err != nil || r.PromptID != marker {
			t.Errorf("%s: %v, marker %q want %q", name, err, r.PromptID, marker)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir, orphan)); string(got) != "# orphan\n" {
		t.Error("orphan .md was overwritten")
	}
}

// spec: SF-40
func TestSaveLatest(t *testing.T) {
	s := newStore(t)
	newer := rec("sess-newer", t0, "")
	newer.Cwd, newer.Trigger = "/w d/проект", "auto"
	md := mustSave(t, s, newer, English)
	l, err := s.Latest()
	if err != nil {
		t.Fatal(err)
	}
	want := Latest{Path: md, Name: newer.Name, Time: t0, Session: "sess-newer", Cwd: "/w d/проект", Trigger: "auto"}
	if *l != want {
		t.Fatalf("latest = %+v, want %+v", *l, want)
	}
	// An older snapshot saved later (another session, clock skew) does not
	// take latest.json back in time.
	mustSave(t, s, rec("sess-older", t0.Add(-time.Hour), ""), English)
	if l, _ := s.Latest(); l.Name != newer.Name {
		t.Fatalf("latest went back to %s", l.Name)
	}
	mustSave(t, s, rec("sess-newest", t0.Add(time.Second), ""), English)
	if l, _ := s.Latest(); l.Session != "sess-newest" {
		t.Fatalf("latest not updated: %s", l.Name)
	}
}

// spec: SF-41, SF-42, SF-37
func TestPrune(t *testing.T) {
	s := newStore(t)
	s.Keep = 5
	names := prefill(t, s, 8, t0) // each Save prunes: 5 remain
	unrelated := []string{"notes.txt", "snap_bad.json", "snap_20260101-000000_abc.json.bak",
		"SNAP_20200101-000000_abc.json", "snap_20200101-000000_abc.md.tmp", LatestFile}
	for _, n := range unrelated[:5] {
		os.WriteFile(filepath.Join(s.Dir, n), []byte("keep me"), 0o600)
	}
	os.Mkdir(filepath.Join(s.Dir, "snap_20000101-000000_dir.json"), 0o700)
	// A stray .json without its .md counts and goes with its pair.
	stray := BaseName(t0.Add(-24*time.Hour), "stray", 0)
	os.WriteFile(filepath.Join(s.Dir, stray+".json"), []byte("{}"), 0o600)
	// Orphan .md files: one old (removed), one fresh (a Save in flight).
	oldOrphan := BaseName(t0.Add(time.Minute), "orphan1", 0) + ".md"
	newOrphan := BaseName(t0.Add(time.Minute), "orphan2", 0) + ".md"
	for _, n := range []string{oldOrphan, newOrphan} {
		os.WriteFile(filepath.Join(s.Dir, n), []byte("# x\n"), 0o600)
	}
	past := s.Now().Add(-orphanAfter - time.Minute)
	os.Chtimes(filepath.Join(s.Dir, oldOrphan), past, past)

	r := rec("newest-session", t0.Add(time.Minute), "")
	mustSave(t, s, r, English)

	es, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name)
	}
	want := append([]string{r.Name}, names[:4]...)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("entries after prune:\n got %v\nwant %v", got, want)
	}
	for _, n := range names[4:] {
		for _, ext := range []string{".md", ".json"} {
			if _, err := os.Lstat(filepath.Join(s.Dir, n+ext)); err == nil {
				t.Errorf("%s%s survived pruning", n, ext)
			}
		}
	}
	for _, n := range append(unrelated, "snap_20000101-000000_dir.json", newOrphan) {
		if _, err := os.Lstat(filepath.Join(s.Dir, n)); err != nil {
			t.Errorf("%s was touched: %v", n, err)
		}
	}
	for _, n := range []string{stray + ".json", oldOrphan} {
		if _, err := os.Lstat(filepath.Join(s.Dir, n)); err == nil {
			t.Errorf("%s was not pruned", n)
		}
	}
}

// spec: SF-41
func TestPruneKeepsTheSnapshotJustSaved(t *testing.T) {
	s := newStore(t)
	s.Keep = 3
	prefill(t, s, 3, t0)
	old := rec("skewed-clock", t0.Add(-48*time.Hour), "")
	mustSave(t, s, old, English)
	if _, err := s.Load(old.Name); err != nil {
		t.Fatalf("the snapshot just saved was pruned: %v", err)
	}
	mustSave(t, s, rec("next", t0.Add(time.Second), ""), English)
	if _, err := s.Load(old.Name); err == nil {
		t.Fatal("the skewed snapshot outlived the next Save's pruning")
	}
}

// spec: SF-36
func TestSaveCleansStaleWorkingFiles(t *testing.T) {
	s := newStore(t)
	os.MkdirAll(s.Dir, 0o700)
	stale := []string{tempPrefix + "123", reservePrefix + "snap_20260101-000000_x"}
	fresh := []string{tempPrefix + "456", reservePrefix + "snap_20260101-000000_y"}
	for _, n := range append(stale, fresh...) {
		os.WriteFile(filepath.Join(s.Dir, n), nil, 0o600)
	}
	past := s.Now().Add(-staleAfter - time.Second)
	for _, n := range stale {
		os.Chtimes(filepath.Join(s.Dir, n), past, past)
	}
	mustSave(t, s, rec("sess", t0, ""), English)
	for _, n := range stale {
		if _, err := os.Lstat(filepath.Join(s.Dir, n)); err == nil {
			t.Errorf("stale %s kept", n)
		}
	}
	for _, n := range fresh {
		if _, err := os.Lstat(filepath.Join(s.Dir, n)); err != nil {
			t.Errorf("fresh %s removed", n)
		}
	}
}

// spec: SF-37
func TestEntriesOrderAndPaths(t *testing.T) {
	s := newStore(t)
	a := rec("aaaaaaaa-1", t0, "")
	b := rec("bbbbbbbb-1", t0, "")
	c := rec("aaaaaaaa-1", t0, "")
	d := rec("cccccccc", t0.Add(-time.Second), "")
	for _, r := range []*Record{a, b, c, d} {
		mustSave(t, s, r, English)
	}
	os.Remove(filepath.Join(s.Dir, d.Name+".md"))
	es, err := s.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name)
	}
	want := []string{c.Name, b.Name, a.Name, d.Name} // suffix _1 first, then name order
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", got, want)
	}
	if es[3].MDPath != "" || es[0].MDPath == "" || es[0].SID8 != "aaaaaaaa" || !es[0].Time.Equal(t0) {
		t.Fatalf("entry fields wrong: %+v / %+v", es[0], es[3])
	}
	if _, err := (&Store{Dir: filepath.Join(s.Dir, "missing")}).Entries(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing folder: %v", err)
	}
}

// spec: SF-38
func TestLoadRejects(t *testing.T) {
	s := newStore(t)
	good := rec("sess-load", t0, "")
	mustSave(t, s, good, English)
	write := func(name string, v any) {
		data, _ := json.Marshal(v)
		os.WriteFile(filepath.Join(s.Dir, name+".json"), data, 0o600)
	}
	future := *good
	future.Schema, future.Name = 2, BaseName(t0, "future", 0)
	write(future.Name, future)
	renamed := *good
	renamed.Name = BaseName(t0, "other", 0)
	write(BaseName(t0, "renamed", 0), renamed)
	os.WriteFile(filepath.Join(s.Dir, BaseName(t0, "broken", 0)+".json"), []byte(`{"schema":1,`), 0o600)
	big := bytes.Repeat([]byte(" "), MaxRecordBytes+1)
	os.WriteFile(filepath.Join(s.Dir, BaseName(t0, "big", 0)+".json"), big, 0o600)
	os.Mkdir(filepath.Join(s.Dir, BaseName(t0, "dir", 0)+".json"), 0o700)

	for _, tc := range []struct{ name, want string }{
		{future.Name, "unknown schema 2"},
		{BaseName(t0, "renamed", 0), "record names"},
		{BaseName(t0, "broken", 0), "unexpected end"},
		{BaseName(t0, "big", 0), "larger than"},
		{BaseName(t0, "dir", 0), "not a regular file"},
		{BaseName(t0, "absent", 0), "no such file"},
		{"../" + good.Name, "not a snapshot name"},
		{good.Name + ".json", "not a snapshot name"},
		{"", "not a snapshot name"},
	} {
		if _, err := s.Load(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			if runtime.GOOS == "windows" && tc.want == "no such file" && err != nil {
				continue
			}
			t.Errorf("Load(%q) = %v, want error with %q", tc.name, err, tc.want)
		}
	}
	if _, err := s.Load(good.Name); err != nil {
		t.Fatal(err)
	}
}

// spec: SF-39, SF-8
func TestFindChain(t *testing.T) {
	const sid = "chain-session-1111"
	s := newStore(t)
	if r, err := s.FindChain(sid, "/t/x.jsonl", 100); r != nil || err != nil {
		t.Fatalf("empty folder: %v %v", r, err)
	}
	noID := rec("", t0, "")
	mustSave(t, s, noID, English)
	if r, err := s.FindChain("", noID.TranscriptPath, 1<<40); r != nil || err != nil {
		t.Fatalf("empty session id chained to %v (%v)", r, err)
	}
	mk := func(session, transcript string, at time.Time, size int64, marker string) {
		r := rec(session, at, marker)
		r.TranscriptPath = transcript
		r.Coverage.TranscriptSize = size
		mustSave(t, s, r, English)
	}
	mk(sid, "/t/a.jsonl", t0, 100, "old")
	mk(sid, "/t/a.jsonl", t0.Add(time.Minute), 500, "newer")
	mk(sid, "/t/a.jsonl", t0.Add(2*time.Minute), 900, "past-end")
	mk(sid, "/t/b.jsonl", t0.Add(3*time.Minute), 50, "other-transcript")
	mk("chain-se", "/t/a.jsonl", t0.Add(4*time.Minute), 10, "other-session-same-sid8") // SID8 "chain-se"
	mk(sid+"x", "/t/a.jsonl", t0.Add(5*time.Minute), 10, "longer-id-same-sid8")
	// A run whose transcript read stopped short (deadline, error) is never
	// the chain: the one before it is.
	inc := rec(sid, t0.Add(6*time.Minute), "incomplete")
	inc.TranscriptPath, inc.Coverage.TranscriptSize, inc.Coverage.Incomplete = "/t/a.jsonl", 950, true
	mustSave(t, s, inc, English)

	for _, tc := range []struct {
		transcript string
		maxEnd     int64
		want       string
	}{
		{"/t/a.jsonl", 800, "newer"},
		{"/t/a.jsonl", 900, "past-end"},
		{"/t/a.jsonl", 1000, "past-end"}, // skips "incomplete" (SF-8)
		{"/t/a.jsonl", 499, "old"},
		{"/t/a.jsonl", 99, ""},
		{"/t/b.jsonl", 1000, "other-transcript"},
		{"/t/c.jsonl", 1000, ""},
	} {
		r, err := s.FindChain(sid, tc.transcript, tc.maxEnd)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if r != nil {
			got = r.PromptID
		}
		if got != tc.want {
			t.Errorf("FindChain(%s, %d) = %q, want %q", tc.transcript, tc.maxEnd, got, tc.want)
		}
	}
}

// spec: SF-45
func TestConfirm(t *testing.T) {
	const sid = "confirm-session-2222"
	s := newStore(t)
	end := t0.Add(90 * time.Second)
	conf := CompactionConfirmation{At: end, SummaryChars: 4321, TranscriptSize: 777}
	if err := s.Confirm("snap_20261130-102636_confirm-", sid, conf); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("missing snapshot: %v", err)
	}
	older := rec(sid, t0.Add(-10*time.Minute), "older")
	mustSave(t, s, older, Russian)
	newest := rec(sid, t0, "newest")
	mustSave(t, s, newest, Russian)
	other := rec("confirm-other", t0.Add(time.Second), "other-session-same-sid8")
	mustSave(t, s, other, English)
	if err := s.Confirm(newest.Name, "", conf); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("empty session id: %v", err)
	}
	if err := s.Confirm(other.Name, sid, conf); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("another session's snapshot (same sid8): %v", err)
	}

	// The named snapshot is confirmed, not the newest: which one belongs to
	// the compaction is selection's call.
	if err := s.Confirm(older.Name, sid, conf); err != nil {
		t.Fatalf("Confirm(older) = %v", err)
	}
	r, err := s.Load(older.Name)
	if err != nil || r.Compaction == nil || !r.Compaction.At.Equal(end) || r.Compaction.SummaryChars != 4321 || r.Compaction.TranscriptSize != 777 {
		t.Fatalf("confirmation not recorded: %+v %v", r, err)
	}
	md, _ := os.ReadFile(filepath.Join(s.Dir, older.Name+".md"))
	if !bytes.Equal(md, RenderMarkdown(r, Russian)) || !strings.Contains(string(md), "Сжатие подтверждено") {
		t.Fatalf("md not re-rendered in Russian:\n%s", md)
	}
	for _, n := range []string{newest.Name, other.Name} {
		if r, _ := s.Load(n); r.Compaction != nil {
			t.Errorf("%s confirmed too", n)
		}
	}
	if err := s.Confirm(older.Name, sid, conf); !errors.Is(err, ErrAlreadyConfirmed) {
		t.Fatalf("second Confirm: %v", err)
	}
	// A snapshot taken long before, or after, the compaction is not its own.
	stale := rec("confirm-stale-3333", t0, "")
	mustSave(t, s, stale, English)
	if err := s.Confirm(stale.Name, stale.SessionID, CompactionConfirmation{At: t0.Add(ConfirmWindow + time.Minute)}); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("stale snapshot confirmed: %v", err)
	}
	if err := s.Confirm(stale.Name, stale.SessionID, CompactionConfirmation{At: t0.Add(-2 * time.Minute)}); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("snapshot from after the compaction confirmed: %v", err)
	}
	if left := hidden(t, s.Dir); len(left) != 0 {
		t.Errorf("working files left behind: %v", left)
	}
}

// spec: SF-53
func TestDelivery(t *testing.T) {
	const sid = "deliver-session-1"
	s := newStore(t)
	r := rec(sid, t0, "p")
	mustSave(t, s, r, English)
	if d, err := ReadDelivery(s.Dir, r.Name, sid); d != nil || err != nil {
		t.Fatalf("before any delivery: %v, %v", d, err)
	}
	want := Delivery{SessionID: sid, At: t0.Add(time.Minute), Event: "SessionStart", TranscriptSize: 1234}
	if err := WriteDelivery(s.Dir, r.Name, want); err != nil {
		t.Fatal(err)
	}
	d, err := ReadDelivery(s.Dir, r.Name, sid)
	if err != nil || d == nil || *d != want {
		t.Fatalf("ReadDelivery = %+v, %v; want %+v", d, err, want)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(DeliveryPath(s.Dir, r.Name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("delivery file mode: %v %v", fi, err)
		}
	}
	if _, err := ReadDelivery(s.Dir, r.Name, "another-session"); err == nil {
		t.Error("a delivery record naming another session was accepted")
	}
	if err := WriteDelivery(s.Dir, "snap_20261130-102636_nothere0", want); err == nil {
		t.Error("a delivery was recorded for a snapshot that does not exist")
	}
	if err := WriteDelivery(s.Dir, "../x", want); err == nil {
		t.Error("a delivery was recorded under a name that is not a snapshot name")
	}
	// Entries and Load ignore it; pruning the snapshot removes it.
	es, err := s.Entries()
	if err != nil || len(es) != 1 {
		t.Fatalf("entries = %v, %v", es, err)
	}
	s.Keep = 1
	newer := rec(sid, t0.Add(time.Minute), "q")
	mustSave(t, s, newer, English)
	if _, err := os.Lstat(DeliveryPath(s.Dir, r.Name)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the pruned snapshot's delivery record is still there: %v", err)
	}
}

// Concurrency: the child side. The parent re-executes the test binary with
// CG_STORE_CHILD=<dir> to get separate processes.
const childEnv = "CG_STORE_CHILD"

func TestStoreChildProcess(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("child process only")
	}
	mode := os.Getenv("CG_STORE_MODE")
	id := os.Getenv("CG_STORE_ID")
	keep, _ := strconv.Atoi(os.Getenv("CG_STORE_KEEP"))
	at, _ := time.Parse(time.RFC3339, os.Getenv("CG_STORE_TIME"))
	s := &Store{Dir: dir, Keep: keep}
	switch mode {
	case "burst": // a few saves of one shared session at one time
		n, _ := strconv.Atoi(os.Getenv("CG_STORE_N"))
		for i := 0; i < n; i++ {
			r := rec("shared-session-id", at, fmt.Sprintf("p%s-%d", id, i))
			if _, _, err := s.Save(r, English); err != nil {
				t.Fatal(err)
			}
		}
	case "loop": // saves until killed
		os.Stdout.WriteString("ready\n")
		for i := 0; ; i++ {
			r := fullRecord()
			r.SessionID = fmt.Sprintf("loop-%s-%d", id, i%3)
			r.CreatedAt = at.Add(time.Duration(i/3) * time.Second)
			r.Schema, r.Name = 0, ""
			if _, _, err := s.Save(r, English); err == nil && i == 0 {
				// Told once, so that the parent can kill a child that
				// surely saved, however slowly the machine runs it.
				os.Stdout.WriteString("saved\n")
			}
		}
	}
}

func childCmd(t testing.TB, dir string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + dir}, env...)...)
	return cmd
}

// checkFolder proves the folder's invariants: every snapshot name's .json
// loads and its .md is exactly the rendering of it (so neither is empty or
// half written); an .md alone is a whole rendering; latest.json is valid.
func checkFolder(t testing.TB, dir string) (records map[string]*Record) {
	t.Helper()
	s := &Store{Dir: dir}
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	records = map[string]*Record{}
	for _, de := range des {
		fn := de.Name()
		base := strings.TrimSuffix(strings.TrimSuffix(fn, ".md"), ".json")
		if _, ok := ParseName(base); !ok {
			continue
		}
		switch filepath.Ext(fn) {
		case ".json":
			r, err := s.Load(base)
			if err != nil {
				t.Fatalf("%s: %v", fn, err)
			}
			records[base] = r
			md, err := os.ReadFile(filepath.Join(dir, base+".md"))
			if err != nil {
				t.Fatalf("%s has no .md: %v", fn, err)
			}
			if !bytes.Equal(md, RenderMarkdown(r, r.Lang)) {
				t.Fatalf("%s.md is not the rendering of its record", base)
			}
		case ".md":
			md, _ := os.ReadFile(filepath.Join(dir, fn))
			if !bytes.HasPrefix(md, []byte("# compact-guard snapshot\n")) ||
				!bytes.HasSuffix(md, []byte("`"+base+".json`, schema 1.\n")) {
				t.Fatalf("%s is not a whole rendering (%d bytes)", fn, len(md))
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, LatestFile)); err == nil {
		if _, err := s.Latest(); err != nil {
			t.Fatalf("latest.json: %v", err)
		}
	}
	return records
}

// spec: SF-31, SF-34, SF-41, SF-43
func TestConcurrentSaves(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	check := func(t *testing.T, s *Store, pre []string, markers []string) {
		records := checkFolder(t, s.Dir)
		if len(records) != s.Keep {
			t.Fatalf("%d snapshots remain, want %d", len(records), s.Keep)
		}
		got := map[string]bool{}
		for _, r := range records {
			got[r.PromptID] = true
		}
		for _, m := range markers {
			if !got[m] {
				t.Errorf("snapshot %s is missing (overwritten or pruned)", m)
			}
		}
		// The rest are the newest of the pre-filled ones.
		for i, n := range pre {
			_, ok := records[n]
			if want := i < s.Keep-len(markers); ok != want {
				t.Errorf("pre-filled %s (rank %d): present %v, want %v", n, i, ok, want)
			}
		}
		if l, err := s.Latest(); err != nil || l.Time.Before(now) {
			t.Errorf("latest.json: %+v %v", l, err)
		}
	}

	t.Run("goroutines", func(t *testing.T) {
		s := &Store{Dir: filepath.Join(t.TempDir(), "snaps"), Keep: 40}
		pre := prefill(t, s, 40, now.Add(-time.Hour))
		var wg sync.WaitGroup
		var markers []string
		for g := 0; g < 20; g++ {
			markers = append(markers, fmt.Sprintf("g%d", g))
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				// One session, one second: every goroutine contends for
				// the same names.
				if _, _, err := s.Save(rec("shared-session-id", now, fmt.Sprintf("g%d", g)), English); err != nil {
					t.Error(err)
				}
			}(g)
		}
		wg.Wait()
		check(t, s, pre, markers)
	})

	t.Run("processes", func(t *testing.T) {
		if testing.Short() {
			t.Skip("re-executes the test binary")
		}
		dir := filepath.Join(t.TempDir(), "snaps")
		s := &Store{Dir: dir, Keep: 40}
		pre := prefill(t, s, 40, now.Add(-time.Hour))
		const procs, each = 12, 2
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		var markers []string
		for p := 0; p < procs; p++ {
			cmd := childCmd(t, dir, "CG_STORE_MODE=burst", "CG_STORE_ID="+strconv.Itoa(p),
				"CG_STORE_KEEP=40", "CG_STORE_N="+strconv.Itoa(each), "CG_STORE_TIME="+now.Format(time.RFC3339))
			out := &bytes.Buffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, out)
			for i := 0; i < each; i++ {
				markers = append(markers, fmt.Sprintf("p%d-%d", p, i))
			}
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child %d: %v\n%s", i, err, outs[i])
			}
		}
		check(t, s, pre, markers)
	})
}

// spec: SF-4
func TestSaveWritesArraysNotNull(t *testing.T) {
	s := newStore(t)
	r := rec("sess-null", t0, "")
	r.StateFile.Searched = nil
	mustSave(t, s, r, English)
	data, _ := os.ReadFile(filepath.Join(s.Dir, r.Name+".json"))
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"prompts", "files", "commands", "failures"} {
		if _, ok := m[k].([]any); !ok {
			t.Errorf("%s is %v, want an array", k, m[k])
		}
	}
	if !bytes.HasSuffix(data, []byte("}\n")) || !bytes.Contains(data, []byte("\n  \"schema\": 1,")) {
		t.Errorf("record not indented with a trailing newline:\n%s", data)
	}
}

// TestSpecNamesEveryField keeps specs/snapshot-format.md complete: every
// JSON field of the record and its nested types is named there.
// spec: SF-5, SF-6, SF-7, SF-8, SF-9
func TestSpecNamesEveryField(t *testing.T) {
	spec, err := os.ReadFile(filepath.Join("..", "specs", "snapshot-format.md"))
	if err != nil {
		t.Skip("spec not found")
	}
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || ty == reflect.TypeOf(time.Time{}) || seen[ty] {
			return
		}
		seen[ty] = true
		for i := 0; i < ty.NumField(); i++ {
			f := ty.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !bytes.Contains(spec, []byte("`"+name+"`")) {
				t.Errorf("field %s.%s (`%s`) is not in the spec", ty.Name(), f.Name, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(Record{}))
	walk(reflect.TypeOf(Failure{}))
	walk(reflect.TypeOf(Latest{}))
	if len(seen) < 10 {
		t.Fatalf("walked only %d types", len(seen))
	}
}

// A record whose JSON would be over the 4 MiB Load reads is trimmed and
// written, saying in its warnings what was cut, instead of leaving no
// snapshot at all.
// spec: RB-22, SF-30, SF-38
func TestSaveTrimsRecordOverLimit(t *testing.T) {
	huge := func() *Record {
		r := rec("sess-huge", t0, "")
		ci := strings.Repeat("c", 6<<20)
		r.CustomInstructions = &ci
		for i := 0; i < 5000; i++ {
			r.Warnings = append(r.Warnings, strings.Repeat("w", 1000))
		}
		for i := 0; i < transcript.MaxFiles; i++ {
			r.Files = append(r.Files, transcript.FileEdit{Path: fmt.Sprintf("/p/%04d/%s", i, strings.Repeat("я", transcript.MaxPathChars-8)), Edits: 1, LastTool: "Write"})
		}
		return r
	}
	for _, tc := range []struct {
		name string
		edit func(*Record)
		want []string
	}{
		{"custom-instructions", func(r *Record) { r.Files, r.Warnings = nil, nil }, []string{"custom instructions cut at 4000 characters"}},
		{"files", func(r *Record) { r.CustomInstructions, r.Warnings = nil, nil }, []string{"files: the 100 most recent of 1000 kept", "file paths cut at 1000 characters"}},
		{"everything", func(*Record) {}, []string{"custom instructions cut", "warnings: the last 50 of 5000 kept", "files: the 100 most recent of 1000 kept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			r := huge()
			tc.edit(r)
			_, warns, err := s.Save(r, English)
			if err != nil {
				t.Fatalf("Save of an oversized record: %v", err)
			}
			got, err := s.Load(r.Name)
			if err != nil {
				t.Fatalf("Load of the trimmed record: %v", err)
			}
			fi, _ := os.Stat(filepath.Join(s.Dir, r.Name+".json"))
			if fi.Size() > MaxRecordBytes {
				t.Errorf("record is %d bytes, over %d", fi.Size(), MaxRecordBytes)
			}
			note := got.Warnings[len(got.Warnings)-1]
			if !strings.HasPrefix(note, "record trimmed to fit the 4194304-byte limit") {
				t.Fatalf("last warning %q does not say the record was trimmed", note)
			}
			for _, w := range tc.want {
				if !strings.Contains(note, w) {
					t.Errorf("trim note %q lacks %q", note, w)
				}
			}
			if !slices.Contains(warns, note) {
				t.Errorf("Save's warnings %q lack the trim note", warns)
			}
			if len(got.Files) > 0 && got.Files[0].Path != r.Files[0].Path {
				t.Errorf("the most recent file was not kept first")
			}
		})
	}
}

func BenchmarkRenderMarkdown(b *testing.B) {
	r := fullRecord()
	b.ReportAllocs()
	for b.Loop() {
		RenderMarkdown(r, English)
	}
}

// BenchmarkSave saves into a folder holding DefaultKeep snapshots, as
// precompact does once the folder is full (render, two synced writes, latest.json,
// pruning).
func BenchmarkSave(b *testing.B) {
	s := &Store{Dir: b.TempDir()}
	prefill(b, s, DefaultKeep, t0)
	i := 0
	for b.Loop() {
		r := fullRecord()
		r.SessionID = fmt.Sprintf("bench-%d", i)
		r.CreatedAt = t0.Add(time.Duration(i+1) * time.Second)
		if _, _, err := s.Save(r, English); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
