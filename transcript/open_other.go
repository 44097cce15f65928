//go:build !unix

package transcript

import "os"

// openNoBlock opens path for reading. Outside Unix there is no FIFO to block
// on: named pipes live under \\.\pipe\ and are refused by the Stat check.
func openNoBlock(path string) (*os.File, error) {
	return os.Open(path)
}
