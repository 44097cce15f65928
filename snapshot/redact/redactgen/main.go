// Command redactgen turns the rules of gitleaks (the version go.mod pins)
// into compact-guard's redaction rule table, its test samples and the rule
// list of specs/security.md. It runs from `go generate ./snapshot/redact/`:
//
//	//go:generate go run -C redactgen . -out .. -spec ../../../specs/security.md
//
// Why generate rather than import: gitleaks' detect package adds about 6 MB to
// the stripped binary and its config package (viper) about 1.7 MB, and both
// compile every rule at load; the table costs a fraction of that and the
// redact package compiles a rule only when one of its keywords is in a text.
//
// How: gitleaks defines each rule in Go (cmd/generate/config/rules), checks
// it against true-positive examples with utils.Validate, and writes
// config/gitleaks.toml from the list in cmd/generate/config/main.go. This
// program runs that same list in a copy of the module with three files
// replaced: main.go prints the rules as JSON instead of TOML;
// utils.Validate records each true positive together with the secret
// gitleaks' own detector finds in it; and secrets.NewSecret, which draws the
// random part of many examples, is seeded from its pattern so that the
// samples are the same on every run. The generated patterns are printed by
// regexp/syntax, so a new Go release may spell them differently.
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	// Imported so that go.mod pins the version and go.sum covers what the
	// overlaid program builds.
	_ "github.com/zricethezav/gitleaks/v8/cmd/generate/config/rules"
)

const gitleaksModule = "github.com/zricethezav/gitleaks/v8"

// maxSamplesPerRule bounds the samples kept for one rule: gitleaks writes
// each secret in about 25 syntaxes, of which a handful show the rule.
const maxSamplesPerRule = 6

func main() {
	log.SetFlags(0)
	log.SetPrefix("redactgen: ")
	out := flag.String("out", "..", "the redact package folder")
	spec := flag.String("spec", "", "specs/security.md, whose generated rule list is rewritten")
	flag.Parse()

	version, dir := gitleaksModuleDir()
	d := dumpRules(dir)
	rules, dropped := convert(d)

	src := goSource(version, d.Global, rules, dropped)
	write(filepath.Join(*out, "gitleaks.go"), src)
	write(filepath.Join(*out, "testdata", "gitleaks-samples.json"), samplesJSON(version, rules, d.Samples))
	if *spec != "" {
		rewriteSpec(*spec, version, rules, dropped)
	}
	log.Printf("gitleaks %s: %d rules, %d dropped", version, len(rules), len(dropped))
}

// gitleaksModuleDir returns the pinned version and its folder in the module
// cache (downloading it if needed).
func gitleaksModuleDir() (string, string) {
	out, err := exec.Command("go", "mod", "download", "-json", gitleaksModule).Output()
	if err != nil {
		log.Fatalf("go mod download %s: %v", gitleaksModule, err)
	}
	var m struct{ Version, Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		log.Fatalf("go mod download %s: %q: %v", gitleaksModule, out, err)
	}
	return m.Version, m.Dir
}

// dump is what the overlaid gitleaks generator prints.
type dump struct {
	Global  []allowlist         `json:"global"`
	Rules   []rule              `json:"rules"`
	Samples map[string][]sample `json:"samples"`
}

type rule struct {
	ID          string      `json:"id"`
	Description string      `json:"description"`
	Regex       string      `json:"regex"`
	Path        string      `json:"path"`
	Entropy     float64     `json:"entropy"`
	SecretGroup int         `json:"secret_group"`
	Keywords    []string    `json:"keywords"`
	Allowlists  []allowlist `json:"allowlists"`
	SkipReport  bool        `json:"skip_report"`
	Required    int         `json:"required"`
	// Set by convert (see anchor): the pattern compact-guard runs and where
	// it is tried.
	pattern string
	anchor  anchoring
}

type allowlist struct {
	And       bool     `json:"and"`
	Target    string   `json:"target"`
	Regexes   []string `json:"regexes"`
	StopWords []string `json:"stopwords"`
	Paths     int      `json:"paths"`
	Commits   int      `json:"commits"`
}

type sample struct {
	Text   string `json:"text"`
	Secret string `json:"secret"`
}

// dumpRules runs gitleaks' own rule generator with the overlay and decodes
// its output.
func dumpRules(dir string) dump {
	genDir := filepath.Join(dir, "cmd", "generate", "config")
	mainSrc, err := os.ReadFile(filepath.Join(genDir, "main.go"))
	if err != nil {
		log.Fatal(err)
	}
	validateSrc, err := os.ReadFile(filepath.Join(genDir, "utils", "validate.go"))
	if err != nil {
		log.Fatal(err)
	}
	list := ruleList(mainSrc)

	// Files in the module cache cannot be overlaid: run a copy.
	tmp, err := os.MkdirTemp("", "redactgen")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		log.Fatal(err)
	}
	put := func(name, content string) {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.Chmod(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	put("cmd/generate/config/main.go", strings.Replace(dumpMain, "RULES", list, 1))
	upstream := strings.NewReplacer("func Validate(", "func validateUpstream(",
		"func ValidateWithPaths(", "func validateWithPathsUpstream(").Replace(string(validateSrc))
	if upstream == string(validateSrc) {
		log.Fatal("utils/validate.go no longer defines Validate: update redactgen")
	}
	put("cmd/generate/config/utils/validate.go", upstream)
	put("cmd/generate/config/utils/record.go", recordValidate)
	put("cmd/generate/secrets/regen.go", seededSecret)

	cmd := exec.Command("go", "run", "./cmd/generate/config")
	cmd.Dir = tmp
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("running gitleaks' rule generator: %v", err)
	}
	var d dump
	if err := json.Unmarshal(out, &d); err != nil {
		log.Fatalf("decoding the rules: %v", err)
	}
	return d
}

// ruleList returns the source of the rule list in gitleaks'
// cmd/generate/config/main.go: `configRules := []*config.Rule{…}`.
func ruleList(src []byte) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "main.go", src, 0)
	if err != nil {
		log.Fatal(err)
	}
	var lit ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if id, ok := as.Lhs[0].(*ast.Ident); ok && id.Name == "configRules" {
				lit = as.Rhs[0]
			}
		}
		return lit == nil
	})
	if lit == nil {
		log.Fatal("cmd/generate/config/main.go has no configRules list: update redactgen")
	}
	return string(src[fset.Position(lit.Pos()).Offset:fset.Position(lit.End()).Offset])
}

// dumpMain replaces gitleaks' cmd/generate/config/main.go.
const dumpMain = `package main

import (
	"encoding/json"
	"os"
	"slices"

	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/base"
	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/rules"
	"github.com/zricethezav/gitleaks/v8/cmd/generate/config/utils"
	"github.com/zricethezav/gitleaks/v8/config"
)

type allowlist struct {
	And       bool     ` + "`json:\"and\"`" + `
	Target    string   ` + "`json:\"target\"`" + `
	Regexes   []string ` + "`json:\"regexes\"`" + `
	StopWords []string ` + "`json:\"stopwords\"`" + `
	Paths     int      ` + "`json:\"paths\"`" + `
	Commits   int      ` + "`json:\"commits\"`" + `
}

func lists(in []*config.Allowlist) []allowlist {
	var out []allowlist
	for _, a := range in {
		l := allowlist{And: a.MatchCondition == config.AllowlistMatchAnd, Target: a.RegexTarget,
			StopWords: slices.Sorted(slices.Values(a.StopWords)), Paths: len(a.Paths), Commits: len(a.Commits)}
		for _, r := range a.Regexes {
			l.Regexes = append(l.Regexes, r.String())
		}
		out = append(out, l)
	}
	return out
}

func main() {
	configRules := RULES
	type rule struct {
		ID          string      ` + "`json:\"id\"`" + `
		Description string      ` + "`json:\"description\"`" + `
		Regex       string      ` + "`json:\"regex\"`" + `
		Path        string      ` + "`json:\"path\"`" + `
		Entropy     float64     ` + "`json:\"entropy\"`" + `
		SecretGroup int         ` + "`json:\"secret_group\"`" + `
		Keywords    []string    ` + "`json:\"keywords\"`" + `
		Allowlists  []allowlist ` + "`json:\"allowlists\"`" + `
		SkipReport  bool        ` + "`json:\"skip_report\"`" + `
		Required    int         ` + "`json:\"required\"`" + `
	}
	var out struct {
		Global  []allowlist               ` + "`json:\"global\"`" + `
		Rules   []rule                    ` + "`json:\"rules\"`" + `
		Samples map[string][]utils.Sample ` + "`json:\"samples\"`" + `
	}
	out.Global = lists(base.CreateGlobalConfig().Allowlists)
	for _, r := range configRules {
		x := rule{ID: r.RuleID, Description: r.Description, Entropy: r.Entropy, SecretGroup: r.SecretGroup,
			Keywords: r.Keywords, Allowlists: lists(r.Allowlists), SkipReport: r.SkipReport, Required: len(r.RequiredRules)}
		if r.Regex != nil {
			x.Regex = r.Regex.String()
		}
		if r.Path != nil {
			x.Path = r.Path.String()
		}
		out.Rules = append(out.Rules, x)
	}
	out.Samples = utils.Samples
	_ = rules.AgeSecretKey
	e := json.NewEncoder(os.Stdout)
	if err := e.Encode(out); err != nil {
		panic(err)
	}
}
`

// recordValidate is added to gitleaks' utils package: Validate keeps each
// true positive with the secret gitleaks' detector finds in it.
const recordValidate = `package utils

import "github.com/zricethezav/gitleaks/v8/config"

// Sample is a true positive and the secret gitleaks finds in it.
type Sample struct {
	Text   string ` + "`json:\"text\"`" + `
	Secret string ` + "`json:\"secret\"`" + `
}

// Samples holds, by rule id, the true positives the detector confirmed.
var Samples = map[string][]Sample{}

func Validate(rule config.Rule, truePositives []string, falsePositives []string) *config.Rule {
	r := &rule
	d := createSingleRuleDetector(r)
	for _, tp := range truePositives {
		if f := d.DetectString(tp); len(f) > 0 {
			Samples[r.RuleID] = append(Samples[r.RuleID], Sample{Text: tp, Secret: f[0].Secret})
		}
	}
	return r
}

func ValidateWithPaths(rule config.Rule, truePositives map[string]string, falsePositives map[string]string) *config.Rule {
	return &rule
}
`

// seededSecret replaces gitleaks' secrets.NewSecret, which seeds its
// generator with the clock.
const seededSecret = `package secrets

import (
	"hash/fnv"

	"github.com/lucasjones/reggen"
)

var calls int64

func NewSecret(regex string) string {
	g, err := reggen.NewGenerator(regex)
	if err != nil {
		panic(err)
	}
	h := fnv.New64a()
	h.Write([]byte(regex))
	calls++
	g.SetSeed(int64(h.Sum64()>>1) + calls)
	return g.Generate(1)
}
`

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

// goSource renders snapshot/redact/gitleaks.go.
func goSource(version string, global []allowlist, rules []rule, drop []dropped) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by snapshot/redact/redactgen from %s %s; DO NOT EDIT.\n\n", gitleaksModule, version)
	b.WriteString("package redact\n\n")
	fmt.Fprintf(&b, "// GitleaksVersion is the gitleaks release whose rules Text applies.\nconst GitleaksVersion = %q\n\n", version)
	longest := 0
	for _, r := range rules {
		longest = max(longest, len(r.ID))
	}
	fmt.Fprintf(&b, "// gitleaksLongestID is the length of the longest rule id, a marker's kind.\nconst gitleaksLongestID = %d\n\n", longest)
	b.WriteString("// Rules of that release that never apply to the texts a snapshot keeps:\n")
	for _, d := range drop {
		fmt.Fprintf(&b, "//   - %s: %s\n", d.id, d.reason)
	}
	b.WriteString("\n// gitleaksGlobal is gitleaks' global allowlist.\n")
	fmt.Fprintf(&b, "var gitleaksGlobal = %s\n\n", allowlistsSource(global))
	b.WriteString("// gitleaksRules are gitleaks' rules, by id.\nvar gitleaksRules = [...]glRule{\n")
	for _, r := range rules {
		if r.anchor.at != nil {
			fmt.Fprintf(&b, "// gitleaks: %s\n", r.Regex)
		}
		fmt.Fprintf(&b, "{id: %q, regex: %s, keywords: %s", r.ID, quote(r.pattern), stringsSource(r.Keywords))
		if r.anchor.at != nil {
			fmt.Fprintf(&b, ", anchors: %s", stringsSource(r.anchor.at))
		}
		if r.anchor.prefix != 0 {
			fmt.Fprintf(&b, ", prefix: %d", r.anchor.prefix)
		}
		if r.anchor.boundary {
			fmt.Fprintf(&b, ", boundary: true")
		}
		if r.Entropy != 0 {
			fmt.Fprintf(&b, ", entropy: %s", strconv.FormatFloat(r.Entropy, 'g', -1, 64))
		}
		if r.SecretGroup != 0 {
			fmt.Fprintf(&b, ", secretGroup: %d", r.SecretGroup)
		}
		if len(r.Allowlists) > 0 {
			fmt.Fprintf(&b, ", allow: %s", allowlistsSource(r.Allowlists))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatalf("formatting the rule table: %v\n%s", err, b.Bytes())
	}
	return src
}

func allowlistsSource(in []allowlist) string {
	var b strings.Builder
	b.WriteString("[]glAllowlist{\n")
	for _, a := range in {
		b.WriteString("{")
		if a.And {
			b.WriteString("and: true, ")
		}
		switch a.Target {
		case "match":
			b.WriteString("target: glTargetMatch, ")
		case "line":
			b.WriteString("target: glTargetLine, ")
		}
		if len(a.Regexes) > 0 {
			var q []string
			for _, r := range a.Regexes {
				q = append(q, quote(r))
			}
			fmt.Fprintf(&b, "regexes: []string{%s}, ", strings.Join(q, ", "))
		}
		if len(a.StopWords) > 0 {
			var lower []string
			for _, w := range a.StopWords {
				lower = append(lower, strings.ToLower(w))
			}
			slices.Sort(lower)
			fmt.Fprintf(&b, "stopwords: %s", stringsSource(slices.Compact(lower)))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}")
	return b.String()
}

func stringsSource(ss []string) string {
	var q []string
	for _, s := range ss {
		q = append(q, strconv.Quote(s))
	}
	return "[]string{" + strings.Join(q, ", ") + "}"
}

// quote writes a pattern as a raw string when it can.
func quote(s string) string {
	if !strings.Contains(s, "`") && !strings.ContainsAny(s, "\r\x00") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// samplesJSON is snapshot/redact/testdata/gitleaks-samples.json: for each
// kept rule, up to maxSamplesPerRule true positives (shortest first) with
// the secret gitleaks finds in each.
func samplesJSON(version string, rules []rule, all map[string][]sample) []byte {
	type ruleSamples struct {
		ID      string   `json:"id"`
		Samples []sample `json:"samples"`
	}
	out := struct {
		Source string        `json:"source"`
		Rules  []ruleSamples `json:"rules"`
	}{Source: fmt.Sprintf("%s %s: the true positives of cmd/generate/config/rules, as utils.Validate receives "+
		"them, with the secret gitleaks' detector finds in each (random parts drawn by secrets.NewSecret "+
		"seeded from their pattern); written by snapshot/redact/redactgen", gitleaksModule, version)}
	for _, r := range rules {
		ss := slices.Clone(all[r.ID])
		slices.SortStableFunc(ss, func(a, b sample) int {
			return cmp.Or(cmp.Compare(len(a.Text), len(b.Text)), cmp.Compare(a.Text, b.Text))
		})
		ss = slices.CompactFunc(ss, func(a, b sample) bool { return a.Text == b.Text })
		ss = spread(ss, maxSamplesPerRule)
		out.Rules = append(out.Rules, ruleSamples{ID: r.ID, Samples: ss})
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", " ")
	if err := e.Encode(out); err != nil {
		log.Fatal(err)
	}
	return b.Bytes()
}

// spread keeps n of ss, taken evenly across it, so that short and long
// syntaxes are both represented.
func spread(ss []sample, n int) []sample {
	if len(ss) <= n {
		return ss
	}
	out := make([]sample, 0, n)
	for i := range n {
		out = append(out, ss[i*(len(ss)-1)/(n-1)])
	}
	return out
}

const (
	specBegin = "<!-- gitleaks rules: generated by snapshot/redact/redactgen, do not edit -->"
	specEnd   = "<!-- end of gitleaks rules -->"
)

// rewriteSpec replaces the generated rule list of specs/security.md.
func rewriteSpec(path, version string, rules []rule, drop []dropped) {
	src, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	i := bytes.Index(src, []byte(specBegin))
	j := bytes.Index(src, []byte(specEnd))
	if i < 0 || j < i {
		log.Fatalf("%s has no %q … %q section", path, specBegin, specEnd)
	}
	var b bytes.Buffer
	b.Write(src[:i+len(specBegin)])
	fmt.Fprintf(&b, "\n\n| kind | found from (keywords) | source |\n|---|---|---|\n")
	for _, r := range rules {
		var kw []string
		for _, k := range r.Keywords {
			kw = append(kw, "`"+strings.ReplaceAll(k, "|", `\|`)+"`")
		}
		fmt.Fprintf(&b, "| `%s` | %s | gitleaks %s `%s` |\n", r.ID, strings.Join(kw, ", "), version, r.ID)
	}
	fmt.Fprintf(&b, "\nNot applied (they need a file path or other findings, which a snapshot's texts do not have):")
	for k, d := range drop {
		sep := ","
		if k == len(drop)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " `%s` (%s)%s", d.id, d.reason, sep)
	}
	b.WriteString("\n\n")
	b.Write(src[j:])
	write(path, b.Bytes())
}

func write(path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}
