package cmd

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
	"github.com/compact-guard/compact-guard/snapshot/watch"
)

// wtCheck runs handoff --check in-process as the agent's shell runs it in
// the watch world's session: CLAUDE_CODE_SESSION_ID set, the project the
// current folder.
func (w *wtWorld) wtCheck(t *testing.T, sid string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"CLAUDE_CODE_SESSION_ID": sid, "CLAUDE_CONFIG_DIR": w.Claude}
	opts := &HandoffOptions{IO: &IO{Out: &out, ErrOut: &errOut}, Dir: w.Snaps, Check: true, Lang: snapshot.English,
		Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return w.project, nil }, Now: time.Now}
	return exitCode(handoffRun(opts), &errOut), out.String() + errOut.String()
}

// state is the SESSION-STATE.md of the watch world's project.
func (w *wtWorld) state() string { return filepath.Join(w.project, "SESSION-STATE.md") }

// responseAt appends a model response of tokens dated at.
func (w *wtWorld) responseAt(t *testing.T, tokens int, at time.Time) {
	t.Helper()
	w.n++
	w.append(t, fmt.Sprintf(`{"type":"assistant","message":{"model":"claude-opus-5-5","id":"m%d","role":"assistant","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":9}},"uuid":"w%d","isSidechain":false,"timestamp":%q,"sessionId":%q,"cwd":%q}`,
		w.n, tokens, w.n, at.UTC().Format(time.RFC3339Nano), w.sid, w.project))
}

// spec: WA-5, HO-4, HO-6
// A crossing is dated when the transcript recorded the fill, and after a
// compaction handoff --check says the compaction bounds the block — not a
// "threshold crossed at" the first prompt after it, which crossed nothing.
func TestHO4NoCrossingThatDidNotHappen(t *testing.T) {
	w := newWatchWorld(t)
	responded := time.Now().Add(-20 * time.Minute).UTC().Truncate(time.Millisecond)
	w.responseAt(t, 612000, responded)
	w.hook(t, watch.PostToolUse, "p1", nil)
	st, _ := watch.StoreFor(w.Snaps).Load(w.sid)
	if st == nil || len(st.Crossings) != 2 || !st.Crossings[0].At.Equal(responded) {
		t.Fatalf("crossings %+v, want them at the response's time %s", st, responded)
	}
	rbWriteFile(t, w.state(), []byte(fillBlock(handoff.TemplateFor(snapshot.English, time.Now(), w.sid))))
	if code, out := w.wtCheck(t, w.sid); code != ExitOK || !strings.Contains(out, "(the context crossed its first threshold at "+responded.Truncate(time.Second).Format(time.RFC3339)+")") {
		t.Errorf("before the compaction: exit %d\n%s", code, out)
	}

	// The compaction's boundary, written ten minutes ago; the next prompt
	// comes now.
	compacted := time.Now().Add(-10 * time.Minute).UTC().Truncate(time.Millisecond)
	w.append(t, fmt.Sprintf(`{"type":"system","subtype":"compact_boundary","isSidechain":false,"content":"Conversation compacted","timestamp":%q,"version":"2.1.328","compactMetadata":{"trigger":"manual","preTokens":612000,"postTokens":3000},"sessionId":%q}`,
		compacted.Format(time.RFC3339Nano), w.sid))
	w.hook(t, watch.UserPromptSubmit, "p2", nil)
	st, _ = watch.StoreFor(w.Snaps).Load(w.sid)
	if len(st.Crossings) != 0 || !st.Episode.Equal(compacted) {
		t.Errorf("after the compaction: crossings %v, episode %s; want none, and the boundary's time %s", st.Crossings, st.Episode, compacted)
	}
	code, out := w.wtCheck(t, w.sid)
	if strings.Contains(out, "crossed its first threshold") || strings.Contains(out, "threshold was crossed") {
		t.Errorf("handoff --check reports a crossing that did not happen:\n%s", out)
	}
	if code != ExitOK || !strings.Contains(out, "(no threshold crossed since the compaction at "+compacted.Truncate(time.Second).Format(time.RFC3339)+")") {
		t.Errorf("exit %d, want 0 and the compaction named:\n%s", code, out)
	}
	// A block from before the compaction is said to be older than it.
	rbWriteFile(t, w.state(), []byte(fillBlock(handoff.TemplateFor(snapshot.English, compacted.Add(-time.Minute), w.sid))))
	if code, out := w.wtCheck(t, w.sid); code != ExitFailure || !strings.Contains(out, "before the compaction at ") || strings.Contains(out, "threshold was crossed") {
		t.Errorf("a block older than the compaction: exit %d\n%s", code, out)
	}
}

// spec: HO-9, HO-10, HO-11, HO-12, WA-12, WA-30
// Two sessions in one project: the block session B writes (marked with its
// id by the template) is never session C's handoff, whatever its date —
// not for C's handoff --check, not for C's compaction, its pointer or its
// hint. A block naming no session becomes C's when C's check accepts it.
// A committed block dated before the session began is none of its plans.
func TestHO10AnotherSessionsBlock(t *testing.T) {
	const other = "b7a1c0de-2222-4333-8444-555566667777"
	const bNext = "run the B-only migration next"
	precompact := func(w *wtWorld) (string, *snapshot.Record) {
		r := w.precompact(t, rbPayload("session_id", w.sid, "transcript_path", w.transcript, "cwd", w.project,
			"hook_event_name", "PreCompact", "trigger", "auto"))
		var rec *snapshot.Record // the newest
		for _, r := range rbCheckFolder(t, w.Snaps) {
			if r.SessionID == w.sid && (rec == nil || r.CreatedAt.After(rec.CreatedAt)) {
				rec = r
			}
		}
		if rec == nil {
			t.Fatal("no snapshot")
		}
		return r.Stdout, rec
	}
	bBlock := func() string {
		return strings.Replace(fillBlock(handoff.TemplateFor(snapshot.English, time.Now(), other)), "### NEXT STEP\nnone", "### NEXT STEP\n"+bNext, 1)
	}

	t.Run("written by another session", func(t *testing.T) {
		w := newWatchWorld(t)
		w.fill(t, 612000)
		w.hook(t, watch.PostToolUse, "p1", nil) // C crosses its thresholds
		rbWriteFile(t, w.state(), []byte("# State\n\n"+bBlock()))
		code, out := w.wtCheck(t, w.sid)
		if code != ExitFailure || !strings.Contains(out, "written by another session (b7a1c0de), not this one (c0ffee00)") {
			t.Errorf("C's check of B's block: exit %d\n%s", code, out)
		}
		if code, out := w.wtCheck(t, other); code != ExitOK {
			t.Errorf("B's check of its own block: exit %d\n%s", code, out)
		}
		w.fill(t, 613000)
		notice := wtContext(t, w.hook(t, watch.UserPromptSubmit, "p2", nil).Stdout, watch.UserPromptSubmit)
		if strings.Contains(notice, "Handoff: current") {
			t.Errorf("C's notice calls B's block current:\n%s", notice)
		}
		hint, rec := precompact(w)
		p := rec.Preparation
		if p == nil || p.Kind != snapshot.Emergency || p.Handoff != nil || p.OtherBlocks != 1 {
			t.Fatalf("C's preparation %+v", p)
		}
		if strings.Contains(hint, bNext) || strings.Contains(hint, "next step") {
			t.Errorf("C's summary hint hands over B's next step:\n%s", hint)
		}
		pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
		if strings.Contains(pointer, "planned:") || strings.Contains(pointer, bNext) ||
			!strings.Contains(pointer, "no handoff block of this session (blocks in the state file not its own: 1)") {
			t.Errorf("C's pointer:\n%s", pointer)
		}
	})

	t.Run("a block naming no session, claimed by the check", func(t *testing.T) {
		w := newWatchWorld(t)
		w.fill(t, 612000)
		w.hook(t, watch.PostToolUse, "p1", nil)
		rbWriteFile(t, w.state(), []byte(fillBlock(handoff.Template(snapshot.English, time.Now()))))
		if _, rec := precompact(w); rec.Preparation.Kind == snapshot.Planned {
			t.Errorf("a block no check of this session accepted made the compaction planned")
		}
		if code, out := w.wtCheck(t, w.sid); code != ExitOK {
			t.Fatalf("check: exit %d\n%s", code, out)
		}
		if st, _ := watch.StoreFor(w.Snaps).Load(w.sid); st == nil || len(st.Claims) != 1 {
			t.Fatalf("the claim is not in the state: %+v", st)
		}
		if code, out := w.wtCheck(t, other); code != ExitOK {
			t.Errorf("another session may claim it too: exit %d\n%s", code, out)
		}
		if _, rec := precompact(w); rec.Preparation.Kind != snapshot.Planned || rec.Preparation.Handoff == nil || !rec.Preparation.Handoff.Current {
			t.Errorf("the claimed block: preparation %+v", rec.Preparation)
		}
	})

	t.Run("a committed block dated months ago", func(t *testing.T) {
		w := newWatchWorld(t) // the transcript starts 2026-11-30T09:00:00Z
		old := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
		rbWriteFile(t, w.state(), []byte(fillBlock(handoff.TemplateFor(snapshot.English, old, w.sid))))
		_, rec := precompact(w)
		if p := rec.Preparation; p.Kind == snapshot.Planned || p.SinceKind != handoff.SinceStart ||
			!p.Since.Equal(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("a block older than the session: preparation %+v", p)
		}
		pointer, _ := w.postcompact(t, rbStartPayload(w.sid, w.transcript, w.project))
		if strings.Contains(pointer, "planned:") || !strings.Contains(pointer, "no handoff since the session started at 2026-11-30 09:00 UTC") {
			t.Errorf("pointer:\n%s", pointer)
		}
		code, out := w.wtCheck(t, w.sid)
		if code != ExitFailure || !strings.Contains(out, "- dated 2026-06-01T12:00:00Z, before the session started at 2026-11-30T09:00:00Z") {
			t.Errorf("check: exit %d\n%s", code, out)
		}
	})
}

// spec: HO-9
// The template names the session it is written in, and the parser reads
// it back; without a session it names none.
func TestHO9TemplateNamesTheSession(t *testing.T) {
	var out bytes.Buffer
	env := map[string]string{"CLAUDE_CODE_SESSION_ID": "c0ffee00-1111-4222-8333-444455556666"}
	opts := &HandoffOptions{IO: &IO{Out: &out, ErrOut: &bytes.Buffer{}}, Template: true, Lang: snapshot.English,
		Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return hoNow }}
	if err := handoffRun(opts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[1] != "<!-- compact-guard session: c0ffee00-1111-4222-8333-444455556666 -->" {
		t.Errorf("the template's second line is %q", lines[1])
	}
	if b := handoff.Parse(out.Bytes()); len(b) != 1 || b[0].Session != env["CLAUDE_CODE_SESSION_ID"] || len(b[0].Empty) != len(handoff.Sections) {
		t.Errorf("parsed %+v", b)
	}
	out.Reset()
	opts.SessionID, env = "s2", nil
	if handoffRun(opts); !strings.Contains(out.String(), "<!-- compact-guard session: s2 -->") {
		t.Errorf("--session: %s", out.String())
	}
}

// spec: HO-13
// A session with no state yet and no transcript compact-guard can find
// (another client's, a config folder elsewhere) has nothing to bound a
// block's date by. A complete block naming no session, committed months
// ago, is then no handoff of its: handoff --check fails and claims nothing,
// so neither the Stop gate nor a "planned" compaction can rest on it (issue
// 28, item 3). A block just written from the template still counts.
func TestHO13OldBlockWithNothingKnown(t *testing.T) {
	const fresh = "d00dfeed-1111-4222-8333-444455556666" // no state, no transcript
	w := newWatchWorld(t)
	committed := time.Now().AddDate(0, -4, 0)
	rbWriteFile(t, w.state(), []byte(fillBlock(handoff.Template(snapshot.English, committed))))
	code, out := w.wtCheck(t, fresh)
	if code != ExitFailure || !strings.Contains(out, "handoff not ready") || !strings.Contains(out, "nothing tells when this session began") {
		t.Errorf("a block committed months ago, for a session with no state: exit %d\n%s", code, out)
	}
	if st, _ := watch.StoreFor(w.Snaps).Load(fresh); st != nil && len(st.Claims) != 0 {
		t.Errorf("the months-old block was claimed: %+v", st.Claims)
	}
	// Without a session at all, the same.
	var o, e bytes.Buffer
	opts := &HandoffOptions{IO: &IO{Out: &o, ErrOut: &e}, Dir: w.Snaps, Check: true, Lang: snapshot.English,
		Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return w.project, nil }, Now: time.Now}
	if code := exitCode(handoffRun(opts), &e); code != ExitFailure {
		t.Errorf("no session: exit %d\n%s%s", code, o.String(), e.String())
	}
	// A block written a few minutes ago is this check's to claim.
	rbWriteFile(t, w.state(), []byte(fillBlock(handoff.Template(snapshot.English, time.Now().Add(-5*time.Minute)))))
	if code, out := w.wtCheck(t, fresh); code != ExitOK {
		t.Errorf("a block written minutes ago: exit %d\n%s", code, out)
	}
	if st, _ := watch.StoreFor(w.Snaps).Load(fresh); st == nil || len(st.Claims) != 1 {
		t.Errorf("the fresh block was not claimed: %+v", st)
	}
}
