package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkManifests checks the package managers' files goreleaser generated
// into dist (specs/install.md RL-8): the Homebrew cask, the Scoop manifest
// and the three WinGet manifests. Neither brew, scoop nor winget runs here,
// and their schemas are not in reach, so each file is checked against the
// rules of its format that a registry rejects on (the Scoop manifest
// schema's keys and patterns, WinGet's manifest schema 1.x required fields
// and patterns, Ruby syntax by `ruby -c` for the cask), and every download
// it names must be an archive of this release, with the sha256 that
// checksums.txt gives it. They are the schemas' rules as read (Scoop's
// schema.json, WinGet's 1.x manifest schemas), not the tools' own checks.
func checkManifests(dist, rubyBin string, stdout io.Writer) error {
	version, err := readVersion(dist)
	if err != nil {
		return err
	}
	var meta struct {
		Tag string `json:"tag"`
	}
	if b, err := os.ReadFile(filepath.Join(dist, "metadata.json")); err != nil || json.Unmarshal(b, &meta) != nil || meta.Tag == "" {
		return fmt.Errorf("%s/metadata.json: no tag", dist)
	}
	sums, err := readChecksums(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		return err
	}
	m := &manifestCheck{dist: dist, version: version, tag: meta.Tag, sums: sums}
	m.cask(rubyBin)
	m.scoop()
	m.winget()
	if len(m.problems) > 0 {
		return errors.New("the package managers' files are not right:\n  " + strings.Join(m.problems, "\n  "))
	}
	fmt.Fprintf(stdout, "manifests %s: Homebrew cask (ruby -c), Scoop manifest, WinGet manifests checked; every download is in checksums.txt\n", version)
	return nil
}

// manifestCheck is one run of checkManifests: the release it checks the
// generated files against, and the problems found, one per line.
type manifestCheck struct {
	dist, version, tag string
	sums               map[string]string
	problems           []string
}

func (m *manifestCheck) add(format string, a ...any) {
	m.problems = append(m.problems, fmt.Sprintf(format, a...))
}

// download checks that u is the release's archive of a target and that
// sum is its digest. The release's files are under its tag (a snapshot's
// is the newest tag before it).
func (m *manifestCheck) download(file, u, sum string) {
	version := m.version
	u = strings.ReplaceAll(u, "#{version}", version) // the cask's Ruby interpolation
	pu, err := url.Parse(u)
	name := path.Base(pu.Path)
	switch {
	case err != nil || pu.Scheme != "https":
		m.add("%s: %q is not an https URL", file, u)
	case !strings.HasPrefix(u, repoURL+"/releases/download/"+m.tag+"/"):
		m.add("%s: %s is not a download of release %s", file, u, m.tag)
	case !strings.Contains(name, "_"+version+"_"):
		m.add("%s: %s is not an archive of version %s", file, name, version)
	case m.sums[name] == "":
		m.add("%s: %s is not in checksums.txt", file, name)
	case !strings.EqualFold(m.sums[name], sum):
		m.add("%s: %s has sha256 %q, checksums.txt %s", file, name, sum, m.sums[name])
	}
}

// cask checks the Homebrew cask.
func (m *manifestCheck) cask(rubyBin string) {
	dist, version := m.dist, m.version
	cask := filepath.Join(dist, "homebrew", "Casks", "compact-guard.rb")
	if b, err := os.ReadFile(cask); err != nil {
		m.add("%v", err)
	} else {
		text := string(b)
		for _, want := range []string{`cask "compact-guard" do`, `version "` + version + `"`, `binary "compact-guard"`} {
			if !strings.Contains(text, want) {
				m.add("%s lacks %s", cask, want)
			}
		}
		pairs := regexp.MustCompile(`(?s)url "([^"]+)".*?sha256 "([0-9a-f]{64})"`).FindAllStringSubmatch(text, -1)
		if len(pairs) != 4 {
			m.add("%s names %d downloads, want 4 (macOS and Linux, amd64 and arm64)", cask, len(pairs))
		}
		for _, p := range pairs {
			m.download(cask, p[1], p[2])
		}
		if rubyBin == "" {
			m.add("%s: no ruby to check its syntax with (install ruby, or pass --ruby)", cask)
		} else if out, err := exec.Command(rubyBin, "-c", cask).CombinedOutput(); err != nil {
			m.add("%s: ruby -c: %v\n%s", cask, err, out)
		}
	}

}

// scoop checks the Scoop manifest.
func (m *manifestCheck) scoop() {
	dist, version := m.dist, m.version
	scoop := filepath.Join(dist, "scoop", "compact-guard.json")
	if b, err := os.ReadFile(scoop); err != nil {
		m.add("%v", err)
	} else {
		var sm map[string]any
		if err := json.Unmarshal(b, &sm); err != nil {
			m.add("%s: %v", scoop, err)
		}
		allowed := map[string]bool{"##": true, "architecture": true, "autoupdate": true, "bin": true, "checkver": true, "depends": true,
			"description": true, "homepage": true, "license": true, "notes": true, "persist": true, "post_install": true,
			"pre_install": true, "shortcuts": true, "version": true, "url": true, "hash": true, "extract_dir": true}
		for k := range sm {
			if !allowed[k] {
				m.add("%s: key %q is not in the Scoop manifest schema", scoop, k)
			}
		}
		if v, _ := sm["version"].(string); v != version || !regexp.MustCompile(`^[\w\-.+_]+$`).MatchString(v) {
			m.add("%s: version %q, want %s", scoop, sm["version"], version)
		}
		if h, _ := sm["homepage"].(string); !strings.HasPrefix(h, "https://") {
			m.add("%s: homepage %q is not a URL", scoop, sm["homepage"])
		}
		if l, _ := sm["license"].(string); l != license {
			m.add("%s: license %v, want %s (RL-13)", scoop, sm["license"], license)
		}
		arch, _ := sm["architecture"].(map[string]any)
		for _, k := range []string{"64bit", "arm64"} {
			a, _ := arch[k].(map[string]any)
			u, _ := a["url"].(string)
			h, _ := a["hash"].(string)
			bin := fmt.Sprint(a["bin"])
			if a == nil || !strings.Contains(bin, "compact-guard.exe") {
				m.add("%s: architecture %s has no url, hash and bin compact-guard.exe: %v", scoop, k, a)
				continue
			}
			m.download(scoop, u, h)
		}
	}

}

// winget checks the WinGet manifests: the version, installer and default
// locale ones.
func (c *manifestCheck) winget() {
	dist, version := c.dist, c.version
	wdir := filepath.Join(dist, "winget", "manifests", "c", "compact-guard", "compact-guard", version)
	id := "compact-guard.compact-guard"
	idPattern := regexp.MustCompile(`^[^.\s\\/:*?"<>|\x01-\x1f]{1,32}(\.[^.\s\\/:*?"<>|\x01-\x1f]{1,32}){1,7}$`)
	readYAML := func(name string) map[string]any {
		b, err := os.ReadFile(filepath.Join(wdir, name))
		if err != nil {
			c.add("%v", err)
			return nil
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			c.add("%s: %v", name, err)
			return nil
		}
		if m["PackageIdentifier"] != id || !idPattern.MatchString(id) || m["PackageVersion"] != version {
			c.add("%s: PackageIdentifier %v, PackageVersion %v; want %s, %s", name, m["PackageIdentifier"], m["PackageVersion"], id, version)
		}
		if mv, _ := m["ManifestVersion"].(string); !regexp.MustCompile(`^1\.\d+\.\d+$`).MatchString(mv) {
			c.add("%s: ManifestVersion %q is not 1.x.y", name, mv)
		}
		return m
	}
	if m := readYAML(id + ".yaml"); m != nil && m["ManifestType"] != "version" {
		c.add("%s.yaml: ManifestType %v, want version", id, m["ManifestType"])
	}
	if m := readYAML(id + ".locale.en-US.yaml"); m != nil {
		for _, k := range []string{"PackageLocale", "Publisher", "PackageName", "License", "ShortDescription"} {
			if s, _ := m[k].(string); s == "" {
				c.add("%s.locale.en-US.yaml: %s is required", id, k)
			}
		}
		if m["License"] != license {
			c.add("%s.locale.en-US.yaml: License %v, want %s (RL-13)", id, m["License"], license)
		}
		if s, _ := m["ShortDescription"].(string); len(s) > 256 || m["ManifestType"] != "defaultLocale" {
			c.add("%s.locale.en-US.yaml: ManifestType %v, ShortDescription of %d characters (at most 256)", id, m["ManifestType"], len(s))
		}
	}
	if m := readYAML(id + ".installer.yaml"); m != nil {
		list, _ := m["Installers"].([]any)
		archs := map[string]bool{}
		for _, it := range list {
			in, _ := it.(map[string]any)
			a, _ := in["Architecture"].(string)
			archs[a] = true
			u, _ := in["InstallerUrl"].(string)
			h, _ := in["InstallerSha256"].(string)
			if !regexp.MustCompile(`^[A-Fa-f0-9]{64}$`).MatchString(h) {
				c.add("installer %s: InstallerSha256 %q", a, h)
			}
			c.download(id+".installer.yaml", u, h)
			// Nested-installer keys may sit on each installer or at the top.
			nested := fmt.Sprint(in["NestedInstallerFiles"]) + fmt.Sprint(m["NestedInstallerFiles"])
			if !strings.Contains(nested, "RelativeFilePath:compact-guard.exe") {
				c.add("installer %s: NestedInstallerFiles does not name compact-guard.exe", a)
			}
			if in["NestedInstallerType"] != "portable" && m["NestedInstallerType"] != "portable" {
				c.add("installer %s: NestedInstallerType is not portable", a)
			}
		}
		if !archs["x64"] || !archs["arm64"] || len(list) != 2 {
			c.add("%s.installer.yaml: installers for %v, want x64 and arm64", id, archs)
		}
		if m["ManifestType"] != "installer" || m["InstallerType"] != "zip" {
			c.add("%s.installer.yaml: ManifestType %v, InstallerType %v; want installer, zip", id, m["ManifestType"], m["InstallerType"])
		}
	}
}
