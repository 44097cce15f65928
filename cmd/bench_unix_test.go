//go:build unix

package cmd

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// benchProcessAlive reports whether process pid exists (signal 0 is
// delivered or refused for want of permission).
func benchProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// benchFreeDisk asks POSIX df for the space available in dir's file system;
// known is false when df fails or says something unexpected.
func benchFreeDisk(dir string) (free int64, known bool) {
	out, err := exec.Command("df", "-P", "-k", dir).Output()
	if err != nil {
		return 0, false
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		return 0, false
	}
	f := strings.Fields(lines[len(lines)-1])
	if len(f) < 4 {
		return 0, false
	}
	kb, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil {
		return 0, false
	}
	return kb << 10, true
}
