package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/settings"
)

// spec: PL-26 PL-27
// Run as the plugin's hook (CLAUDE_PLUGIN_ROOT holds the running binary),
// precompact and postcompact stand down when the user's settings register
// compact-guard for the event: no snapshot, no hint, no pointer, a log
// line that says why. Without the settings file, or run as a settings
// hook (no plugin root), they run.
func TestPluginStandsDown(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	installedBinary := filepath.Join(t.TempDir(), "compact-guard")
	if err := os.WriteFile(installedBinary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc, err := settings.Parse(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doc.Install(installedBinary, "", settings.Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		pluginRoot       string
		settingsFile     bool
		wantSnapshot     bool
		wantStoodDownLog bool
	}{
		{"plugin, settings register it: stands down", filepath.Dir(exe), true, false, true},
		{"plugin alone: runs", filepath.Dir(exe), false, true, false},
		{"a settings hook: runs", "", true, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimSession(t, "7c1d0e5a-0000-4000-8000-0000000050d"+map[bool]string{true: "1", false: "0"}[tc.settingsFile]+tc.name[:1])
			s.turn("run the checks")
			cfg := t.TempDir()
			if tc.settingsFile {
				if err := os.WriteFile(filepath.Join(cfg, "settings.json"), doc.Bytes(), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string {
				switch k {
				case "CLAUDE_PLUGIN_ROOT":
					return tc.pluginRoot
				case "CLAUDE_CONFIG_DIR":
					return cfg
				case "CLAUDE_PROJECT_DIR":
					return t.TempDir()
				}
				return ""
			}
			var hint strings.Builder
			opts := &PrecompactOptions{
				IO:  &IO{In: strings.NewReader(s.payload("PreCompact", map[string]any{"trigger": "manual", "custom_instructions": ""})), Out: &hint, ErrOut: os.Stderr},
				Dir: s.dir, Getenv: getenv, Now: s.now, Timeout: 10 * time.Second, GitTimeout: time.Second,
			}
			if err := precompactRun(opts); err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			post := &PostcompactOptions{IO: &IO{In: strings.NewReader(s.payload("SessionStart", map[string]any{"source": "compact"})), Out: &out, ErrOut: os.Stderr},
				Dir: s.dir, Getenv: getenv, Now: s.now, Timeout: 5 * time.Second}
			if err := postcompactRun(post); err != nil {
				t.Fatal(err)
			}
			var snaps []string
			if _, err := os.Stat(s.dir); err == nil {
				snaps = s.snapshots()
			}
			if got := len(snaps) > 0; got != tc.wantSnapshot {
				t.Errorf("snapshots %v, want one: %v", snaps, tc.wantSnapshot)
			}
			if got := hint.Len() > 0 || out.Len() > 0; got != tc.wantSnapshot {
				t.Errorf("hint %q, pointer %q", hint.String(), out.String())
			}
			log := readLog(s.dir)
			if got := strings.Count(log, "stood down: "+filepath.Join(cfg, "settings.json")+" registers compact-guard for "); got != map[bool]int{true: 2, false: 0}[tc.wantStoodDownLog] {
				t.Errorf("%d stand-down lines in the log:\n%s", got, log)
			}
		})
	}
}

// spec: PL-28
// install in a scope names the enabled plugin whose hooks will stand down;
// with --settings it consults no other file, and says nothing.
func TestInstallNamesTheStandingDownPlugin(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings func(d *docEnv) string // --settings; "" for --scope user
		want     bool
	}{
		{"--scope user", func(*docEnv) string { return "" }, true},
		{"--settings, which consults no other file", func(d *docEnv) string { return d.userSettings() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDocEnv(t)
			d.installPlugin(true, "")
			var out, errOut strings.Builder
			err := installRun(&InstallOptions{IO: &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Scope: settings.ScopeUser, Settings: tc.settings(d),
				Executable: func() (string, error) { return d.exe, nil }, Now: time.Now, Backups: d.backups(),
				Host:       settings.Host{Getenv: func(string) string { return "" }, Home: func() (string, error) { return d.home, nil }, Getwd: func() (string, error) { return d.proj, nil }},
				FindClaude: func() (string, string) { return "", "" }})
			if err != nil {
				t.Fatal(err)
			}
			said := strings.Contains(errOut.String(), "note: plugin "+PluginID+" registers compact-guard too;") && strings.Contains(errOut.String(), "the plugin's hooks stand down")
			if said != tc.want {
				t.Errorf("note said %v, want %v:\n%s", said, tc.want, errOut.String())
			}
		})
	}
}
