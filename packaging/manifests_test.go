package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// manifestDist lays out what goreleaser generates for release v1.2.3, in
// its layout (as measured from goreleaser v2.15.1's snapshot), with
// archives standing in for the real ones; edit changes a file's text.
func manifestDist(t *testing.T, edit map[string][2]string) string {
	t.Helper()
	dist := t.TempDir()
	base := repoURL + "/releases/download/v1.2.3/"
	sums := map[string]string{}
	var list strings.Builder
	for _, n := range []string{"darwin_amd64.tar.gz", "darwin_arm64.tar.gz", "linux_amd64.tar.gz", "linux_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		name := "compact-guard_1.2.3_" + n
		s := sha256.Sum256([]byte(name))
		sums[n] = hex.EncodeToString(s[:])
		fmt.Fprintf(&list, "%s  %s\n", sums[n], name)
	}
	cask := "cask \"compact-guard\" do\n  version \"1.2.3\"\n"
	for _, n := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"} {
		cask += fmt.Sprintf("  url \"%scompact-guard_#{version}_%s.tar.gz\"\n  sha256 \"%s\"\n", base, n, sums[n+".tar.gz"])
	}
	cask += "  binary \"compact-guard\"\nend\n"
	scoop := fmt.Sprintf(`{"version": "1.2.3", "architecture": {
 "64bit": {"url": "%[1]scompact-guard_1.2.3_windows_amd64.zip", "bin": ["compact-guard.exe"], "hash": "%[2]s"},
 "arm64": {"url": "%[1]scompact-guard_1.2.3_windows_arm64.zip", "bin": ["compact-guard.exe"], "hash": "%[3]s"}},
 "homepage": "https://github.com/compact-guard/compact-guard", "license": "MIT", "description": "d"}`,
		base, sums["windows_amd64.zip"], sums["windows_arm64.zip"])
	head := "PackageIdentifier: compact-guard.compact-guard\nPackageVersion: 1.2.3\nManifestVersion: 1.12.0\n"
	installer := head + "InstallerType: zip\nManifestType: installer\nInstallers:\n"
	for _, a := range [][2]string{{"x64", "windows_amd64.zip"}, {"arm64", "windows_arm64.zip"}} {
		installer += fmt.Sprintf("  - Architecture: %s\n    NestedInstallerType: portable\n    NestedInstallerFiles:\n      - RelativeFilePath: compact-guard.exe\n        PortableCommandAlias: compact-guard\n    InstallerUrl: %scompact-guard_1.2.3_%s\n    InstallerSha256: %s\n",
			a[0], base, a[1], sums[a[1]])
	}
	wdir := filepath.Join("winget", "manifests", "c", "compact-guard", "compact-guard", "1.2.3")
	files := map[string]string{
		"metadata.json":                                         `{"version":"1.2.3","tag":"v1.2.3"}`,
		"checksums.txt":                                         list.String(),
		"homebrew/Casks/compact-guard.rb":                       cask,
		"scoop/compact-guard.json":                              scoop,
		wdir + "/compact-guard.compact-guard.yaml":              head + "DefaultLocale: en-US\nManifestType: version\n",
		wdir + "/compact-guard.compact-guard.locale.en-US.yaml": head + "PackageLocale: en-US\nPublisher: compact-guard\nPackageName: compact-guard\nLicense: MIT\nShortDescription: Keeps state\nManifestType: defaultLocale\n",
		wdir + "/compact-guard.compact-guard.installer.yaml":    installer,
	}
	for name, e := range edit {
		if !strings.Contains(files[name], e[0]) {
			t.Fatalf("%s has no %q to edit", name, e[0])
		}
		files[name] = strings.Replace(files[name], e[0], e[1], 1)
	}
	for name, text := range files {
		p := filepath.Join(dist, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dist
}

// The manifests goreleaser generates pass; each kind of mistake a
// registry would reject fails, named.
//
// spec: RL-8, RL-13
func TestCheckManifests(t *testing.T) {
	ok, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to stand in for ruby -c")
	}
	if err := checkManifests(manifestDist(t, nil), ok, &bytes.Buffer{}); err != nil {
		t.Fatalf("a correct set fails: %v", err)
	}
	wdir := "winget/manifests/c/compact-guard/compact-guard/1.2.3/"
	for want, edit := range map[string]map[string][2]string{
		"compact-guard_1.2.3_windows_amd64.zip has sha256":        {"scoop/compact-guard.json": {`"hash": "`, `"hash": "00`}},
		`key "bogus" is not in the Scoop manifest schema`:         {"scoop/compact-guard.json": {`"homepage"`, `"bogus": 1, "homepage"`}},
		"lacks binary \"compact-guard\"":                          {"homebrew/Casks/compact-guard.rb": {`binary "compact-guard"`, `binary "other"`}},
		"is not a download of release v1.2.3":                     {"homebrew/Casks/compact-guard.rb": {"download/v1.2.3/", "download/v0.9.0/"}},
		"PackageIdentifier compact guard":                         {wdir + "compact-guard.compact-guard.yaml": {"PackageIdentifier: compact-guard.compact-guard", "PackageIdentifier: compact guard"}},
		"License is required":                                     {wdir + "compact-guard.compact-guard.locale.en-US.yaml": {"License: MIT\n", ""}},
		"installer arm64: NestedInstallerType is not portable":    {wdir + "compact-guard.compact-guard.installer.yaml": {"arm64\n    NestedInstallerType: portable", "arm64\n    NestedInstallerType: exe"}},
		"ManifestVersion \"2.0.0\" is not 1.x.y":                  {wdir + "compact-guard.compact-guard.yaml": {"ManifestVersion: 1.12.0", "ManifestVersion: 2.0.0"}},
		"scoop/compact-guard.json: version \"1.2.4\", want 1.2.3": {"scoop/compact-guard.json": {`"version": "1.2.3"`, `"version": "1.2.4"`}},
		// RL-13: a manifest that says NOASSERTION fails.
		"scoop/compact-guard.json: license NOASSERTION, want MIT": {"scoop/compact-guard.json": {`"license": "MIT"`, `"license": "NOASSERTION"`}},
		"locale.en-US.yaml: License NOASSERTION, want MIT":        {wdir + "compact-guard.compact-guard.locale.en-US.yaml": {"License: MIT\n", "License: NOASSERTION\n"}},
	} {
		err := checkManifests(manifestDist(t, edit), ok, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want a failure naming %q, got %v", want, err)
		}
	}
	// ruby -c judges the cask's syntax when ruby is here.
	if ruby, err := exec.LookPath("ruby"); err == nil {
		dist := manifestDist(t, map[string][2]string{"homebrew/Casks/compact-guard.rb": {"end\n", "\n"}})
		if err := checkManifests(dist, ruby, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "ruby -c") {
			t.Errorf("a cask with a syntax error passes ruby -c: %v", err)
		}
	}
}
