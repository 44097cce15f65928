package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// layoutEnv, when set, makes this package's tests run over transcripts in
// another layout: every line the test builders write (mustJSON), every
// fixture and every generated transcript is written again as Python's
// json.dumps writes it, with each object's keys in another order
// (transcripttest.Relayout). TestTR56OtherLayout sets it.
const layoutEnv = "COMPACT_GUARD_TEST_LAYOUT"

// otherLayout is set when this run of the tests is the one in another
// layout.
var otherLayout = os.Getenv(layoutEnv) != ""

// layoutSeed fixes the order the keys are put in.
const layoutSeed = 56

// relaid is b in the layout of this run.
func relaid(b []byte) []byte {
	if !otherLayout {
		return b
	}
	return transcripttest.Relayout(b, layoutSeed)
}

// laidFixture is a fixture file as this run reads it: the file itself, or
// a copy in the other layout with a map of its line starts.
type laidFixture struct {
	path   string
	starts []int64 // line starts of the original, ascending
	moved  map[int64]int64
	size   int64
}

// fixture returns the fixture at path as this run reads it.
func fixture(t *testing.T, path string) laidFixture {
	t.Helper()
	if !otherLayout {
		return laidFixture{path: path}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out, moved := transcripttest.RelayoutLines(data, layoutSeed)
	p := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
	lf := laidFixture{path: p, moved: moved, size: int64(len(data))}
	for off := range moved {
		lf.starts = append(lf.starts, off)
	}
	sort.Slice(lf.starts, func(i, j int) bool { return lf.starts[i] < lf.starts[j] })
	return lf
}

// off maps an offset of the original fixture to this run's copy: a line
// start to the line's start, an offset inside a line to just past the
// copy's line start, so that "lines starting at or after" and "before"
// keep their meaning.
func (lf laidFixture) off(o int64) int64 {
	if lf.moved == nil {
		return o
	}
	if n, ok := lf.moved[o]; ok {
		return n
	}
	i := sort.Search(len(lf.starts), func(i int) bool { return lf.starts[i] > o }) - 1
	return lf.moved[lf.starts[i]] + 1
}

// cut writes the first cut bytes of the fixture (all with cut < 0), mapped
// to this run's layout, to a temporary file.
func (lf laidFixture) cut(t *testing.T, cut int64) string {
	t.Helper()
	data, err := os.ReadFile(lf.path)
	if err != nil {
		t.Fatal(err)
	}
	if cut >= 0 {
		cut = lf.off(cut)
		if int(cut) > len(data) || data[cut-1] != '\n' {
			t.Fatalf("cut %d is not a line start", cut)
		}
		data = data[:cut]
	}
	p := filepath.Join(t.TempDir(), filepath.Base(lf.path))
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every test of this package runs again over its transcripts written in
// another valid JSON layout — Python's spacing, keys in another order, no
// character outside ASCII — and must pass unchanged: nothing decides by
// Claude Code's bytes. Each test builds its lines through mustJSON, reads
// the fixtures through fixture and generates through the generator's
// Relayout option, so that every offset a test expects is one of the file
// it reads.
// spec: TR-56
func TestTR56OtherLayout(t *testing.T) {
	if otherLayout {
		t.Skip("this is the run in the other layout")
	}
	if testing.Short() {
		t.Skip("runs the package's tests again")
	}
	// The layout changes what the builders write.
	if a, b := prompt(1, "Привет", nil), string(transcripttest.Relayout([]byte(prompt(1, "Привет", nil)), layoutSeed)); a == b || !bytes.Contains([]byte(b), []byte(`": "`)) {
		t.Fatalf("Relayout left %q as %q", a, b)
	}
	cmd := exec.Command(os.Args[0], "-test.count=1", "-test.skip=^TestTR56OtherLayout$", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), layoutEnv+"=python")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tests over transcripts in another layout failed: %v\n%s", err, out)
	}
	t.Logf("the tests passed over transcripts in another layout:\n%s", bytes.TrimSpace(out))
}

// A rollout's first line in another layout may name its type after tens of
// KB of instructions, past the first 64 KiB: the start is read further
// (up to 1 MiB) until a line decides (TR-37, TR-56).
// spec: TR-56, TR-37
func TestTR56FormatKeysInAnyOrder(t *testing.T) {
	instructions := strings.Repeat("You are Codex, a coding agent. ", 200<<10/31)
	for _, c := range []struct {
		name string
		line string
		want Format
	}{
		{"codex", mustJSONRaw(obj{"payload": obj{"base_instructions": instructions, "id": "s"}, "timestamp": "2026-12-01T06:17:45.434Z", "type": "session_meta"}), FormatCodex},
		{"qwen", `{"message": {"role": "user", "parts": [{"text": ` + mustJSONRaw(instructions) + `}]}, "type": "user", "provenance": "real_user", "uuid": "u"}`, FormatQwen},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, c.line+"\n")
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got, known := f.Format(); got != c.want || !known {
				t.Errorf("format %s (known %v), want %s", got, known, c.want)
			}
		})
	}
}

// mustJSONRaw is v as JSON, in no particular layout.
func mustJSONRaw(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
