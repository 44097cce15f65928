//go:build !windows

package main

import "syscall"

// detachedAttr puts the follower in a session of its own, so that the
// client does not wait for it as part of the hook.
func detachedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
