package transcript

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

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

// BenchmarkReadNewestFirst reads, under a 1 s deadline, a 1.3 GB segment
// (generated, the whole file one segment) and a 3 GB file with no newline
// (sparse). It reports the wall time of Read against the deadline
// (x-deadline, at most 1 when Read ends by it) and how much of the file was
// read newest first (newest-MB); every run must reach the end of the file
// and, for the segment, hold its last prompt (PF-19, TR-50).
func BenchmarkReadNewestFirst(b *testing.B) {
	const deadline = time.Second
	dir := b.TempDir()
	b.Run("1.3GB-segment", func(b *testing.B) {
		path := filepath.Join(dir, "segment.jsonl")
		info, err := transcripttest.Write(path, transcripttest.Options{Size: 1300 << 20, Seed: 13})
		if err != nil {
			b.Fatal(err)
		}
		benchNewestFirst(b, path, deadline, info.LastPrompt)
	})
	b.Run("3GB-no-newline", func(b *testing.B) {
		path := filepath.Join(dir, "one-line.jsonl")
		if err := os.WriteFile(path, []byte(`{"type":"user","message":{"role":"user","content":"`), 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Truncate(path, 3<<30); err != nil {
			b.Skipf("no sparse file: %v", err)
		}
		benchNewestFirst(b, path, deadline, "")
	})
}

func benchNewestFirst(b *testing.B, path string, deadline time.Duration, lastPrompt string) {
	f, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var wall time.Duration
	var newest int64
	for b.Loop() {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		res, err := f.Read(ctx, ReadPlan{LastBoundary: -1, ChainEnd: -1})
		cancel()
		wall += time.Since(start)
		if err != nil || res.ReadTo != f.Size() || res.Interrupted {
			b.Fatalf("read to %d of %d, interrupted %v, err %v", res.ReadTo, f.Size(), res.Interrupted, err)
		}
		if n := len(res.Facts.Prompts); lastPrompt != "" && (n == 0 || res.Facts.Prompts[n-1].Text != lastPrompt) {
			b.Fatalf("last prompt missing (unread %+v)", res.Unread)
		}
		if n := len(res.Unread); n > 0 {
			newest += f.Size() - res.Unread[n-1].To
		} else {
			newest += f.Size()
		}
	}
	b.ReportMetric(wall.Seconds()/float64(b.N)/deadline.Seconds(), "x-deadline")
	b.ReportMetric(float64(newest)/float64(b.N)/1e6, "newest-MB")
}
