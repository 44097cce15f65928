//go:build !unix

package settings

// openNoBlock is nothing where the file system holds no FIFOs (Windows:
// named pipes live under \\.\pipe\): an open there cannot wait for a
// writer, and ReadFile checks the type of what it opened.
const openNoBlock = 0
