package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// untestedMarker follows a clause's bold id in specs/*.md when the clause is
// not behaviour a test can check (a measurement, what a client was seen to
// do, a benchmark's inputs, a workflow that runs only on GitHub); specs/README.md
// says what it means. It is the only way a clause may go unnamed by tests.
const untestedMarker = "(no test: not behaviour)"

var (
	// clauseRe finds a clause's bold id in a spec, as specs/README.md writes them.
	clauseRe = regexp.MustCompile(`\*\*([A-Z]{2,4}(?:-C)?-\d+[a-z]?)\b`)
	// markedRe finds a clause whose bold part is followed by untestedMarker.
	markedRe = regexp.MustCompile(`\*\*([A-Z]{2,4}(?:-C)?-\d+[a-z]?)\b[^*]*\*\*\s*` + regexp.QuoteMeta(untestedMarker))
	// namedRe finds a clause id named as a word in a test file.
	namedRe = regexp.MustCompile(`\b[A-Z]{2,4}(?:-C)?-\d+[a-z]?\b`)
	// runNameRe finds a clause id in its t.Run form (XX-8 as XX8_).
	runNameRe = regexp.MustCompile(`[A-Z]{2,5}\d+[a-z]?_`)
)

// TestEveryClauseNamed proves that every clause of specs/*.md is named by a
// test file (a // spec: comment, a .txtar's # spec: line, or a t.Run name),
// or carries untestedMarker, so that a clause cannot lose its test unseen
// (LY-2).
// spec: LY-2
func TestEveryClauseNamed(t *testing.T) {
	named, files := namedClauses(t, ".")
	if files < 100 {
		t.Fatalf("read only %d test files; the walk is broken", files)
	}
	specs, err := filepath.Glob(filepath.Join("specs", "*.md"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	clauses, marked := 0, 0
	var missing, needless []string
	for _, path := range specs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		isMarked := map[string]bool{}
		for _, m := range markedRe.FindAllStringSubmatch(text, -1) {
			isMarked[m[1]] = true
		}
		for _, m := range clauseRe.FindAllStringSubmatch(text, -1) {
			id := m[1]
			clauses++
			switch {
			case isMarked[id] && named[id]:
				needless = append(needless, filepath.Base(path)+" "+id)
			case isMarked[id]:
				marked++
			case !named[id]:
				missing = append(missing, filepath.Base(path)+" "+id)
			}
		}
	}
	if clauses < 100 {
		t.Fatalf("found only %d clauses in specs; the pattern is broken", clauses)
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("%s: no test names this clause, and it is not marked %q", m, untestedMarker)
	}
	// A marked clause that a test names is a contradiction: one of the two is wrong.
	sort.Strings(needless)
	for _, m := range needless {
		t.Errorf("%s: marked %q but a test names it", m, untestedMarker)
	}
	t.Logf("%d clauses, %d marked, %d test files", clauses, marked, files)
}

// namedClauses returns the clause ids that the repository's test files under
// root name, and how many test files it read: *_test.go outside .git and
// testdata folders, and .txtar files everywhere but .git (testscript keeps
// them in testdata).
func namedClauses(t *testing.T, root string) (map[string]bool, int) {
	t.Helper()
	named := map[string]bool{}
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		inTestdata := strings.Contains(filepath.ToSlash(path)+"/", "/testdata/") || strings.HasPrefix(filepath.ToSlash(path), "testdata/")
		goTest := strings.HasSuffix(name, "_test.go") && !inTestdata
		if !goTest && !strings.HasSuffix(name, ".txtar") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		text := string(b)
		for _, id := range namedRe.FindAllString(text, -1) {
			named[id] = true
		}
		for _, run := range runNameRe.FindAllString(text, -1) {
			for _, id := range runForms(strings.TrimSuffix(run, "_")) {
				named[id] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return named, files
}

// runFormRe splits a t.Run form into its letters and its number.
var runFormRe = regexp.MustCompile(`^([A-Z]+)(\d+[a-z]?)$`)

// runForms puts back the hyphens a t.Run name drops: XX8 is XX-8, and XXC8
// is XX-C8 or XXC-8 (both are taken as named). The examples in this file
// are no clause ids, so that it names only LY-2.
func runForms(s string) []string {
	m := runFormRe.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	forms := []string{m[1] + "-" + m[2]}
	if prefix, ok := strings.CutSuffix(m[1], "C"); ok && prefix != "" {
		forms = append(forms, prefix+"-C"+m[2])
	}
	return forms
}

// A t.Run form names its clause: letters and number are split back.
// spec: LY-2
func TestRunForms(t *testing.T) {
	for in, want := range map[string][]string{
		"XX8":    {"XX-8"},
		"XXX15a": {"XXX-15a"},
		"XXC8":   {"XXC-8", "XX-C8"},
		"x8":     nil,
	} {
		if got := runForms(in); !slices.Equal(got, want) {
			t.Errorf("runForms(%q) = %q, want %q", in, got, want)
		}
	}
}
