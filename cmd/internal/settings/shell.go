package settings

import (
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"
)

// QuotePath quotes a path for the shell Claude Code runs shell-form hooks
// with: sh -c on macOS and Linux, Git Bash by default on Windows. Double
// quotes, with \ " $ ` escaped, read the same in both. On Windows the path
// uses forward slashes, which Git Bash and Windows both accept and which
// need no escaping.
func QuotePath(path string) string {
	if runtime.GOOS == "windows" {
		path = filepath.ToSlash(path)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range path {
		switch r {
		case '\\', '"', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Command is the shell-form command line of one registration (IN-3).
func Command(exe, sub string) string { return QuotePath(exe) + " " + sub }

// splitShellWords splits a shell-form command into words, undoing single
// quotes, double quotes and backslash escapes. It stops at the first
// unquoted control operator (; & | newline), since only the first simple
// command can be compact-guard's. It reports false on an unterminated
// quote.
func splitShellWords(s string) ([]string, bool) {
	ws, ok := shellWords(s)
	if !ok {
		return nil, false
	}
	words := make([]string, len(ws))
	for i, w := range ws {
		words[i] = w.Text
	}
	return words, true
}

// shellWord is one word of a shell-form command: its text with quotes
// undone, and where it stands in the command (byte offsets), so that install
// can replace the program and leave the rest as the user wrote it.
type shellWord struct {
	Text       string
	Start, End int
}

// shellWords is splitShellWords with each word's place in s.
func shellWords(s string) ([]shellWord, bool) {
	var words []shellWord
	var cur strings.Builder
	inWord := false
	start := 0
	// Offsets are counted in runes while scanning and turned into bytes
	// at the end.
	flush := func(end int) {
		if inWord {
			words = append(words, shellWord{Text: cur.String(), Start: start, End: end})
			cur.Reset()
			inWord = false
		}
	}
	begin := func(i int) {
		if !inWord {
			inWord, start = true, i
		}
	}
	rs := []rune(s)
	toBytes := func() []shellWord {
		off := make([]int, len(rs)+1)
		for i, r := range rs {
			off[i+1] = off[i] + utf8.RuneLen(r)
		}
		for i := range words {
			words[i].Start, words[i].End = off[words[i].Start], off[words[i].End]
		}
		return words
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t':
			flush(i)
		case r == ';' || r == '&' || r == '|' || r == '\n':
			flush(i)
			return toBytes(), true
		case r == '\'':
			begin(i)
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, false
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			begin(i)
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\\\"$`\n", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, false
			}
			i = j
		case r == '\\' && i+1 < len(rs):
			begin(i)
			i++
			cur.WriteRune(rs[i])
		default:
			begin(i)
			cur.WriteRune(r)
		}
	}
	flush(len(rs))
	return toBytes(), true
}

// shellArg quotes one argument for a shell-form command: as it is when it
// holds only characters no shell treats specially, else in double quotes
// (see QuotePath; unlike a program path, slashes are left alone).
func shellArg(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,/:@%+", r))
	}) < 0 {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range a {
		switch r {
		case '\\', '"', '$', '`':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// parsedCommand is a hook command taken apart.
type parsedCommand struct {
	Program string   // as written, quotes removed
	Args    []string // the words after it (exec-form args included)
	Sub     string   // the first of Args that is one of our sub-commands
}

// parseHookCommand takes apart a handler's command (and exec-form args).
func parseHookCommand(handler *jsonNode) (parsedCommand, bool) {
	cmdNode := handler.get("command")
	if !cmdNode.isString() {
		return parsedCommand{}, false
	}
	var pc parsedCommand
	if args := handler.get("args"); args.isArray() {
		// Exec form: command is the program itself, unquoted.
		pc.Program = cmdNode.stringVal()
		for _, a := range args.elems {
			if a.isString() {
				pc.Args = append(pc.Args, a.stringVal())
			}
		}
	} else {
		words, ok := splitShellWords(cmdNode.stringVal())
		if !ok {
			return parsedCommand{}, false
		}
		// Skip VAR=value assignments in front of the program.
		for len(words) > 0 && isAssignment(words[0]) {
			words = words[1:]
		}
		if len(words) == 0 {
			return parsedCommand{}, false
		}
		pc.Program, pc.Args = words[0], words[1:]
	}
	for i := 0; i < len(pc.Args); i++ {
		a := pc.Args[i]
		if ourSubcommands[a] {
			pc.Sub = a
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		if globalValueFlags[a] {
			i++ // its value
		}
	}
	return pc, true
}

func isAssignment(w string) bool {
	i := strings.IndexByte(w, '=')
	if i <= 0 {
		return false
	}
	for j, r := range w[:i] {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || j > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// isOurProgram reports whether a hook's program is compact-guard: its base
// name is compact-guard (compact-guard.exe), or it is the running binary
// under another name.
func isOurProgram(program, self string) bool {
	base := program
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if strings.EqualFold(base, binaryBaseName+".exe") || base == binaryBaseName {
		return true
	}
	if self == "" {
		return false
	}
	p, q := filepath.Clean(filepath.FromSlash(program)), filepath.Clean(self)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(p, q)
	}
	return p == q
}
