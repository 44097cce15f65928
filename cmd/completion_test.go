package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// complete runs cobra's hidden __complete command, as the shell scripts
// do, and returns the offered words (descriptions cut off) and the
// directive line.
func complete(t *testing.T, args ...string) ([]string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := NewRootCmd(&IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	root.SetArgs(append([]string{"__complete"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("__complete %q: %v", args, err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	var words []string
	for _, l := range lines[:len(lines)-1] {
		w, _, _ := strings.Cut(l, "\t")
		words = append(words, w)
	}
	return words, lines[len(lines)-1]
}

// completionDir is a snapshot folder with snapshots of two sessions.
func completionDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "snaps")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	for i, sid := range []string{"aaaa1111-x", "bbbb2222-y", "aaaa1111-x"} {
		name := snapshot.BaseName(base.Add(time.Duration(i)*time.Minute), sid, 0)
		for _, ext := range []string{".json", ".md"} {
			if err := os.WriteFile(filepath.Join(dir, name+ext), []byte("{}"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Not snapshots: left out.
	for _, n := range []string{"notes.json", "latest.json", "snap_bad.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// spec: IN-15
func TestCompletionOffersSnapshotNamesForShow(t *testing.T) {
	dir := completionDir(t)
	words, directive := complete(t, "--dir", dir, "show", "")
	want := []string{"snap_20260314-100200_aaaa1111", "snap_20260314-100100_bbbb2222", "snap_20260314-100000_aaaa1111"}
	if strings.Join(words, " ") != strings.Join(want, " ") {
		t.Errorf("show: %q, want %q (newest first)", words, want)
	}
	if directive != ":36" { // no file completion, keep our order
		t.Errorf("directive %s", directive)
	}
	if words, _ := complete(t, "--dir", dir, "show", "snap_20260314-1001"); strings.Join(words, " ") != want[1] {
		t.Errorf("prefix: %q", words)
	}
	if words, _ := complete(t, "--dir", dir, "show", want[0], ""); len(words) != 0 {
		t.Errorf("a second argument: %q", words)
	}
	if _, directive := complete(t, "--dir", dir, "show", "./snaps/"); directive != ":0" {
		t.Errorf("a path is left to the shell: directive %s", directive)
	}
	if words, _ := complete(t, "--dir", filepath.Join(dir, "missing"), "show", ""); len(words) != 0 {
		t.Errorf("no folder: %q", words)
	}
}

// spec: IN-15
func TestCompletionOffersSessionIDs(t *testing.T) {
	dir := completionDir(t)
	for _, cmd := range []string{"list", "show"} {
		words, _ := complete(t, "--dir", dir, cmd, "--session", "")
		if strings.Join(words, " ") != "aaaa1111 bbbb2222" {
			t.Errorf("%s --session: %q", cmd, words)
		}
		if words, _ := complete(t, "--dir", dir, cmd, "--session", "b"); strings.Join(words, " ") != "bbbb2222" {
			t.Errorf("%s --session b: %q", cmd, words)
		}
	}
}

// spec: IN-15
func TestCompletionOffersScopesAndLanguages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"install", "--scope", ""}, "user project local"},
		{[]string{"uninstall", "--scope", ""}, "user project local"},
		{[]string{"--lang", ""}, "en ru"},
		{[]string{"list", "--lang", ""}, "en ru"},
	} {
		words, directive := complete(t, c.args...)
		if strings.Join(words, " ") != c.want || directive != ":4" {
			t.Errorf("%q: %q %s, want %q :4", c.args, words, directive, c.want)
		}
	}
}
