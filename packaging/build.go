package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed INSTALL.txt
var installText []byte

// modulePath is the main module; -X stamps the version into its cmd package.
const modulePath = "github.com/compact-guard/compact-guard"

// buildFlags and ldflags are the release's compiler flags; .goreleaser.yaml
// says the same (TestGoreleaserParity holds the two together).
var buildFlags = []string{"-trimpath"}

func ldflags(version string) string {
	return "-s -w -X " + modulePath + "/cmd.Version=" + version
}

// microarch is the level goreleaser builds each architecture for and names
// its build folder after (compact-guard_linux_amd64_v1): the Go default, set
// explicitly so that a GOAMD64 or GOARM64 in the environment does not change
// a release binary.
var microarch = map[string][2]string{
	"amd64": {"GOAMD64", "v1"},
	"arm64": {"GOARM64", "v8.0"},
}

// snapshotBuild is one run of "packaging snapshot": what `goreleaser release
// --snapshot --clean` makes from .goreleaser.yaml (RL-1, RL-2), built with
// the go command alone, so that a contributor's build costs the six
// compilations and not goreleaser's own (specs/install.md RL-6).
type snapshotBuild struct {
	Dist, Version, Tag, Commit string
	Mtime                      time.Time
}

// gitOut runs git in the current folder and returns its trimmed output.
func gitOut(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// snapshotVersion is goreleaser's snapshot version_template,
// "{{ incpatch .Version }}-snapshot.{{ .ShortCommit }}": the newest v-tag
// (v0.0.0 without one) with its patch number plus one.
func snapshotVersion(tag, short string) (string, error) {
	parts := strings.SplitN(strings.TrimPrefix(tag, "v"), ".", 3)
	if len(parts) != 3 {
		return "", fmt.Errorf("tag %q is not vMAJOR.MINOR.PATCH", tag)
	}
	patch := parts[2]
	if i := strings.IndexAny(patch, "-+"); i >= 0 {
		patch = patch[:i]
	}
	n, err := strconv.Atoi(patch)
	if err != nil {
		return "", fmt.Errorf("tag %q: patch %q: %v", tag, patch, err)
	}
	return fmt.Sprintf("%s.%s.%d-snapshot.%s", parts[0], parts[1], n+1, short), nil
}

// newSnapshotBuild reads the version, commit and commit time from git.
func newSnapshotBuild(dist, version string) (snapshotBuild, error) {
	b := snapshotBuild{Dist: dist}
	var err error
	if b.Commit, err = gitOut("rev-parse", "HEAD"); err != nil {
		return b, err
	}
	sec, err := gitOut("log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return b, err
	}
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return b, fmt.Errorf("commit time %q: %v", sec, err)
	}
	b.Mtime = time.Unix(n, 0).UTC()
	b.Tag, err = gitOut("describe", "--tags", "--abbrev=0", "--match", "v[0-9]*")
	if err != nil {
		b.Tag = "v0.0.0"
	}
	if version != "" {
		b.Version = strings.TrimPrefix(version, "v")
		return b, nil
	}
	short, err := gitOut("rev-parse", "--short", "HEAD")
	if err != nil {
		return b, err
	}
	b.Version, err = snapshotVersion(b.Tag, short)
	return b, err
}

// run builds into a fresh dist: the six binaries, their archives, then the
// plugin, marketplace and npm packages (assemble), checksums.txt over all
// of them and metadata.json, as goreleaser lays them out.
func (b snapshotBuild) run(stdout io.Writer) error {
	if err := os.RemoveAll(b.Dist); err != nil {
		return err
	}
	if err := os.MkdirAll(b.Dist, 0o755); err != nil {
		return err
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return fmt.Errorf("run it in the repository's root: %v", err)
	}
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		return fmt.Errorf("run it in the repository's root: %v", err)
	}
	var released []string
	for _, t := range targets {
		ma := microarch[t.GOARCH]
		out := filepath.Join(b.Dist, "compact-guard_"+t.GOOS+"_"+t.GOARCH+"_"+ma[1], t.exe())
		args := append([]string{"build"}, buildFlags...)
		args = append(args, "-ldflags", ldflags(b.Version), "-o", out, ".")
		c := exec.Command("go", args...)
		c.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH, ma[0]+"="+ma[1])
		c.Stdout, c.Stderr = stdout, os.Stderr
		fmt.Fprintf(stdout, "build %s/%s\n", t.GOOS, t.GOARCH)
		if err := c.Run(); err != nil {
			return fmt.Errorf("go build for %s/%s: %v", t.GOOS, t.GOARCH, err)
		}
		if err := os.Chtimes(out, b.Mtime, b.Mtime); err != nil {
			return err
		}
		bin, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		name, data, err := releaseArchive(t, b.Version, bin, readme, license, b.Mtime)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(b.Dist, name), data, 0o644); err != nil {
			return err
		}
		released = append(released, name)
	}
	a := assembly{Dist: b.Dist, Version: b.Version, BaseURL: repoURL + "/releases/download/v" + b.Version, Mtime: b.Mtime}
	docs, err := a.run(stdout)
	if err != nil {
		return err
	}
	if err := writeChecksums(b.Dist, append(released, docs...)); err != nil {
		return err
	}
	meta, err := marshal(map[string]any{
		"project_name": "compact-guard",
		"tag":          b.Tag,
		"version":      b.Version,
		"commit":       b.Commit,
		"date":         b.Mtime.Format(time.RFC3339),
		"runtime":      map[string]string{"goos": runtime.GOOS, "goarch": runtime.GOARCH},
		"built_by":     "go run ./packaging snapshot",
	})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(b.Dist, "metadata.json"), meta, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "release %s built into %s\n", b.Version, b.Dist)
	return nil
}

// releaseArchive is a target's archive as goreleaser names and fills it
// (.goreleaser.yaml "archives"): the binary, README.md, LICENSE and
// INSTALL.txt at its root, tar.gz (zip for Windows), entries sorted and
// stamped mtime.
func releaseArchive(t target, version string, bin, readme, license []byte, mtime time.Time) (string, []byte, error) {
	files := []struct {
		name string
		data []byte
		mode int64
	}{{"INSTALL.txt", installText, 0o644}, {"LICENSE", license, 0o644}, {"README.md", readme, 0o644}, {t.exe(), bin, 0o755}}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	base := "compact-guard_" + version + "_" + t.GOOS + "_" + t.GOARCH
	var buf bytes.Buffer
	if t.GOOS == "windows" {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime}
			h.SetMode(os.FileMode(f.mode))
			w, err := zw.CreateHeader(h)
			if err != nil {
				return "", nil, err
			}
			if _, err := w.Write(f.data); err != nil {
				return "", nil, err
			}
		}
		if err := zw.Close(); err != nil {
			return "", nil, err
		}
		return base + ".zip", buf.Bytes(), nil
	}
	gz := gzip.NewWriter(&buf) // no name and no time in the gzip header
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return "", nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return "", nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return "", nil, err
	}
	if err := gz.Close(); err != nil {
		return "", nil, err
	}
	return base + ".tar.gz", buf.Bytes(), nil
}

// writeChecksums writes checksums.txt as goreleaser does: "<sha256>  <name>"
// for each file, sorted by name.
func writeChecksums(dist string, names []string) error {
	sort.Strings(names)
	var out strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dist, n))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&out, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(out.String()), 0o644)
}
