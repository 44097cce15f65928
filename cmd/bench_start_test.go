package cmd

// Process start of every hook against an empty Go program (PF-15 to PF-17,
// specs/performance.md): what a hook costs before it does any work, which
// the per-tool-call hooks pay on every call.

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchBuildFlags and benchBuildEnv build the binary as install.sh and the
// release do: no cgo (the net and os/user packages that cobra and go-git
// link would otherwise make it a dynamically linked program, whose loader
// alone costs 0.8 ms a start), no file paths, no symbol table. Nothing is
// turned off: the hooks wait for nothing of the client's (PC-48, PO-C14),
// so the benchmarks time them as the client pays them (PF-10).
var (
	benchBuildFlags = []string{"build", "-trimpath", "-ldflags=-s -w"}
	benchBuildEnv   = []string{"CGO_ENABLED=0"}
)

// benchGoBuild builds the package src (relative to dir) into exe with the
// release flags, and env added to the environment.
func benchGoBuild(dir, src, exe string, env ...string) error {
	build := exec.Command("go", append(slices.Clone(benchBuildFlags), "-o", exe, src)...)
	build.Dir = dir
	build.Env = append(append(os.Environ(), benchBuildEnv...), env...)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", src, err, out)
	}
	return nil
}

// emptyProgram returns an empty Go program (func main() {}) built with the
// same flags and Go as the binary, once per corpus folder: the floor no Go
// program starts below.
func (c *benchCorpus) emptyProgram(b *testing.B) string {
	b.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if c.empty != "" {
		return c.empty
	}
	src := filepath.Join(c.dir, "empty-src")
	files := map[string]string{"go.mod": "module empty\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"}
	if err := os.MkdirAll(src, 0o700); err != nil {
		b.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	exe := filepath.Join(c.dir, "bin", benchExe("empty"))
	if err := benchGoBuild(src, ".", exe, "GOFLAGS=", "GOWORK=off"); err != nil {
		b.Fatal(err)
	}
	c.empty = exe
	return exe
}

// startCases are the hook invocations whose start BenchmarkStart measures:
// each does no work beyond reading its (empty) input and saying so.
var startCases = []struct {
	name string
	args []string
	// check fails the run unless it is what the case must give.
	check func(r benchRun) error
}{
	{"version", []string{"version"}, func(r benchRun) error {
		if r.exitCode != 0 || !bytes.HasPrefix(r.stdout, []byte("compact-guard ")) {
			return fmt.Errorf("exit %d, stdout %q", r.exitCode, r.stdout)
		}
		return nil
	}},
	{"precompact-empty-payload", []string{"precompact"}, func(r benchRun) error {
		if r.exitCode != 0 || len(r.stdout) != 0 {
			return fmt.Errorf("exit %d, stdout %q", r.exitCode, r.stdout)
		}
		return nil
	}},
	{"postcompact-empty-payload", []string{"postcompact"}, func(r benchRun) error {
		if r.exitCode != 0 {
			return fmt.Errorf("exit %d, stderr %q", r.exitCode, r.stderr)
		}
		return nil
	}},
}

// BenchmarkStart runs each hook with an empty payload and an empty Go
// program in turn, in alternating order, and reports x-empty: the ratio of
// their median wall times, start to exit (PF-16). Both are started the same
// way in the same run, so that a busy machine slows both. They are started
// from the test process itself, as Claude Code starts a hook from its own
// warm process: through the wrapper of PF-12 its own cold start, competing
// for the two cores, would add the same time to both and flatter the ratio.
//
//	go test -run '^$' -bench BenchmarkStart -benchtime 1000x ./cmd/
//
// spec: PF-16 (measured as PF-18 says)
func BenchmarkStart(b *testing.B) {
	c := benchHold(b)
	empty := c.emptyProgram(b)
	for _, tc := range startCases {
		b.Run(tc.name, func(b *testing.B) {
			b.StopTimer()
			snapDir := filepath.Join(c.dir, "start", tc.name, "snapshots")
			var hook, floor []time.Duration
			for i := 0; i < b.N; i++ {
				runHook := func() {
					r := startRun(b, c, snapDir, c.home, nil, c.bin, tc.args...)
					if err := tc.check(r); err != nil {
						b.Fatalf("%s: %v", strings.Join(tc.args, " "), err)
					}
					hook = append(hook, r.wall)
				}
				runEmpty := func() {
					r := startRun(b, c, snapDir, c.home, nil, empty)
					if r.exitCode != 0 {
						b.Fatalf("the empty program exited %d", r.exitCode)
					}
					floor = append(floor, r.wall)
				}
				if i%2 == 0 {
					runHook()
					runEmpty()
				} else {
					runEmpty()
					runHook()
				}
			}
			p50 := func(ws []time.Duration) time.Duration { return slices.Sorted(slices.Values(ws))[len(ws)/2] }
			var sum time.Duration
			for _, w := range hook {
				sum += w
			}
			b.ReportMetric(float64(sum.Nanoseconds())/float64(len(hook)), "ns/op")
			b.ReportMetric(float64(p50(hook).Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(p50(floor).Microseconds())/1000, "empty-p50-ms")
			b.ReportMetric(float64(p50(hook))/float64(p50(floor)), "x-empty")
		})
	}
}

// startRun starts exe in dir with stdin as its input and the hooks'
// environment of the corpus's home, and times it from start to exit.
func startRun(b *testing.B, c *benchCorpus, snapDir, dir string, stdin []byte, exe string, args ...string) benchRun {
	b.Helper()
	var out, errOut bytes.Buffer
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = benchEnv(c.home, snapDir)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	b.StartTimer()
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	b.StopTimer()
	r := benchRun{wall: wall, stdout: out.Bytes(), stderr: errOut.Bytes()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.exitCode = ee.ExitCode()
	} else if err != nil {
		b.Fatalf("%s: %v", exe, err)
	}
	return r
}

// spec: PF-15 (the binary the release and install.sh build is at most
// 10 MB and links none of what only go-git's root package brings), PF-16
// (package initialisation allocates little, compact-guard's own almost
// nothing)
func TestLeanBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; -short")
	}
	deps, err := exec.Command("go", "list", "-deps", "..").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(deps)) {
		if slices.Contains(leanForbidden, p) {
			t.Errorf("the binary links %s", p)
		}
	}

	exe := rbBinary(t) // built with the release flags (benchGoBuild)
	fi, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stripped %s/%s binary: %.2f MB", runtime.GOOS, runtime.GOARCH, float64(fi.Size())/1e6)
	if fi.Size() > leanMaxSize {
		t.Errorf("the stripped binary is %d bytes, over %d", fi.Size(), leanMaxSize)
	}
	if f, err := elf.Open(exe); err == nil {
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the binary is dynamically linked: its start runs the loader")
			}
		}
		f.Close()
	}
	script, err := os.ReadFile(filepath.Join("..", "install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"CGO_ENABLED=0 ", "build -trimpath", `-ldflags "-s -w `} {
		if !bytes.Contains(script, []byte(flag)) {
			t.Errorf("install.sh does not build with %s as the release does", flag)
		}
	}

	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s version: %v\n%s", exe, err, stderr.Bytes())
	}
	own, all := initCost(t, stderr.String())
	t.Logf("package initialisation: compact-guard's %d allocations (%d bytes), all %d (%d bytes)", own.allocs, own.bytes, all.allocs, all.bytes)
	if own.allocs > leanOwnInit.allocs || own.bytes > leanOwnInit.bytes {
		t.Errorf("compact-guard's packages allocate %d times (%d bytes) at initialisation, over %d (%d): build tables on first use", own.allocs, own.bytes, leanOwnInit.allocs, leanOwnInit.bytes)
	}
	if all.allocs > leanAllInit.allocs || all.bytes > leanAllInit.bytes {
		t.Errorf("package initialisation allocates %d times (%d bytes), over %d (%d): a dependency does work at start", all.allocs, all.bytes, leanAllInit.allocs, leanAllInit.bytes)
	}
}

// leanForbidden are packages whose initialisation every start would pay for
// code no hook needs: go-git's root package and its transports, go-git's
// config reader (gcfg, encoding/gob, math/big), and crypto/sha256 (the FIPS
// module).
var leanForbidden = []string{
	"github.com/go-git/go-git/v5",
	"net/http",
	"crypto/tls",
	"golang.org/x/crypto/ssh",
	"github.com/ProtonMail/go-crypto/openpgp",
	"github.com/go-git/gcfg",
	"encoding/gob",
	"math/big",
	"crypto/sha256",
}

// leanMaxSize is PF-15's bound, in bytes (10 MB).
const leanMaxSize = 10_000_000

// initAllocs is what package initialisation allocated.
type initAllocs struct{ allocs, bytes int }

// leanOwnInit and leanAllInit bound initialisation (PF-16) with room over
// today's (compact-guard's own 54 allocations and 8 KB, all 381 and 69 KB):
// one regular expression compiled at start costs 50 to 500 allocations, a
// message catalog a thousand, encoding/gob's initialisation 354.
var (
	leanOwnInit = initAllocs{allocs: 150, bytes: 24 << 10}
	leanAllInit = initAllocs{allocs: 600, bytes: 96 << 10}
)

// initCost sums GODEBUG=inittrace=1 lines ("init pkg @0.1 ms, 0.01 ms clock,
// 312 bytes, 7 allocs"), for compact-guard's packages and for all.
func initCost(t *testing.T, trace string) (own, all initAllocs) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(trace))
	n := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		bytes, err1 := strconv.Atoi(f[7])
		allocs, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("inittrace line %q", sc.Text())
		}
		n++
		all.allocs += allocs
		all.bytes += bytes
		if strings.HasPrefix(f[1], "github.com/compact-guard/compact-guard") {
			own.allocs += allocs
			own.bytes += bytes
		}
	}
	if n == 0 {
		t.Fatalf("no inittrace lines in:\n%s", trace)
	}
	return own, all
}
