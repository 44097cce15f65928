//go:build windows

package hookio

import "golang.org/x/sys/windows"

// platformCodePage is the ANSI code page, the one PowerShell 5 and cmd.exe
// use for piped text.
func platformCodePage() int { return int(windows.GetACP()) }
