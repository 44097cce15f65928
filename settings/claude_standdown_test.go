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

// spec: PL-27 PL-32
// The settings file that makes the plugin stand down: the user's, holding
// install's entry for the event and sub-command, whose program can run, in
// a file whose hooks run; never the project's, which a repository commits.
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
		{"the user's, for a tool call", installed(exe), "", "PostToolUse", "watch", "user"},
		{"the project's, which a repository commits", "", installed(exe), "PostToolUse", "watch", ""},
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
			got := SettingsRegistration(h, tc.event, tc.sub, map[string]string{"PreCompact": "manual"}[tc.event])
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
	if ProgramRuns(noexec) {
		t.Error("a file without execute permission counts as a program that runs")
	}
}

// spec: PL-31
// A matcher counts only when every release that runs the plugin reads it
// as matching the call's value: an exact list of words, or a pattern RE2
// and JavaScript read alike.
func TestMatcherSurelyMatches(t *testing.T) {
	for _, tc := range []struct {
		matcher, value string
		want           bool
	}{
		{"manual|auto", "auto", true},
		{"manual", "auto", false},
		{"manual", "manual", true},
		{"compact", "compact", true},
		{"compact", "resume", false},
		{"auto.*", "auto", true},
		{"^(auto|manual)$", "manual", true},
		{"automatic", "auto", false},
		{"manual,auto", "auto", false},  // a pattern before 2.1.191
		{"manual, auto", "auto", false}, // spaces trimmed or not
		{`^\w+$`, "auto", false},        // an escape RE2 and JavaScript may read apart
		{"(?i)AUTO", "auto", false},     // a flag group JavaScript rejects
		{"[", "auto", false},            // not a pattern
	} {
		if got := MatcherSurelyMatches(tc.matcher, tc.value); got != tc.want {
			t.Errorf("MatcherSurelyMatches(%q, %q) = %v, want %v", tc.matcher, tc.value, got, tc.want)
		}
	}
}

// spec: PL-32
// A user settings file inside the project (CLAUDE_CONFIG_DIR, which a
// project's settings can set in their env), or an entry whose program the
// repository ships, does not count; a session started in the home folder
// still finds the user's own settings and binary there.
func TestSettingsRegistrationOutsideTheProject(t *testing.T) {
	home := t.TempDir()
	write := func(path, data string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
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
	userBin := filepath.Join(home, ".local", "bin", "compact-guard")
	write(userBin, "#!/bin/sh\n", 0o755)
	proj := filepath.Join(home, "src", "repo")
	write(filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n", 0o600)
	repoBin := filepath.Join(proj, "tools", "compact-guard")
	write(repoBin, "#!/bin/sh\n", 0o755)
	for _, tc := range []struct {
		name, configDir, project, program string
		want                              bool
	}{
		{"a session in the home folder", "", home, userBin, true},
		{"a session in a repository", "", proj, userBin, true},
		{"a program the repository ships", "", proj, repoBin, false},
		{"a settings folder inside the repository", filepath.Join(proj, "cfg"), proj, userBin, false},
		{"a settings folder in a subfolder's repository", filepath.Join(proj, "cfg"), filepath.Join(proj, "sub"), userBin, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settingsPath := filepath.Join(home, ".claude", "settings.json")
			if tc.configDir != "" {
				settingsPath = filepath.Join(tc.configDir, "settings.json")
			}
			write(settingsPath, installed(tc.program), 0o600)
			defer os.Remove(settingsPath)
			h := Host{Getenv: func(k string) string {
				switch k {
				case "CLAUDE_CONFIG_DIR":
					return tc.configDir
				case "CLAUDE_PROJECT_DIR":
					return tc.project
				}
				return ""
			}, Home: func() (string, error) { return home, nil }, Getwd: func() (string, error) { return tc.project, nil }}
			if got := SettingsRegistration(h, "PreCompact", "precompact", "auto"); (got == settingsPath) != tc.want || got != "" && got != settingsPath {
				t.Errorf("SettingsRegistration = %q, want %v for %s", got, tc.want, settingsPath)
			}
		})
	}
}
