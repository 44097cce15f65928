package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compact-guard/compact-guard/agent"
	"github.com/compact-guard/compact-guard/settings"
)

// trust is how install keeps Codex CLI's trust of its hooks: Codex runs
// a hook only when its user config.toml trusts that exact handler (IN-20).
var trust = &agent.Trust{
	Who: "Codex",
	Config: func(h settings.Host) (string, error) {
		home, err := Home(h)
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "config.toml"), nil
	},
	Trusts: func(config, path string) (func(settings.Handler) bool, error) {
		cfg, err := readConfig(config)
		if err != nil {
			return nil, err
		}
		return settings.TrustedHandlers(cfg, path), nil
	},
	ProjectNote: func(config, path string) string {
		proj := filepath.Dir(filepath.Dir(path))
		if cfg, err := readConfig(config); err != nil || cfg.TrustsProject(proj) {
			return ""
		}
		return fmt.Sprintf("Codex loads %s only in a trusted project: trust %s when Codex asks, or set trust_level = \"trusted\" under [projects.%q] in %s",
			path, proj, proj, config)
	},
}

// readConfig reads (settings.ReadFile: a regular file, bounded) and
// decodes Codex's config.toml; a missing file is an empty config.
func readConfig(path string) (*settings.TrustConfig, error) {
	data, _, err := settings.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return settings.ReadTrustConfig(data)
}
