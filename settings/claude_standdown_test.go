package settings

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// spec: PL-26
// A plugin's hook is a process whose binary lies inside
// CLAUDE_PLUGIN_ROOT; the variable alone, or a binary beside the folder,
// is not one.
func TestRunsAsPlugin(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(root, "bin", "linux-amd64", "compact-guard")
	for _, tc := range []struct {
		name, root, exe string
		want            bool
	}{
		{"the plugin's binary", root, exe, true},
		{"no variable", "", exe, false},
		{"a binary elsewhere", root, filepath.Join(filepath.Dir(root), "compact-guard"), false},
		{"a folder whose name starts like the root's", root, root + "-other" + string(filepath.Separator) + "compact-guard", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "CLAUDE_PLUGIN_ROOT" {
					return tc.root
				}
				return ""
			}
			if got := RunsAsPlugin(getenv, tc.exe); got != tc.want {
				t.Errorf("RunsAsPlugin = %v, want %v", got, tc.want)
			}
		})
	}
}

// spec: PL-27
// The settings file that makes the plugin stand down: one Claude Code
// reads, holding install's entry for the event and sub-command, whose
// program can run, in a file whose hooks run.
func TestSettingsRegistration(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "compact-guard") // the installed binary
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	installed := func(program string) string {
		doc, err := Parse(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := doc.Install(program, "", Carry{Own: true}); err != nil {
			t.Fatal(err)
		}
		return string(doc.Bytes())
	}
	missing := filepath.Join(t.TempDir(), "compact-guard")
	for _, tc := range []struct {
		name       string
		user, proj string // contents; "" writes no file
		event, sub string
		want       string // "user", "project" or ""
	}{
		{"the user's settings register it", installed(exe), "", "PreCompact", "precompact", "user"},
		{"the project's", "", installed(exe), "PostToolUse", "watch", "project"},
		{"another sub-command for the event", installed(exe), "", "PreCompact", "watch", ""},
		{"no settings file", "", "", "PreCompact", "precompact", ""},
		{"its program is gone", installed(missing), "", "PreCompact", "precompact", ""},
		{"hooks turned off in the file", strings.Replace(installed(exe), "{", `{"disableAllHooks": true,`, 1), "", "PreCompact", "precompact", ""},
		{"an entry of ours not in install's form", `{"hooks":{"PreCompact":[{"hooks":[{"type":"command","command":"compact-guard precompact && notify"}]}]}}`, "", "PreCompact", "precompact", ""},
		{"not JSON", "{", "", "PreCompact", "precompact", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, proj := t.TempDir(), t.TempDir()
			paths := map[string]string{"user": filepath.Join(cfg, "settings.json"), "project": filepath.Join(proj, ".claude", "settings.json")}
			for scope, data := range map[string]string{"user": tc.user, "project": tc.proj} {
				if data == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(paths[scope]), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(paths[scope], []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			h := Host{Getenv: func(k string) string {
				switch k {
				case "CLAUDE_CONFIG_DIR":
					return cfg
				case "CLAUDE_PROJECT_DIR":
					return proj
				}
				return ""
			}, Home: func() (string, error) { return cfg, nil }, Getwd: func() (string, error) { return proj, nil }}
			got := SettingsRegistration(h, tc.event, tc.sub)
			if want := paths[tc.want]; got != want {
				t.Errorf("SettingsRegistration = %q, want %q", got, want)
			}
		})
	}
	if runtime.GOOS == "windows" {
		return
	}
	// A program that is there but cannot run counts as gone.
	noexec := filepath.Join(t.TempDir(), "compact-guard")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if programRuns(noexec) {
		t.Error("a file without execute permission counts as a program that runs")
	}
}
