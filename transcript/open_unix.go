//go:build unix

package transcript

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK, so that even a FIFO
// swapped in after the Stat check cannot block the open; the flag changes
// nothing for the regular file Open goes on to require.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
