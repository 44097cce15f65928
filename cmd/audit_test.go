package cmd

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/restore/audit"
	"github.com/compact-guard/compact-guard/settings"
)

func runAudit(t *testing.T, s *simSession, extra func(*AuditOptions)) (audit.Report, string, error) {
	t.Helper()
	var out strings.Builder
	cfg := filepath.Dir(filepath.Dir(filepath.Dir(s.tr))) // <cfg>/projects/-p/<sid>.jsonl
	opts := &AuditOptions{IO: &IO{Out: &out, ErrOut: os.Stderr}, Dir: s.dir, JSON: true,
		Host: settings.Host{Getenv: func(k string) string {
			if k == "CLAUDE_CONFIG_DIR" {
				return cfg
			}
			return ""
		}}, Now: time.Now}
	if extra != nil {
		extra(opts)
	}
	err := auditRun(opts)
	var rep audit.Report
	if opts.JSON {
		if jerr := json.Unmarshal([]byte(out.String()), &rep); jerr != nil {
			t.Fatalf("audit --json: %v\n%s", jerr, out.String())
		}
	}
	return rep, out.String(), err
}

// spec: AU-1 AU-3 AU-4 AU-5
func TestAuditReportsEachCompaction(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000a0d01")
	for k := 1; k <= 3; k++ {
		s.turn("step")
		s.compact(true)
	}
	s.turn("step")
	s.compact(false) // a compaction whose PreCompact never ran: its snapshot is taken at SessionStart (PO-C10)
	// A subagent's transcript in the same folder is no session.
	if err := os.WriteFile(filepath.Join(filepath.Dir(s.tr), "agent-a1.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	rep, _, err := runAudit(t, s, nil)
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	if len(rep.Sessions) != 1 || rep.Sessions[0].SessionID != s.sid {
		t.Fatalf("sessions = %+v", rep.Sessions)
	}
	snaps := s.snapshots()
	cs := rep.Sessions[0].Compactions
	if len(cs) != 4 || rep.Compactions != 4 || rep.Delivered != 4 || rep.Own != 4 || rep.Foreign != 0 {
		t.Fatalf("report = %+v", rep)
	}
	for k := 0; k < 3; k++ {
		c := cs[k]
		if c.Snapshot != snaps[k] || c.Delivered != "yes" || c.Named != snaps[k] || !c.Own || c.Trigger != "manual" || c.Index != k+1 {
			t.Errorf("compaction %d = %+v, want delivered and own %s", k+1, c, snaps[k])
		}
	}
	// SS-22: the snapshot taken at SessionStart is that compaction's.
	if c := cs[3]; c.Snapshot != snaps[3] || c.Delivered != "yes" || !c.Own {
		t.Errorf("the compaction without PreCompact = %+v, want its snapshot taken at SessionStart %s", c, snaps[3])
	}

	// Text.
	_, text, _ := runAudit(t, s, func(o *AuditOptions) { o.JSON = false })
	if !strings.Contains(text, "pointer delivered, naming it") || !strings.Contains(text, "4 compaction(s) in 1 session(s): 4 with the pointer delivered, 4 naming their own snapshot, 0 naming another compaction's") {
		t.Errorf("text report:\n%s", text)
	}

	// A pointer naming another compaction's snapshot fails the audit.
	s.pointer = "The context was compacted; a mechanical snapshot taken just before is at " + filepath.Join(s.dir, snaps[0]+".md")
	s.turn("step")
	s.boundary(s.tick(time.Minute))
	rep, _, err = runAudit(t, s, nil)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != ExitFailure || rep.Foreign != 1 {
		t.Errorf("foreign pointer: err %v, report %+v", err, rep)
	}
}

// spec: AU-2
func TestAuditIsBounded(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000a0d02")
	s.turn("one")
	s.compact(true)
	info, _ := os.Stat(s.tr)
	s.turn("two")
	s.compact(true)
	grown, _ := os.Stat(s.tr)
	// Reading only the last bytes leaves the first compaction out, and says so.
	rep, _, err := runAudit(t, s, func(o *AuditOptions) { o.MaxReadMB = 0 })
	if err != nil || len(rep.Sessions[0].Compactions) != 2 || rep.Sessions[0].Partial {
		t.Fatalf("whole read: %+v %v", rep, err)
	}
	sess := audit.ReadSession(s.tr, nil, nil, grown.Size()-info.Size())
	if !sess.Partial || len(sess.Compactions) != 1 || sess.ReadFrom != info.Size() {
		t.Errorf("bounded read: %+v", sess)
	}
	// Old transcripts, other sessions and a count limit.
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(s.tr, old, old); err != nil {
		t.Fatal(err)
	}
	if rep, _, _ := runAudit(t, s, nil); len(rep.Sessions) != 0 {
		t.Errorf("a transcript changed 30 days ago was read: %+v", rep.Sessions)
	}
	if rep, _, _ := runAudit(t, s, func(o *AuditOptions) { o.Since = 40 * 24 * time.Hour; o.Session = "0000" }); len(rep.Sessions) != 0 {
		t.Errorf("--session narrowed nothing: %+v", rep.Sessions)
	}
}
