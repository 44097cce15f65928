package settings

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// checkPluginCommand tells a plugin user how to have a compact-guard
// command (PL-30, PL-18): the plugin's binary sits in a version folder of
// the client's cache, not on PATH, so list, show, doctor and audit are out
// of reach until a link names it. A compact-guard on PATH that resolves
// into another installation's folder (an update removed or replaced it)
// is a warning with the same fix.
func checkPluginCommand(h Host, p installedPlugin) []health.Result {
	launcher := filepath.Join(p.InstallPath, "bin", "compact-guard")
	link := "ln -sf " + QuotePath(launcher) + " ~/.local/bin/compact-guard"
	if runtime.GOOS == "windows" {
		launcher += ".exe"
		link = "add " + filepath.Join(p.InstallPath, "bin") + " to PATH"
	}
	found := onPath(h.Getenv("PATH"), "compact-guard")
	if found == "" {
		return []health.Result{{Status: health.Info,
			Text: fmt.Sprintf("no compact-guard command on PATH: plugin %s's binary is %s", p.ID, launcher),
			Fix:  link + " (again after 'claude plugin update'; not for 'compact-guard install', whose hooks would name this version's folder)"}}
	}
	resolved, err := filepath.EvalSymlinks(found)
	if err != nil {
		return nil
	}
	cache := filepath.Dir(filepath.Dir(filepath.Clean(p.InstallPath))) // …/cache/<marketplace>/<plugin>
	inCache := strings.HasPrefix(resolved, cache+string(filepath.Separator))
	if inCache && !strings.HasPrefix(resolved, filepath.Clean(p.InstallPath)+string(filepath.Separator)) {
		return []health.Result{{Status: health.Warn,
			Text: fmt.Sprintf("compact-guard on PATH (%s) runs %s, not the enabled plugin %s %s", found, resolved, p.ID, p.Version),
			Fix:  link}}
	}
	return nil
}

// onPath finds name in the folders of path as a shell would, "" when none
// holds it as a file that can be started.
func onPath(path, name string) string {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		if p := filepath.Join(dir, name); ProgramRuns(p) {
			return p
		}
	}
	return ""
}
