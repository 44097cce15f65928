//go:build !unix

package handoff

import "os"

// openNoBlock opens path for reading. Windows has no FIFOs in the file
// system, so the open cannot block; the caller checks what was opened.
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
