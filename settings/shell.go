package settings

import (
	"path/filepath"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/syntax"
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

// shellWord is one word of a shell-form command: its text with quotes
// undone (expansions such as $HOME stay as written), and where it stands in
// the command (byte offsets), so that install can replace the program and
// leave the rest as the user wrote it.
type shellWord struct {
	Text       string
	Start, End int
	// Static reports a word whose text is what the program receives,
	// whatever the environment: no expansion, glob, brace or tilde the
	// shell would read into it (IN-21).
	Static bool
}

// commandWords parses a shell-form command with mvdan.cc/sh's parser and
// returns the words of its first simple command: the program and its
// arguments, without the VAR=value assignments before them, the
// redirections, or anything after a control operator (a; b, a && b, a | b
// are judged by a). It reports false when the command does not parse (an
// unterminated quote) or does not start with a simple command.
func commandWords(s string) ([]shellWord, bool) {
	// Bash is the widest of the shells Claude Code may run hooks with
	// (sh on macOS and Linux, Git Bash on Windows).
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil, false
	}
	stmt := f.Stmts[0]
	for {
		bin, ok := stmt.Cmd.(*syntax.BinaryCmd)
		if !ok {
			break
		}
		stmt = bin.X
	}
	call, ok := stmt.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return nil, false
	}
	words := make([]shellWord, len(call.Args))
	for i, w := range call.Args {
		words[i] = shellWord{Text: unquote(s, w.Parts, false), Start: int(w.Pos().Offset()), End: int(w.End().Offset()), Static: staticParts(w.Parts, false)}
	}
	return words, true
}

// unquote is the text of a word's parts with the shell's quoting undone, as
// the program receives it; expansions ($VAR, $(cmd), ...) are left as
// written, since their value is only known where the hook runs.
func unquote(src string, parts []syntax.WordPart, inDouble bool) string {
	var b strings.Builder
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			unescape(&b, p.Value, inDouble)
		case *syntax.SglQuoted:
			if p.Dollar { // $'...': escapes a program would see decoded
				b.WriteString(src[p.Pos().Offset():p.End().Offset()])
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			b.WriteString(unquote(src, p.Parts, true))
		default:
			b.WriteString(src[p.Pos().Offset():p.End().Offset()])
		}
	}
	return b.String()
}

// staticParts reports whether a word's parts mean the same text in any
// environment: literals, single quotes, double quotes holding literals, and
// no character outside quotes that the shell expands (* ? [ { ~).
func staticParts(parts []syntax.WordPart, inDouble bool) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !inDouble && strings.ContainsAny(p.Value, "*?[{~") {
				return false
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
		case *syntax.DblQuoted:
			if !staticParts(p.Parts, true) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// unescape writes a literal's text with its backslashes undone: outside
// quotes a backslash takes the next character as it is; inside double
// quotes only before $ ` " \ and a newline. A backslash and newline join
// lines and leave nothing.
func unescape(b *strings.Builder, lit string, inDouble bool) {
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' || i+1 == len(lit) {
			b.WriteByte(c)
			continue
		}
		next := lit[i+1]
		switch {
		case next == '\n':
			i++
		case !inDouble || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(c)
		}
	}
}

// shellArg quotes one argument for a shell-form command the way
// mvdan.cc/sh's syntax.Quote does for POSIX sh: as it is when no shell
// would read anything into it, else in single quotes.
func shellArg(a string) (string, error) {
	return syntax.Quote(a, syntax.LangPOSIX)
}

// parsedCommand is a hook command taken apart.
type parsedCommand struct {
	Program string   // as written, quotes removed
	Args    []string // the words after it (exec-form args included)
	Sub     string   // the first of Args that is one of our sub-commands
	// progStart and progEnd locate the program in a shell-form command.
	progStart, progEnd int
	// static reports arguments whose text is what the program receives
	// (shellWord.Static; exec-form arguments always are).
	static bool
}

// ParseHookCommand takes apart a handler's command: shell form, or exec
// form when args is not nil.
func ParseHookCommand(command string, args []string) (parsedCommand, bool) {
	var pc parsedCommand
	if args != nil {
		// Exec form: command is the program itself, unquoted.
		pc.Program, pc.Args, pc.static = command, args, true
	} else {
		words, ok := commandWords(command)
		if !ok {
			return parsedCommand{}, false
		}
		pc.Program, pc.progStart, pc.progEnd = words[0].Text, words[0].Start, words[0].End
		pc.static = true
		for _, w := range words[1:] {
			pc.Args = append(pc.Args, w.Text)
			pc.static = pc.static && w.Static
		}
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

// IsOurProgram reports whether a hook's program is compact-guard: its base
// name is compact-guard (compact-guard.exe), or it is the running binary
// under another name.
func IsOurProgram(program, self string) bool {
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
