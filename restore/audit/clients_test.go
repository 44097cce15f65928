package audit_test

import (
	"bytes"
	"context"
	_ "github.com/compact-guard/compact-guard/clients" // registers the clients audited here
	"github.com/compact-guard/compact-guard/restore/audit"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript"
)

// The clients' layouts and judges are their folders' (clients/codex,
// clients/qwen), registered by the clients registry this test imports.
//
// The sessions of the real clients, as the e2e scenarios recorded them
// (E2E-20 to E2E-24): Codex CLI 0.169.0 with three compactions (two
// automatic, one manual through the app-server), Qwen Code 0.24.4 with two.
const (
	codexFixture = "../../transcript/testdata/codex0.169.0/three-compactions.jsonl"
	codexSID     = "01a23040-87b8-7b90-99a6-2bc458a9b36b"
	qwenFixture  = "../../transcript/testdata/qwen0.24.4/two-compactions.jsonl"
	qwenSID      = "76ae9434-0dc6-4407-a439-ee84249b66aa"
)

// clientWorld is a client's session in its own folder layout, with a
// snapshot of each compaction taken as PreCompact takes it (just before
// the boundary) and, when hand is set, the delivery record of the hook
// that handed it out (just after the boundary).
type clientWorld struct {
	path  string
	store *snapshot.Store
	comps []transcript.Compaction
	names []string
}

func newClientWorld(t *testing.T, fixture, rel, sid, agent string, triggers []string, edit func([]byte) []byte) *clientWorld {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = edit(data)
	}
	root := t.TempDir()
	w := &clientWorld{path: filepath.Join(root, filepath.FromSlash(rel)), store: &snapshot.Store{Dir: filepath.Join(root, "snapshots")}}
	if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := transcript.Open(w.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if w.comps, err = f.Compactions(context.Background(), 0); err != nil || len(w.comps) != len(triggers) {
		t.Fatalf("%d compactions (%v), want %d", len(w.comps), err, len(triggers))
	}
	for k, c := range w.comps {
		rec := &snapshot.Record{SessionID: sid, CreatedAt: c.Time.Add(-100 * time.Millisecond), Trigger: triggers[k], TranscriptPath: w.path, Agent: agent}
		if _, _, err := w.store.Save(rec, snapshot.English); err != nil {
			t.Fatal(err)
		}
		w.names = append(w.names, rec.Name)
	}
	return w
}

// hand records that snapshot k was handed out at at.
func (w *clientWorld) hand(t *testing.T, k int, sid, event string, at time.Time) {
	t.Helper()
	if err := snapshot.WriteDelivery(w.store.Dir, w.names[k], snapshot.Delivery{SessionID: sid, At: at, Event: event, TranscriptSize: 1}); err != nil {
		t.Fatal(err)
	}
}

func (w *clientWorld) read(t *testing.T) audit.Session {
	t.Helper()
	entries, err := w.store.Entries()
	if err != nil {
		t.Fatal(err)
	}
	return audit.ReadSession(w.path, w.store, entries, 1<<30)
}

const codexRel = "codex/sessions/2026/12/01/rollout-2026-12-01T06-17-45-" + codexSID + ".jsonl"

// spec: AU-14 AU-15 AU-17 AU-18
// Codex CLI records each hook context it puts into the model's history,
// its text elided to a length: with compact-guard's delivery record of each
// compaction, each pointer reached the model and named its own snapshot.
func TestAuditCodexSession(t *testing.T) {
	w := newClientWorld(t, codexFixture, codexRel, codexSID, "codex", []string{"auto", "auto", "manual"}, nil)
	for k, c := range w.comps {
		w.hand(t, k, codexSID, "SessionStart", c.Time.Add(50*time.Millisecond))
	}
	s := w.read(t)
	if s.Agent != transcript.FormatCodex || s.SessionID != codexSID || len(s.Compactions) != 3 {
		t.Fatalf("session %+v", s)
	}
	chars := []int{826, 812, 809} // "[elided N characters]", as Codex 0.169.0 wrote them
	for k, c := range s.Compactions {
		if c.Delivered != "yes" || c.Named != w.names[k] || !c.Own || c.Foreign || c.Snapshot != w.names[k] {
			t.Errorf("compaction %d: %+v", k+1, c)
		}
		if c.Contexts != 1 || c.ContextChars != chars[k] || c.Handed != w.names[k] || c.HandedEvent != "SessionStart" {
			t.Errorf("compaction %d: contexts %d of %d characters, handed %q at %q", k+1, c.Contexts, c.ContextChars, c.Handed, c.HandedEvent)
		}
		if want := []string{"auto", "auto", "manual"}[k]; c.Trigger != want {
			t.Errorf("compaction %d: trigger %q, want the snapshot's %q", k+1, c.Trigger, want)
		}
	}
}

// spec: AU-15 AU-17 AU-20
// Without a delivery record a Codex context of elided text is not known to
// be ours; a hand-out of another compaction's snapshot is foreign; no hook
// context recorded after a compaction means none reached the model.
func TestAuditCodexSessionJudged(t *testing.T) {
	w := newClientWorld(t, codexFixture, codexRel, codexSID, "codex", []string{"auto", "auto", "manual"}, nil)
	// Snapshot 1 handed out after the second compaction: the promise
	// broken (principle 2).
	w.hand(t, 0, codexSID, "SessionStart", w.comps[1].Time.Add(50*time.Millisecond))
	s := w.read(t)
	if c := s.Compactions[0]; c.Delivered != "unknown" || c.Named != "" || c.Own || c.Contexts != 1 {
		t.Errorf("compaction 1 without a delivery record: %+v", c)
	}
	if c := s.Compactions[1]; c.Delivered != "yes" || c.Named != w.names[0] || c.Own || !c.Foreign {
		t.Errorf("compaction 2 handed the first snapshot: %+v", c)
	}

	noContexts := func(data []byte) []byte {
		var keep [][]byte
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if !bytes.Contains(l, []byte(`"hooks.additional_context"`)) {
				keep = append(keep, l)
			}
		}
		return bytes.Join(keep, nil)
	}
	w = newClientWorld(t, codexFixture, codexRel, codexSID, "codex", []string{"auto", "auto", "manual"}, noContexts)
	w.hand(t, 0, codexSID, "SessionStart", w.comps[0].Time.Add(50*time.Millisecond))
	s = w.read(t)
	for k, c := range s.Compactions {
		if c.Delivered != "no" || c.Contexts != 0 || c.Own || c.Foreign {
			t.Errorf("compaction %d without a hook context: %+v", k+1, c)
		}
	}
	if c := s.Compactions[0]; c.Handed != w.names[0] {
		t.Errorf("the hand-out is still said: %+v", c)
	}
}

// spec: AU-14 AU-16 AU-17 AU-18
// Qwen Code's chat records no hook context: delivery is unknown, and the
// snapshot compact-guard handed out for each compaction is named.
func TestAuditQwenSession(t *testing.T) {
	rel := "qwen/projects/-tmp-proj/chats/" + qwenSID + ".jsonl"
	w := newClientWorld(t, qwenFixture, rel, qwenSID, "qwen", []string{"auto", "auto"}, nil)
	// SessionStart(compact) runs in the background, and may run before the
	// client wrote the boundary (E2E-24); a late pointer comes at the next
	// prompt (E2E-25).
	w.hand(t, 0, qwenSID, "SessionStart", w.comps[0].Time.Add(-10*time.Millisecond))
	w.hand(t, 1, qwenSID, "UserPromptSubmit", w.comps[1].Time.Add(time.Second))
	s := w.read(t)
	if s.Agent != transcript.FormatQwen || s.SessionID != qwenSID || s.Version != "0.24.4" || len(s.Compactions) != 2 {
		t.Fatalf("session %+v", s)
	}
	for k, c := range s.Compactions {
		if c.Delivered != "unknown" || c.Named != w.names[k] || !c.Own || c.Foreign || c.Contexts != 0 || c.Trigger != "auto" {
			t.Errorf("compaction %d: %+v", k+1, c)
		}
	}
	if ev := s.Compactions[1].HandedEvent; ev != "UserPromptSubmit" {
		t.Errorf("the late pointer's event: %q", ev)
	}
}

// spec: AU-1 AU-2 AU-14
// Each client's folder layout is walked; the session id comes from the
// file's name in that client's form, and --session matches it.
func TestAuditTranscriptsPerClient(t *testing.T) {
	root := t.TempDir()
	write := func(rel string) string {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	claude := write("claude/projects/-p/aaaa1111-0000-4000-8000-000000000001.jsonl")
	write("claude/projects/-p/agent-aaaa1111.jsonl")
	codex := write("codex/sessions/2026/12/01/rollout-2026-12-01T06-17-45-bbbb2222-0000-4000-8000-000000000002.jsonl")
	write("codex/sessions/2026/12/01/other.jsonl")
	qwen := write("qwen/projects/-p/chats/cccc3333-0000-4000-8000-000000000003.jsonl")
	write("qwen/projects/-p/cccc3333-not-in-chats.jsonl")
	sources := []audit.Source{
		{Agent: transcript.FormatClaude, Dir: filepath.Join(root, "claude", "projects")},
		{Agent: transcript.FormatCodex, Dir: filepath.Join(root, "codex", "sessions")},
		{Agent: transcript.FormatQwen, Dir: filepath.Join(root, "qwen", "projects")},
		{Agent: transcript.FormatCodex, Dir: filepath.Join(root, "missing")},
	}
	got, err := audit.Transcripts(sources, time.Time{}, "", 10)
	if err != nil || len(got) != 3 || !slices.Contains(got, claude) || !slices.Contains(got, codex) || !slices.Contains(got, qwen) {
		t.Errorf("transcripts %v (%v)", got, err)
	}
	for prefix, want := range map[string]string{"aaaa": claude, "bbbb2222": codex, "cccc": qwen} {
		if got, _ := audit.Transcripts(sources, time.Time{}, prefix, 10); len(got) != 1 || got[0] != want {
			t.Errorf("--session %s: %v", prefix, got)
		}
	}
	if id := audit.SessionID(transcript.FormatCodex, codex); id != "bbbb2222-0000-4000-8000-000000000002" {
		t.Errorf("codex session id %q", id)
	}
}
