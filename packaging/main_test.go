package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/cmd"
)

// The repository's marketplace file is what "packaging marketplace" prints,
// so the marketplace name and plugin fields have one source.
//
// spec: PL-1
func TestRepositoryMarketplace(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", ".claude-plugin", "marketplace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"marketplace"}, &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, out.Bytes()) {
		t.Errorf(".claude-plugin/marketplace.json is not what 'go run ./packaging marketplace' prints; regenerate it:\n%s", out.Bytes())
	}
}

// fakeDist lays out goreleaser's build folders with a small file per
// target standing in for the binary.
func fakeDist(t *testing.T) string {
	t.Helper()
	dist := t.TempDir()
	for _, tg := range targets {
		dir := filepath.Join(dist, "compact-guard_"+tg.GOOS+"_"+tg.GOARCH+"_v1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, tg.exe()), []byte("binary "+tg.GOOS+"/"+tg.GOARCH), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dist
}

func requireNpm(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("npm is needed to pack the npm packages: %v", err)
		}
		t.Skipf("npm is needed to pack the npm packages: %v", err)
	}
}

// spec: RL-2, RL-3, PL-3, NP-1, RL-13
func TestAssemble(t *testing.T) {
	t.Parallel()
	requireNpm(t)
	dist := fakeDist(t)
	mtime := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	assemble := func() {
		t.Helper()
		var out bytes.Buffer
		if err := run([]string{"assemble", "--dist", dist, "--version", "1.2.3", "--mtime", "1777863721", "--base-url", "https://example.test/r"}, &out); err != nil {
			t.Fatalf("assemble: %v\n%s", err, out.String())
		}
	}
	assemble()
	zipBytes, err := os.ReadFile(filepath.Join(dist, pluginZip))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		".claude-plugin/plugin.json":     "",
		"hooks/hooks.json":               string(cmd.PluginHooksJSON()),
		"bin/compact-guard":              string(pluginLauncher),
		"bin/compact-guard.exe":          "binary windows/amd64",
		"bin/linux-amd64/compact-guard":  "binary linux/amd64",
		"bin/linux-arm64/compact-guard":  "binary linux/arm64",
		"bin/darwin-amd64/compact-guard": "binary darwin/amd64",
		"bin/darwin-arm64/compact-guard": "binary darwin/arm64",
	}
	for _, f := range zr.File {
		w, ok := want[f.Name]
		if !ok {
			t.Errorf("unexpected %s in the plugin", f.Name)
			continue
		}
		delete(want, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		switch {
		case f.Name == ".claude-plugin/plugin.json":
			var m map[string]any
			if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["name"] != "compact-guard" || m["version"] != "1.2.3" {
				t.Errorf("plugin.json: %v %s", err, b.Bytes())
			}
		case b.String() != w:
			t.Errorf("%s holds %q", f.Name, b.String())
		}
		if strings.HasPrefix(f.Name, "bin/") && f.Mode().Perm() != 0o755 {
			t.Errorf("%s has mode %v, want 0755", f.Name, f.Mode())
		}
		if !f.Modified.Equal(mtime) {
			t.Errorf("%s stamped %v, want %v", f.Name, f.Modified, mtime)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing from the plugin: %v", want)
	}

	var mp struct {
		Name    string
		Plugins []struct {
			Version string
			Source  archiveSource
		}
	}
	b, err := os.ReadFile(filepath.Join(dist, "marketplace.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &mp); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(zipBytes)
	if p := mp.Plugins[0]; mp.Name != cmd.MarketplaceName || p.Version != "1.2.3" || p.Source.URL != "https://example.test/r/"+pluginZip || p.Source.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("marketplace.json:\n%s", b)
	}

	tgz := []string{"compact-guard-1.2.3.tgz"}
	for _, tg := range targets {
		tgz = append(tgz, "compact-guard-"+npmOS[tg.GOOS]+"-"+npmCPU[tg.GOARCH]+"-1.2.3.tgz")
	}
	first := map[string][]byte{pluginZip: zipBytes}
	for _, n := range tgz {
		b, err := os.ReadFile(filepath.Join(dist, n))
		if err != nil {
			t.Errorf("npm package: %v", err)
		}
		first[n] = b
		// RL-13: every npm package states the licence.
		var pj map[string]any
		if err := json.Unmarshal([]byte(tarFile(t, b, "package/package.json")), &pj); err != nil || pj["license"] != license {
			t.Errorf("%s: package.json license %v (%v), want %s", n, pj["license"], err, license)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dist, "npm-stage-*")); len(m) > 0 {
		t.Errorf("staging folders left behind: %v", m)
	}

	// The same binaries give the same bytes.
	assemble()
	for n, b := range first {
		again, err := os.ReadFile(filepath.Join(dist, n))
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s differs between two runs (%v)", n, err)
		}
	}
}

// spec: RL-2
func TestAssembleNeedsEveryTarget(t *testing.T) {
	dist := fakeDist(t)
	if err := os.RemoveAll(filepath.Join(dist, "compact-guard_darwin_arm64_v1")); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"assemble", "--dist", dist, "--version", "1.2.3"}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "darwin/arm64") {
		t.Errorf("assemble without a darwin/arm64 binary: %v", err)
	}
}

// The launcher starts the binary of the machine it runs on with the
// arguments it was given.
//
// spec: PL-3
func TestPluginLauncher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the launcher is for macOS and Linux; Windows runs bin/compact-guard.exe")
	}
	root := t.TempDir()
	launcher := filepath.Join(root, "bin", "compact-guard")
	bin := filepath.Join(root, filepath.FromSlash(cmd.PluginBinaryDir(runtime.GOOS, runtime.GOARCH)), "compact-guard")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(launcher, pluginLauncher, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"ran $0 with $# args: $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(launcher, "postcompact", "a b").CombinedOutput()
	if err != nil || string(out) != "ran "+bin+" with 2 args: postcompact a b\n" {
		t.Errorf("launcher: %v, %q", err, out)
	}

	// spec: PL-9 — reached through symlinks (absolute, then relative, in
	// another folder), it still finds the binary beside its own file.
	links := filepath.Join(t.TempDir(), "my bin")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, rel := filepath.Join(links, "cg-abs"), filepath.Join(links, "compact-guard")
	if err := os.Symlink(launcher, abs); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink("cg-abs", rel); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{abs, rel} {
		out, err := exec.Command(l, "watch").CombinedOutput()
		if err != nil || string(out) != "ran "+bin+" with 1 args: watch\n" {
			t.Errorf("launcher through %s: %v, %q", l, err, out)
		}
	}
}

// check fails on each kind of problem it looks for; the real build passing
// it is .ci/run's job.
//
// spec: RL-4
func TestCheckFindsProblems(t *testing.T) {
	t.Parallel()
	requireNpm(t)
	dist := fakeDist(t)
	if err := run([]string{"assemble", "--dist", dist, "--version", "1.2.3"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, "metadata.json"), []byte(`{"version":"1.2.3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var sums strings.Builder
	for _, tg := range targets {
		ext := ".tar.gz"
		if tg.GOOS == "windows" {
			ext = ".zip"
		}
		name := "compact-guard_1.2.3_" + tg.GOOS + "_" + tg.GOARCH + ext
		if err := os.WriteFile(filepath.Join(dist, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(name))
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	// The plugin is listed with a wrong digest, the npm packages not at all,
	// and a file the release does not have is listed.
	fmt.Fprintf(&sums, "%064d  %s\n%064d  %s\n", 0, pluginZip, 0, "stray.txt")
	if err := os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"check", "--dist", dist}, &bytes.Buffer{})
	if err == nil {
		t.Fatal("check passed a broken build")
	}
	for _, want := range []string{
		pluginZip + ": its sha256 is not the one in checksums.txt",
		"marketplace.json is not in checksums.txt",
		"compact-guard-linux-x64-1.2.3.tgz is not in checksums.txt",
		"checksums.txt lists stray.txt",
		"compact-guard_linux_amd64_v1/compact-guard: ", // not a Go binary
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("check's report lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "compact-guard_1.2.3_linux_amd64.tar.gz") {
		t.Errorf("check flags a correctly listed archive:\n%v", err)
	}
}
