// Command packaging makes the release's Claude Code plugin, marketplace
// file and npm packages from the binaries goreleaser built
// (specs/install.md, "Release artifacts"). goreleaser runs it from
// .goreleaser.yaml; by hand:
//
//	go run ./packaging snapshot            # the whole release build into dist/, without goreleaser
//	go run ./packaging assemble --dist dist --version 1.2.3
//	go run ./packaging check --dist dist   # what .ci/run checks after a build
//	go run ./packaging manifests           # goreleaser's cask, Scoop and WinGet files (.ci/release-check)
//	go run ./packaging marketplace         # the repository's .claude-plugin/marketplace.json
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/compact-guard/compact-guard/cmd"
)

//go:embed plugin/bin/compact-guard
var pluginLauncher []byte

//go:embed npm/compact-guard.js
var npmLauncher []byte

//go:embed npm/README.md
var npmReadme []byte

const (
	// repoURL is the project's home; release assets live under it.
	repoURL = "https://github.com/compact-guard/compact-guard"
	// license is the SPDX id of the repository's LICENSE, which every
	// manifest of the release states (RL-13).
	license = "MIT"
	// pluginZip is the plugin archive's name in every release, without a
	// version so that releases/latest/download/ always finds it.
	pluginZip = "compact-guard-plugin.zip"
	// latestPluginURL is the plugin archive of the newest release, which
	// the repository's marketplace file points at.
	latestPluginURL = repoURL + "/releases/latest/download/" + pluginZip
	// npmScope holds the per-platform npm packages.
	npmScope = "@compact-guard"
)

// target is one platform a release builds for.
type target struct{ GOOS, GOARCH string }

// targets are the release's platforms; goreleaser builds the same list.
var targets = []target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// npmOS and npmCPU map Go's names to Node's process.platform and
// process.arch, which npm matches against a package's "os" and "cpu".
var (
	npmOS  = map[string]string{"darwin": "darwin", "linux": "linux", "windows": "win32"}
	npmCPU = map[string]string{"amd64": "x64", "arm64": "arm64"}
)

func (t target) exe() string {
	if t.GOOS == "windows" {
		return "compact-guard.exe"
	}
	return "compact-guard"
}

func (t target) npmName() string { return npmScope + "/" + npmOS[t.GOOS] + "-" + npmCPU[t.GOARCH] }

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "packaging:", err)
		os.Exit(1)
	}
}

// assembly is one run of "packaging assemble".
type assembly struct {
	Dist, Version, BaseURL string
	Mtime                  time.Time
}

// run writes the release's packages into the dist folder and returns their
// names, which belong in checksums.txt.
func (a assembly) run(stdout io.Writer) ([]string, error) {
	bins, err := findBinaries(a.Dist)
	if err != nil {
		return nil, err
	}
	files, err := pluginFiles(a.Version, bins)
	if err != nil {
		return nil, err
	}
	zipBytes, err := pluginArchive(files, a.Mtime)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(a.Dist, pluginZip), zipBytes, 0o644); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(zipBytes)
	mp, err := marketplaceJSON(a.BaseURL+"/"+pluginZip, hex.EncodeToString(sum[:]), a.Version)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(a.Dist, "marketplace.json"), mp, 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "wrote %s and marketplace.json\n", pluginZip)
	if err := writeLocalMarketplace(filepath.Join(a.Dist, localMarketplaceDir), a.Version, files, a.Mtime); err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "wrote %s/ (claude plugin marketplace add %s)\n", localMarketplaceDir, filepath.Join(a.Dist, localMarketplaceDir))
	tgz, err := npmPackages(a.Dist, a.Version, bins, stdout)
	if err != nil {
		return nil, err
	}
	return append([]string{pluginZip, "marketplace.json"}, tgz...), nil
}

// findBinaries finds goreleaser's build of every target in dist: the folder
// compact-guard_<os>_<arch>[_<variant>] holding compact-guard[.exe].
func findBinaries(dist string) (map[target]string, error) {
	bins := map[target]string{}
	for _, t := range targets {
		matches, err := filepath.Glob(filepath.Join(dist, "compact-guard_"+t.GOOS+"_"+t.GOARCH+"*", t.exe()))
		if err != nil {
			return nil, err
		}
		if len(matches) != 1 {
			return nil, fmt.Errorf("want one %s/%s binary in %s, found %d (%v)", t.GOOS, t.GOARCH, dist, len(matches), matches)
		}
		bins[t] = matches[0]
	}
	return bins, nil
}

// pluginManifest is the plugin's .claude-plugin/plugin.json.
func pluginManifest(version string) ([]byte, error) {
	return marshal(map[string]any{
		"name":        cmd.PluginName,
		"version":     version,
		"description": cmd.PluginDescription,
		"author":      map[string]string{"name": "compact-guard", "url": repoURL},
		"homepage":    repoURL,
		"repository":  repoURL,
		"license":     license,
		"keywords":    []string{"compaction", "hooks", "context"},
	})
}

// pluginEntry is one file of the plugin.
type pluginEntry struct {
	data []byte
	mode os.FileMode
}

// pluginFiles are the plugin's files by slash path: manifest, hooks, the
// launcher, bin/compact-guard.exe (Windows on amd64 and, emulated, on
// arm64) and a binary per macOS and Linux target.
func pluginFiles(version string, bins map[target]string) (map[string]pluginEntry, error) {
	manifest, err := pluginManifest(version)
	if err != nil {
		return nil, err
	}
	files := map[string]pluginEntry{
		".claude-plugin/plugin.json": {manifest, 0o644},
		"hooks/hooks.json":           {cmd.PluginHooksJSON(), 0o644},
		"bin/compact-guard":          {pluginLauncher, 0o755},
	}
	for t, p := range bins {
		name := cmd.PluginBinaryDir(t.GOOS, t.GOARCH) + "/compact-guard"
		switch {
		case t == target{"windows", "amd64"}:
			name = "bin/compact-guard.exe"
		case t.GOOS == "windows":
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		files[name] = pluginEntry{b, 0o755}
	}
	return files, nil
}

// pluginArchive is the plugin as a zip. Entries are sorted and stamped
// with mtime, so the same binaries give the same bytes.
func pluginArchive(files map[string]pluginEntry, mtime time.Time) ([]byte, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range names {
		h := &zip.FileHeader{Name: n, Method: zip.Deflate, Modified: mtime}
		h.SetMode(files[n].mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(files[n].data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// marketplace is a .claude-plugin/marketplace.json; struct fields keep
// the order people expect to read (name first).
type marketplace struct {
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Owner       person              `json:"owner"`
	Plugins     []marketplacePlugin `json:"plugins"`
}

type person struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

type marketplacePlugin struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Version     string `json:"version,omitempty"`
	Source      any    `json:"source"` // an archiveSource, or a relative path

	Homepage string `json:"homepage"`
	Category string `json:"category"`
}

type archiveSource struct {
	Source string `json:"source"`
	URL    string `json:"url"`
	SHA256 string `json:"sha256,omitempty"`
}

// marketplaceJSON is a marketplace listing the plugin as an archive at url;
// sha256 and version are left out when empty (the repository's file, which
// follows the newest release).
func marketplaceJSON(url, sha256, version string) ([]byte, error) {
	return marshal(marketplace{
		Name:        cmd.MarketplaceName,
		Description: "compact-guard: Claude Code hooks that keep a session's working state across compaction",
		Owner:       person{Name: "compact-guard", URL: repoURL},
		Plugins: []marketplacePlugin{{
			Name:        cmd.PluginName,
			Description: cmd.PluginDescription,
			Version:     version,
			Source:      archiveSource{Source: "archive", URL: url, SHA256: sha256},
			Homepage:    repoURL,
			Category:    "productivity",
		}},
	})
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// npmPackages lays out the main package (the launcher, with an optional
// dependency on each platform package) and one package per target holding
// its binary, and packs each with npm pack into dist, which stamps fixed
// times on every entry.
func npmPackages(dist, version string, bins map[target]string, stdout io.Writer) ([]string, error) {
	stage, err := os.MkdirTemp(dist, "npm-stage-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	optional := map[string]string{}
	for _, t := range targets {
		optional[t.npmName()] = version
	}
	mainPkg, err := marshal(map[string]any{
		"name":                 "compact-guard",
		"version":              version,
		"description":          cmd.PluginDescription,
		"homepage":             repoURL,
		"repository":           map[string]string{"type": "git", "url": "git+" + repoURL + ".git"},
		"license":              license,
		"bin":                  map[string]string{"compact-guard": "bin/compact-guard.js"},
		"files":                []string{"bin/compact-guard.js", "README.md"},
		"engines":              map[string]string{"node": ">=16"},
		"optionalDependencies": optional,
	})
	if err != nil {
		return nil, err
	}
	dirs := []string{filepath.Join(stage, "compact-guard")}
	if err := writeFiles(dirs[0], map[string][]byte{
		"package.json": mainPkg, "README.md": npmReadme, "bin/compact-guard.js": npmLauncher,
	}); err != nil {
		return nil, err
	}
	for _, t := range targets {
		pj, err := marshal(map[string]any{
			"name":            t.npmName(),
			"version":         version,
			"description":     fmt.Sprintf("The compact-guard binary for %s/%s; install the compact-guard package instead", t.GOOS, t.GOARCH),
			"homepage":        repoURL,
			"repository":      map[string]string{"type": "git", "url": "git+" + repoURL + ".git"},
			"license":         license,
			"os":              []string{npmOS[t.GOOS]},
			"cpu":             []string{npmCPU[t.GOARCH]},
			"files":           []string{"bin/" + t.exe()},
			"preferUnplugged": true,
		})
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(bins[t])
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(stage, npmOS[t.GOOS]+"-"+npmCPU[t.GOARCH])
		if err := writeFiles(dir, map[string][]byte{"package.json": pj, "bin/" + t.exe(): b}); err != nil {
			return nil, err
		}
		dirs = append(dirs, dir)
	}
	absDist, err := filepath.Abs(dist)
	if err != nil {
		return nil, err
	}
	// One npm for all the packages: npm pack takes several folders, and
	// each start of npm costs about a second.
	args := []string{"pack"}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		args = append(args, abs)
	}
	c := exec.Command("npm", append(args, "--pack-destination", absDist, "--loglevel=error")...)
	c.Dir = stage
	c.Stderr = os.Stderr
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("npm pack in %s: %v", stage, err)
	}
	var names []string
	for _, name := range strings.Fields(string(out)) {
		fmt.Fprintf(stdout, "wrote %s\n", name)
		names = append(names, name)
	}
	return names, nil
}

func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if filepath.Dir(name) == "bin" {
			mode = 0o755
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			return err
		}
	}
	return nil
}
