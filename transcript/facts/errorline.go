package facts

import (
	"strings"
	"unicode"
)

// ErrorOutputChars is how much of a failed call's result text is read for
// its error line: Claude Code keeps a Bash output to 30,000 characters, so
// the line that says what failed — often its last — is within it.
const ErrorOutputChars = 32 << 10

// OutputLines are the non-empty lines of a command's output as a reader
// sees them (TR-62): terminal colour sequences and <tool_use_error> tags
// removed, a line rewritten with carriage returns shown as its last
// rewrite (what the terminal left), right-trimmed but indented as written
// (a Python traceback's frames are indented), and the client's own
// "Exit code N" lines left out.
func OutputLines(text string) []string {
	var out []string
	for l := range strings.Lines(text) {
		l = strings.TrimRight(StripANSI(l), " \t\r\n")
		l = strings.ReplaceAll(strings.ReplaceAll(l, "<tool_use_error>", ""), "</tool_use_error>", "")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			segs := strings.Split(l, "\r")
			l = ""
			for k := len(segs) - 1; k >= 0; k-- {
				if strings.TrimSpace(segs[k]) != "" {
					l = strings.TrimRight(segs[k], " \t")
					break
				}
			}
		}
		if strings.TrimSpace(l) == "" || isExitCodeLine(strings.TrimSpace(l)) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// isExitCodeLine reports the client's "Exit code N" ("Error: Exit code N").
func isExitCodeLine(s string) bool {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(s, "Error: "), "Exit code ")
	if !ok || rest == "" {
		return false
	}
	rest = strings.TrimPrefix(rest, "-")
	return strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// ChooseErrorLine is the line of a failed command's output that says what
// failed (TR-62 to TR-64), trimmed; "" for an output with no line. The
// first rule that finds a line decides:
//
//  1. a Python traceback's exception line: the first line after the last
//     "Traceback (most recent call last):" that is not indented
//     ("ValueError: bad input");
//  2. the first line of a test runner's failure ("--- FAIL: TestX",
//     "FAIL: test_x", "FAILED tests/a.py::b", "not ok 3", "panic: …",
//     "thread 'main' panicked at …", jest's "● …", ExUnit's "1) test …");
//  3. the first diagnostic: an "error:" or "fatal:" line (any case,
//     "error[E0308]:", "fatal error:", "npm ERR!"), a compiler's
//     "path:line[:col]: message" or "path(line,col): error", an
//     exception's "NameError: …" or "java.lang.NullPointerException",
//     Elixir's "** (…)";
//  4. the first line holding a word of failure ("error", "fail", "no such
//     file", "not found", "cannot", "denied", …; see failureWords);
//  5. else the first line, or the last where the client mixes stdout and
//     stderr with the error at the end (lastFallback: Codex CLI, Qwen Code),
//     a traceback's header passed over.
//
// A task runner's "[name] " before a line ("[lint:go] cmd/a.go:3:1: …") is
// passed over when matching. So stdout printed before the failure ("all
// tests passed", "hello") is not taken for it, whichever order the client
// wrote the two streams in.
func ChooseErrorLine(lines []string, lastFallback bool) string {
	if len(lines) == 0 {
		return ""
	}
	// 1. Python.
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "Traceback (most recent call last):" {
			continue
		}
		for _, l := range lines[i+1:] {
			if l[0] != ' ' && l[0] != '\t' {
				return strings.TrimSpace(l)
			}
		}
		break
	}
	for _, rule := range []func(string) bool{testFailure, diagnostic, hasFailureWord} {
		for _, l := range lines {
			s := strings.TrimSpace(l)
			if rule(runnerless(s)) && s != "Traceback (most recent call last):" {
				return s
			}
		}
	}
	// 5. The traceback's header says only that one follows.
	var rest []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "Traceback (most recent call last):" {
			rest = append(rest, l)
		}
	}
	switch {
	case len(rest) == 0:
		return strings.TrimSpace(lines[0])
	case lastFallback:
		return strings.TrimSpace(rest[len(rest)-1])
	}
	return strings.TrimSpace(rest[0])
}

// runnerless is s without a task runner's "[name] " before it.
func runnerless(s string) string {
	if strings.HasPrefix(s, "[") {
		if i := strings.Index(s, "] "); i > 1 && i <= 40 && !strings.ContainsAny(s[1:i], " \t") {
			return s[i+2:]
		}
	}
	return s
}

// testFailure reports a test runner's line for a failing test (rule 2).
func testFailure(s string) bool {
	for _, p := range []string{"--- FAIL: ", "FAIL: ", "ERROR: ", "FAILED ", "not ok ", "panic: ", "● ", "✕ ", "✗ ", "× "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	if strings.HasPrefix(s, "thread '") && strings.Contains(s, "' panicked at") {
		return true
	}
	// ExUnit: "  1) test name (Module)".
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n > 0 && strings.HasPrefix(s[n:], ") test ")
}

// diagnostic reports an error a compiler, a linter or a tool prints
// (rule 3).
func diagnostic(s string) bool {
	low := strings.ToLower(s)
	for _, p := range []string{"error:", "error[", "fatal:", "fatal error:", "npm err!", "npm error ", "** ("} {
		if strings.HasPrefix(low, p) {
			return true
		}
	}
	return sourcePosition(s) || exceptionLine(s)
}

// sourcePosition reports "path:line[:col]: message" and
// "path(line,col): error …".
func sourcePosition(s string) bool {
	i := strings.IndexAny(s, ":(")
	if i <= 0 || strings.ContainsAny(s[:i], " \t") {
		return false
	}
	rest := s[i+1:]
	digits := func() bool {
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		rest = rest[n:]
		return n > 0
	}
	if s[i] == '(' {
		if !digits() || !strings.HasPrefix(rest, ",") {
			return false
		}
		rest = rest[1:]
		if !digits() || !strings.HasPrefix(rest, "): ") {
			return false
		}
		low := strings.ToLower(rest[3:])
		return strings.HasPrefix(low, "error") || strings.HasPrefix(low, "fatal")
	}
	if !digits() {
		return false
	}
	if strings.HasPrefix(rest, ":") && len(rest) > 1 && rest[1] >= '0' && rest[1] <= '9' {
		rest = rest[1:]
		digits()
	}
	return strings.HasPrefix(rest, ": ") && len(strings.TrimSpace(rest)) > 1
}

// exceptionLine reports a line that starts with an exception's name, a
// dotted identifier ending in Error or Exception, then ":" or nothing.
func exceptionLine(s string) bool {
	name := s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		name = s[:i]
	}
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '$')
	}) >= 0 {
		return false
	}
	return strings.HasSuffix(name, "Error") || strings.HasSuffix(name, "Exception")
}

// failureWords are the words of rule 4, lower case.
var failureWords = []string{"error", "fail", "fatal", "exception", "panic", "no such file", "not found", "cannot",
	"can't", "could not", "couldn't", "unable to", "denied", "refused", "invalid", "unknown", "no module named",
	"timed out", "not allowed", "unrecognized", "undefined", "abort", "does not exist", "doesn't exist", "conflict",
	"rejected"}

// hasFailureWord reports a line holding a word of failure (rule 4).
func hasFailureWord(s string) bool {
	low := strings.ToLower(s)
	for _, w := range failureWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}
