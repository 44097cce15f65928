package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml that "packaging
// snapshot" builds without goreleaser.
type goreleaserConfig struct {
	Builds []struct {
		Main, Binary string
		Env          []string
		Goos, Goarch []string
		Flags        []string
		Ldflags      []string
	}
	Archives []struct {
		Formats         []string
		FormatOverrides []struct {
			Goos    string
			Formats []string
		} `yaml:"format_overrides"`
		NameTemplate string `yaml:"name_template"`
		Files        []struct {
			Src         string
			StripParent bool `yaml:"strip_parent"`
		}
	}
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string
	}
	Snapshot struct {
		VersionTemplate string `yaml:"version_template"`
	}
	Sboms []struct {
		Documents []string
	}
	HomebrewCasks []struct {
		IDs        []string `yaml:"ids"`
		Repository struct{ Owner, Name string }
	} `yaml:"homebrew_casks"`
	Scoops []struct {
		IDs        []string `yaml:"ids"`
		Repository struct{ Owner, Name string }
	}
	Winget []struct {
		IDs               []string `yaml:"ids"`
		PackageIdentifier string   `yaml:"package_identifier"`
		Repository        struct{ Owner, Name string }
	}
}

// The release goreleaser makes and the one "packaging snapshot" makes are
// built alike: the same targets, flags, version stamp, archive names and
// contents, checksum file, snapshot version and packages; and the release
// workflow runs the goreleaser version .ci/goreleaser pins.
//
// spec: RL-6, RL-7, RL-10, RL-11
func TestGoreleaserParity(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if len(c.Builds) != 1 || len(c.Archives) != 1 || len(c.Sboms) != 1 {
		t.Fatalf("want one build, one archive and one sboms entry: %+v", c)
	}
	bd := c.Builds[0]
	var got []string
	for _, os := range bd.Goos {
		for _, arch := range bd.Goarch {
			got = append(got, os+"/"+arch)
		}
	}
	var want []string
	for _, tg := range targets {
		want = append(want, tg.GOOS+"/"+tg.GOARCH)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("goreleaser builds %v, packaging %v", got, want)
	}
	if bd.Main != "." || bd.Binary != "compact-guard" || !slices.Equal(bd.Env, []string{"CGO_ENABLED=0"}) || !slices.Equal(bd.Flags, buildFlags) {
		t.Errorf("goreleaser's build %+v differs from packaging's (main ., CGO_ENABLED=0, flags %v)", bd, buildFlags)
	}
	if len(bd.Ldflags) != 1 || strings.ReplaceAll(bd.Ldflags[0], "{{ .Version }}", "1.2.3") != ldflags("1.2.3") {
		t.Errorf("goreleaser's ldflags %q, packaging's %q", bd.Ldflags, ldflags("{{ .Version }}"))
	}

	ar := c.Archives[0]
	if !slices.Equal(ar.Formats, []string{"tar.gz"}) || len(ar.FormatOverrides) != 1 || ar.FormatOverrides[0].Goos != "windows" ||
		!slices.Equal(ar.FormatOverrides[0].Formats, []string{"zip"}) || ar.NameTemplate != "{{ .ProjectName }}_{{ .Version }}_{{ .Os }}_{{ .Arch }}" {
		t.Errorf("goreleaser's archives %+v differ from releaseArchive's names and formats", ar)
	}
	var files []string
	for _, f := range ar.Files {
		name := f.Src
		if f.StripParent {
			name = filepath.Base(name)
		}
		files = append(files, name)
	}
	sort.Strings(files)
	if !slices.Equal(files, []string{"INSTALL.txt", "LICENSE", "README.md"}) {
		t.Errorf("goreleaser's archives hold %v besides the binary, releaseArchive INSTALL.txt, LICENSE and README.md", files)
	}
	if c.Checksum.NameTemplate != "checksums.txt" || c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum: %+v", c.Checksum)
	}
	if c.Snapshot.VersionTemplate != "{{ incpatch .Version }}-snapshot.{{ .ShortCommit }}" {
		t.Errorf("snapshot version %q is not the one snapshotVersion makes", c.Snapshot.VersionTemplate)
	}

	// The documents goreleaser picks up are the files assemble writes.
	docs := slices.Clone(c.Sboms[0].Documents)
	for i := range docs {
		docs[i] = strings.ReplaceAll(docs[i], "{{ .Version }}", "1.2.3")
	}
	wantDocs := []string{pluginZip, "marketplace.json", "compact-guard-1.2.3.tgz"}
	for _, tg := range targets {
		wantDocs = append(wantDocs, "compact-guard-"+npmOS[tg.GOOS]+"-"+npmCPU[tg.GOARCH]+"-1.2.3.tgz")
	}
	sort.Strings(docs)
	sort.Strings(wantDocs)
	if !slices.Equal(docs, wantDocs) {
		t.Errorf("sboms documents %v, assemble writes %v", docs, wantDocs)
	}

	// Every package manager takes the one archive set.
	if len(c.HomebrewCasks) != 1 || len(c.Scoops) != 1 || len(c.Winget) != 1 {
		t.Fatalf("want one homebrew_casks, scoops and winget entry each: %+v %+v %+v", c.HomebrewCasks, c.Scoops, c.Winget)
	}
	for name, ids := range map[string][]string{"homebrew_casks": c.HomebrewCasks[0].IDs, "scoops": c.Scoops[0].IDs, "winget": c.Winget[0].IDs} {
		if !slices.Equal(ids, []string{"compact-guard"}) {
			t.Errorf("%s takes the archives %v, want [compact-guard]", name, ids)
		}
	}

	// One goreleaser version everywhere.
	pin := regexp.MustCompile(`(?m)^version=(v[0-9.]+)$`)
	script, err := os.ReadFile(filepath.Join("..", ".ci", "goreleaser"))
	if err != nil {
		t.Fatal(err)
	}
	m := pin.FindSubmatch(script)
	if m == nil {
		t.Fatal(".ci/goreleaser pins no version")
	}
	wf, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(wf, []byte("version: "+string(m[1])+" ")) {
		t.Errorf("the release workflow does not run goreleaser %s, the one .ci/goreleaser pins", m[1])
	}
}

// snapshotVersion is goreleaser's incpatch.
//
// spec: RL-7
func TestSnapshotVersion(t *testing.T) {
	for tag, want := range map[string]string{
		"v0.0.0":        "0.0.1-snapshot.abc1234",
		"v1.2.3":        "1.2.4-snapshot.abc1234",
		"v1.2.9-rc.1":   "1.2.10-snapshot.abc1234",
		"v2.0.0+build5": "2.0.1-snapshot.abc1234",
	} {
		if got, err := snapshotVersion(tag, "abc1234"); err != nil || got != want {
			t.Errorf("snapshotVersion(%q) = %q, %v; want %q", tag, got, err, want)
		}
	}
	if _, err := snapshotVersion("release-1", "abc"); err == nil {
		t.Error("a tag that is not vX.Y.Z was taken")
	}
}
