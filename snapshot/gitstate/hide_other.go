//go:build !windows

package gitstate

import "os/exec"

func hideWindow(*exec.Cmd) {}
