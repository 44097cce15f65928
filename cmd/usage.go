package cmd

import "strings"

// isCobraUsage recognises cobra's own argument errors, which it returns as
// plain errors ("unknown command", "accepts 1 arg(s)").
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
