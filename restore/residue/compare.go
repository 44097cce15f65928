package residue

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/transcript/textcut"
)

// Where the model holds a fact (RS-15).
const (
	// SourceSummary: the compaction's summary.
	SourceSummary = "summary"
	// SourcePointer: the pointer to the snapshot that reached the model.
	SourcePointer = "pointer"
	// SourceTail: the messages the client kept verbatim after the summary.
	SourceTail = "tail"
)

// Held is one text the model holds after a compaction, and where it comes
// from (a Source).
type Held struct {
	Source string
	Text   string
}

// Rules that keep a fact, as the verdicts name them (specs/residue.md).
const (
	RuleWords    = "RS-6"  // the words of the first 200 characters, in order
	RuleUnit     = "RS-7"  // a short text as a quotation or a line of its own
	RulePath     = "RS-10" // a path token, whole or a suffix of whole components
	RuleSpaced   = "RS-11" // a path holding spaces, as a substring
	RuleCommand  = "RS-13" // the command's text, white space collapsed
	RuleAnyWords = "RS-14" // a failed command's error line, by RS-6 or RS-7
)

// ShortWords is the least number of words a text needs to be held by its
// words anywhere (RS-6); shorter texts must stand as a unit (RS-7).
const ShortWords = 4

// Verdict says whether the model holds a fact, where and by which rule.
type Verdict struct {
	Fact
	// Source is where the model holds it (SourceSummary, SourcePointer,
	// SourceTail); "" when it is dropped.
	Source string
	// Rule is the clause that found it; "" when dropped.
	Rule string
}

// Kept reports whether the model holds the fact.
func (v Verdict) Kept() bool { return v.Source != "" }

// Compare decides for each fact whether one of the held texts keeps it
// (RS-5 to RS-16), the texts tried in the order given (the summary first,
// then the pointer, then the kept tail: a fact is credited to the first
// that keeps it). rec gives the paths a file name must tell apart (RS-10)
// and the git root of uncommitted changes (RS-12).
func Compare(facts []Fact, rec *snapshot.Record, held ...Held) []Verdict {
	ix := make([]*index, len(held))
	for i, h := range held {
		ix[i] = newIndex(h.Text)
	}
	paths := newPathSet(rec)
	out := make([]Verdict, len(facts))
	for i, f := range facts {
		out[i] = Verdict{Fact: f}
		for j, x := range ix {
			if rule := keeps(f, x, paths); rule != "" {
				out[i].Source, out[i].Rule = held[j].Source, rule
				break
			}
		}
	}
	return out
}

// keeps returns the rule by which x holds f, "" when it does not.
func keeps(f Fact, x *index, paths *pathSet) string {
	switch f.Kind {
	case KindPrompt, KindTask, KindNextStep:
		return holdsWords(f.Text, PromptChars, x)
	case KindFailure:
		if r := holdsWords(f.Text, ErrorChars, x); r != "" {
			return RuleAnyWords
		}
		return ""
	case KindCommand:
		return holdsCommand(f.Text, x)
	case KindFile:
		return holdsPath(paths.abs(f.Text), paths, x, false)
	case KindChange:
		return holdsPath(paths.change(f.Text), paths, x, isFolder(f.Text))
	}
	return ""
}

// holdsWords applies RS-6 and RS-7 to the first n characters of s.
func holdsWords(s string, n int, x *index) string {
	key := headWords(s, n)
	if key == " " {
		return ""
	}
	if wordCount(key) < ShortWords {
		if x.unitSet()[key] {
			return RuleUnit
		}
		return ""
	}
	if strings.Contains(x.wordSeq(), key) {
		return RuleWords
	}
	return ""
}

// isCommandRune is a character a command's word may end or begin with: a
// match next to one is part of a longer word, not the command (RS-13).
func isCommandRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./$", r)
}

// holdsCommand applies RS-13: the command's first CommandChars characters,
// white space collapsed, as a substring that is not part of a longer word.
func holdsCommand(cmd string, x *index) string {
	want, cut := textcut.Runes(collapseSpace(strings.TrimSuffix(cmd, textcut.Marker)), CommandChars)
	if want == "" {
		return ""
	}
	if !strings.ContainsAny(want, " ") {
		// One word ("make", "ls") stands in prose for much else: it must be
		// quoted or a line of its own, as a short prompt (RS-7).
		if x.unitSet()[words(want)] && strings.Contains(x.spaceText(), want) {
			return RuleCommand
		}
		return ""
	}
	hay := x.spaceText()
	for from := 0; ; {
		i := strings.Index(hay[from:], want)
		if i < 0 {
			return ""
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		after, _ := utf8.DecodeRuneInString(hay[i+len(want):])
		first, _ := utf8.DecodeRuneInString(want)
		last, _ := utf8.DecodeLastRuneInString(want)
		okBefore := i == 0 || !isCommandRune(before) || !isCommandRune(first)
		okAfter := cut || i+len(want) == len(hay) || !isCommandRune(after) || !isCommandRune(last)
		if okBefore && okAfter {
			return RuleCommand
		}
		from = i + 1
	}
}

// pathSet is what RS-10 needs of the record: every edited file and
// uncommitted change as an absolute slash path, so that a run of
// components that ends two of them names neither. How many end in a run is
// counted only for a run the held text names (a set lookup first), and
// once per run.
type pathSet struct {
	root  string
	paths []string
	count map[string]int
}

func newPathSet(rec *snapshot.Record) *pathSet {
	ps := &pathSet{count: map[string]int{}}
	if rec == nil {
		return ps
	}
	if rec.Git != nil {
		ps.root = toSlash(rec.Git.Root)
	}
	if ps.root == "" {
		ps.root = toSlash(rec.Cwd)
	}
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			ps.paths = append(ps.paths, p)
		}
	}
	for _, f := range rec.Files {
		add(ps.abs(f.Path))
	}
	if rec.Git != nil {
		for _, c := range rec.Git.Changes {
			add(ps.change(c.Path))
		}
	}
	return ps
}

// ends is how many of the record's paths end in the run of components s.
func (ps *pathSet) ends(s string) int {
	if n, ok := ps.count[s]; ok {
		return n
	}
	n := 0
	for _, p := range ps.paths {
		if strings.HasSuffix(p, s) && (len(p) == len(s) || p[len(p)-len(s)-1] == '/') {
			n++
		}
	}
	ps.count[s] = n
	return n
}

func toSlash(p string) string {
	if p == "" || p == snapshot.Unknown {
		return ""
	}
	return strings.ReplaceAll(p, `\`, "/")
}

// abs is an edited file's path as a clean slash path.
func (ps *pathSet) abs(p string) string {
	p = toSlash(p)
	if p == "" {
		return ""
	}
	return path.Clean(p)
}

// change is an uncommitted change's path (relative to the git root, a
// folder with a trailing slash) as an absolute slash path.
func (ps *pathSet) change(p string) string {
	p = strings.TrimRight(toSlash(p), "/")
	if p == "" {
		return ""
	}
	if ps.root != "" && !strings.HasPrefix(p, "/") {
		p = ps.root + "/" + p
	}
	return path.Clean(p)
}

// suffixes are p itself and every run of its last whole components, the
// longest first: "/a/b/c.go", "a/b/c.go", "b/c.go", "c.go".
func suffixes(p string) []string {
	out := []string{p}
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i+1 < len(p) {
			out = append(out, p[i+1:])
		}
	}
	return out
}

// isFolder reports whether an uncommitted change's path is a folder: git
// writes an untracked folder with a trailing slash ("?? notes/").
func isFolder(change string) bool {
	return strings.HasSuffix(toSlash(change), "/")
}

// holdsPath applies RS-10 and RS-11 to the absolute path p; for a folder,
// RS-29 too: a bare name ("notes") is a word of prose, so the folder's
// last component counts only when the text wrote it with a slash.
func holdsPath(p string, ps *pathSet, x *index, folder bool) string {
	if p == "" {
		return ""
	}
	tokens, slashed := x.pathTokens()
	if folder {
		tokens = x.slashTokens()
	}
	for k, s := range suffixes(p) {
		rule := ""
		switch {
		case strings.ContainsFunc(s, unicode.IsSpace):
			// Its end after the last space is a token of its own when the
			// text holds it: a set lookup spares most substring searches.
			want := s
			if folder && !strings.Contains(s, "/") {
				want = s + "/" // RS-29: "my notes/", not "my notes"
			}
			if tail := s[strings.LastIndexFunc(s, unicode.IsSpace)+1:]; (tail == "" || tokens[cleanToken(tail)]) && containsPath(slashed, want) {
				rule = RuleSpaced
			}
		case tokens[s]:
			rule = RulePath
		}
		if rule == "" || k > 0 && ps.ends(s) > 1 {
			// Not named, or names another edited file too (RS-10).
			continue
		}
		return rule
	}
	return ""
}

// containsPath reports whether hay holds p between path separators
// (RS-11): not as part of a longer name or of a longer path.
func containsPath(hay, p string) bool {
	for from := 0; ; {
		i := strings.Index(hay[from:], p)
		if i < 0 {
			return false
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(hay[:i])
		rest := hay[i+len(p):]
		after, size := utf8.DecodeRuneInString(rest)
		if after == '.' || after == ':' {
			// The sentence's full stop, or a ":line".
			next, _ := utf8.DecodeRuneInString(rest[size:])
			if next == utf8.RuneError || isPathSeparator(next) || unicode.IsDigit(next) {
				after = ' '
			}
		}
		if (i == 0 || isPathSeparator(before)) && (rest == "" || isPathSeparator(after)) {
			return true
		}
		from = i + 1
	}
}
