//go:build !unix

package transcript

import "time"

// cpuTime is not measured outside Unix; benchmarks then report wall time only.
func cpuTime() time.Duration { return 0 }
