package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/restore/audit"
)

// spec: AU-11, AU-5
// Snapshots removed after their pointers were delivered (--keep, or the
// README's removal steps) are "no longer in the folder", judged by the name
// the pointer gave and the compaction's time window: never a pointer naming
// another compaction's snapshot. A pointer that named an earlier
// compaction's snapshot still is one, gone or not.
func TestAU11PrunedSnapshotsAreNoWrongPointer(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000a0d11")
	for range 3 {
		s.turn("step")
		s.compact(true)
	}
	snaps := s.snapshots()
	if len(snaps) != 3 {
		t.Fatalf("snapshots %v", snaps)
	}
	// The README's removal of the folder, or --keep 1 at the next
	// precompact: the first two are gone.
	for _, n := range snaps[:2] {
		for _, ext := range []string{".md", ".json", ".delivered", ".residue"} {
			os.Remove(filepath.Join(s.dir, n+ext))
		}
	}
	rep, text, err := runAudit(t, s, func(o *AuditOptions) { o.JSON = false })
	if err != nil {
		t.Fatalf("audit after pruning: %v\n%s", err, text)
	}
	rep, _, _ = runAudit(t, s, nil)
	cs := rep.Sessions[0].Compactions
	if rep.Foreign != 0 || rep.Own != 3 || len(cs) != 3 {
		t.Fatalf("report %+v", rep)
	}
	for k, c := range cs[:2] {
		if !c.Gone || !c.Own || c.Foreign || c.Named != snaps[k] || c.Snapshot != "" {
			t.Errorf("compaction %d: %+v", k+1, c)
		}
	}
	if c := cs[2]; c.Gone || !c.Own || c.Snapshot != snaps[2] {
		t.Errorf("compaction 3: %+v", c)
	}
	if !strings.Contains(text, "snapshot "+snaps[0]+" no longer in the folder; pointer delivered, naming it") ||
		!strings.Contains(text, "3 naming their own snapshot (2 of them no longer in the folder), 0 naming another compaction's") {
		t.Errorf("text:\n%s", text)
	}

	// A later compaction whose pointer named the first, gone, snapshot.
	s.pointer = "The context was compacted; a mechanical snapshot taken just before is at " + filepath.Join(s.dir, snaps[0]+".md")
	s.turn("step")
	s.boundary(s.tick(time.Minute))
	rep, _, err = runAudit(t, s, nil)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != ExitFailure || rep.Foreign != 1 {
		t.Errorf("a pointer naming an earlier compaction's gone snapshot: err %v, report %+v", err, rep)
	}
	if c := rep.Sessions[0].Compactions[3]; !c.Gone || c.Own || !c.Foreign {
		t.Errorf("compaction 4: %+v", c)
	}
}

// auditBoundaries writes n compact_boundary lines, one a second, each with
// its uuid, as a transcript of 2.1.328 would hold them with nothing
// between (the worst case per byte: 32,000 of them are about 9.4 MB).
func auditBoundaries(t testing.TB, path string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(w, `{"parentUuid":null,"logicalParentUuid":"l-%08d","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","timestamp":%q,"uuid":"b0d5e7a1-0000-4000-8000-%012d","level":"info","version":"2.1.328","compactMetadata":{"trigger":"auto","preTokens":150000}}`+"\n",
			i, t0.Add(time.Duration(i)*time.Second).Format("2006-01-02T15:04:05.000Z"), i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// spec: AU-12
// When the limit comes, what was read whole is reported with where reading
// stopped, never 0 compactions; and a read that finishes reports every one.
func TestAU12ALimitIsSaid(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000a0d12")
	auditBoundaries(t, s.tr, 32000)
	info, _ := os.Stat(s.tr)

	rep, _, err := runAudit(t, s, nil)
	if err != nil || rep.Compactions != 32000 || rep.Sessions[0].Stopped || rep.Sessions[0].Partial {
		t.Fatalf("a whole read: %v, %d compactions, %+v", err, rep.Compactions, rep.Sessions[0].Stopped)
	}

	// The deadline comes during the whole read, and again after the first
	// window from the end.
	audit.StopHook = func(k int, stop func()) {
		if k != 1 {
			stop()
		}
	}
	defer func() { audit.StopHook = nil }()
	rep, _, _ = runAudit(t, s, nil)
	sess := rep.Sessions[0]
	if !sess.Stopped || !sess.Partial || sess.ReadFrom != info.Size()-audit.FirstWindow || len(sess.Compactions) == 0 || len(sess.Compactions) >= 32000 {
		t.Fatalf("stopped read: stopped %v partial %v from %d, %d compactions", sess.Stopped, sess.Partial, sess.ReadFrom, len(sess.Compactions))
	}
	if last := sess.Compactions[len(sess.Compactions)-1]; !last.Time.Equal(time.Date(2026, 12, 1, 0, 0, 31999, 0, time.UTC)) {
		t.Errorf("the newest compaction listed is %s", last.Time)
	}
	_, text, _ := runAudit(t, s, func(o *AuditOptions) { o.JSON = false })
	want := fmt.Sprintf("  read stopped at byte %d (the 30s limit): the %d compaction(s) from there on are listed, earlier ones were not examined",
		info.Size()-audit.FirstWindow, len(sess.Compactions))
	if !strings.Contains(text, want) || !strings.Contains(text, "reading stopped at the 30s limit in 1 session(s)") {
		t.Errorf("text lacks %q:\n%.2000s", want, text[max(0, len(text)-2000):])
	}
}

// spec: AU-13, SEC-21
// What audit prints of a transcript (its trigger, release, the file's
// name) reaches the terminal with CR, ESC and BEL escaped.
func TestAU13NothingDrivesTheTerminal(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000a0d13")
	line := `{"type":"system","subtype":"compact_boundary","isSidechain":false,"content":"Conversation compacted","timestamp":"2026-12-01T10:00:00.000Z","uuid":"u1","version":"2.1.328\r[ok] all fine","compactMetadata":{"trigger":"manual\u001b]0;pwned\u0007\u001b[2J","preTokens":1}}` + "\n"
	if err := os.WriteFile(s.tr, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(filepath.Dir(s.tr), "7c1d\x1b[31m.jsonl")
	if err := os.WriteFile(odd, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	_, text, _ := runAudit(t, s, func(o *AuditOptions) { o.JSON = false })
	if strings.ContainsAny(text, "\r\x1b\x07") {
		t.Errorf("raw control characters reach the terminal:\n%q", text)
	}
	for _, want := range []string{`manual\x1b]0;pwned\x07\x1b[2J`, `Claude Code 2.1.328\x0d[ok] all fine`, `session 7c1d\x1b[31m, Claude Code`} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}
