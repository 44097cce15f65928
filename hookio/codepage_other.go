//go:build !windows

package hookio

// platformCodePage is Windows-1252 outside Windows: legacy bytes there most
// often come from Windows tools, and every byte maps, so JSON still parses.
func platformCodePage() int { return 1252 }
