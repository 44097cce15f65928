//go:build !unix

package cmd

// benchProcessAlive cannot tell, so leftovers of other runs are kept.
func benchProcessAlive(int) bool { return true }

// benchFreeDisk cannot tell: the 1 GB cases run without the check.
func benchFreeDisk(string) (int64, bool) { return 0, false }
