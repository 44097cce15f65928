package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// spec: RL-13
//
// The repository's LICENSE is MIT, and every manifest of the release says
// so: the Scoop and WinGet manifests goreleaser writes, the plugin's
// plugin.json, the npm packages; every archive carries LICENSE beside the
// binary.
func TestRL13License(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MIT License", "Copyright (c) 2026 the compact-guard authors", "Permission is hereby granted, free of charge"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("LICENSE lacks %q", want)
		}
	}

	raw, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "NOASSERTION") {
		t.Errorf(".goreleaser.yaml still says NOASSERTION")
	}
	var c struct {
		Scoops []struct{ License string }
		Winget []struct {
			License    string
			LicenseURL string `yaml:"license_url"`
		}
	}
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Scoops) != 1 || c.Scoops[0].License != license || len(c.Winget) != 1 || c.Winget[0].License != license ||
		!strings.HasSuffix(c.Winget[0].LicenseURL, "/LICENSE") {
		t.Errorf("goreleaser's manifests: scoop %+v, winget %+v; want license %s", c.Scoops, c.Winget, license)
	}

	manifest, err := pluginManifest("1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil || m["license"] != "MIT" {
		t.Errorf("plugin.json: %v %s", err, manifest)
	}

	name, data, err := releaseArchive(target{"linux", "amd64"}, "1.2.3", []byte("bin"), []byte("readme"), text, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if got := tarFile(t, data, "LICENSE"); got != string(text) {
		t.Errorf("%s holds LICENSE %q", name, got)
	}
}

// tarFile is the content of the named entry of a tar.gz, "" when absent.
func tarFile(t *testing.T, data []byte, name string) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return ""
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
	}
}
