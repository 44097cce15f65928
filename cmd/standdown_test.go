package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/hookio/hooktest"
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
			log := hooktest.ReadLog(s.dir)
			if got := strings.Count(log, "stood down: "+filepath.Join(cfg, "settings.json")+" registers compact-guard for "); got != map[bool]int{true: 2, false: 0}[tc.wantStoodDownLog] {
				t.Errorf("%d stand-down lines in the log:\n%s", got, log)
			}
		})
	}
}

// spec: PL-28 PL-32
// install in a scope names the enabled plugin whose hooks will stand down
// (the user's file) or run beside it (a project's); with --settings it
// consults no other file, and says nothing.
func TestInstallNamesTheStandingDownPlugin(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scope    string
		settings func(d *docEnv) string // --settings; "" for a scope
		want     string                 // what the note says; "" for none
	}{
		{"--scope user", settings.ScopeUser, func(*docEnv) string { return "" }, "the plugin's hooks stand down"},
		{"--scope project: both run (PL-32)", settings.ScopeProject, func(*docEnv) string { return "" }, "both run (two snapshots per compaction); --scope user keeps one registration"},
		{"--settings, which consults no other file", settings.ScopeUser, func(d *docEnv) string { return d.userSettings() }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDocEnv(t)
			d.installPlugin(true, "")
			var out, errOut strings.Builder
			err := installRun(&InstallOptions{IO: &IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Scope: tc.scope, Settings: tc.settings(d),
				Executable: func() (string, error) { return d.exe, nil }, Now: time.Now, Backups: d.backups(),
				Host:       settings.Host{Getenv: func(string) string { return "" }, Home: func() (string, error) { return d.home, nil }, Getwd: func() (string, error) { return d.proj, nil }},
				FindClaude: func() (string, string) { return "", "" }})
			if err != nil {
				t.Fatal(err)
			}
			noted := strings.Contains(errOut.String(), "note: plugin "+PluginID+" registers compact-guard too")
			if noted != (tc.want != "") || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("note %v, want %q:\n%s", noted, tc.want, errOut.String())
			}
		})
	}
}

// spec: PL-31 PL-32
// A settings entry the client will not run for this hook call does not
// make the plugin stand down (issue 28, item 1): the user's PreCompact entry
// under "matcher": "manual" (install's form, edited by hand) at an automatic
// compaction, a project's committed .claude/settings.json or its
// settings.local.json, a user settings folder inside the project. The
// plugin's precompact then takes the snapshot, and the pointer (the
// settings hook's SessionStart(compact) run, or the plugin's) names it.
// A manual compaction under the same "manual" entry, and an entry whose
// matcher matches everything, still make it stand down: one registration.
func TestPluginStandsDownOnlyForAnEntryThatRuns(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	installedBinary := filepath.Join(t.TempDir(), "compact-guard")
	if err := os.WriteFile(installedBinary, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	installed := func(program, matcher string) []byte {
		doc, err := settings.Parse(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := doc.Install(program, "", settings.Carry{Own: true}); err != nil {
			t.Fatal(err)
		}
		return []byte(strings.Replace(string(doc.Bytes()), `"matcher": "manual|auto"`, `"matcher": `+strconv.Quote(matcher), 1))
	}
	for _, tc := range []struct {
		name      string
		file      string // where the settings go: user, config-in-project, project, local
		matcher   string // the PreCompact group's matcher
		trigger   string
		standDown bool
	}{
		{"user settings, matcher manual, an automatic compaction: runs", "user", "manual", "auto", false},
		{"user settings, matcher manual, a manual compaction: stands down", "user", "manual", "manual", true},
		{"user settings, matcher *: stands down", "user", "*", "auto", true},
		{"user settings, a regular expression the client reads alike: stands down", "user", "^(auto|manual)$", "auto", true},
		{"user settings, a regular expression that may read otherwise: runs", "user", `^\w+$`, "auto", false},
		{"user settings, a comma list an older release reads as a pattern: runs", "user", "manual,auto", "auto", false},
		{"user settings, no trigger in the payload and a matcher: runs", "user", "manual|auto", "", false},
		{"the project's committed settings: runs", "project", "manual|auto", "auto", false},
		{"the project's local settings: runs", "local", "manual|auto", "auto", false},
		{"a user settings folder inside the project: runs", "config-in-project", "manual|auto", "auto", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSimSession(t, fmt.Sprintf("7c1d0e5a-0000-4000-8000-%012d", len(tc.name)*100+len(tc.matcher)))
			s.turn("run the checks")
			cfg, proj := t.TempDir(), t.TempDir()
			paths := map[string]string{
				"user":              filepath.Join(cfg, "settings.json"),
				"config-in-project": filepath.Join(proj, "claude-config", "settings.json"),
				"project":           filepath.Join(proj, ".claude", "settings.json"),
				"local":             filepath.Join(proj, ".claude", "settings.local.json"),
			}
			if tc.file == "config-in-project" {
				cfg = filepath.Dir(paths[tc.file])
			}
			if err := os.MkdirAll(filepath.Dir(paths[tc.file]), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(paths[tc.file], installed(installedBinary, tc.matcher), 0o600); err != nil {
				t.Fatal(err)
			}
			getenv := func(plugin bool) func(string) string {
				return func(k string) string {
					switch k {
					case "CLAUDE_PLUGIN_ROOT":
						if plugin {
							return filepath.Dir(exe)
						}
					case "CLAUDE_CONFIG_DIR":
						return cfg
					case "CLAUDE_PROJECT_DIR":
						return proj
					}
					return ""
				}
			}
			extra := map[string]any{"custom_instructions": ""}
			if tc.trigger != "" {
				extra["trigger"] = tc.trigger
			}
			var hint strings.Builder
			if err := precompactRun(&PrecompactOptions{
				IO:  &IO{In: strings.NewReader(s.payload("PreCompact", extra)), Out: &hint, ErrOut: os.Stderr},
				Dir: s.dir, Getenv: getenv(true), Now: s.now, Timeout: 10 * time.Second, GitTimeout: time.Second,
			}); err != nil {
				t.Fatal(err)
			}
			var snaps []string
			if _, err := os.Stat(s.dir); err == nil {
				snaps = s.snapshots()
			}
			log := hooktest.ReadLog(s.dir)
			stood := strings.Contains(log, "stood down: "+paths[tc.file]+" registers compact-guard for PreCompact")
			if stood != tc.standDown || (len(snaps) == 1) == tc.standDown || (hint.Len() > 0) == tc.standDown {
				t.Fatalf("stood down %v (want %v), snapshots %v, hint %q\nlog:\n%s", stood, tc.standDown, snaps, hint.String(), log)
			}
			if tc.standDown {
				return
			}
			// The pointer after it: the plugin's SessionStart(compact) run and
			// the settings file's (a project's file: both run, at worst twice,
			// PL-27), or the settings file's alone (the user's: the plugin
			// stands down); each names the snapshot precompact took.
			s.tick(3 * time.Second)
			var pointers []string
			for _, plugin := range []bool{true, false} {
				var out strings.Builder
				if err := postcompactRun(&PostcompactOptions{IO: &IO{In: strings.NewReader(s.payload("SessionStart", map[string]any{"source": "compact"})), Out: &out, ErrOut: os.Stderr},
					Dir: s.dir, Getenv: getenv(plugin), Now: s.now, Timeout: 5 * time.Second}); err != nil {
					t.Fatal(err)
				}
				if out.Len() > 0 {
					pointers = append(pointers, out.String())
				}
			}
			if len(pointers) == 0 || len(pointers) > 1 && tc.file == "user" {
				t.Errorf("%d pointers, want one (two for a project's file, which the plugin does not give way to)\nlog:\n%s", len(pointers), hooktest.ReadLog(s.dir))
			}
			for _, p := range pointers {
				if !strings.Contains(p, snaps[0]) {
					t.Errorf("pointer %q does not name %s", p, snaps[0])
				}
			}
		})
	}
}
