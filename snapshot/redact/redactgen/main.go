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
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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
