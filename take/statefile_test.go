package take

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/hookio/hooktest"
)

// The state file is looked for in CLAUDE_PROJECT_DIR, the git root, the
// session's cwd and the payload's cwd, in that order; the record holds
// where it looked and, when found, the file's path and modification time.
// spec: PC-14
func TestGatherStateFileOrder(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is needed to make the repository")
	}
	root := t.TempDir()
	project := filepath.Join(root, "project")
	repo := filepath.Join(root, "repo")
	cwd := filepath.Join(repo, "sub")
	payloadCwd := filepath.Join(root, "payload cwd")
	for _, d := range []string{project, cwd, payloadCwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	tr := filepath.Join(root, "s.jsonl")
	line := `{"type":"user","message":{"role":"user","content":"hello"},"cwd":` + hooktest.QuoteJSON(t, cwd) + `,"timestamp":"2026-11-30T09:00:00.000Z","promptSource":"typed"}` + "\n"
	if err := os.WriteFile(tr, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	stamp := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	gitRoot, _ := filepath.EvalSymlinks(repo)
	for _, c := range []struct {
		name  string
		in    []string // the folders holding a state file
		found string
	}{
		{"only the payload's cwd", []string{payloadCwd}, payloadCwd},
		{"the session's cwd before the payload's", []string{cwd, payloadCwd}, cwd},
		{"the git root before the cwd", []string{repo, cwd, payloadCwd}, repo},
		{"the project before the git root", []string{project, repo, cwd, payloadCwd}, project},
		{"none", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range []string{project, repo, cwd, payloadCwd} {
				os.Remove(filepath.Join(d, "SESSION-STATE.md"))
			}
			for _, d := range c.in {
				p := filepath.Join(d, "SESSION-STATE.md")
				if err := os.WriteFile(p, []byte("# state\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, stamp, stamp); err != nil {
					t.Fatal(err)
				}
			}
			env := map[string]string{"CLAUDE_PROJECT_DIR": project}
			opts := &Options{Dir: filepath.Join(root, "snaps"), Getenv: func(k string) string { return env[k] }, Now: time.Now, Timeout: 10 * time.Second}
			rec, warnings := Gather(context.Background(), opts, Client{}, hookio.Payload{SessionID: "s-1", TranscriptPath: tr, Cwd: payloadCwd}, nil, "s-1", time.Now())
			if rec == nil {
				t.Fatalf("no record: %v", warnings)
			}
			sf := rec.StateFile
			if sf.Name != "SESSION-STATE.md" {
				t.Errorf("name %q", sf.Name)
			}
			var want []string
			for _, d := range []string{project, gitRoot, cwd, payloadCwd} {
				want = append(want, d)
				if c.found != "" && (d == c.found || d == gitRoot && c.found == repo) {
					break
				}
			}
			if !sameDirs(sf.Searched, want) {
				t.Errorf("searched %q, want %q", sf.Searched, want)
			}
			if c.found == "" {
				if sf.Path != "" || !sf.ModTime.IsZero() {
					t.Errorf("found %q (%v) with no state file", sf.Path, sf.ModTime)
				}
				return
			}
			if !sameDirs([]string{filepath.Dir(sf.Path)}, []string{c.found}) || !sf.ModTime.Equal(stamp) {
				t.Errorf("found %q at %v, want the one in %q at %v", sf.Path, sf.ModTime, c.found, stamp)
			}
		})
	}
}

// sameDirs compares folder lists as the file system sees them (a temporary
// folder may be reached through a symlink, as on macOS).
func sameDirs(got, want []string) bool {
	norm := func(ds []string) []string {
		var out []string
		for _, d := range ds {
			if r, err := filepath.EvalSymlinks(d); err == nil {
				d = r
			}
			out = append(out, filepath.Clean(d))
		}
		return out
	}
	return slices.Equal(norm(got), norm(want))
}
