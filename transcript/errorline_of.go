package transcript

// ErrorLineOf is the line of a failed command's output that says what
// failed, chosen as for the formats read here (TR-62 to TR-64), for a
// reader of another client's format in a package of its own (transcript/
// gemini, TR-85). lastFallback takes the last line when no rule matches,
// for clients that write stderr after stdout.
func ErrorLineOf(output string, lastFallback bool) string {
	return chooseErrorLine(outputLines(output), lastFallback)
}
