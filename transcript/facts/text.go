package facts

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/transcript/jsonspan"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// WithoutSpace is s without its white space.
func WithoutSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// Cut unquotes at most n runes of a string value; more reports the rest.
func Cut(line []byte, sp jsonspan.Span, n int) (string, bool) {
	if !sp.IsString(line) {
		return "", false
	}
	s, more, ok := jsonspan.UnquotePrefix(sp.Raw(line), n)
	if !ok {
		return "", false
	}
	return s, more
}

// CutTail is cut that also returns up to TailChars characters that follow
// the cut.
func CutTail(line []byte, sp jsonspan.Span, n int) (string, bool, string) {
	s, more := Cut(line, sp, n+TailChars)
	return SplitTail(s, more, n)
}

// SplitTail cuts s, read up to n+TailChars characters (more: there was
// more), at n characters, and returns what follows as the tail.
func SplitTail(s string, more bool, n int) (string, bool, string) {
	kept, cut := textcut.Runes(s, n)
	if !cut {
		return s, more, ""
	}
	return kept, true, s[len(kept):]
}

// idString reads an id that may be written as a string or a number.
func IDString(line []byte, sp jsonspan.Span) string {
	if s, ok := sp.Str(line); ok {
		return s
	}
	if sp.OK() && (line[sp.S] == '-' || line[sp.S] >= '0' && line[sp.S] <= '9') {
		return string(sp.Raw(line))
	}
	return ""
}

// ShortInput renders a tool input for the failure list: its most telling
// field when it has one, else the start of its JSON; and its tail (see
// TailChars).
func ShortInput(line []byte, input jsonspan.Span, preferred []jsonspan.Span) (string, string) {
	if !input.OK() {
		return "", ""
	}
	for _, sp := range preferred {
		if s, more, tail := CutTail(line, sp, MaxFailureInputChars); s != "" {
			return textcut.Marked(s, more), tail
		}
	}
	raw := input.Raw(line)
	// Past the limit, the tail's bytes tell Bytes whether a character
	// straddles it, without copying a megabyte input.
	raw = raw[:min(len(raw), MaxFailureInputChars+TailChars*utf8.UTFMax)]
	kept, cut := textcut.Bytes(string(raw), MaxFailureInputChars)
	if !cut {
		return kept, ""
	}
	tail, _ := textcut.Runes(string(raw[len(kept):]), TailChars)
	return textcut.Marked(kept, cut), tail
}

func TodoList(line []byte, sp jsonspan.Span) ([]Task, bool) {
	if !sp.OK() || line[sp.S] != '[' {
		return nil, false
	}
	todos := []Task{}
	var f [3]jsonspan.Span
	_, err := jsonspan.EachElem(line[:sp.E], sp.S, func(vs, ve int) bool {
		if len(todos) >= MaxTasks {
			return false
		}
		if (jsonspan.Span{S: vs, E: ve}).Fields(line, []string{"content", "status", "activeForm"}, f[:]) {
			c, more, ctail := CutTail(line, f[0], MaxTaskChars)
			st, _ := Cut(line, f[1], MaxTaskChars)
			a, amore, atail := CutTail(line, f[2], MaxTaskChars)
			todos = append(todos, Task{Subject: textcut.Marked(c, more), Status: st, ActiveForm: textcut.Marked(a, amore),
				subjectTail: ctail, activeFormTail: atail})
		}
		return true
	})
	return todos, err == nil
}

// ErrorSummary is the first line of an error, with "Exit code N" joined to
// the line of the output that says what failed (TR-24, chooseErrorLine).
func ErrorSummary(text string) (string, string) {
	lines := NonEmptyLines(text, 2)
	if len(lines) == 0 {
		return "", ""
	}
	s := lines[0]
	if strings.HasPrefix(strings.TrimPrefix(s, "Error: "), "Exit code ") && len(lines) > 1 {
		if l := ChooseErrorLine(OutputLines(text), false); l != "" {
			s += ": " + l
		}
	}
	return Clip(s, MaxErrorChars)
}

// Clip cuts s at n runes with the marker, and returns the tail (see
// TailChars).
func Clip(s string, n int) (string, string) {
	kept, cut := textcut.Runes(s, n)
	if !cut {
		return s, ""
	}
	tail, _ := textcut.Runes(s[len(kept):], TailChars)
	return textcut.Marked(kept, true), tail
}

// NonEmptyLines returns up to n non-empty lines of s, with tool_use_error
// tags and terminal escape sequences removed.
func NonEmptyLines(s string, n int) []string {
	var out []string
	for l := range strings.Lines(s) {
		l = StripANSI(l)
		l = strings.ReplaceAll(l, "<tool_use_error>", "")
		l = strings.ReplaceAll(l, "</tool_use_error>", "")
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		out = append(out, l)
		if len(out) == n {
			break
		}
	}
	return out
}

// StripANSI removes CSI escape sequences (colours) from terminal output.
func StripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// OutputErrorLine is the line of a string value (a command's output, stdout
// and stderr mixed) that says what failed (chooseErrorLine, TR-42), else
// its last non-empty line (the error is usually at the end), with terminal
// colours removed, cut at MaxErrorChars; only its last 16 KiB are decoded.
func OutputErrorLine(line []byte, sp jsonspan.Span) (string, string) {
	if !sp.IsString(line) {
		return "", ""
	}
	inner := line[sp.S+1 : sp.E-1]
	const window = 16 << 10
	from := max(0, len(inner)-window)
	// Start decoding after a line break escape, so that no escape is cut.
	seg := inner[from:]
	if from > 0 {
		i := nextNewlineEscape(seg)
		if i < 0 {
			return "", ""
		}
		seg = seg[i+2:]
	}
	s, ok := jsonspan.Unquote(append(append([]byte{'"'}, seg...), '"'))
	if !ok {
		return "", ""
	}
	if l := ChooseErrorLine(OutputLines(s), true); l != "" {
		return Clip(l, MaxErrorChars)
	}
	return "", ""
}

// nextNewlineEscape returns the index of the first `\n` escape in the
// inside of a JSON string (a backslash that is not itself escaped, then n).
func nextNewlineEscape(b []byte) int {
	for i := 0; i+1 < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		// Count the run of backslashes: an even run escapes itself.
		j := i
		for j < len(b) && b[j] == '\\' {
			j++
		}
		if (j-i)%2 == 1 && j < len(b) && b[j] == 'n' {
			return j - 1
		}
		i = j - 1
	}
	return -1
}

// ResultTextOf returns the first 4,000 characters of a string value, or of
// the message of an {"message": …} object.
func ResultTextOf(line []byte, sp jsonspan.Span) string {
	if sp.OK() && line[sp.S] == '{' {
		var m [1]jsonspan.Span
		if sp.Fields(line, []string{"message"}, m[:]) {
			sp = m[0]
		}
	}
	s, _ := Cut(line, sp, 4000)
	return s
}
