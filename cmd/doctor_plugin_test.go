package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/settings"
)

// installPlugin lays out the plugin as Claude Code installs it (the cache
// folder, installed_plugins.json) and enables it in the user settings with
// the extra settings JSON members given.
func (d *docEnv) installPlugin(enabled bool, extraSettings string) string {
	d.t.Helper()
	cfg := filepath.Join(d.home, ".claude")
	root := filepath.Join(cfg, "plugins", "cache", MarketplaceName, PluginName, "1.2.3")
	d.write(filepath.Join(root, "hooks", "hooks.json"), string(PluginHooksJSON()))
	d.write(filepath.Join(root, ".claude-plugin", "plugin.json"), `{"name":"compact-guard","version":"1.2.3"}`)
	for _, p := range []string{
		filepath.Join(root, "bin", "compact-guard"),
		filepath.Join(root, "bin", "compact-guard.exe"),
		filepath.Join(root, filepath.FromSlash(PluginBinaryDir(runtime.GOOS, runtime.GOARCH)), "compact-guard"),
	} {
		d.write(p, "#!/bin/sh\n")
		if err := os.Chmod(p, 0o755); err != nil {
			d.t.Fatal(err)
		}
	}
	d.write(filepath.Join(cfg, "plugins", "installed_plugins.json"), fmt.Sprintf(
		`{"version":2,"plugins":{%q:[{"scope":"user","installPath":%q,"version":"1.2.3"}]}}`, PluginID, root))
	settings := fmt.Sprintf(`{"enabledPlugins":{%q:%v}%s}`, PluginID, enabled, extraSettings)
	d.write(d.userSettings(), settings)
	return root
}

// spec: PL-6
func TestDoctorRecognisesPluginHooks(t *testing.T) {
	d := newDocEnv(t)
	root := d.installPlugin(true, "")
	out, code := d.run()
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range [][]string{
		{"[info]", "plugin " + PluginID + " 1.2.3 (user scope) at " + root},
		{"[ok]", "PreCompact [manual|auto] runs ${CLAUDE_PLUGIN_ROOT}/bin/compact-guard precompact"},
		{"[ok]", "SessionStart [compact] runs ${CLAUDE_PLUGIN_ROOT}/bin/compact-guard postcompact"},
		{"[ok]", "PostCompact [manual|auto] runs ${CLAUDE_PLUGIN_ROOT}/bin/compact-guard postcompact"},
		{"all checks passed"},
	} {
		if docLine(out, want...) == "" {
			t.Errorf("no line with %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "no PreCompact hook") {
		t.Errorf("the plugin's hooks do not count:\n%s", out)
	}
}

// spec: PL-7 PL-29 PL-32
func TestDoctorFlagsPluginAndSettingsTogether(t *testing.T) {
	d := newDocEnv(t)
	settings := d.installed()
	d.installPlugin(true, ","+strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(settings), "{"), "}"))
	out, code := d.run()
	if code != ExitOK {
		t.Errorf("exit %d (an information line must not fail):\n%s", code, out)
	}
	l := docLine(out, "[info]", "both plugin "+PluginID, d.userSettings(), "PreCompact, SessionStart, PostCompact", "the plugin's hooks stand down for these events")
	if !strings.Contains(l, "fix: to keep one registration: run 'compact-guard uninstall' to keep the plugin, or 'claude plugin uninstall "+PluginID+"' to keep the settings file") {
		t.Errorf("double registration not explained with its fix:\n%s", out)
	}
	if strings.Contains(out, "with different commands") {
		t.Errorf("the generic duplicate warning repeats the plugin one:\n%s", out)
	}
	if n := strings.Count(out, "[warn]"); n != 0 {
		t.Errorf("%d warnings, want none: one registration wins (PL-26):\n%s", n, out)
	}

	// In the project's settings both run (PL-32), which is a warning, and
	// the fix names that scope.
	d2 := newDocEnv(t)
	d2.installPlugin(true, "")
	d2.write(filepath.Join(d2.proj, ".claude", "settings.json"), d2.installed())
	out, _ = d2.run()
	l = docLine(out, "[warn]", "both plugin", "project settings", "and both run: the plugin's hooks do not give way to a file a repository can commit")
	if !strings.Contains(l, "run 'compact-guard uninstall --scope project' in the project folder to keep the plugin") {
		t.Errorf("project scope: no warning with the scope's fix:\n%s", out)
	}
}

// spec: PL-6
func TestDoctorPluginNotRunning(t *testing.T) {
	// Disabled: its hooks do not count, so nothing takes snapshots.
	d := newDocEnv(t)
	d.installPlugin(false, "")
	out, code := d.run()
	if code != ExitFailure || docLine(out, "[info]", "plugin "+PluginID, "disabled in "+d.userSettings(), "do not run") == "" || docLine(out, "[FAIL]", "no PreCompact hook") == "" {
		t.Errorf("disabled plugin: exit %d\n%s", code, out)
	}

	// Installed for another project.
	d2 := newDocEnv(t)
	root := d2.installPlugin(true, "")
	list := filepath.Join(d2.home, ".claude", "plugins", "installed_plugins.json")
	d2.write(list, fmt.Sprintf(`{"version":2,"plugins":{%q:[{"scope":"project","projectPath":%q,"installPath":%q,"version":"1.2.3"}]}}`, PluginID, t.TempDir(), root))
	out, code = d2.run()
	if code != ExitFailure || docLine(out, "[info]", "plugin "+PluginID, "not this project") == "" {
		t.Errorf("plugin of another project: exit %d\n%s", code, out)
	}

	// A list the client wrote that doctor cannot read.
	d4 := newDocEnv(t)
	d4.installPlugin(true, "")
	d4.write(filepath.Join(d4.home, ".claude", "plugins", "installed_plugins.json"), "{")
	out, _ = d4.run()
	if docLine(out, "[warn]", "installed plugins", "installed_plugins.json") == "" {
		t.Errorf("unreadable installed_plugins.json:\n%s", out)
	}

	// No binary for this machine in the plugin.
	d3 := newDocEnv(t)
	root = d3.installPlugin(true, "")
	if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(PluginBinaryDir(runtime.GOOS, runtime.GOARCH)))); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		out, code = d3.run()
		l := docLine(out, "[FAIL]", "PreCompact", "no binary for "+runtime.GOOS+"/"+runtime.GOARCH)
		if code != ExitFailure || !strings.Contains(l, "fix: run 'claude plugin update "+PluginID+"'") {
			t.Errorf("missing platform binary: exit %d\n%s", code, out)
		}
	}
}

// spec: PL-30 PL-18
// A plugin user with no compact-guard command is told how to link one; a
// link into another version's folder is a warning; a link to the enabled
// installation says nothing.
func TestDoctorPluginCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the link of PL-18 is for macOS and Linux; Windows is told to add the folder to PATH")
	}
	for _, tc := range []struct {
		name  string
		link  func(root string) string // the link's target; "" for no link
		line  string
		count int
	}{
		{"no command on PATH", func(string) string { return "" }, "[info] no compact-guard command on PATH: plugin " + PluginID + "'s binary is", 1},
		{"a link to the enabled installation", func(root string) string { return filepath.Join(root, "bin", "compact-guard") }, "no compact-guard command on PATH", 0},
		{"a link into an older version's folder", func(root string) string {
			old := filepath.Join(filepath.Dir(root), "1.0.0", "bin", "compact-guard")
			if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(old, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			return old
		}, "[warn] compact-guard on PATH", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDocEnv(t)
			root := d.installPlugin(true, "")
			bin := filepath.Join(d.root, "path")
			if err := os.MkdirAll(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			if target := tc.link(root); target != "" {
				if err := os.Symlink(target, filepath.Join(bin, "compact-guard")); err != nil {
					t.Fatal(err)
				}
			}
			d.env["PATH"] = bin
			out, _ := d.run()
			if got := strings.Count(out, tc.line); got != tc.count {
				t.Errorf("%d lines with %q, want %d:\n%s", got, tc.line, tc.count, out)
			}
			if tc.count > 0 && !strings.Contains(out, "fix: ln -sf "+settings.QuotePath(filepath.Join(root, "bin", "compact-guard"))+" ~/.local/bin/compact-guard") {
				t.Errorf("no link command:\n%s", out)
			}
		})
	}
}
