package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// spec: PO-C16 PO-C10 PC-15
// A snapshot taken at SessionStart(compact) redacts the handoff block's
// next step before it reaches disk, as precompact does: the preparation is
// added after the gathering redacted the record.
func TestTakeAtCompactionRedactsThePreparation(t *testing.T) {
	s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000070c1")
	s.turn("deploy it")
	proj := t.TempDir()
	token := "ghp_" + strings.Repeat("aB3dE5gH7j", 3) + "Kq9Zx1"
	block := handoff.TemplateFor(snapshot.English, s.clock, s.sid)
	block = strings.ReplaceAll(block, "\n<!-- ", "\nnone <!-- ")
	block = strings.Replace(block, "none <!-- compact-guard session:", "<!-- compact-guard session:", 1)
	block = strings.Replace(block, "\n### NEXT STEP\nnone", "\n### NEXT STEP\nexport GITHUB_TOKEN="+token+" and run the deploy", 1)
	if err := os.WriteFile(filepath.Join(proj, "SESSION-STATE.md"), []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	opts := &PostcompactOptions{IO: &IO{In: strings.NewReader(s.payload("SessionStart", map[string]any{"source": "compact", "cwd": proj})), Out: &out, ErrOut: os.Stderr},
		Dir: s.dir, Getenv: func(string) string { return "" }, Now: s.now, Timeout: 5 * time.Second}
	if err := postcompactRun(opts); err != nil {
		t.Fatal(err)
	}
	snaps := s.snapshots()
	if len(snaps) != 1 {
		t.Fatalf("snapshots %v; pointer %q", snaps, out.String())
	}
	rec := s.record(snaps[0])
	if rec.HookEvent != "SessionStart" || rec.Preparation == nil || rec.Preparation.Handoff == nil {
		t.Fatalf("not a take at the compaction with the session's handoff: %+v", rec.Preparation)
	}
	if next := rec.Preparation.Handoff.NextStep; strings.Contains(next, token) || !strings.Contains(next, "run the deploy") {
		t.Errorf("next step %q: the token is not redacted, or the step is gone", next)
	}
	for _, ext := range []string{".json", ".md"} {
		b, err := os.ReadFile(filepath.Join(s.dir, snaps[0]+ext))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", ext)
		}
	}
	if strings.Contains(out.String(), token) {
		t.Errorf("the pointer holds the token: %s", out.String())
	}
}
