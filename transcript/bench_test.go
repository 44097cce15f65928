package transcript

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/compact-guard/compact-guard/transcript/transcripttest"
)

// benchSegment generates a transcript whose last segment is about segSize
// bytes and reads that segment, reporting MB/s of segment bytes.
func benchSegment(b *testing.B, segSize int64) {
	path := filepath.Join(b.TempDir(), "t.jsonl")
	info, err := transcripttest.Write(path, transcripttest.Options{
		Size: segSize + segSize/10, LastSegment: segSize, Compactions: 2, Seed: 7,
	})
	if err != nil {
		b.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	lb := info.Boundaries[len(info.Boundaries)-1]
	seg := f.Size() - lb
	b.SetBytes(seg)
	cpu0 := cpuTime()
	for b.Loop() {
		res, err := f.Read(context.Background(), ReadPlan{LastBoundary: lb, ChainEnd: lb, EarlierBudget: 1})
		if err != nil {
			b.Fatal(err)
		}
		if res.Facts.Stats.Corrupt != 0 || len(res.Facts.Files) != info.LastSegmentFiles {
			b.Fatalf("unexpected facts: corrupt %d, files %d want %d", res.Facts.Stats.Corrupt, len(res.Facts.Files), info.LastSegmentFiles)
		}
	}
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(seg)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkSegment reads a 200 MB segment (issue 7: at least 400 MB/s).
// spec: PF-1, TR-32
func BenchmarkSegment(b *testing.B) { benchSegment(b, 200<<20) }

// BenchmarkSegmentSmall is a quick 20 MB variant.
func BenchmarkSegmentSmall(b *testing.B) { benchSegment(b, 20<<20) }

// BenchmarkLastBoundary finds the last compact_boundary of a 220 MB
// transcript whose last segment is 20 MB: its cost follows the segment.
func BenchmarkLastBoundary(b *testing.B) {
	path := filepath.Join(b.TempDir(), "t.jsonl")
	info, err := transcripttest.Write(path, transcripttest.Options{Size: 220 << 20, LastSegment: 20 << 20, Compactions: 5, Seed: 9})
	if err != nil {
		b.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	want := info.Boundaries[len(info.Boundaries)-1]
	b.SetBytes(f.Size() - want)
	for b.Loop() {
		off, err := f.LastBoundary(context.Background())
		if err != nil || off != want {
			b.Fatalf("LastBoundary = %d, %v; want %d", off, err, want)
		}
	}
}
