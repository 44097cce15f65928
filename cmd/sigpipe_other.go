//go:build !unix

package cmd

// ignoreBrokenPipe does nothing: outside unix a write to a closed pipe
// returns an error and sends no signal (RB-21).
func ignoreBrokenPipe() {}
