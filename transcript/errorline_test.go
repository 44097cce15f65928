package transcript

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failedBash is a Bash call and its failed result as Claude Code writes
// them: the tool_result text and toolUseResult "Error: " + the text.
func failedBash(output string) []string {
	return []string{
		call(1, "b1", "Bash", obj{"command": "./run.sh", "description": "Run"}),
		result(2, "b1", output, true, "Error: "+output),
	}
}

// spec: TR-21, TR-62, TR-63
// The error line is the line that says what failed: the exception of a
// Python traceback, a test's failure line, a diagnostic, a line naming an
// error — never the stdout printed before it ("all tests passed") nor the
// traceback's header.
func TestTR62ErrorLineSaysWhatFailed(t *testing.T) {
	py := "Traceback (most recent call last):\n  File \"/p/t.py\", line 3, in <module>\n    main()\n  File \"/p/t.py\", line 2, in main\n    raise ValueError(\"bad input\")\nValueError: bad input"
	for _, tc := range []struct{ name, output, want string }{
		{"stdout, then a Python traceback", "Exit code 1\nall tests passed\n" + py, "ValueError: bad input"},
		{"a chained traceback: the last exception", "Exit code 1\n" + py + "\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"x\", line 9, in <module>\nRuntimeError: cleanup failed", "RuntimeError: cleanup failed"},
		{"a traceback cut before its exception", "Exit code 1\nTraceback (most recent call last):\n  File \"x\", line 9, in <module>", "File \"x\", line 9, in <module>"},
		{"go test -v", "Exit code 1\n=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n    b_test.go:12: got 1, want 2\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/p\t0.01s", "--- FAIL: TestB (0.00s)"},
		{"pytest's summary", "Exit code 1\n============ test session starts ============\ncollected 3 items\n\ntests/test_a.py ..F\n=========== short test summary info ===========\nFAILED tests/test_a.py::test_c - AssertionError: assert 1 == 2\n====== 1 failed, 2 passed in 0.02s ======", "FAILED tests/test_a.py::test_c - AssertionError: assert 1 == 2"},
		{"unittest", "Exit code 1\n.F\n======================================================================\nFAIL: test_b (test_m.T.test_b)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"test_m.py\", line 5, in test_b\nAssertionError: 1 != 2", "AssertionError: 1 != 2"},
		{"a Go build error", "Exit code 1\n# example.com/p\n./a.go:3:2: undefined: regexp\nFAIL\texample.com/p [build failed]", "./a.go:3:2: undefined: regexp"},
		{"a task runner's prefix", "Exit code 1\n[lint] $ golangci-lint run ./...\n[lint] cmd/a.go:513:2: ifElseChain: rewrite if-else to switch statement (gocritic)\n[lint] ERROR task failed", "[lint] cmd/a.go:513:2: ifElseChain: rewrite if-else to switch statement (gocritic)"},
		{"rustc", "Exit code 101\n   Compiling p v0.1.0\nerror[E0308]: mismatched types\n --> src/main.rs:2:18", "error[E0308]: mismatched types"},
		{"tsc", "Exit code 2\nsrc/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.", "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."},
		{"git", "Exit code 128\nfatal: not a git repository (or any of the parent directories): .git", "fatal: not a git repository (or any of the parent directories): .git"},
		{"node", "Exit code 1\nstarting\nnode:internal/modules/cjs/loader:1228\n  throw err;\n  ^\n\nError: Cannot find module '/p/x.js'", "Error: Cannot find module '/p/x.js'"},
		{"stdout first, a shell's complaint after", "Exit code 2\nhello from the script\nls: cannot access '/nonexistent': No such file or directory", "ls: cannot access '/nonexistent': No such file or directory"},
		{"the same, the other way round", "Exit code 2\nls: cannot access '/nonexistent': No such file or directory\nhello from the script", "ls: cannot access '/nonexistent': No such file or directory"},
		{"nothing says what failed: the first line", "Exit code 1\nall tests passed", "all tests passed"},
		{"a progress line rewritten with CR", "Exit code 1\nRebasing (1/4)\rRebasing (2/4)\rerror: could not apply 3af4a87", "error: could not apply 3af4a87"},
		{"the client's exit code line repeated", "Exit code 126\n(eval):1: permission denied: ./x\nExit code 126\n(eval):1: permission denied: ./x", "(eval):1: permission denied: ./x"},
		{"ExUnit", "Exit code 2\nRunning ExUnit with seed: 1\n\n  1) test sync is idempotent (Spotter.SyncTest)\n     test/sync_test.exs:142\n     Assertion with == failed\n\n13 tests, 1 failure", "1) test sync is idempotent (Spotter.SyncTest)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := extract(failedBash(tc.output)...)
			if len(f.Commands) != 1 || f.Commands[0].ErrorLine != tc.want {
				t.Errorf("error line %q, want %q", f.Commands[0].ErrorLine, tc.want)
			}
			// TR-24: the failure joins the exit code to the same line.
			if len(f.Failures) != 1 || !strings.HasSuffix(f.Failures[0].Error, ": "+tc.want) {
				t.Errorf("failure %+v", f.Failures)
			}
		})
	}
}

// spec: TR-64
// Codex CLI and Qwen Code record stdout and stderr in one text, in the
// order they arrived: the recorded "cat hello.txt && ls
// /nonexistent-e2e-dir" gives the ls error whichever stream came first.
func TestTR64MixedStreamsEitherOrder(t *testing.T) {
	for _, fx := range []struct{ path, stdout string }{
		{"testdata/qwen0.24.4/two-compactions.jsonl", "hello from qwen"},
		{"testdata/codex0.169.0/three-compactions.jsonl", "hello from codex"},
	} {
		data, err := os.ReadFile(fx.path)
		if err != nil {
			t.Fatal(err)
		}
		lsErr := "ls: cannot access '/nonexistent-e2e-dir': No such file or directory"
		asWritten := fx.stdout + `\n` + lsErr
		if !bytes.Contains(data, []byte(asWritten)) {
			t.Fatalf("%s does not hold %q", fx.path, asWritten)
		}
		for name, text := range map[string][]byte{
			"as recorded":          data,
			"stderr before stdout": bytes.ReplaceAll(data, []byte(asWritten), []byte(lsErr+`\n`+fx.stdout)),
		} {
			p := filepath.Join(t.TempDir(), filepath.Base(fx.path))
			if err := os.WriteFile(p, text, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.Read(t.Context(), ReadPlan{LastBoundary: -1, ChainEnd: -1})
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, c := range res.Facts.Commands {
				if strings.HasPrefix(c.Command, "cat hello.txt") {
					got = c.ErrorLine
				}
			}
			if got != lsErr {
				t.Errorf("%s, %s: error line %q, want %q", fx.path, name, got, lsErr)
			}
		}
	}
}

// spec: TR-63
// On the real transcripts, each failed command's error line is the line
// that says what failed.
func TestTR63RealOutputs(t *testing.T) {
	want := map[string]map[string]string{
		filepath.Join(ownFixtureDir, "manual-compaction.jsonl"): {"printf 'FAIL: TestGreeting": "FAIL: TestGreeting"},
		filepath.Join(fixtureDir, "cc2.1.328-two-compactions-cyrillic.jsonl"): {
			"python3 -m pytest -q tests": "/root/.pyenv/versions/3.11.7/bin/python3: No module named pytest"},
		filepath.Join(fixtureDir, "spotter-4d5611e5.jsonl"): {"git push 2>&1": "fatal: The current branch spotter-dov has no upstream branch."},
		filepath.Join(fixtureDir, "spotter-fa812bfe.jsonl"): {
			"git add lib/spotter_web/live/pane_list_live.ex": "The following paths are ignored by one of your .gitignore files:"},
	}
	needFixtures(t, len(want)-1)
	for path, cmds := range want {
		facts := extractPath(t, path)
		for prefix, line := range cmds {
			found := false
			for _, c := range facts.Commands {
				if strings.HasPrefix(c.Command, prefix) && c.Outcome == OutcomeError {
					found = true
					if c.ErrorLine != line {
						t.Errorf("%s: %q: error line %q, want %q", filepath.Base(path), prefix, c.ErrorLine, line)
					}
				}
			}
			if !found {
				t.Errorf("%s: no command %q", filepath.Base(path), prefix)
			}
		}
	}
	// The failures of the ExUnit runs name the failing test, not the
	// stack trace's line after it.
	facts := extractPath(t, filepath.Join(fixtureDir, "spotter-fa812bfe.jsonl"))
	var exunit bool
	for _, f := range facts.Failures {
		if strings.Contains(f.Error, "(test)") {
			t.Errorf("a stack trace's line for a failure: %q", f.Error)
		}
		exunit = exunit || strings.HasPrefix(f.Error, "Exit code 2: 1) test sync_session_file/2 is idempotent")
	}
	if !exunit {
		t.Errorf("the ExUnit failure is not named: %+v", facts.Failures)
	}
}

// extractPath feeds every line of the transcript at path to one Extractor.
func extractPath(t *testing.T, path string) *Facts {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	x := NewExtractor(nil)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		x.Feed(sc.Bytes())
	}
	return x.Facts()
}
