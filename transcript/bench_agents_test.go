package transcript

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkAgentLines feeds each recorded Codex CLI, Qwen Code and Copilot
// CLI session (testdata) through its reader's line handler, line by line as
// Read does, and reports MB/s of lines handled and the CPU time of one pass
// (cpu-ns/op, which other processes on the cores disturb less than the wall
// time). It measures the handlers' own cost — their shared opening
// included — apart from file reading.
func BenchmarkAgentLines(b *testing.B) {
	for _, c := range []struct {
		name, path string
		format     Format
	}{
		{"codex", "testdata/codex0.169.0/three-compactions.jsonl", FormatCodex},
		{"qwen", "testdata/qwen0.24.4/two-compactions.jsonl", FormatQwen},
		{"copilot", "testdata/copilot1.0.102/manual-compaction.jsonl", FormatCopilot},
	} {
		b.Run(c.name, func(b *testing.B) {
			data, err := os.ReadFile(c.path)
			if err != nil {
				b.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			b.SetBytes(int64(len(data)))
			cpu0 := cpuTime()
			for b.Loop() {
				x := NewExtractorFor(c.format, nil)
				for _, l := range lines {
					x.Feed(l)
				}
				if f := x.Facts(); f.Stats.Corrupt != 0 || f.Stats.Decoded == 0 {
					b.Fatalf("corrupt %d, decoded %d", f.Stats.Corrupt, f.Stats.Decoded)
				}
			}
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
