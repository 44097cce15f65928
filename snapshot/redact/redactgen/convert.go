package main

// Converting gitleaks' rules: which apply to free text, their keywords, and
// the literal anchor each pattern is looked for from.

import (
	"cmp"
	"log"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// dropReason says why a rule cannot apply to the texts compact-guard keeps,
// which have no file path and no commit.
func dropReason(r rule) string {
	switch {
	case r.Regex == "":
		return "matches file paths only"
	case r.Path != "":
		return "applies only to files whose path matches " + "`" + r.Path + "`"
	case r.SkipReport:
		return "never reported on its own"
	case r.Required > 0:
		return "needs other rules' findings nearby"
	}
	return ""
}

type dropped struct{ id, reason string }

// convert keeps the rules that apply to free text, with their keywords in
// lower case (as gitleaks matches them).
func convert(d dump) ([]rule, []dropped) {
	var out []rule
	var drop []dropped
	for _, r := range d.Rules {
		if why := dropReason(r); why != "" {
			drop = append(drop, dropped{r.ID, why})
			continue
		}
		if len(r.Keywords) == 0 {
			log.Fatalf("rule %s has no keywords: the redact package only runs rules from a keyword", r.ID)
		}
		var kw []string
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if len(k) < 2 || strings.ContainsFunc(k, func(r rune) bool { return r >= utf8.RuneSelf }) {
				log.Fatalf("rule %s: keyword %q: the redact package indexes ASCII keywords of 2 bytes or more", r.ID, k)
			}
			if !slices.Contains(kw, k) {
				kw = append(kw, k)
			}
		}
		slices.Sort(kw)
		r.Keywords = kw
		re, err := syntax.Parse(r.Regex, syntax.Perl)
		if err != nil {
			log.Fatalf("rule %s: %v", r.ID, err)
		}
		lineAnchors(re, !strings.Contains(r.Regex, `\A`))
		r.pattern, r.anchor = anchor(re)
		if r.anchor.at == nil {
			r.pattern = re.String()
		}
		r.Allowlists = usable(r.Allowlists)
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b rule) int { return cmp.Compare(a.ID, b.ID) })
	return out, drop
}

// usable drops the allowlists that can never apply without a path or a
// commit: those made only of paths or commits, and AND-lists that need one.
func usable(in []allowlist) []allowlist {
	var out []allowlist
	for _, a := range in {
		if len(a.Regexes) == 0 && len(a.StopWords) == 0 || a.And && (a.Paths > 0 || a.Commits > 0) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// lineAnchors makes the ^ and $ of a pattern match at line ends too. gitleaks
// reads a file as one fragment, where they stand for its start and end, and
// many rules end a secret with (?:[\x60'"\s;]|\\[nr]|$) or a token with
// (?:[/#?:]|$): in a text of many lines, a secret at the end of a line must
// count as it does at the end of a file. (\z keeps its meaning, and so does
// \A, which parses as ^ does: caret is false when the pattern holds one.)
func lineAnchors(re *syntax.Regexp, caret bool) {
	switch {
	case re.Op == syntax.OpEndText && re.Flags&syntax.WasDollar != 0:
		re.Op = syntax.OpEndLine
	case re.Op == syntax.OpBeginText && caret:
		re.Op = syntax.OpBeginLine
	}
	for _, sub := range re.Sub {
		lineAnchors(sub, caret)
	}
}

// anchoring says where a rewritten pattern is tried: at each occurrence (in
// any case) of one of at, after checking a word boundary there when
// boundary is set; a match then gets back up to prefix identifier bytes
// ([\w.-]) before it.
type anchoring struct {
	at       []string
	prefix   int
	boundary bool
}

// anchor rewrites a pattern every match of which starts with one of a few
// literals (its anchors), but for an optional lazy run of identifier bytes:
// `[\w.-]{0,50}?(?:ident…)rest` (gitleaks' semi-generic rules) becomes
// `^(?:ident…)rest` anchored at the identifiers, and `\b(sk_live_…)rest`
// becomes `^(sk_live_…)rest` anchored at "sk_live_" with the word boundary
// checked by the redact package. Go's regexp otherwise runs such a pattern
// from every byte of a text (it has a fast path only for a case-sensitive
// literal prefix), which made the rules cost over 5 µs per string of a real
// transcript; anchored, they are tried only where they can match. The
// lazy prefix decides no secret; the match it begins, which some allowlists
// look at, is rebuilt by giving the match back the identifier bytes before
// it, as the leftmost match of the original pattern would start.
func anchor(re *syntax.Regexp) (string, anchoring) {
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var a anchoring
	i := 0
	for ; i < len(subs); i++ {
		p := subs[i]
		if p.Op != syntax.OpRepeat || p.Min != 0 || p.Max < 0 || p.Flags&syntax.NonGreedy == 0 ||
			p.Sub[0].Op != syntax.OpCharClass || !identifierClass(p.Sub[0]) {
			break
		}
		a.prefix += p.Max
	}
	for ; i < len(subs) && subs[i].Op == syntax.OpWordBoundary && a.prefix == 0; i++ {
		a.boundary = true
	}
	if i == len(subs) {
		return "", anchoring{}
	}
	at, ok := leading(subs[i])
	if !ok {
		return "", anchoring{}
	}
	slices.Sort(at)
	at = fewAnchors(slices.Compact(at), 0)
	for _, w := range at {
		if len(w) < 2 || strings.ContainsFunc(w, func(r rune) bool { return r >= utf8.RuneSelf }) {
			return "", anchoring{}
		}
	}
	a.at = at
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags,
		Sub: append([]*syntax.Regexp{{Op: syntax.OpBeginText}}, subs[i:]...)}
	if anchored.MaxCap() != re.MaxCap() {
		return "", anchoring{}
	}
	return anchored.String(), a
}

// leading returns, in lower case, strings one of which starts every match of
// re.
func leading(re *syntax.Regexp) ([]string, bool) {
	if ss, ok := strs(re, 64); ok {
		return ss, !slices.Contains(ss, "")
	}
	switch re.Op {
	case syntax.OpCapture:
		return leading(re.Sub[0])
	case syntax.OpConcat:
		// The strings of the parts that can be listed, one after the other,
		// then the leading strings of the next part.
		out := []string{""}
		for _, sub := range re.Sub {
			ss, whole := strs(sub, 64)
			if !whole {
				var ok bool
				if ss, ok = leading(sub); !ok {
					break
				}
			}
			next := product(out, ss)
			if len(next) > 64 {
				break
			}
			if out = next; !whole {
				break
			}
		}
		return out, !slices.Contains(out, "")
	case syntax.OpRepeat, syntax.OpPlus:
		if re.Op == syntax.OpPlus || re.Min >= 1 {
			return leading(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			ss, ok := leading(sub)
			if !ok {
				return nil, false
			}
			out = append(out, ss...)
		}
		return out, true
	}
	return nil, false
}

// fewAnchors shortens sorted words that share their first depth bytes into
// few search strings: where they branch more than 8 ways (a character class
// such as [A-Za-z0-9]) or one of them ends, their common prefix stands for
// them all.
func fewAnchors(words []string, depth int) []string {
	var groups [][]string
	for i := 0; i < len(words); {
		if len(words[i]) == depth {
			return []string{words[i]}
		}
		j := i + 1
		for j < len(words) && words[j][depth] == words[i][depth] {
			j++
		}
		groups = append(groups, words[i:j])
		i = j
	}
	if len(groups) > 8 {
		return []string{words[0][:depth]}
	}
	var out []string
	for _, g := range groups {
		out = append(out, fewAnchors(g, depth+1)...)
	}
	return out
}

func product(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// identifierClass reports a class whose ASCII members are exactly [\w.-].
func identifierClass(cc *syntax.Regexp) bool {
	in := func(c rune) bool {
		for i := 0; i+1 < len(cc.Rune); i += 2 {
			if cc.Rune[i] <= c && c <= cc.Rune[i+1] {
				return true
			}
		}
		return false
	}
	for c := rune(0); c < utf8.RuneSelf; c++ {
		want := c == '_' || c == '.' || c == '-' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if in(c) != want {
			return false
		}
	}
	return true
}

// strs lists the strings re matches, in lower case, when they are at most
// limit: literals, alternations, concatenations,
// optional parts, small classes.
func strs(re *syntax.Regexp, limit int) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		// In lower case: the keywords are compared in lower case, and (?i)s
		// matching ſ or (?i)k the Kelvin sign is no keyword for gitleaks'
		// filter (strings.ToLower) either.
		return []string{strings.ToLower(string(re.Rune))}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= min(re.Rune[i+1], utf8.RuneSelf-1); c++ {
				if l := strings.ToLower(string(c)); !slices.Contains(out, l) {
					out = append(out, l)
				}
				if len(out) > limit {
					return nil, false
				}
			}
		}
		return out, true
	case syntax.OpCapture:
		return strs(re.Sub[0], limit)
	case syntax.OpQuest:
		out, ok := strs(re.Sub[0], limit)
		return append(out, ""), ok
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			x, ok := strs(sub, limit)
			if !ok {
				return nil, false
			}
			if out = append(out, x...); len(out) > limit {
				return nil, false
			}
		}
		return out, true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			x, ok := strs(sub, limit)
			if !ok {
				return nil, false
			}
			var next []string
			for _, o := range out {
				for _, y := range x {
					next = append(next, o+y)
				}
			}
			if out = next; len(out) > limit {
				return nil, false
			}
		}
		return out, true
	}
	return nil, false
}
