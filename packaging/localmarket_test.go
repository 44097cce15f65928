package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/compact-guard/compact-guard/cmd"
)

// The directory marketplace holds exactly the plugin archive's files, with
// their modes, beside a marketplace file naming it by relative path.
//
// spec: PL-16
func TestLocalMarketplace(t *testing.T) {
	requireNpm(t)
	dist := fakeDist(t)
	// A file of an earlier build does not linger.
	stale := filepath.Join(dist, localMarketplaceDir, "compact-guard", "bin", "old")
	if err := os.MkdirAll(filepath.Dir(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"assemble", "--dist", dist, "--version", "1.2.3"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dist, localMarketplaceDir)
	var mp struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name, Version string
			Source        any `json:"source"`
		} `json:"plugins"`
	}
	b, err := os.ReadFile(filepath.Join(root, ".claude-plugin", "marketplace.json"))
	if err == nil {
		err = json.Unmarshal(b, &mp)
	}
	if err != nil || mp.Name != cmd.MarketplaceName || len(mp.Plugins) != 1 || mp.Plugins[0].Name != cmd.PluginName ||
		mp.Plugins[0].Version != "1.2.3" || mp.Plugins[0].Source != "./compact-guard" {
		t.Fatalf("marketplace.json (%v):\n%s", err, b)
	}

	zipBytes, err := os.ReadFile(filepath.Join(dist, pluginZip))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		p := filepath.Join(root, "compact-guard", filepath.FromSlash(f.Name))
		want[p] = true
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s differs from the archive's %s (%v)", p, f.Name, err)
			continue
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != f.Mode().Perm() {
			t.Errorf("%s has mode %v, the archive %v", p, st.Mode().Perm(), f.Mode().Perm())
		}
	}
	filepath.WalkDir(filepath.Join(root, "compact-guard"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !want[p] {
			t.Errorf("%s is not in the plugin archive", p)
		}
		return nil
	})
}
