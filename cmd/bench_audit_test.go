package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/compact-guard/compact-guard/restore/audit"
)

// BenchmarkAudit is audit's read of one transcript made only of compaction
// boundaries, the most compactions per byte a transcript can hold (32,000
// in 9.4 MB), at three sizes: the time per boundary stays the same as the
// count grows fourfold, so the cost is linear in what is read
// (specs/performance.md PF-25, audit.md AU-12).
func BenchmarkAudit(b *testing.B) {
	for _, n := range []int{8000, 32000, 128000} {
		b.Run(fmt.Sprintf("boundaries=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "7c1d0e5a-0000-4000-8000-00000000be0c.jsonl")
			auditBoundaries(b, path, n)
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(info.Size())
			b.ResetTimer()
			for b.Loop() {
				s := audit.ReadSession(path, nil, nil, 1<<30)
				if len(s.Compactions) != n || s.Stopped || s.Error != "" {
					b.Fatalf("%d compactions (stopped %v, error %q), want %d", len(s.Compactions), s.Stopped, s.Error, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/boundary")
		})
	}
}
