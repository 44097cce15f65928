//go:build e2e

package cmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EPluginDirectory proves the plugin's local path (specs/install.md
// PL-16 to PL-19) with the real client and a release build only: the
// directory marketplace the build writes into dist/plugin-marketplace is
// added by a path inside the checkout and installed from with every
// network route closed; a session compacts and gets its pointer; the
// documented link makes a `compact-guard` command of the plugin's binary;
// and removing the plugin and the marketplace leaves what PL-19 says.
//
// spec: E2E-59, PL-16, PL-17, PL-18, PL-19
func TestE2EPluginDirectory(t *testing.T) {
	claude := e2eRequireClaude(t)
	dist := e2eRequireDist(t)
	market := filepath.Join(dist.Dir, "plugin-marketplace")
	if _, err := os.Stat(filepath.Join(market, ".claude-plugin", "marketplace.json")); err != nil {
		t.Fatalf("the release build wrote no directory marketplace: %v", err)
	}
	w := e2eNewWorld(t, e2eBinaries{}, claude, e2eNoHooks)
	// Offline: the plugin commands get a proxy on a port nothing listens on,
	// for every scheme and host, so a download they tried would fail instead
	// of leaving the machine. (The sessions reach the fake API directly.)
	offline := []string{"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9",
		"https_proxy=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9", "NO_PROXY=", "no_proxy="}

	// Added by its path from the repository's root, as README says, when the
	// build is inside the checkout: the client must read the directory's
	// marketplace file, not the repository's (PL-17).
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	arg := market
	if rel, err := filepath.Rel(repo, market); err == nil && !strings.HasPrefix(rel, "..") {
		arg = "./" + filepath.ToSlash(rel)
	}
	w.run(repo, offline, claude.Argv[0], "plugin", "marketplace", "add", arg)
	var known map[string]struct {
		Source struct{ Source, Path, URL, Repo string } `json:"source"`
	}
	readJSON(t, filepath.Join(w.Home, ".claude", "plugins", "known_marketplaces.json"), &known)
	if m, ok := known["compact-guard-tools"]; !ok || m.Source.Source != "directory" || m.Source.Path != market {
		t.Fatalf("known_marketplaces.json records %+v, want the directory %s", known, market)
	}
	out := w.run(w.Home, offline, claude.Argv[0], "plugin", "install", "compact-guard@compact-guard-tools")
	if !strings.Contains(out, "compact-guard@compact-guard-tools") {
		t.Errorf("plugin install said:\n%s", out)
	}
	var installed struct {
		Plugins map[string][]struct{ Scope, InstallPath, Version string } `json:"plugins"`
	}
	readJSON(t, filepath.Join(w.Home, ".claude", "plugins", "installed_plugins.json"), &installed)
	inst := installed.Plugins["compact-guard@compact-guard-tools"]
	if len(inst) != 1 || inst[0].Version != dist.Version || inst[0].Scope != "user" {
		t.Fatalf("installed_plugins.json records %+v, want one user-scope installation of %s", inst, dist.Version)
	}

	e2eCompactOnce(t, w, "локальный маркетплейс", 1)

	// PL-18: the documented link gives plugin users a compact-guard command.
	link := filepath.Join(w.Home, ".local", "bin", "compact-guard")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(inst[0].InstallPath, "bin", "compact-guard"), link); err != nil {
		t.Fatal(err)
	}
	out = w.run(w.Home, nil, link, "doctor", "--no-self-test")
	for _, want := range []string{"plugin compact-guard@compact-guard-tools " + dist.Version, "all checks passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor through the link lacks %q:\n%s", want, out)
		}
	}
	if out := w.run(w.Home, nil, link, "list"); !strings.Contains(out, "claude") {
		t.Errorf("list through the link shows no snapshot of the compaction:\n%s", out)
	}

	// PL-19: the plugin and the marketplace removed, the client keeps no
	// record of either; the snapshots stay.
	w.run(w.Home, offline, claude.Argv[0], "plugin", "uninstall", "compact-guard@compact-guard-tools")
	w.run(w.Home, offline, claude.Argv[0], "plugin", "marketplace", "remove", "compact-guard-tools")
	for _, f := range []string{"installed_plugins.json", "known_marketplaces.json"} {
		b, err := os.ReadFile(filepath.Join(w.Home, ".claude", "plugins", f))
		if err == nil && strings.Contains(string(b), "compact-guard") {
			t.Errorf("%s still names compact-guard after uninstall and marketplace remove:\n%s", f, b)
		}
	}
	if b, err := os.ReadFile(w.Settings); err == nil && strings.Contains(string(b), "compact-guard") {
		t.Errorf("settings still name compact-guard after uninstall and marketplace remove:\n%s", b)
	}
	if snaps := e2eListSnapshots(t, w.SnapDir); snaps == 0 {
		t.Errorf("the snapshots are gone from %s", w.SnapDir)
	}
	// The client keeps the plugin's cache folder (2.1.328: the whole
	// version folder, binaries included); PL-19's last step removes it.
	cache := filepath.Join(w.Home, ".claude", "plugins", "cache", "compact-guard-tools")
	if _, err := os.Stat(cache); err == nil {
		t.Logf("the client left %s after uninstall and marketplace remove", cache)
	}
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(link); err == nil {
		t.Errorf("the link %s still reaches a binary once the plugin is removed", link)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(filepath.Join(w.Home, ".claude", "plugins"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), "compact-guard") {
			t.Errorf("left after PL-19's steps: %s", p)
		}
		return nil
	})
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
}

// e2eListSnapshots counts the snapshot files in dir.
func e2eListSnapshots(t *testing.T, dir string) int {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	return len(m)
}
