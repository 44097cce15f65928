package gitstate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// needGit skips a test that drives a real git when there is none.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not in PATH: this test builds real repositories with git")
	}
}

// testGitEnv is gitEnv plus a fixed identity, and no user or system config
// (a global commit.gpgsign or hook must not break the fixtures).
func testGitEnv() []string {
	return append(gitEnv(),
		"GIT_AUTHOR_NAME=cg test", "GIT_AUTHOR_EMAIL=cg@example.com",
		"GIT_COMMITTER_NAME=cg test", "GIT_COMMITTER_EMAIL=cg@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
	)
}

// tgit runs git in dir for a fixture and returns its trimmed output.
func tgit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = testGitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// tgitFail runs git expecting it to fail (a merge with conflicts).
func tgitFail(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = testGitEnv()
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("git %s succeeded, want a failure\n%s", strings.Join(args, " "), out)
	}
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository on branch main in a fresh folder under the
// test's temp dir; with files, commits them with the given message.
func newRepo(t testing.TB, name, msg string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tgit(t, dir, "init", "-q", "-b", "main")
	if len(files) == 0 {
		return dir
	}
	for p, c := range files {
		write(t, filepath.Join(dir, p), c)
	}
	tgit(t, dir, "add", "-A")
	tgit(t, dir, "commit", "-q", "-m", msg)
	return dir
}

// gitCase is one repository state and what ReadGit must say of it. Expected
// hashes and branches are asked of git itself, never of the code under test.
type gitCase struct {
	name string
	// setup builds the state and returns the folder to read from.
	setup func(t *testing.T) string
	// rootOf gives the expected Root from the folder setup returned.
	rootOf     func(dir string) string
	repo       bool
	branch     string
	detached   bool
	noHead     bool
	subject    string
	changes    []snapshot.GitChange
	count      int
	errHas     string
	goGitDiffs bool // go-git cannot agree with git here (GS-7's known differences)
}

func gitCases() []gitCase {
	same := func(dir string) string { return dir }
	return []gitCase{
		{
			// spec: GS-1
			name: "not a repository",
			setup: func(t *testing.T) string {
				dir := t.TempDir()
				if _, inside := findWorkTree(dir); inside {
					t.Skip("the temp folder is itself inside a git work tree")
				}
				return dir
			},
		},
		{
			// spec: GS-2
			name: "folder does not exist",
			setup: func(t *testing.T) string {
				return filepath.Join(t.TempDir(), "gone")
			},
			errHas: "gone",
		},
		{
			// spec: GS-2
			name: "a file, not a folder",
			setup: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "plain.txt")
				write(t, p, "x")
				return p
			},
			errHas: "is not a directory",
		},
		{
			// spec: GS-3, GS-9 (git log fails on an unborn branch: no error)
			name: "fresh repository without commits",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "fresh", "", nil)
				write(t, filepath.Join(dir, "draft.txt"), "x")
				return dir
			},
			rootOf: same, repo: true, branch: "main", noHead: true,
			changes: []snapshot.GitChange{{Code: "??", Path: "draft.txt"}}, count: 1,
		},
		{
			// spec: GS-3, GS-5, GS-7 (%s joins the first paragraph)
			name: "clean repository",
			setup: func(t *testing.T) string {
				return newRepo(t, "clean", "first line\nsecond line\n\nbody text", map[string]string{"a.txt": "a\n"})
			},
			rootOf: same, repo: true, branch: "main", subject: "first line second line",
		},
		{
			// spec: GS-6
			name: "modified, staged, added, deleted, renamed, untracked, ignored",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "mixed", "base", map[string]string{
					".gitignore": "*.log\n", "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n",
					"old.txt": "a file long enough for rename detection to be sure\n",
				})
				write(t, filepath.Join(dir, "a.txt"), "a changed\n")
				write(t, filepath.Join(dir, "b.txt"), "b staged\n")
				tgit(t, dir, "add", "b.txt")
				if err := os.Remove(filepath.Join(dir, "c.txt")); err != nil {
					t.Fatal(err)
				}
				tgit(t, dir, "mv", "old.txt", "new.txt")
				write(t, filepath.Join(dir, "s.txt"), "staged new\n")
				tgit(t, dir, "add", "s.txt")
				write(t, filepath.Join(dir, "u.txt"), "untracked\n")
				write(t, filepath.Join(dir, "debug.log"), "ignored\n")
				return dir
			},
			rootOf: same, repo: true, branch: "main", subject: "base",
			changes: []snapshot.GitChange{
				{Code: ".M", Path: "a.txt"},
				{Code: "M.", Path: "b.txt"},
				{Code: ".D", Path: "c.txt"},
				{Code: "R.", Path: "new.txt", From: "old.txt"},
				{Code: "A.", Path: "s.txt"},
				{Code: "??", Path: "u.txt"},
			},
			count:      6,
			goGitDiffs: true, // no rename detection in go-git
		},
		{
			// spec: GS-6, GS-7
			name: "modified, staged, added, deleted, untracked (no rename)",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "mixed2", "base", map[string]string{
					".gitignore": "*.log\n", "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n",
				})
				write(t, filepath.Join(dir, "a.txt"), "a changed\n")
				write(t, filepath.Join(dir, "b.txt"), "b staged\n")
				tgit(t, dir, "add", "b.txt")
				if err := os.Remove(filepath.Join(dir, "c.txt")); err != nil {
					t.Fatal(err)
				}
				write(t, filepath.Join(dir, "s.txt"), "staged new\n")
				tgit(t, dir, "add", "s.txt")
				write(t, filepath.Join(dir, "u.txt"), "untracked\n")
				write(t, filepath.Join(dir, "debug.log"), "ignored\n")
				return dir
			},
			rootOf: same, repo: true, branch: "main", subject: "base",
			changes: []snapshot.GitChange{
				{Code: ".M", Path: "a.txt"},
				{Code: "M.", Path: "b.txt"},
				{Code: ".D", Path: "c.txt"},
				{Code: "A.", Path: "s.txt"},
				{Code: "??", Path: "u.txt"},
			},
			count: 5,
		},
		{
			// spec: GS-6
			name: "merge conflict",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "conflict", "base", map[string]string{"f.txt": "base\n"})
				tgit(t, dir, "checkout", "-q", "-b", "other")
				write(t, filepath.Join(dir, "f.txt"), "other\n")
				tgit(t, dir, "commit", "-q", "-am", "on other")
				tgit(t, dir, "checkout", "-q", "main")
				write(t, filepath.Join(dir, "f.txt"), "main\n")
				tgit(t, dir, "commit", "-q", "-am", "on main")
				tgitFail(t, dir, "merge", "-q", "other")
				return dir
			},
			rootOf: same, repo: true, branch: "main", subject: "on main",
			changes:    []snapshot.GitChange{{Code: "UU", Path: "f.txt"}},
			count:      1,
			goGitDiffs: true, // go-git has no unmerged state
		},
		{
			// spec: GS-6 (30 listed, all counted)
			name: "more than 30 changes",
			setup: func(t *testing.T) string {
				files := map[string]string{}
				for i := range 40 {
					files[name2(i)] = "v1\n"
				}
				dir := newRepo(t, "many", "forty", files)
				for i := range 40 {
					write(t, filepath.Join(dir, name2(i)), "v2\n")
				}
				for i := range 5 {
					write(t, filepath.Join(dir, "new"+name2(i)), "new\n")
				}
				return dir
			},
			rootOf: same, repo: true, branch: "main", subject: "forty",
			changes: func() []snapshot.GitChange {
				var c []snapshot.GitChange
				for i := range snapshot.MaxGitChanges {
					c = append(c, snapshot.GitChange{Code: ".M", Path: name2(i)})
				}
				return c
			}(),
			count: 45,
		},
		{
			// spec: GS-3
			name: "detached HEAD",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "detached", "one", map[string]string{"a.txt": "1\n"})
				write(t, filepath.Join(dir, "a.txt"), "2\n")
				tgit(t, dir, "commit", "-q", "-am", "two")
				tgit(t, dir, "checkout", "-q", "--detach", "HEAD~1")
				return dir
			},
			rootOf: same, repo: true, detached: true, subject: "one",
		},
		{
			// spec: GS-1, GS-4
			name: "linked worktree, read from a subfolder",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "main", "on main", map[string]string{"a.txt": "1\n", "sub/b.txt": "b\n"})
				wt := filepath.Join(filepath.Dir(dir), "wt")
				tgit(t, dir, "worktree", "add", "-q", "-b", "feat", wt)
				write(t, filepath.Join(wt, "a.txt"), "feat\n")
				tgit(t, wt, "commit", "-q", "-am", "on feat")
				write(t, filepath.Join(wt, "sub", "b.txt"), "changed\n")
				// The main worktree's own change must not show.
				write(t, filepath.Join(dir, "main-only.txt"), "x\n")
				return filepath.Join(wt, "sub")
			},
			rootOf: filepath.Dir, repo: true, branch: "feat", subject: "on feat",
			changes: []snapshot.GitChange{{Code: ".M", Path: "sub/b.txt"}}, count: 1,
		},
		{
			// spec: GS-1, GS-4
			name: "submodule",
			setup: func(t *testing.T) string {
				lib := newRepo(t, "lib", "lib commit", map[string]string{"lib.txt": "l\n"})
				dir := newRepo(t, "super", "super commit", map[string]string{"s.txt": "s\n"})
				tgit(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
				sub := filepath.Join(dir, "vendor", "lib")
				write(t, filepath.Join(sub, "lib.txt"), "edited\n")
				return sub
			},
			rootOf: same, repo: true, branch: "main", subject: "lib commit",
			changes: []snapshot.GitChange{{Code: ".M", Path: "lib.txt"}}, count: 1,
		},
		{
			// spec: GS-6, GS-7 (ignore rules: the user's, info/exclude, and
			// .gitignore files at every level, with negation, anchors, **,
			// character classes, and no re-inclusion inside an ignored folder)
			name: "ignore rules",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "ignores", "base", map[string]string{
					".gitignore": "# comment\n*.log\n!keep.log\n/build/\ndocs/**/*.tmp\n**/cache\nsecret?.txt\n" +
						"[abc]x.dat\n[!d]y.dat\nout/\n!out/special.txt\n",
					"sub/.gitignore":    "*.md\n!README.md\n",
					"src/build/keep.go": "package build\n",
				})
				write(t, filepath.Join(dir, "tracked.log"), "tracked\n")
				tgit(t, dir, "add", "-f", "tracked.log")
				tgit(t, dir, "commit", "-q", "-m", "base")
				write(t, filepath.Join(dir, "tracked.log"), "changed\n")
				write(t, filepath.Join(dir, ".git", "info", "exclude"), "local-only.txt\n")
				xdg := t.TempDir()
				write(t, filepath.Join(xdg, "git", "ignore"), "*.swp\n")
				t.Setenv("XDG_CONFIG_HOME", xdg)
				for _, f := range []string{"a.log", "keep.log", "build/x.o", "src/build/y.o", "docs/a/b/c.tmp", "docs/c.tmp",
					"x/cache/z", "cache/q", "secret1.txt", "secret12.txt", "ax.dat", "dx.dat", "ay.dat", "dy.dat",
					"out/special.txt", "sub/n.md", "sub/README.md", "sub/deeper/o.md", "local-only.txt", "f.swp", "plain.txt"} {
					write(t, filepath.Join(dir, filepath.FromSlash(f)), "x\n")
				}
				return dir
			},
			rootOf: same, repo: true, branch: "main", subject: "base",
			changes: []snapshot.GitChange{
				{Code: ".M", Path: "tracked.log"},
				{Code: "??", Path: "dx.dat"},
				{Code: "??", Path: "dy.dat"},
				{Code: "??", Path: "keep.log"},
				{Code: "??", Path: "plain.txt"},
				{Code: "??", Path: "secret12.txt"},
				{Code: "??", Path: "src/build/y.o"},
				{Code: "??", Path: "sub/README.md"},
			},
			count: 8,
		},
		{
			// spec: GS-11
			name: "spaces and Cyrillic in folder, file and branch names",
			setup: func(t *testing.T) string {
				dir := newRepo(t, "мой проект", "начало работы", map[string]string{"папка с пробелом/файл 1.txt": "1\n"})
				tgit(t, dir, "checkout", "-q", "-b", "фича-1")
				write(t, filepath.Join(dir, "папка с пробелом", "файл 1.txt"), "2\n")
				write(t, filepath.Join(dir, "новый файл.txt"), "n\n")
				return filepath.Join(dir, "папка с пробелом")
			},
			rootOf: filepath.Dir, repo: true, branch: "фича-1", subject: "начало работы",
			changes: []snapshot.GitChange{
				{Code: ".M", Path: "папка с пробелом/файл 1.txt"},
				{Code: "??", Path: "новый файл.txt"},
			},
			count: 2,
		},
	}
}

func name2(i int) string { return "f" + string(rune('0'+i/10)) + string(rune('0'+i%10)) + ".txt" }

// checkGit compares a ReadGit result with a case; head is `git rev-parse
// HEAD` in the read folder ("" when the case has none).
func checkGit(t *testing.T, tc gitCase, dir, head string, g *snapshot.Git) {
	t.Helper()
	if g.Repo != tc.repo {
		t.Errorf("Repo = %v, want %v", g.Repo, tc.repo)
	}
	if tc.rootOf != nil && g.Root != tc.rootOf(dir) {
		t.Errorf("Root = %q, want %q", g.Root, tc.rootOf(dir))
	}
	if g.Branch != tc.branch || g.Detached != tc.detached {
		t.Errorf("Branch, Detached = %q, %v, want %q, %v", g.Branch, g.Detached, tc.branch, tc.detached)
	}
	if g.Head != head {
		t.Errorf("Head = %q, want %q", g.Head, head)
	}
	if g.Subject != tc.subject {
		t.Errorf("Subject = %q, want %q", g.Subject, tc.subject)
	}
	if !slices.Equal(g.Changes, tc.changes) {
		t.Errorf("Changes =\n  %v\nwant\n  %v", g.Changes, tc.changes)
	}
	if g.ChangeCount != tc.count {
		t.Errorf("ChangeCount = %d, want %d", g.ChangeCount, tc.count)
	}
	if tc.errHas == "" && g.Error != "" {
		t.Errorf("Error = %q, want none", g.Error)
	}
	if tc.errHas != "" && !strings.Contains(g.Error, tc.errHas) {
		t.Errorf("Error = %q, want it to contain %q", g.Error, tc.errHas)
	}
}

// expectedHead asks git for the commit HEAD names in dir.
func expectedHead(t *testing.T, tc gitCase, dir string) string {
	if !tc.repo || tc.noHead {
		return ""
	}
	return tgit(t, dir, "rev-parse", "HEAD")
}

func TestReadGit(t *testing.T) {
	needGit(t)
	for _, tc := range gitCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.setup(t)
			g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
			checkGit(t, tc, dir, expectedHead(t, tc, dir), g)
			if tc.repo && g.Source != "git" {
				t.Errorf("Source = %q, want git", g.Source)
			}
		})
	}
}

// spec: GS-7
func TestReadGitWithoutGitBinary(t *testing.T) {
	needGit(t) // to build the fixtures
	for _, tc := range gitCases() {
		if tc.goGitDiffs {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.setup(t)
			g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: "-"})
			checkGit(t, tc, dir, expectedHead(t, tc, dir), g)
			if tc.repo && g.Source != "go-git" {
				t.Errorf("Source = %q, want go-git", g.Source)
			}
		})
	}
}

// spec: GS-7 (the known difference, stated rather than hidden)
func TestReadGitGoGitShowsRenameAsDeleteAndAdd(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "ren", "base", map[string]string{"old.txt": "a file long enough for rename detection\n"})
	tgit(t, dir, "mv", "old.txt", "new.txt")
	g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: "-"})
	want := []snapshot.GitChange{{Code: "A.", Path: "new.txt"}, {Code: "D.", Path: "old.txt"}}
	if !slices.Equal(g.Changes, want) || g.ChangeCount != 2 || g.Error != "" {
		t.Errorf("go-git changes = %v (%d), error %q; want %v (2)", g.Changes, g.ChangeCount, g.Error, want)
	}
}

// fakeGit writes an executable shell script standing in for git.
func fakeGit(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in git is a shell script")
	}
	p := filepath.Join(t.TempDir(), "fake git")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// readGitGuarded runs ReadGit but fails the test instead of hanging when it
// does not come back (this is a hang guard, not a timing assertion).
func readGitGuarded(t *testing.T, ctx context.Context, dir string, opt Options) *snapshot.Git {
	t.Helper()
	done := make(chan *snapshot.Git, 1)
	go func() { done <- Read(ctx, dir, opt) }()
	select {
	case g := <-done:
		return g
	case <-time.After(30 * time.Second):
		t.Fatal("ReadGit did not return: a hung git kept it waiting")
		return nil
	}
}

// spec: GS-8
func TestReadGitTimeout(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "slow", "first", map[string]string{"a.txt": "a\n"})
	head := tgit(t, dir, "rev-parse", "HEAD")
	// sleep inherits git's stdout: killing the script alone leaves the pipe
	// open, which only WaitDelay gets ReadGit past.
	slow := fakeGit(t, "sleep 120\n")
	g := readGitGuarded(t, context.Background(), dir, Options{Timeout: 300 * time.Millisecond, GitPath: slow})
	for _, want := range []string{"git status: timed out after 300ms", "git log: timed out after 300ms"} {
		if !strings.Contains(g.Error, want) {
			t.Errorf("Error = %q, want it to contain %q", g.Error, want)
		}
	}
	// What go-git learnt before the deadline stays.
	if !g.Repo || g.Branch != "main" || g.Head != head {
		t.Errorf("Repo, Branch, Head = %v, %q, %q; want true, main, %s", g.Repo, g.Branch, g.Head, head)
	}
	if g.ChangeCount != -1 || g.Changes != nil {
		t.Errorf("Changes, ChangeCount = %v, %d; want none, -1 (unknown)", g.Changes, g.ChangeCount)
	}
}

// spec: GS-8, GS-9 (a git that failed on its own before the deadline is
// not said to have timed out because another step did)
func TestReadGitFailureAndTimeout(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "mixed failure", "first", map[string]string{"a.txt": "a\n"})
	f := fakeGit(t, `case "$*" in
*" config "*) exit 1 ;;
*status*) echo 'fatal: bad index file' >&2; exit 128 ;;
*) sleep 120 ;;
esac
`)
	g := readGitGuarded(t, context.Background(), dir, Options{Timeout: 300 * time.Millisecond, GitPath: f})
	want := "git status: exit status 128: fatal: bad index file; git log: timed out after 300ms"
	if g.Error != want {
		t.Errorf("Error = %q, want %q", g.Error, want)
	}
}

// spec: GS-8 (go-git is not waited for past the deadline)
func TestReadGitGoGitTimeout(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "slowgogit", "first", map[string]string{"a.txt": "a\n"})
	g := readGitGuarded(t, context.Background(), dir, Options{Timeout: time.Nanosecond, GitPath: "-"})
	if g.Error != "go-git: timed out after 1ns" || g.ChangeCount != -1 || g.Source != "go-git" {
		t.Errorf("Error, ChangeCount, Source = %q, %d, %q; want the go-git timeout, -1, go-git", g.Error, g.ChangeCount, g.Source)
	}
}

// spec: GS-8 (the caller's own cancellation)
func TestReadGitCanceled(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "canceled", "first", map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := readGitGuarded(t, ctx, dir, Options{})
	if !strings.Contains(g.Error, "git status: canceled") || g.ChangeCount != -1 {
		t.Errorf("Error, ChangeCount = %q, %d; want git status: canceled, -1", g.Error, g.ChangeCount)
	}
}

// spec: GS-9
func TestReadGitFailure(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "failing", "first", map[string]string{"a.txt": "a\n"})
	bad := fakeGit(t, "echo 'warning: noise' >&2; echo 'fatal: broken index' >&2; exit 128\n")
	g := readGitGuarded(t, context.Background(), dir, Options{GitPath: bad})
	want := "git status: exit status 128: fatal: broken index; git log: exit status 128: fatal: broken index"
	if g.Error != want {
		t.Errorf("Error = %q, want %q", g.Error, want)
	}
	if g.ChangeCount != -1 || g.Branch != "main" {
		t.Errorf("ChangeCount, Branch = %d, %q; want -1, main", g.ChangeCount, g.Branch)
	}
}

// spec: GS-9 (output git status should never give is reported, not dropped)
func TestReadGitMalformedStatus(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "odd", "first", map[string]string{"a.txt": "a\n"})
	odd := fakeGit(t, `case "$*" in
*" config "*) exit 1 ;;
*status*) printf '# branch.oid 0123\0# branch.head main\0? new.txt\0Z what\0? torn' ;;
*) echo first ;;
esac
`)
	g := readGitGuarded(t, context.Background(), dir, Options{GitPath: odd})
	want := []snapshot.GitChange{{Code: "??", Path: "new.txt"}}
	if g.Error != "git status: 2 records not understood" || !slices.Equal(g.Changes, want) || g.ChangeCount != 1 || g.Subject != "first" {
		t.Errorf("Error, Changes, ChangeCount, Subject = %q, %v, %d, %q; want 2 records not understood, %v, 1, first",
			g.Error, g.Changes, g.ChangeCount, g.Subject, want)
	}
}

// spec: GS-10
func TestReadGitIgnoresHookEnvironment(t *testing.T) {
	needGit(t)
	other := newRepo(t, "other", "other", map[string]string{"o.txt": "o\n"})
	write(t, filepath.Join(other, "o.txt"), "changed in other\n")
	dir := newRepo(t, "mine", "mine", map[string]string{"m.txt": "m\n"})
	tgit(t, dir, "checkout", "-q", "-b", "mine-branch")
	write(t, filepath.Join(dir, "m.txt"), "changed in mine\n")
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_WORK_TREE", other)
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))
	g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
	want := []snapshot.GitChange{{Code: ".M", Path: "m.txt"}}
	if g.Branch != "mine-branch" || g.Subject != "mine" || !slices.Equal(g.Changes, want) || g.Error != "" {
		t.Errorf("got branch %q, subject %q, changes %v, error %q; want mine-branch, mine, %v", g.Branch, g.Subject, g.Changes, g.Error, want)
	}
}

// spec: GS-10
func TestGitEnv(t *testing.T) {
	t.Setenv("GIT_DIR", "/elsewhere")
	t.Setenv("GIT_INDEX_FILE", "/elsewhere/index")
	t.Setenv("LC_ALL", "ru_RU.UTF-8")
	env := gitEnv()
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_DIR" || k == "GIT_INDEX_FILE" {
			t.Errorf("gitEnv keeps %s", kv)
		}
	}
	for _, want := range []string{"GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"} {
		if !slices.Contains(env, want) {
			t.Errorf("gitEnv lacks %s", want)
		}
	}
	if slices.Contains(env, "LC_ALL=ru_RU.UTF-8") {
		t.Error("gitEnv keeps the caller's LC_ALL")
	}
}

// spec: GS-6
func TestPorcelainV2Parse(t *testing.T) {
	stream := "# branch.oid 0123456789abcdef0123456789abcdef01234567\x00" +
		"# branch.head feature/x y\x00" +
		"# branch.upstream origin/feature/x\x00" +
		"# branch.ab +1 -2\x00" +
		"1 .M N... 100644 100644 100644 aaaa aaaa dir with space/a b.txt\x00" +
		"2 R. N... 100644 100644 100644 bbbb bbbb R100 new name.txt\x00old name.txt\x00" +
		"2 C. N... 100644 100644 100644 bbbb bbbb C75 copy.txt\x00orig.txt\x00" +
		"u UU N... 100644 100644 100644 100644 cccc dddd eeee conflict.txt\x00" +
		"1 .M S.M. 160000 160000 160000 ffff ffff vendor/sub\x00" +
		"? файл с пробелом.txt\x00" +
		"! ignored.log\x00"
	want := []snapshot.GitChange{
		{Code: ".M", Path: "dir with space/a b.txt"},
		{Code: "R.", Path: "new name.txt", From: "old name.txt"},
		{Code: "C.", Path: "copy.txt", From: "orig.txt"},
		{Code: "UU", Path: "conflict.txt"},
		{Code: ".M", Path: "vendor/sub"},
		{Code: "??", Path: "файл с пробелом.txt"},
	}
	// Git's output reaches the parser in arbitrary chunks: cut it at every
	// byte.
	for cut := 0; cut <= len(stream); cut++ {
		p := newPorcelainV2(snapshot.MaxGitChanges)
		p.Write([]byte(stream[:cut]))
		p.Write([]byte(stream[cut:]))
		if !slices.Equal(p.changes, want) || p.count != 6 || p.malformed != 0 {
			t.Fatalf("cut at %d: changes %v count %d malformed %d; want %v, 6, 0", cut, p.changes, p.count, p.malformed, want)
		}
		if p.head != "feature/x y" || p.oid != "0123456789abcdef0123456789abcdef01234567" {
			t.Fatalf("cut at %d: head %q oid %q", cut, p.head, p.oid)
		}
	}

	// Past the cap: counted, not kept, and a rename's original path is
	// still consumed as such.
	p := newPorcelainV2(1)
	p.Write([]byte(stream))
	if len(p.changes) != 1 || p.count != 6 || p.malformed != 0 {
		t.Errorf("capped at 1: changes %v count %d malformed %d; want 1 change, 6, 0", p.changes, p.count, p.malformed)
	}

	// Garbage is counted as malformed, never listed.
	p = newPorcelainV2(snapshot.MaxGitChanges)
	p.Write([]byte("x\x00zz nope\x001 .M too few\x00"))
	if len(p.changes) != 0 || p.count != 0 || p.malformed != 3 {
		t.Errorf("garbage: changes %v count %d malformed %d; want none, 0, 3", p.changes, p.count, p.malformed)
	}
}

func TestCutSubject(t *testing.T) {
	long := strings.Repeat("я", maxSubject+10)
	got := cutSubject(long)
	if want := strings.Repeat("я", maxSubject) + " […]"; got != want {
		t.Errorf("cutSubject(%d runes) = %d bytes, want %d runes and the marker", maxSubject+10, len(got), maxSubject)
	}
	if s := strings.Repeat("a", maxSubject); cutSubject(s) != s {
		t.Error("cutSubject cut a subject of exactly maxSubject runes")
	}
}

// A panic in one of ReadGit's goroutines (a bug in go-git or in the status
// parser) becomes a step's error; the other steps' facts stay, and the
// process lives (an uncaught panic exits 2, which blocks a compaction).
// spec: GS-9 (never a panic)
func TestReadGitRecoversPanics(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "panicky", "first", map[string]string{"a.txt": "a\n"})
	head := tgit(t, dir, "rev-parse", "HEAD")
	for _, tc := range []struct {
		name    string
		gitPath string
		swap    func()
		want    string
		check   func(*snapshot.Git) string
	}{
		{"go-git with git", "", func() {
			goGitStep = func(string, bool) goGitState { panic("boom in go-git") }
		}, "go-git: panic: boom in go-git", func(g *snapshot.Git) string {
			if g.Branch != "main" || g.Head != head || g.Subject != "first" || g.ChangeCount != 0 {
				return "git's facts lost"
			}
			return ""
		}},
		{"go-git alone", "-", func() {
			goGitStep = func(string, bool) goGitState { panic("boom in go-git") }
		}, "go-git: panic: boom in go-git", func(g *snapshot.Git) string {
			if g.ChangeCount != -1 {
				return "change count not unknown"
			}
			return ""
		}},
		{"status", "", func() {
			statusStep = func(context.Context, string, string) (*porcelainV2, error) { panic("boom in status") }
		}, "git status: panic: boom in status", func(g *snapshot.Git) string {
			if g.Branch != "main" || g.Head != head || g.Subject != "first" || g.ChangeCount != -1 {
				return "refs or subject lost, or change count not unknown"
			}
			return ""
		}},
		{"subject", "", func() {
			subjectStep = func(context.Context, string, string) (string, error) { panic("boom in log") }
		}, "git log: panic: boom in log", func(g *snapshot.Git) string {
			if g.Branch != "main" || g.Head != head || g.ChangeCount != 0 {
				return "refs or status lost"
			}
			return ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gg, st, sj := goGitStep, statusStep, subjectStep
			defer func() { goGitStep, statusStep, subjectStep = gg, st, sj }()
			tc.swap()
			g := readGitGuarded(t, context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: tc.gitPath})
			if g.Error != tc.want {
				t.Errorf("Error = %q, want %q", g.Error, tc.want)
			}
			if msg := tc.check(g); msg != "" {
				t.Errorf("%s: %+v", msg, g)
			}
		})
	}
}

// spec: GS-7 (a repository format the reader cannot read is refused, by
// name; extensions that change nothing it does are read)
func TestReadGitGoGitRepositoryFormat(t *testing.T) {
	needGit(t)
	for _, tc := range []struct {
		name   string
		config [][2]string
		errHas string
	}{
		{"worktreeConfig", [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.worktreeConfig", "true"}}, ""},
		{"objectFormat sha1, quoted, with a comment", [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.objectFormat", `"SHA1" ; the default`}}, ""},
		{"objectFormat sha256", [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.objectFormat", "sha256"}}, "go-git: repository extension objectformat=sha256 not supported"},
		{"reftable", [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.refStorage", "reftable"}}, "go-git: repository extension refstorage=reftable not supported"},
		{"unknown extension", [][2]string{{"core.repositoryformatversion", "1"}, {"extensions.somethingNew", "true"}}, "go-git: repository extension somethingnew=true not supported"},
		{"format version 2", [][2]string{{"core.repositoryformatversion", "2"}}, `go-git: repository format version "2" not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := newRepo(t, "format", "first", map[string]string{"a.txt": "a\n"})
			cfg, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, kv := range tc.config {
				section, key, _ := strings.Cut(kv[0], ".")
				fmt.Fprintf(cfg, "[%s]\n\t%s = %s\n", section, key, kv[1])
			}
			cfg.Close()
			g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: "-"})
			if tc.errHas == "" && (g.Error != "" || g.Subject != "first" || g.ChangeCount != 0) {
				t.Errorf("Error, Subject, ChangeCount = %q, %q, %d; want none, first, 0", g.Error, g.Subject, g.ChangeCount)
			}
			if tc.errHas != "" && (g.Error != tc.errHas || g.ChangeCount != -1) {
				t.Errorf("Error, ChangeCount = %q, %d; want %q, -1", g.Error, g.ChangeCount, tc.errHas)
			}
		})
	}
}
