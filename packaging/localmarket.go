package main

import (
	"os"
	"path/filepath"
	"time"

	"github.com/compact-guard/compact-guard/cmd"
)

// localMarketplaceDir is the directory marketplace in the dist folder
// (specs/install.md PL-16): the plugin unzipped beside a marketplace file
// that names it by relative path. Claude Code installs from it with no
// network, which the release's marketplace cannot offer from a checkout:
// the client refuses file:// and loopback archive URLs.
const localMarketplaceDir = "plugin-marketplace"

// writeLocalMarketplace writes dir/.claude-plugin/marketplace.json, which
// lists the plugin with the source "./compact-guard", and the plugin's
// files under dir/compact-guard with their modes and mtime. dir is emptied
// first, so a file a former version had does not linger.
func writeLocalMarketplace(dir, version string, files map[string]pluginEntry, mtime time.Time) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	mp, err := marshal(marketplace{
		Name:        cmd.MarketplaceName,
		Description: "compact-guard from a local build: Claude Code hooks that keep a session's working state across compaction",
		Owner:       person{Name: "compact-guard", URL: repoURL},
		Plugins: []marketplacePlugin{{
			Name:        cmd.PluginName,
			Description: cmd.PluginDescription,
			Version:     version,
			Source:      "./" + cmd.PluginName,
			Homepage:    repoURL,
			Category:    "productivity",
		}},
	})
	if err != nil {
		return err
	}
	all := map[string]pluginEntry{".claude-plugin/marketplace.json": {mp, 0o644}}
	for name, f := range files {
		all[cmd.PluginName+"/"+name] = f
	}
	for name, f := range all {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.data, f.mode); err != nil {
			return err
		}
		if err := os.Chmod(p, f.mode); err != nil { // the umask may have taken bits
			return err
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			return err
		}
	}
	return nil
}
