package snapshot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// benchRepoFiles is the size of BenchmarkGitState's generated tree.
const benchRepoFiles = 20_000

// makeBenchRepo writes benchRepoFiles files straight to disk (200 folders of
// 100), commits them with one `git add -A` and one commit, then makes 5
// changes: 2 modified, 1 deleted, 1 staged new file, 1 untracked file.
func makeBenchRepo(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "bench repo")
	// Files dated an hour back: written in the same second as the index they
	// would be "racily clean" and rehashed by every status, which is not what
	// a real tree costs.
	past := time.Now().Add(-time.Hour)
	for i := range benchRepoFiles {
		p := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		body := fmt.Sprintf("package pkg%03d\n\n// File %d of the benchmark tree.\nvar V%d = %d\n", i/100, i, i, i*7)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, past, past); err != nil {
			b.Fatal(err)
		}
	}
	tgit(b, dir, "init", "-q", "-b", "main")
	tgit(b, dir, "add", "-A")
	tgit(b, dir, "commit", "-q", "-m", "20,000 files")
	write(b, filepath.Join(dir, "pkg000", "file00000.go"), "package pkg000 // changed\n")
	write(b, filepath.Join(dir, "pkg100", "file10000.go"), "package pkg100 // changed\n")
	if err := os.Remove(filepath.Join(dir, "pkg199", "file19999.go")); err != nil {
		b.Fatal(err)
	}
	write(b, filepath.Join(dir, "pkg050", "staged.go"), "package pkg050\n")
	tgit(b, dir, "add", "pkg050/staged.go")
	write(b, filepath.Join(dir, "untracked.txt"), "notes\n")
	// One status with locks, as the user's own git would have run, so both
	// sides start from a refreshed index.
	tgit(b, dir, "status", "--porcelain")
	return dir
}

// gitStatusPorcelain is the baseline: what a user's `git status --porcelain`
// costs on the same tree, process start included.
func gitStatusPorcelain(b *testing.B, dir string) {
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	if err != nil {
		b.Fatal(err)
	}
	if len(out) == 0 {
		b.Fatal("git status shows no changes")
	}
}

func readGitChecked(b *testing.B, dir string, opt GitOptions) {
	g := ReadGit(context.Background(), dir, opt)
	if g.Error != "" || g.ChangeCount != 5 {
		b.Fatalf("ReadGit: %d changes, error %q; want 5, none", g.ChangeCount, g.Error)
	}
}

// BenchmarkGitState measures ReadGit against `git status --porcelain` on a
// generated 20,000-file tree with 5 changes (spec GS-12, target <= 1.5x).
// The ratio sub-benchmark runs both in turn, so that both see the same
// machine, and reports their medians and the ratio of the medians:
//
//	go test -run '^$' -bench BenchmarkGitState -benchtime 50x ./snapshot/
func BenchmarkGitState(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git not in PATH: the benchmark generates its repository with git")
	}
	start := time.Now()
	dir := makeBenchRepo(b)
	b.Logf("generated the %d-file repository in %v", benchRepoFiles, time.Since(start).Round(time.Millisecond))
	opt := GitOptions{Timeout: time.Minute}

	b.Run("ReadGit", func(b *testing.B) {
		for b.Loop() {
			readGitChecked(b, dir, opt)
		}
	})
	b.Run("git-status-porcelain", func(b *testing.B) {
		for b.Loop() {
			gitStatusPorcelain(b, dir)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var rg, st []time.Duration
		timed := func(f func()) time.Duration {
			t0 := time.Now()
			f()
			return time.Since(t0)
		}
		for i := 0; b.Loop(); i++ {
			// Alternate which goes first, so neither always finds the
			// caches the other warmed.
			readGit := func() { rg = append(rg, timed(func() { readGitChecked(b, dir, opt) })) }
			status := func() { st = append(st, timed(func() { gitStatusPorcelain(b, dir) })) }
			if i%2 == 0 {
				readGit()
				status()
			} else {
				status()
				readGit()
			}
		}
		// Medians: on a shared machine one run stalled by a neighbour would
		// otherwise weigh on one side only.
		mr, ms := median(rg), median(st)
		b.ReportMetric(float64(mr.Microseconds())/1000, "ReadGit-ms")
		b.ReportMetric(float64(ms.Microseconds())/1000, "git-status-ms")
		b.ReportMetric(float64(mr)/float64(ms), "x-git-status")
	})
	// For the record: the fallback where git is missing (GS-7).
	b.Run("ReadGit-go-git", func(b *testing.B) {
		for b.Loop() {
			readGitChecked(b, dir, GitOptions{Timeout: time.Minute, GitPath: "-"})
		}
	})
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
