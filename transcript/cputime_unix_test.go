//go:build unix

package transcript

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time, so that benchmarks can
// report throughput per CPU second next to wall-clock throughput (the two
// differ when other processes compete for the cores).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
