package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// checkDist checks a release build (specs/install.md RL-4): every artifact
// is there and listed in checksums.txt with its digest, nothing else is
// listed, each binary was built as the release says (its Go build
// information: target, -trimpath, CGO off, -s -w, the version stamped),
// and the binary for this machine reports the version. It prints the
// artifacts with their sizes.
func checkDist(dist string, stdout io.Writer) error {
	v, err := readVersion(dist)
	if err != nil {
		return err
	}
	want := []string{pluginZip, "marketplace.json", "compact-guard-" + v + ".tgz"}
	for _, t := range targets {
		ext := ".tar.gz"
		if t.GOOS == "windows" {
			ext = ".zip"
		}
		want = append(want, "compact-guard_"+v+"_"+t.GOOS+"_"+t.GOARCH+ext,
			"compact-guard-"+npmOS[t.GOOS]+"-"+npmCPU[t.GOARCH]+"-"+v+".tgz")
	}
	sort.Strings(want)

	var problems []string
	listed, err := readChecksums(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		return err
	}
	for _, name := range want {
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		sum := sha256.Sum256(data)
		switch got, ok := listed[name]; {
		case !ok:
			problems = append(problems, name+" is not in checksums.txt")
		case got != hex.EncodeToString(sum[:]):
			problems = append(problems, name+": its sha256 is not the one in checksums.txt")
		}
		delete(listed, name)
		fmt.Fprintf(stdout, "%10d  %s\n", len(data), name)
	}
	for name := range listed {
		problems = append(problems, "checksums.txt lists "+name+", which the release does not have")
	}

	bins, err := findBinaries(dist)
	if err != nil {
		return err
	}
	for _, t := range targets {
		if err := checkBuild(bins[t], t, v); err != nil {
			problems = append(problems, err.Error())
		}
		if st, err := os.Stat(bins[t]); err == nil {
			fmt.Fprintf(stdout, "%10d  %s (stripped binary)\n", st.Size(), filepath.ToSlash(mustRel(dist, bins[t])))
		}
	}
	if host, ok := bins[target{runtime.GOOS, runtime.GOARCH}]; ok {
		out, err := exec.Command(host, "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "compact-guard "+v+" (") {
			problems = append(problems, fmt.Sprintf("%s version: %q (%v), want compact-guard %s", host, out, err, v))
		}
	}
	if len(problems) > 0 {
		return errors.New("the release build is not right:\n  " + strings.Join(problems, "\n  "))
	}
	fmt.Fprintf(stdout, "release %s: %d artifacts, checksums verified, binaries built as specified\n", v, len(want))
	return nil
}

// readVersion reads the version goreleaser (or packaging snapshot)
// recorded in dist/metadata.json.
func readVersion(dist string) (string, error) {
	var meta struct {
		Version string `json:"version"`
	}
	b, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Version == "" {
		return "", fmt.Errorf("%s/metadata.json: no version (%v)", dist, err)
	}
	return meta.Version, nil
}

func mustRel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return r
	}
	return p
}

// readChecksums reads "<sha256>  <name>" lines.
func readChecksums(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return nil, fmt.Errorf("%s: bad line %q", path, sc.Text())
		}
		out[name] = sum
	}
	return out, sc.Err()
}

// checkBuild checks a binary of any platform from this machine: its Go
// build information (target, CGO off, -trimpath; Go does not record
// -ldflags with -trimpath), no symbol table (-s), no DWARF (-w), and the
// version string stamped into it.
func checkBuild(path string, t target, version string) error {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	got := map[string]string{}
	for _, s := range info.Settings {
		got[s.Key] = s.Value
	}
	var bad []string
	for k, v := range map[string]string{"GOOS": t.GOOS, "GOARCH": t.GOARCH, "CGO_ENABLED": "0", "-trimpath": "true"} {
		if got[k] != v {
			bad = append(bad, fmt.Sprintf("%s=%q, want %q", k, got[k], v))
		}
	}
	symbols, dwarf, err := symbolsAndDWARF(path, t.GOOS)
	switch {
	case err != nil:
		bad = append(bad, err.Error())
	case symbols:
		bad = append(bad, "it has a symbol table (built without -s)")
	case dwarf:
		bad = append(bad, "it has DWARF debug information (built without -w)")
	}
	if data, err := os.ReadFile(path); err != nil || !bytes.Contains(data, []byte(version)) {
		bad = append(bad, "the version "+version+" is not stamped into it")
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %s", path, strings.Join(bad, "; "))
	}
	return nil
}

// symbolsAndDWARF reports whether an executable of goos still has a symbol
// table and DWARF sections.
func symbolsAndDWARF(path, goos string) (symbols, dwarf bool, err error) {
	switch goos {
	case "linux":
		f, err := elf.Open(path)
		if err != nil {
			return false, false, err
		}
		defer f.Close()
		return f.Section(".symtab") != nil, f.Section(".debug_info") != nil || f.Section(".zdebug_info") != nil, nil
	case "darwin":
		f, err := macho.Open(path)
		if err != nil {
			return false, false, err
		}
		defer f.Close()
		// A stripped Go binary for macOS keeps the symbols of the system
		// libraries it links dynamically; its own are gone.
		own := false
		if f.Symtab != nil {
			for _, s := range f.Symtab.Syms {
				own = own || strings.HasSuffix(s.Name, "runtime.main")
			}
		}
		return own, f.Section("__debug_info") != nil || f.Section("__zdebug_info") != nil, nil
	case "windows":
		f, err := pe.Open(path)
		if err != nil {
			return false, false, err
		}
		defer f.Close()
		return len(f.Symbols) > 0, f.Section(".debug_info") != nil || f.Section(".zdebug_info") != nil, nil
	}
	return false, false, fmt.Errorf("no check for %s executables", goos)
}
