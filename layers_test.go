package main

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// layers ranks the module's packages, lowest first, as specs/layout.md
// LY-1 lists them: a package imports only packages of a lower rank.
var layers = map[string]int{
	"transcript/textcut": 0, "transcript/textesc": 0, "transcript/nonblock": 0, "transcript/jsonspan": 0,
	"transcript/facts":      1,
	"snapshot/standing":     1,
	"clients/claude/reader": 2, "clients/codex/reader": 2, "clients/qwen/reader": 2, "clients/copilot/reader": 2, "clients/gemini/reader": 2,
	"transcript": 3, "transcript/transcripttest": 3,
	"snapshot/trust": 4, "snapshot/trust/trusttest": 4, "snapshot/redact": 4, "snapshot/health": 4,
	"snapshot":          5,
	"snapshot/gitstate": 6, "snapshot/handoff": 6,
	"snapshot/watch":  7,
	"selectsnap":      8,
	"restore/residue": 9,
	"restore":         10,
	"settings":        11, "restore/audit": 11,
	"hookio": 12,
	"take":   13, "hookio/hooktest": 13,
	"handover":      14,
	"agent":         15,
	"clients/codex": 16, "clients/qwen": 16, "clients/copilot": 16, "clients/gemini": 16,
	"clients":   17,
	"cmd":       18,
	"packaging": 19, ".": 19, "snapshot/redact/redactgen": 19,
}

// TestLayers proves that no package imports one of its own layer or above
// (LY-1), reading the imports of every non-test Go file of the module.
// spec: LY-1
func TestLayers(t *testing.T) {
	module := modulePath(t)
	imports := map[string]map[string]bool{} // package dir -> project packages imported
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, is := range f.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if p == module {
				imports[dir]["."] = true
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[dir][rest] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < len(layers)-2 {
		t.Fatalf("found only %d packages; the walk is broken", len(imports))
	}
	checked := 0
	for pkg, imps := range imports {
		rank, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s is in no layer: give it one in layers_test.go and specs/layout.md (LY-1)", pkg)
			continue
		}
		for imp := range imps {
			irank, ok := layers[imp]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer (LY-1)", pkg, imp)
			case irank >= rank:
				t.Errorf("%s (layer %d) imports %s (layer %d): a package imports only lower layers (LY-1)", pkg, rank, imp, irank)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d imports; the walk is broken", checked)
	}
}

// modulePath is the module path go.mod declares.
func modulePath(t *testing.T) string {
	f, err := os.Open("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(sc.Text(), "module "); ok {
			return strings.TrimSpace(m)
		}
	}
	t.Fatal("go.mod names no module")
	return ""
}
