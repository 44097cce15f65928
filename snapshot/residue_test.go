package snapshot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// spec: SF-63 SF-64 SF-65 SF-67 SF-68
func TestResidueRecord(t *testing.T) {
	const sid = "residue-session-1"
	s := newStore(t)
	r := rec(sid, t0, "p")
	mustSave(t, s, r, English)
	if got, err := ReadResidue(s.Dir, r.Name, sid); got != nil || err != nil {
		t.Fatalf("before any residue: %v, %v", got, err)
	}
	want := Residue{SessionID: sid, Snapshot: r.Name, At: t0.Add(time.Minute), Source: ResidueFromHook, SummaryChars: 120,
		Facts: []ResidueFact{
			{Kind: "prompt", Key: "prompt:0", Text: "fix it", Kept: "summary", Rule: "RS-6"},
			{Kind: "command", Key: "command:3", Text: "go test ./...", Given: true},
		}}
	if err := WriteResidue(s.Dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadResidue(s.Dir, r.Name, sid)
	if err != nil || got == nil || got.Source != ResidueFromHook || len(got.Facts) != 2 || got.Facts[1] != want.Facts[1] || got.Given != nil {
		t.Fatalf("ReadResidue = %+v, %v", got, err)
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(ResiduePath(s.Dir, r.Name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("residue file mode: %v %v", fi, err)
		}
	}
	// SF-64: replaced until the hand-over, never after it.
	want.Given = &ResidueGiven{At: t0.Add(2 * time.Minute), Event: "UserPromptSubmit", Chars: 200, Facts: 1, TranscriptSize: 99, Boundary: 50}
	if err := WriteResidue(s.Dir, want); err != nil {
		t.Fatal(err)
	}
	want.Given = nil
	if err := WriteResidue(s.Dir, want); !errors.Is(err, ErrResidueGiven) {
		t.Errorf("a given residue was replaced: %v", err)
	}
	if got, _ := ReadResidue(s.Dir, r.Name, sid); got == nil || got.Given == nil || got.Given.Event != "UserPromptSubmit" {
		t.Errorf("the hand-over was lost: %+v", got)
	}
	// SF-65: another session, another snapshot's record, an untrusted file.
	if _, err := ReadResidue(s.Dir, r.Name, "another-session"); err == nil {
		t.Error("a residue record naming another session was accepted")
	}
	other := rec(sid, t0.Add(time.Second), "q")
	mustSave(t, s, other, English)
	data, _ := os.ReadFile(ResiduePath(s.Dir, r.Name))
	if err := os.WriteFile(ResiduePath(s.Dir, other.Name), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResidue(s.Dir, other.Name, sid); err == nil {
		t.Error("a record naming another snapshot was accepted")
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(ResiduePath(s.Dir, other.Name), 0o622); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadResidue(s.Dir, other.Name, sid); !errors.Is(err, trust.ErrUntrusted) {
			t.Errorf("a record others can write was read: %v", err)
		}
		os.Remove(ResiduePath(s.Dir, other.Name))
		if err := os.Symlink(ResiduePath(s.Dir, r.Name), ResiduePath(s.Dir, other.Name)); err == nil {
			if _, err := ReadResidue(s.Dir, other.Name, sid); err == nil {
				t.Error("a symbolic link was read as a residue record")
			}
		}
	}
	if err := WriteResidue(s.Dir, Residue{SessionID: sid, Snapshot: "snap_20261130-102636_nothere0"}); err == nil {
		t.Error("a residue was recorded for a snapshot that does not exist")
	}
	if err := WriteResidue(s.Dir, Residue{SessionID: sid, Snapshot: "../x"}); err == nil {
		t.Error("a residue was recorded under a name that is not a snapshot name")
	}
	// SF-68: Entries ignore it; pruning the snapshot removes it.
	es, err := s.Entries()
	if err != nil || len(es) != 2 {
		t.Fatalf("entries = %v, %v", es, err)
	}
	s.Keep = 1
	mustSave(t, s, rec(sid, t0.Add(time.Minute), "z"), English)
	if _, err := os.Lstat(ResiduePath(s.Dir, r.Name)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the pruned snapshot's residue record is still there: %v", err)
	}
	// An orphan older than 10 minutes goes at the next save.
	orphan := filepath.Join(s.Dir, "snap_20200101-000000_orphan00"+ResidueSuffix)
	if err := os.WriteFile(orphan, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := s.Now().Add(-time.Hour)
	os.Chtimes(orphan, old, old)
	mustSave(t, s, rec(sid, t0.Add(2*time.Minute), "y"), English)
	if _, err := os.Lstat(orphan); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an orphaned residue record stayed: %v", err)
	}
}

// spec: SF-66
func TestResidueCounts(t *testing.T) {
	r := &Residue{Facts: []ResidueFact{
		{Kind: "prompt", Kept: "summary"}, {Kind: "prompt", Kept: "pointer"}, {Kind: "prompt", Given: true},
		{Kind: "command", Kept: "tail"}, {Kind: "command", Given: true}, {Kind: "command"},
	}}
	kinds, c := r.CountsBy()
	if len(kinds) != 2 || kinds[0] != "prompt" || kinds[1] != "command" {
		t.Fatalf("kinds %v", kinds)
	}
	if got := c["prompt"]; got != (ResidueCounts{Facts: 3, Summary: 1, Pointer: 1, Dropped: 1, Given: 1}) {
		t.Errorf("prompt counts %+v", got)
	}
	if got := c[""]; got != (ResidueCounts{Facts: 6, Summary: 1, Pointer: 1, Tail: 1, Dropped: 3, Given: 2}) {
		t.Errorf("all counts %+v", got)
	}
}
