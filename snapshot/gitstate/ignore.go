package gitstate

// The git-less status's ignore rules (GS-7). go-git's gitignore package
// implements them, but it links go-git's config reader and with it gcfg,
// encoding/gob and math/big, whose package initialisation was the largest
// single cost left in every compact-guard start (PF-16) for a function only
// the fallback uses. The rules are gitignore(5)'s; TestIgnoreRulesAgreeWithGit
// checks each verdict against git check-ignore.

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ignorePattern is one line of an ignore file.
type ignorePattern struct {
	// base is the folder the file sits in, relative to the work tree
	// ("" at the top), with a trailing slash otherwise.
	base string
	// segments is the pattern split at "/"; anchored when it held a slash
	// before its end (then it matches from base, else any name below it).
	segments []string
	anchored bool
	negate   bool
	dirOnly  bool
}

// parseIgnoreLine reads one line of an ignore file in folder base; ok is
// false for blank lines and comments.
func parseIgnoreLine(line, base string) (p ignorePattern, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return p, false
	}
	// Trailing spaces go unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false
	}
	p.anchored = strings.Contains(line, "/")
	p.base = base
	// fnmatch's "[!a]" is path.Match's "[^a]".
	line = strings.ReplaceAll(line, "[!", "[^")
	p.segments = strings.Split(strings.TrimPrefix(line, "/"), "/")
	return p, true
}

// match reports whether the pattern names rel (a slash-separated path from
// the work tree's top, a folder when isDir).
func (p *ignorePattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	rest, ok := strings.CutPrefix(rel, p.base)
	if !ok || rest == "" {
		return false
	}
	parts := strings.Split(rest, "/")
	if !p.anchored {
		ok, _ := path.Match(p.segments[0], parts[len(parts)-1])
		return ok
	}
	return matchSegments(p.segments, parts)
}

// matchSegments matches pattern segments against path parts: "**" stands for
// any number of folders (a trailing one for anything inside), every other
// segment for one part, as path.Match reads it.
func matchSegments(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(parts) > 0
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegments(pat[1:], parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], parts[0]); !ok {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

// ignoreRules are the ignore files of one work tree, read as they are
// needed: the user's (core.excludesFile's default place), the repository's
// info/exclude, and a .gitignore in each folder, the deeper one winning.
type ignoreRules struct {
	root     string
	fixed    []ignorePattern
	byFolder map[string][]ignorePattern
}

func newIgnoreRules(root, commonDir string) *ignoreRules {
	r := &ignoreRules{root: root, byFolder: map[string][]ignorePattern{}}
	if f := userIgnoreFile(); f != "" {
		r.fixed = readIgnoreFile(f, "")
	}
	r.fixed = append(r.fixed, readIgnoreFile(filepath.Join(commonDir, "info", "exclude"), "")...)
	return r
}

// userIgnoreFile is git's default core.excludesFile: $XDG_CONFIG_HOME/git/ignore,
// else ~/.config/git/ignore. (One set elsewhere in the user's git config is
// not read: that would take a git config reader.)
func userIgnoreFile() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "git", "ignore")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config", "git", "ignore")
	}
	return ""
}

func readIgnoreFile(file, base string) []ignorePattern {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var ps []ignorePattern
	for line := range strings.Lines(string(b)) {
		if p, ok := parseIgnoreLine(strings.TrimSuffix(line, "\n"), base); ok {
			ps = append(ps, p)
		}
	}
	return ps
}

// folder returns the patterns of the .gitignore in folder base ("" or
// "a/b/").
func (r *ignoreRules) folder(base string) []ignorePattern {
	ps, ok := r.byFolder[base]
	if !ok {
		ps = readIgnoreFile(filepath.Join(r.root, filepath.FromSlash(base), ".gitignore"), base)
		r.byFolder[base] = ps
	}
	return ps
}

// ignored reports whether rel (slash-separated, from the top) is ignored: a
// path inside an ignored folder is, whatever a later pattern says of it;
// otherwise the last pattern that names it decides.
func (r *ignoreRules) ignored(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	for i := range parts {
		prefix := strings.Join(parts[:i+1], "/")
		if r.verdict(prefix, i < len(parts)-1 || isDir, parts[:i]) {
			return true
		}
	}
	return false
}

// verdict is the last matching pattern's word on one path whose folders are
// dirs.
func (r *ignoreRules) verdict(rel string, isDir bool, dirs []string) bool {
	ignored := false
	check := func(ps []ignorePattern) {
		for i := range ps {
			if ps[i].match(rel, isDir) {
				ignored = !ps[i].negate
			}
		}
	}
	check(r.fixed)
	check(r.folder(""))
	base := ""
	for _, d := range dirs {
		base += d + "/"
		check(r.folder(base))
	}
	return ignored
}
