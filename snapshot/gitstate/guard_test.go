package gitstate

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
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

// traps are programs a repository's config can name: each appends a line
// to marker when it runs. pass then copies stdin to stdout (a filter that
// changes nothing); fail exits 1.
type traps struct{ marker, pass, fail string }

func newTraps(t *testing.T) traps {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("the trap programs are shell scripts")
	}
	dir := t.TempDir()
	tr := traps{marker: filepath.Join(dir, "ran"), pass: filepath.Join(dir, "pass.sh"), fail: filepath.Join(dir, "fail.sh")}
	log := fmt.Sprintf("echo \"$0 $*\" >> '%s'\n", tr.marker)
	write(t, tr.pass, "#!/bin/sh\n"+log+"cat\n")
	write(t, tr.fail, "#!/bin/sh\n"+log+"exit 1\n")
	for _, p := range []string{tr.pass, tr.fail} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// ran returns what the traps logged, and clears it.
func (tr traps) ran(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(tr.marker)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(tr.marker)
	return string(b)
}

// plainGit runs git as a user would, with none of ReadGit's guards, in an
// environment free of the caller's git settings; it returns the exit error,
// which controls may expect.
func plainGit(t *testing.T, dir string, args ...string) error {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_PAGER=cat",
		"GIT_AUTHOR_NAME=cg test", "GIT_AUTHOR_EMAIL=cg@example.com",
		"GIT_COMMITTER_NAME=cg test", "GIT_COMMITTER_EMAIL=cg@example.com")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	return cmd.Run()
}

// staleStat makes git unsure whether path changed: same content, another
// mtime, so that status must read it (through any clean filter) and would
// refresh the index.
func staleStat(t *testing.T, path string) {
	t.Helper()
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, future, future); err != nil {
		t.Fatal(err)
	}
}

// guardCase is one way a repository's config makes git run a program.
type guardCase struct {
	name string
	// setup makes the repository in dir and arms the traps.
	setup func(t *testing.T, dir string, tr traps)
	// control is the plain git command that does run a trap in such a
	// repository (nil: none can here, GS-16's unreachable cases).
	control []string
	// check looks at what ReadGit said.
	check func(t *testing.T, g *snapshot.Git)
}

func guardCases() []guardCase {
	noError := func(t *testing.T, g *snapshot.Git) {
		if g.Error != "" {
			t.Errorf("Error = %q, want none", g.Error)
		}
	}
	base := func(t *testing.T, dir string, files map[string]string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		tgit(t, dir, "init", "-q", "-b", "main")
		for p, c := range files {
			write(t, filepath.Join(dir, filepath.FromSlash(p)), c)
		}
		tgit(t, dir, "add", "-A")
		tgit(t, dir, "commit", "-q", "-m", "base")
	}
	return []guardCase{
		{
			name: "GS-13 core.fsmonitor names a hook",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{"a.txt": "a\n"})
				tgit(t, dir, "config", "core.fsmonitor", tr.pass)
			},
			control: []string{"status", "--porcelain"},
			check:   noError,
		},
		{
			name: "GS-13 a clean filter",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{".gitattributes": "*.txt filter=trap\n", "a.txt": "a\n"})
				tgit(t, dir, "config", "filter.trap.clean", tr.pass)
				tgit(t, dir, "config", "filter.trap.smudge", tr.pass)
				tgit(t, dir, "config", "filter.trap.required", "true")
				staleStat(t, filepath.Join(dir, "a.txt"))
			},
			control: []string{"status", "--porcelain"},
			check: func(t *testing.T, g *snapshot.Git) {
				if g.Error != "" || g.ChangeCount != 0 {
					t.Errorf("Error, ChangeCount = %q, %d; want none, 0 (the content is unchanged)", g.Error, g.ChangeCount)
				}
			},
		},
		{
			name: "GS-13 a long-running filter process, in an included file",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{".gitattributes": "*.txt filter=proc\n", "a.txt": "a\n"})
				inc := filepath.Join(dir, ".git", "more.config")
				write(t, inc, "[filter \"proc\"]\n\tprocess = "+tr.fail+"\n")
				tgit(t, dir, "config", "include.path", inc)
				staleStat(t, filepath.Join(dir, "a.txt"))
			},
			control: []string{"status", "--porcelain"},
			check:   noError,
		},
		{
			name: "GS-13 core.hooksPath names hooks (post-index-change)",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{"a.txt": "a\n"})
				hooks := filepath.Join(dir, ".git", "trap-hooks")
				write(t, filepath.Join(hooks, "post-index-change"), "#!/bin/sh\nexec '"+tr.fail+"' post-index-change\n")
				if err := os.Chmod(filepath.Join(hooks, "post-index-change"), 0o755); err != nil {
					t.Fatal(err)
				}
				tgit(t, dir, "config", "core.hooksPath", hooks)
				staleStat(t, filepath.Join(dir, "a.txt"))
			},
			control: []string{"status", "--porcelain"},
			check:   noError,
		},
		{
			name:    "GS-13 a partial clone's lazy fetch through an ext:: remote",
			setup:   partialCloneTrap,
			control: []string{"status", "--porcelain"},
			check: func(t *testing.T, g *snapshot.Git) {
				// The missing object is not fetched, so status cannot finish.
				if !strings.Contains(g.Error, "git status: exit status 128") || g.ChangeCount != -1 {
					t.Errorf("Error, ChangeCount = %q, %d; want git status failing on the missing object, -1", g.Error, g.ChangeCount)
				}
			},
		},
		{
			name: "GS-14 a submodule's own clean filter",
			setup: func(t *testing.T, dir string, tr traps) {
				lib := filepath.Join(filepath.Dir(dir), "lib-"+filepath.Base(dir))
				base(t, lib, map[string]string{".gitattributes": "*.txt filter=subtrap\n", "l.txt": "l\n"})
				base(t, dir, map[string]string{"s.txt": "s\n"})
				tgit(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
				tgit(t, dir, "commit", "-q", "-m", "submodule")
				sub := filepath.Join(dir, "vendor", "lib")
				tgit(t, sub, "config", "filter.subtrap.clean", tr.pass)
				staleStat(t, filepath.Join(sub, "l.txt"))
			},
			control: []string{"status", "--porcelain"},
			check: func(t *testing.T, g *snapshot.Git) {
				if g.Error != "" || g.ChangeCount != 0 {
					t.Errorf("Error, Changes = %q, %v; want none, none (the submodule's commit did not move)", g.Error, g.Changes)
				}
			},
		},
		{
			name: "GS-16 external diff, diff driver command and textconv",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{".gitattributes": "*.txt diff=trap\n", "a.txt": "a\n"})
				tgit(t, dir, "config", "diff.external", tr.fail)
				tgit(t, dir, "config", "diff.trap.command", tr.fail)
				tgit(t, dir, "config", "diff.trap.textconv", tr.pass)
				write(t, filepath.Join(dir, "a.txt"), "changed\n")
			},
			control: []string{"diff"},
			check: func(t *testing.T, g *snapshot.Git) {
				if g.Error != "" || !slices.Equal(g.Changes, []snapshot.GitChange{{Code: ".M", Path: "a.txt"}}) {
					t.Errorf("Error, Changes = %q, %v; want none, a.txt modified", g.Error, g.Changes)
				}
			},
		},
		{
			name: "GS-16 signature verification (log.showSignature, gpg.program)",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{"a.txt": "a\n"})
				signedCommit(t, dir, "signed subject")
				tgit(t, dir, "config", "log.showSignature", "true")
				tgit(t, dir, "config", "gpg.program", tr.fail)
			},
			control: []string{"log", "-1"},
			check: func(t *testing.T, g *snapshot.Git) {
				if g.Error != "" || g.Subject != "signed subject" {
					t.Errorf("Error, Subject = %q, %q; want none, signed subject", g.Error, g.Subject)
				}
			},
		},
		{
			name: "GS-16 pagers (stdout is never a terminal)",
			setup: func(t *testing.T, dir string, tr traps) {
				base(t, dir, map[string]string{"a.txt": "a\n"})
				for _, k := range []string{"core.pager", "pager.status", "pager.log", "pager.config"} {
					tgit(t, dir, "config", k, tr.fail)
				}
			},
			check: noError,
		},
	}
}

// partialCloneTrap makes dir a partial clone whose promisor remote is an
// ext:: command, with the object git needs for a staged rename missing.
func partialCloneTrap(t *testing.T, dir string, tr traps) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tgit(t, dir, "init", "-q", "-b", "main")
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "line %d\n", i)
	}
	write(t, filepath.Join(dir, "old.txt"), body.String())
	tgit(t, dir, "add", "-A")
	tgit(t, dir, "commit", "-q", "-m", "base")
	blob := tgit(t, dir, "rev-parse", "HEAD:old.txt")
	tgit(t, dir, "mv", "old.txt", "new.txt")
	write(t, filepath.Join(dir, "new.txt"), body.String()+"one more\n")
	tgit(t, dir, "add", "-A")
	for _, kv := range [][2]string{
		{"core.repositoryformatversion", "1"}, {"extensions.partialClone", "origin"},
		{"remote.origin.url", "ext::" + tr.fail + " %S"}, {"remote.origin.promisor", "true"},
		{"protocol.ext.allow", "always"},
	} {
		tgit(t, dir, "config", kv[0], kv[1])
	}
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
}

// signedCommit commits with a gpgsig header, as a signed commit has.
func signedCommit(t *testing.T, dir, subject string) {
	t.Helper()
	tree := tgit(t, dir, "rev-parse", "HEAD^{tree}")
	parent := tgit(t, dir, "rev-parse", "HEAD")
	raw := fmt.Sprintf("tree %s\nparent %s\nauthor cg test <cg@example.com> 1700000000 +0000\n"+
		"committer cg test <cg@example.com> 1700000000 +0000\n"+
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n\n%s\n", tree, parent, subject)
	f := filepath.Join(t.TempDir(), "commit")
	write(t, f, raw)
	h := tgit(t, dir, "hash-object", "-t", "commit", "-w", f)
	tgit(t, dir, "update-ref", "refs/heads/main", h)
}

// Every way a repository's config names a program that git status or git
// log would run, proven live by a plain git (the control) in one copy of the
// repository, runs nothing through ReadGit in another.
// spec: GS-13, GS-14, GS-16
func TestReadGitRunsNoConfiguredProgram(t *testing.T) {
	needGit(t)
	for _, tc := range guardCases() {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTraps(t)
			if tc.control != nil {
				ctl := filepath.Join(t.TempDir(), "control")
				tc.setup(t, ctl, tr)
				tr.ran(t)
				plainGit(t, ctl, tc.control...)
				if tr.ran(t) == "" {
					t.Fatalf("control: plain git %s ran no trap: the case proves nothing", strings.Join(tc.control, " "))
				}
			}
			dir := filepath.Join(t.TempDir(), "repo")
			tc.setup(t, dir, tr)
			tr.ran(t)
			g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
			if ran := tr.ran(t); ran != "" {
				t.Errorf("ReadGit ran the repository's programs:\n%s", ran)
			}
			tc.check(t, g)
		})
	}
}

// spec: GS-13 (on a git that ignores GIT_NO_LAZY_FETCH, the protocol
// settings alone stop the fetch)
func TestReadGitNoFetchWithoutLazyFetchVariable(t *testing.T) {
	needGit(t)
	old := lazyFetchOff
	lazyFetchOff = "GIT_NO_LAZY_FETCH=0"
	defer func() { lazyFetchOff = old }()
	tr := newTraps(t)
	dir := filepath.Join(t.TempDir(), "repo")
	partialCloneTrap(t, dir, tr)
	tr.ran(t)
	g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
	if ran := tr.ran(t); ran != "" {
		t.Errorf("ReadGit fetched through the repository's remote:\n%s", ran)
	}
	if !strings.Contains(g.Error, "git status:") {
		t.Errorf("Error = %q, want git status failing on the missing object", g.Error)
	}
}

// spec: GS-13 (a filter driver whose name git's -c cannot carry is not
// run around: status is not run at all)
func TestReadGitFilterNameWithEquals(t *testing.T) {
	needGit(t)
	tr := newTraps(t)
	dir := newRepo(t, "eq", "base", map[string]string{".gitattributes": "*.txt filter=a=b\n", "a.txt": "a\n"})
	tgit(t, dir, "config", "filter.a=b.clean", tr.pass)
	staleStat(t, filepath.Join(dir, "a.txt"))
	tr.ran(t)
	g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
	if ran := tr.ran(t); ran != "" {
		t.Errorf("ReadGit ran the filter:\n%s", ran)
	}
	if !strings.Contains(g.Error, `git status: git config: filter "a=b" cannot be overridden`) || g.ChangeCount != -1 || g.Subject != "base" {
		t.Errorf("Error, ChangeCount, Subject = %q, %d, %q; want the refusal, -1, base", g.Error, g.ChangeCount, g.Subject)
	}
}

// gitFileState is what a read could change of a file.
type gitFileState struct {
	size  int64
	mode  fs.FileMode
	mtime int64
	sum   [sha256.Size]byte
}

// gitFolderState is every file and folder under a .git folder.
func gitFolderState(t *testing.T, gitDir string) map[string]gitFileState {
	t.Helper()
	st := map[string]gitFileState{}
	err := filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		s := gitFileState{size: fi.Size(), mode: fi.Mode(), mtime: fi.ModTime().UnixNano()}
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s.sum = sha256.Sum256(b)
		}
		st[p] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// A read writes nothing under .git, whether git or go-git reads, even where
// a plain git status does rewrite the index (stale stat data, the untracked
// cache).
// spec: GS-15
func TestReadGitWritesNothing(t *testing.T) {
	needGit(t)
	setup := func(t *testing.T) string {
		dir := newRepo(t, "nowrite", "base", map[string]string{"a.txt": "a\n", "b/c.txt": "c\n"})
		tgit(t, dir, "config", "core.untrackedCache", "true")
		tgit(t, dir, "update-index", "--untracked-cache")
		staleStat(t, filepath.Join(dir, "a.txt"))
		write(t, filepath.Join(dir, "new.txt"), "untracked\n")
		return dir
	}
	ctl := setup(t)
	before := gitFolderState(t, filepath.Join(ctl, ".git"))
	plainGit(t, ctl, "status", "--porcelain")
	if len(gitFolderChanges(before, gitFolderState(t, filepath.Join(ctl, ".git")))) == 0 {
		t.Fatal("control: a plain git status wrote nothing either: the case proves nothing")
	}
	for _, gitPath := range []string{"", "-"} {
		dir := setup(t)
		before := gitFolderState(t, filepath.Join(dir, ".git"))
		g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: gitPath})
		if g.Error != "" || !slices.Equal(g.Changes, []snapshot.GitChange{{Code: "??", Path: "new.txt"}}) {
			t.Errorf("GitPath %q: Error, Changes = %q, %v; want none, new.txt", gitPath, g.Error, g.Changes)
		}
		for _, c := range gitFolderChanges(before, gitFolderState(t, filepath.Join(dir, ".git"))) {
			t.Errorf("GitPath %q: %s", gitPath, c)
		}
	}
}

// With a split index git sets the shared index file's modification time
// whenever it reads it (so that it is not expired), with no way to turn
// that off; that time is the only thing a read changes, and go-git, which
// cannot read a split index, says so.
// spec: GS-15
func TestReadGitSplitIndex(t *testing.T) {
	needGit(t)
	dir := newRepo(t, "split", "base", map[string]string{"a.txt": "a\n"})
	tgit(t, dir, "config", "core.splitIndex", "true")
	tgit(t, dir, "update-index", "--split-index")
	staleStat(t, filepath.Join(dir, "a.txt"))
	before := gitFolderState(t, filepath.Join(dir, ".git"))
	g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
	if g.Error != "" || g.ChangeCount != 0 {
		t.Errorf("Error, Changes = %q, %v; want none, none", g.Error, g.Changes)
	}
	for _, c := range gitFolderChanges(before, gitFolderState(t, filepath.Join(dir, ".git"))) {
		if !strings.Contains(c, "sharedindex.") || !strings.Contains(c, "modification time only") {
			t.Errorf("git: %s", c)
		}
	}
	g = Read(context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: "-"})
	if g.Error != "go-git: reading the index: unknown extension" || g.ChangeCount != -1 {
		t.Errorf("go-git: Error, ChangeCount = %q, %d; want the index refused, -1", g.Error, g.ChangeCount)
	}
}

// gitFolderChanges says what differs between two gitFolderStates.
func gitFolderChanges(before, after map[string]gitFileState) []string {
	var out []string
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, p+" created")
		case a == b:
		case a.size == b.size && a.mode == b.mode && a.sum == b.sum:
			out = append(out, p+" changed: modification time only")
		default:
			out = append(out, p+" changed")
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, p+" removed")
		}
	}
	slices.Sort(out)
	return out
}

// A repository another user owns is refused by git and by the git-less path
// alike, unless the user's global config names it in safe.directory.
// spec: GS-17
func TestReadGitRepositoryOfAnotherUser(t *testing.T) {
	needGit(t)
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root, to give the repository to another user")
	}
	dir := newRepo(t, "theirs", "base", map[string]string{"a.txt": "a\n"})
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 4242, 4242)
	})
	if err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, tc := range []struct {
		name, config string
		refused      bool
		// gitVaries: git 2.46 accepts what older gits refuse; go-git
		// refuses it.
		gitVaries bool
	}{
		{"not named", "", true, false},
		{"named, then the list cleared", "[safe]\n\tdirectory = " + dir + "\n\tdirectory =\n", true, false},
		{"named", "[safe]\n\tdirectory = " + dir + "\n", false, false},
		{"the folder above, with /*", "[safe]\n\tdirectory = " + filepath.Dir(dir) + "/*\n", true, true},
		{"every folder", "[safe]\n\tdirectory = *\n", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(t, global, tc.config)
			g := Read(context.Background(), dir, Options{Timeout: 20 * time.Second})
			if !tc.gitVaries && tc.refused != strings.Contains(g.Error, "dubious ownership") {
				t.Errorf("git: Error = %q, refused want %v", g.Error, tc.refused)
			}
			g = Read(context.Background(), dir, Options{Timeout: 20 * time.Second, GitPath: "-"})
			want := "go-git: " + dir + " is owned by another user, and safe.directory does not name " + dir + " (git refuses it too)"
			if tc.refused && (g.Error != want || g.Branch != "" || g.ChangeCount != -1) {
				t.Errorf("go-git: Error, Branch, ChangeCount = %q, %q, %d; want %q, none, -1", g.Error, g.Branch, g.ChangeCount, want)
			}
			if !tc.refused && (g.Error != "" || g.Branch != "main" || g.Subject != "base") {
				t.Errorf("go-git: Error, Branch, Subject = %q, %q, %q; want none, main, base", g.Error, g.Branch, g.Subject)
			}
		})
	}
}
