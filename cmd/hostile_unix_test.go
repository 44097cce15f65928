//go:build unix

package cmd

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
)

// rbSparseSize is the size of the sparse transcripts: 2 GiB of NUL bytes
// that take no disk space.
const rbSparseSize = 2 << 30

// rbSparse makes a sparse file of rbSparseSize bytes, followed by tail.
func rbSparse(t *testing.T, path string, tail []byte) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(rbSparseSize); err != nil {
		t.Skipf("cannot make a 2 GiB sparse file: %v", err)
	}
	if len(tail) > 0 {
		if _, err := f.WriteAt(tail, rbSparseSize); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// rbDeadlineHit reports whether the record says the deadline stopped the
// transcript reading before its end (PC-3): then it holds what was read by
// then. A read that took the newest bytes first (TR-50) reached the end.
func rbDeadlineHit(rec *snapshot.Record) bool {
	for _, w := range rec.Warnings {
		if strings.Contains(w, "not read within") || strings.Contains(w, "deadline reached") {
			return rec.Coverage.Incomplete
		}
	}
	return false
}

// TestRBHostileTranscriptUnix: devices, a FIFO nobody writes to, symlink
// loops and 2 GiB sparse files as the transcript. Each run must end within
// the hang guard, print nothing and log the problem; a FIFO that were opened
// for reading would block forever.
// spec: RB-4 (PC-1, PC-2, PC-3, PC-20)
func TestRBHostileTranscriptUnix(t *testing.T) {
	t.Parallel()
	makers := []rbHostileMaker{
		{"dev-zero", func(t *testing.T, w *rbWorld) rbHostileCase {
			return rbHostileCase{transcript: "/dev/zero", wantLog: regexp.MustCompile(`outcome=warn .*/dev/zero: not a regular file \(device\)`)}
		}},
		{"fifo", func(t *testing.T, w *rbWorld) rbHostileCase {
			p := filepath.Join(w.Root, "fifo.jsonl")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			return rbHostileCase{transcript: p, wantLog: regexp.MustCompile(`outcome=warn .*fifo.jsonl: not a regular file \(named pipe\)`)}
		}},
		{"symlink-loop", func(t *testing.T, w *rbWorld) rbHostileCase {
			a, b := filepath.Join(w.Root, "a.jsonl"), filepath.Join(w.Root, "b.jsonl")
			if err := errors.Join(os.Symlink(b, a), os.Symlink(a, b)); err != nil {
				t.Fatal(err)
			}
			return rbHostileCase{transcript: a, wantLog: regexp.MustCompile(`outcome=warn .*transcript: .*(too many levels of symbolic links|too many links)`)}
		}},
		{"symlink-to-dev-zero", func(t *testing.T, w *rbWorld) rbHostileCase {
			p := filepath.Join(w.Root, "zero.jsonl")
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
			return rbHostileCase{transcript: p, wantLog: regexp.MustCompile(`outcome=warn .*zero.jsonl: not a regular file \(device\)`)}
		}},
		{"sparse-2GiB", func(t *testing.T, w *rbWorld) rbHostileCase {
			return rbHostileCase{
				transcript: rbSparse(t, filepath.Join(w.Root, "sparse.jsonl"), nil),
				slow:       true,
				wantLog:    regexp.MustCompile(`outcome=(ok|warn) `),
				check: func(t *testing.T, rec *snapshot.Record) {
					if rec.Coverage.TranscriptSize != rbSparseSize {
						t.Errorf("transcript size %d, want %d", rec.Coverage.TranscriptSize, rbSparseSize)
					}
					if rbDeadlineHit(rec) {
						t.Logf("the deadline ended the reading (PC-3): %q", rec.Warnings)
						return
					}
					if u := rec.Coverage.Unread; len(u) > 0 {
						// Newest first (TR-50): the newest bytes hold no line start.
						t.Logf("the newest bytes were read first, bytes %+v not read (PC-3, TR-50)", u)
						if len(rec.Prompts) != 0 || rec.Coverage.ReadTo == nil || *rec.Coverage.ReadTo != rbSparseSize {
							t.Errorf("newest first: prompts %d, coverage %+v", len(rec.Prompts), rec.Coverage)
						}
						return
					}
					if rec.Stats.SkippedLong != 1 || len(rec.Prompts) != 0 {
						t.Errorf("read whole: stats %+v, prompts %d; want one line skipped as too long and nothing else", rec.Stats, len(rec.Prompts))
					}
				},
			}
		}},
		{"sparse-2GiB-valid-tail", func(t *testing.T, w *rbWorld) rbHostileCase {
			tail := append([]byte("\n"), rbTranscript("s", "Prompt after 2 GiB of NUL", "/p/after.go", "", false)...)
			return rbHostileCase{
				transcript: rbSparse(t, filepath.Join(w.Root, "sparse-tail.jsonl"), tail),
				slow:       true,
				wantLog:    regexp.MustCompile(`outcome=(ok|warn) `),
				check: func(t *testing.T, rec *snapshot.Record) {
					if rbDeadlineHit(rec) {
						t.Logf("the deadline ended the reading (PC-3) before the valid tail: %q", rec.Warnings)
						return
					}
					// Read whole, or the newest bytes first (TR-50): either
					// way the valid tail is in.
					if len(rec.Prompts) != 1 || rec.Prompts[0].Text != "Prompt after 2 GiB of NUL" || len(rec.Files) != 1 {
						t.Errorf("read to the end (unread %+v), but prompts %+v, files %+v", rec.Coverage.Unread, rec.Prompts, rec.Files)
					}
				},
			}
		}},
	}
	if testing.Short() {
		makers = makers[:4]
	}
	rbRunHostile(t, makers)
}

// rbMountTmpfs mounts a tmpfs on dir for the test, or skips it.
func rbMountTmpfs(t *testing.T, dir, opts string) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs Linux and root")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
}

// TestRBUnwritableFolderUnix: a full file system, a read-only one, a folder
// without write permission and a parent folder without it (the last two
// only when not root, whom permissions do not stop).
// spec: RB-5, RB-26 (PC-1, PC-2, PC-17, SF-30, SF-50, SF-52, PO-C5)
func TestRBUnwritableFolderUnix(t *testing.T) {
	t.Parallel()
	t.Run("disk-full", func(t *testing.T) {
		t.Parallel()
		w := rbNewWorld(t)
		rbMountTmpfs(t, w.Snaps, "size=64k,mode=0700")
		f, err := os.Create(filepath.Join(w.Snaps, "filler"))
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		for err == nil {
			_, err = f.Write(buf)
		}
		f.Close()
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("filling the tmpfs: %v, want ENOSPC", err)
		}
		rbCheckUnwritable(t, w, regexp.MustCompile(`no space left on device`), true)
	})
	t.Run("read-only", func(t *testing.T) {
		t.Parallel()
		w := rbNewWorld(t)
		rbMountTmpfs(t, w.Snaps, "ro,mode=0700")
		rbCheckUnwritable(t, w, regexp.MustCompile(`read-only file system`), true)
	})
	t.Run("read-only-log-folder", func(t *testing.T) {
		// spec: RB-26
		// The whole state folder is read-only: neither the snapshot nor the
		// log can be written, and the notice must not name the log as if it
		// had been.
		t.Parallel()
		w := rbNewWorld(t)
		rbMountTmpfs(t, filepath.Dir(w.Snaps), "ro,mode=0700")
		rbCheckUnwritable(t, w, regexp.MustCompile(`read-only file system`), false)
	})
	t.Run("no-write-permission", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() == 0 {
			t.Skip("root is not stopped by permissions")
		}
		w := rbNewWorld(t)
		if err := errors.Join(os.MkdirAll(w.Snaps, 0o700), os.Chmod(w.Snaps, 0o500)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(w.Snaps, 0o700) })
		rbCheckUnwritable(t, w, regexp.MustCompile(`permission denied`), true)
	})
	t.Run("parent-not-writable", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() == 0 {
			t.Skip("root is not stopped by permissions")
		}
		w := rbNewWorld(t)
		locked := filepath.Dir(filepath.Dir(w.Snaps))
		if err := errors.Join(os.MkdirAll(locked, 0o700), os.Chmod(locked, 0o500)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(locked, 0o700) })
		rbCheckUnwritable(t, w, regexp.MustCompile(`permission denied`), false)
	})
}

// runClosedPipes runs the binary with stdout and stderr pipes whose
// readers are gone, as when the client stopped reading, and returns its
// exit code (-1 when a signal ended it).
func (w *rbWorld) runClosedPipes(t *testing.T, stdin []byte, args ...string) int {
	t.Helper()
	cmd := exec.Command(rbBinary(t), args...)
	cmd.Env = w.env
	cmd.Dir = w.Root
	cmd.Stdin = strings.NewReader(string(stdin))
	for _, dst := range []**os.File{new(*os.File), new(*os.File)} {
		r, wr, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		*dst = wr
		t.Cleanup(func() { wr.Close() })
		if cmd.Stdout == nil {
			cmd.Stdout = wr
		} else {
			cmd.Stderr = wr
		}
	}
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(rbHangGuard):
		cmd.Process.Kill()
		<-done
		t.Fatalf("compact-guard %s did not finish within %s", strings.Join(args, " "), rbHangGuard)
	}
	return cmd.ProcessState.ExitCode()
}

// TestRBClosedPipes: hooks whose stdout and stderr are pipes nobody reads
// any more exit 0 and still do their work; they do not die of SIGPIPE
// (exit 141). Other commands may fail as usual.
// spec: RB-21 (PC-1, PO-C1)
func TestRBClosedPipes(t *testing.T) {
	t.Parallel()
	w := rbNewWorld(t)
	sid := "a1b2c3d4-0000-4000-8000-00000000c105"
	tr := rbWriteFile(t, filepath.Join(w.Root, "t.jsonl"), rbTranscript(sid, "Keep this prompt", "/p/a.go", "", false))
	// A flag that does not parse makes precompact write to stderr.
	if code := w.runClosedPipes(t, rbPrePayload(sid, tr, ""), "precompact", "--bogus"); code != 0 {
		t.Fatalf("precompact with closed pipes: exit %d, want 0", code)
	}
	if _, rec := rbSessionSnapshot(t, rbCheckFolder(t, w.Snaps), sid); rec == nil {
		t.Fatal("precompact with closed pipes wrote no snapshot")
	}
	// postcompact writes the pointer to stdout.
	if code := w.runClosedPipes(t, rbStartPayload(sid, tr, ""), "postcompact"); code != 0 {
		t.Fatalf("postcompact with closed pipes: exit %d, want 0", code)
	}
	if line := rbOneNewLogLine(t, w, 1); !strings.Contains(line, "postcompact session="+sid+" outcome=failed") || !strings.Contains(line, "writing hook output") {
		t.Errorf("postcompact's log line does not say its output was lost: %q", line)
	}
	if code := w.runClosedPipes(t, nil, "dir"); code == 0 {
		t.Errorf("dir with a closed stdout exited 0; only hooks ignore a broken pipe")
	}
}
