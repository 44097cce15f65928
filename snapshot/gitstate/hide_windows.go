package gitstate

import (
	"os/exec"
	"syscall"
)

// createNoWindow is CREATE_NO_WINDOW: git needs no console of its own, and a
// hook started without one would otherwise flash a window.
const createNoWindow = 0x08000000

func hideWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow}
}
