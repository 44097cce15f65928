package main

import "syscall"

// detachedAttr: the follower runs beside the hook (no new session on
// Windows; the measurement runs on Linux).
func detachedAttr() *syscall.SysProcAttr { return nil }
