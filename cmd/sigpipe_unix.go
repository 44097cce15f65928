//go:build unix

package cmd

import (
	"os/signal"
	"syscall"
)

// ignoreBrokenPipe makes a write to a closed pipe fail with EPIPE instead
// of killing the process: by default a Go program writing to a closed
// stdout or stderr dies of SIGPIPE (exit 141), and a hook must exit 0
// whatever its output's reader does (RB-21).
func ignoreBrokenPipe() { signal.Ignore(syscall.SIGPIPE) }
