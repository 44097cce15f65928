package snapshot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// spec: SF-72
// Rewrite replaces a snapshot's two files under its name, the .md
// rendered again; it refuses a record of another session or another
// created_at under that name, and one pruned meanwhile, touching nothing.
func TestRewrite(t *testing.T) {
	const sid = "rewrite-session-7777"
	s := newStore(t)
	r := rec(sid, t0, "before")
	mustSave(t, s, r, Russian)
	name := r.Name
	r2 := *r
	r2.PromptID = "after the fold"
	r2.Coverage.Folded = &Fold{At: t0.Add(time.Second), Event: "SessionStart", From: 10, To: 20}
	if err := s.Rewrite(&r2); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(name)
	if err != nil || got.PromptID != "after the fold" || got.Coverage.Folded == nil || got.Coverage.Folded.To != 20 {
		t.Fatalf("after Rewrite: %+v, %v", got, err)
	}
	md, _ := os.ReadFile(filepath.Join(s.Dir, name+".md"))
	if !bytes.Equal(md, RenderMarkdown(got, Russian)) {
		t.Errorf("the .md was not rendered again")
	}
	if fi, _ := os.Stat(filepath.Join(s.Dir, name+".json")); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	for what, bad := range map[string]func(*Record){
		"another session":    func(x *Record) { x.SessionID = "rewrite-other-7777" },
		"another created_at": func(x *Record) { x.CreatedAt = x.CreatedAt.Add(time.Millisecond) },
	} {
		x := *got
		bad(&x)
		x.PromptID = "must not land"
		if err := s.Rewrite(&x); !errors.Is(err, ErrNoSnapshot) {
			t.Errorf("%s: %v", what, err)
		}
		if now, _ := s.Load(name); now.PromptID != "after the fold" {
			t.Errorf("%s: the snapshot changed", what)
		}
	}
	os.Remove(filepath.Join(s.Dir, name+".json"))
	os.Remove(filepath.Join(s.Dir, name+".md"))
	if err := s.Rewrite(got); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("pruned: %v", err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir, name+".md")); err == nil {
		t.Errorf("a pruned snapshot came back")
	}
	if left := hidden(t, s.Dir); len(left) != 0 {
		t.Errorf("working files left behind: %v", left)
	}
}
