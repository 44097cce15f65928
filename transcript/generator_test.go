package transcript

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// The generator the benchmarks rely on writes what it says it writes, and
// this package reads it back as described.
//
// spec: TR-4, TR-11, TR-32
func TestGenerator(t *testing.T) {
	dir := t.TempDir()
	opts := transcripttest.Options{Size: 6 << 20, LastSegment: 2 << 20, Compactions: 3, GiantLine: 9 << 20, Seed: 3}
	p := filepath.Join(dir, "g.jsonl")
	info, err := transcripttest.Write(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "boundaries", len(info.Boundaries), 3)

	// Every line but the giant one is valid JSON; boundaries are where the
	// generator says.
	r, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	var off int64
	bi := 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 {
			break
		}
		body := bytes.TrimSuffix(line, []byte("\n"))
		if off == info.GiantLineAt {
			if len(body) <= MaxLineBytes {
				t.Errorf("giant line of %d bytes", len(body))
			}
		} else {
			if !json.Valid(body) {
				t.Fatalf("line at %d is not JSON: %.200s", off, body)
			}
			if len(body) > MaxLineBytes {
				t.Fatalf("line at %d has %d bytes", off, len(body))
			}
		}
		if IsBoundaryLine(body) {
			if bi >= len(info.Boundaries) || info.Boundaries[bi] != off {
				t.Errorf("boundary at %d, generator says %v", off, info.Boundaries)
			}
			bi++
		}
		off += int64(len(line))
		if err != nil {
			break
		}
	}
	eq(t, "size", off, info.Size)

	f := open(t, p)
	lb := lastBoundary(t, f)
	eq(t, "last boundary", lb, info.Boundaries[2])
	res, err := f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: lb})
	if err != nil {
		t.Fatal(err)
	}
	fs := res.Facts
	eq(t, "corrupt", fs.Stats.Corrupt, 0)
	eq(t, "skipped", fs.Stats.SkippedLong, 1)
	eq(t, "files", len(fs.Files), info.LastSegmentFiles)
	edits := 0
	for _, fe := range fs.Files {
		edits += fe.Edits
	}
	eq(t, "edits", edits, info.LastSegmentEdits)
	eq(t, "last prompt", fs.Prompts[len(fs.Prompts)-1].Text, info.LastPrompt)
	if fs.Usage == nil || fs.Usage.FromBoundary {
		t.Errorf("usage = %+v", fs.Usage)
	}

	// Deterministic.
	q := filepath.Join(dir, "h.jsonl")
	if _, err := transcripttest.Write(q, opts); err != nil {
		t.Fatal(err)
	}
	eq(t, "same bytes", fileHash(t, p), fileHash(t, q))
}

func fileHash(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
