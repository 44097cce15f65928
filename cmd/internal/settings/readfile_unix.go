//go:build unix

package settings

import "syscall"

// openNoBlock makes an open of a FIFO return at once instead of waiting
// for a writer; reads of a regular file are not affected.
const openNoBlock = syscall.O_NONBLOCK
