package snapshot

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestFindStateFile(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "проект с пробелом")
	gitRoot := filepath.Join(root, "repo")
	cwd := filepath.Join(gitRoot, "sub")
	for _, d := range []string{project, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	stamp := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	put := func(t *testing.T, path string) {
		t.Helper()
		write(t, path, "# state\n")
		if err := os.Chtimes(path, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name       string
		file       string // state file name passed in
		setup      func(t *testing.T)
		candidates []string
		wantPath   string
		searched   []string
	}{
		{
			// spec: GS-20, GS-22
			name:       "nothing found: every folder searched once, empty ones skipped",
			candidates: []string{project, "", gitRoot, cwd, gitRoot + string(filepath.Separator), project},
			searched:   []string{project, gitRoot, cwd},
		},
		{
			// spec: GS-21, GS-22
			name: "first candidate wins and the search stops",
			setup: func(t *testing.T) {
				put(t, filepath.Join(project, "SESSION-STATE.md"))
				put(t, filepath.Join(gitRoot, "SESSION-STATE.md"))
			},
			candidates: []string{project, gitRoot, cwd},
			wantPath:   filepath.Join(project, "SESSION-STATE.md"),
			searched:   []string{project},
		},
		{
			// spec: GS-20, GS-21
			name:       "found in the git root after the project dir",
			setup:      func(t *testing.T) { put(t, filepath.Join(gitRoot, "SESSION-STATE.md")) },
			candidates: []string{project, gitRoot, cwd},
			wantPath:   filepath.Join(gitRoot, "SESSION-STATE.md"),
			searched:   []string{project, gitRoot},
		},
		{
			// spec: GS-21 (a folder of that name is not the state file)
			name: "a folder with the name does not count",
			setup: func(t *testing.T) {
				os.MkdirAll(filepath.Join(project, "SESSION-STATE.md"), 0o755)
				put(t, filepath.Join(cwd, "SESSION-STATE.md"))
			},
			candidates: []string{project, gitRoot, cwd},
			wantPath:   filepath.Join(cwd, "SESSION-STATE.md"),
			searched:   []string{project, gitRoot, cwd},
		},
		{
			// spec: GS-20 (another name, as --state-file gives)
			name: "another name",
			file: "NOTES.md",
			setup: func(t *testing.T) {
				put(t, filepath.Join(cwd, "SESSION-STATE.md"))
				put(t, filepath.Join(cwd, "NOTES.md"))
			},
			candidates: []string{cwd},
			wantPath:   filepath.Join(cwd, "NOTES.md"),
			searched:   []string{cwd},
		},
		{
			// spec: GS-22
			name:     "no candidates",
			searched: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, d := range []string{project, gitRoot, cwd} {
				for _, n := range []string{"SESSION-STATE.md", "NOTES.md"} {
					os.RemoveAll(filepath.Join(d, n))
				}
			}
			if tc.setup != nil {
				tc.setup(t)
			}
			sf := FindStateFile(context.Background(), tc.file, tc.candidates)
			wantName := tc.file
			if wantName == "" {
				wantName = "SESSION-STATE.md"
			}
			if sf.Name != wantName {
				t.Errorf("Name = %q, want %q", sf.Name, wantName)
			}
			if sf.Path != tc.wantPath {
				t.Errorf("Path = %q, want %q", sf.Path, tc.wantPath)
			}
			if tc.wantPath != "" && !sf.ModTime.Equal(stamp) {
				t.Errorf("ModTime = %v, want %v", sf.ModTime, stamp)
			}
			if tc.wantPath == "" && !sf.ModTime.IsZero() {
				t.Errorf("ModTime = %v, want zero", sf.ModTime)
			}
			if !slices.Equal(sf.Searched, tc.searched) || sf.Searched == nil {
				t.Errorf("Searched = %#v, want %#v", sf.Searched, tc.searched)
			}
		})
	}
}

// spec: GS-21 (a symlink to a state file kept elsewhere counts)
func TestFindStateFileSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "real-state.md")
	write(t, target, "# state\n")
	link := filepath.Join(dir, "SESSION-STATE.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if sf := FindStateFile(context.Background(), "", []string{dir}); sf.Path != link || sf.ModTime.IsZero() {
		t.Errorf("FindStateFile through a symlink = %+v, want path %s with a time", sf, link)
	}
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if sf := FindStateFile(context.Background(), "", []string{dir}); sf.Path != "" {
		t.Errorf("a dangling symlink gave Path %q, want none", sf.Path)
	}
}

// A folder whose file system does not answer holds the lookup only until
// ctx ends: it is named in Unanswered and the folders after it are not
// looked in.
// spec: GS-23
func TestFindStateFileUnanswered(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hung := filepath.Join(string(filepath.Separator)+"mnt", "hung")
	release := make(chan struct{})
	defer close(release)
	var asked []string
	stat := func(p string) (fs.FileInfo, error) {
		asked = append(asked, filepath.Dir(p))
		if filepath.Dir(p) == hung {
			cancel() // the deadline passes while the file system says nothing
			<-release
		}
		return nil, fs.ErrNotExist
	}
	first := filepath.Join(string(filepath.Separator)+"home", "p")
	sf := findStateFile(ctx, "", []string{first, hung, filepath.Join(string(filepath.Separator) + "later")}, stat)
	if sf.Unanswered != hung || !slices.Equal(sf.Searched, []string{first}) || sf.Path != "" {
		t.Errorf("lookup = %+v, want %s unanswered after %s", sf, hung, first)
	}
	if len(asked) != 2 {
		t.Errorf("looked in %q after the deadline", asked)
	}
}

// write makes path, and the folders above it, with content.
func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
