package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// spec: DR-13
func TestDoctorTurnedDown(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "compact-guard.log")
	line := func(at time.Time, cmd, outcome string, newer int, turned string) string {
		return hookio.Entry{At: at, Command: cmd, Session: "s-1", Outcome: outcome, TurnedDown: turned, NewerTurnedDown: newer}.String()
	}
	write := func(lines ...string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(
		line(now.Add(-time.Hour), "postcompact", hookio.OutcomeOK, 0, "snap_20261201-104000_s-1: older than 30m0s (40m0s)"),
		line(now.Add(-30*time.Minute), "postcompact(PostCompact)", hookio.OutcomeOK, 0, ""),
		line(now.Add(-25*time.Hour), "postcompact", hookio.OutcomeNone, 1, "snap_20261130-105000_s-1: broken json"),
	)
	if c := selectsnap.CheckTurnedDown(path, now); c.Status != health.OK || !strings.Contains(c.Text, "none of 2") {
		t.Errorf("only stale or old lines: %+v", c)
	}
	write(
		line(now.Add(-2*time.Hour), "postcompact", hookio.OutcomeNone, 1, "snap_20261201-095900_s-1: handed to an earlier compaction (SessionStart at …)"),
		line(now.Add(-time.Hour), "postcompact", hookio.OutcomeOK, 1, "snap_20261201-110000_s-1: no .md file"),
		line(now.Add(-time.Minute), "postcompact", hookio.OutcomeOK, 0, ""),
	)
	c := selectsnap.CheckTurnedDown(path, now)
	if c.Status != health.Warn || !strings.Contains(c.Text, "2 of 3") || !strings.Contains(c.Text, "no .md file") || c.Fix == "" {
		t.Errorf("newer snapshots turned down: %+v", c)
	}
	if c := selectsnap.CheckTurnedDown(filepath.Join(t.TempDir(), "none.log"), now); c.Status != health.OK {
		t.Errorf("no log: %+v", c)
	}
}
