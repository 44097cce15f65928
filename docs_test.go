package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// machinePathRe finds a path of the machine the project was built on, as
// LY-4 forbids it in the documents: anything under /work/ or /root/, and a
// home folder other than the examples' (/home/me, /home/u, /Users/me).
var machinePathRe = regexp.MustCompile(`(?:^|[^\w.~-])(/work/|/root/|/home/[^/\s` + "`" + `"']+/|/Users/[^/\s` + "`" + `"']+/)`)

// examples are the home folders the documents' examples use.
var examples = map[string]bool{"/home/me/": true, "/home/u/": true, "/Users/me/": true}

// TestDocsNameNoMachinePath proves LY-4 over README.md, specs/*.md and the
// texts the release ships (packaging's INSTALL.txt and npm README).
// spec: LY-4
func TestDocsNameNoMachinePath(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("specs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no specs: %v", err)
	}
	docs = append(docs, "README.md", filepath.Join("packaging", "INSTALL.txt"), filepath.Join("packaging", "npm", "README.md"))
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range machinePathRe.FindAllStringSubmatch(line, -1) {
				if p := m[1]; !examples[p] {
					t.Errorf("%s:%d names %q, a path of one machine: say ../shared/… or a variable (COMPACT_GUARD_CORPUS=<dir>)", doc, i+1, p)
				}
			}
		}
	}
}

// TestMachinePathRe: the pattern finds what LY-4 forbids and leaves the
// examples and relative paths alone.
// spec: LY-4
func TestMachinePathRe(t *testing.T) {
	for s, want := range map[string]string{
		"COMPACT_GUARD_CORPUS=/work/corpus/entireio": "/work/",
		"see `/root/.cache/x`":                       "/root/",
		"in /home/alice/proj":                        "/home/alice/",
		"in /Users/bob/proj":                         "/Users/bob/",
		"in /home/me/proj":                           "/home/me/",
		"../shared/fixtures/transcripts/":            "",
		"~/.local/state/compact-guard":               "",
		"cmd/work/root.go":                           "",
	} {
		got := ""
		if m := machinePathRe.FindStringSubmatch(s); m != nil {
			got = m[1]
		}
		if got != want {
			t.Errorf("%q: found %q, want %q", s, got, want)
		}
	}
}
