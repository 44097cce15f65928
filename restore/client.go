package restore

import "strings"

// escapedQuote is the quote mark a session's text carries instead of "> "
// for a client that escapes angle brackets (PO-38). Qwen Code 0.24.4 and
// Gemini CLI 0.61.0, which it forks, replace every "<" and ">" of a hook's
// additionalContext with "&lt;" and "&gt;" before the model sees it
// (getAdditionalContext in both bundles; measured with Qwen Code: the
// pointer's quotes reached the request as "&gt; "), so a ">" quote mark
// becomes four characters of noise at the head of every quoted line.
const escapedQuote = '|'

// EscapesBrackets are the clients whose hook context is escaped so, by
// name; each registered client that does adds itself (agent.Register).
var EscapesBrackets = map[string]bool{}

// ForClient returns text as the client agent should hand it to the model
// (PO-38): for Qwen Code and Gemini CLI every quoted line (quote's "> ", or ">" for an
// empty one) starts with "| " instead; for other clients text is
// unchanged. Only quote writes a line that starts with ">" (every line of
// the quoted text gets the mark, so no line of it can start another way),
// so the change touches the quote marks and nothing of what they quote;
// a ">" inside a quoted line stays, and Qwen Code shows it as "&gt;".
func ForClient(agent, text string) string {
	if !EscapesBrackets[agent] || !strings.Contains(text, ">") {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, ln := range lines {
		if strings.HasPrefix(ln, ">") {
			lines[i] = string(escapedQuote) + ln[1:]
		}
	}
	return strings.Join(lines, "\n")
}
