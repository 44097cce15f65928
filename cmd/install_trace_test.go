package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/settings"
)

// traceFile is install's trace of the file at p (IN-76), in the test
// root's backups folder.
func traceFile(root, p string) string {
	real := p
	if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		real = filepath.Join(r, filepath.Base(p))
	}
	return filepath.Join(settings.BackupFolder(traceBackups(root), real), "install-trace.json")
}

func traceBackups(root string) string {
	return filepath.Join(root, "home", ".local", "state", "compact-guard", "backups")
}

// traceRun is instAgentRun with watch's state folder in the test root.
func traceRun(t *testing.T, root string, uninstall bool, args ...string) (string, string) {
	t.Helper()
	out, errOut, code := instAgentRun(t, root, uninstall, args...)
	if code != ExitOK {
		t.Fatalf("%v (uninstall %v): exit %d\n%s\n%s", args, uninstall, code, out, errOut)
	}
	return out, errOut
}

func fileOrNone(t *testing.T, p string) *string {
	t.Helper()
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	return &s
}

// spec: IN-76, IN-77, IN-79, IN-80, IN-81, IN-84 — install then uninstall
// gives every file back byte for byte, whatever the original: with or
// without a final newline, an empty "hooks" or event list, CRLF, Qwen
// Code's comments, a Codex config.toml without a final newline, an empty
// or missing file; across install→install→uninstall; and, for a file
// edited between install and uninstall, the edit stays with the
// containers the user had.
func TestUninstallByteForByte(t *testing.T) {
	type file struct {
		rel  string  // under root: home/… or proj/…
		orig *string // nil: no file before install
		// want after uninstall when not orig (an edit between)
		want *string
	}
	cases := []struct {
		name  string
		args  []string
		files []file
		twice bool
		// edit changes the hooks file between install and uninstall.
		edit func(t *testing.T, p string)
	}{
		{name: "final newline", files: []file{{rel: "home/.claude/settings.json", orig: new("{\n  \"model\": \"opus\"\n}\n")}}},
		{name: "no final newline", files: []file{{rel: "home/.claude/settings.json", orig: new(`{"model": "opus"}`)}}},
		{name: "empty hooks object", files: []file{{rel: "home/.claude/settings.json", orig: new("{\n  \"hooks\": {}\n}\n")}}},
		{name: "empty hooks object on one line, no final newline", files: []file{{rel: "home/.claude/settings.json", orig: new(`{"hooks": {}, "a": 1}`)}}},
		{name: "empty event lists", files: []file{{rel: "home/.claude/settings.json", orig: new("{\n  \"hooks\": {\n    \"PreCompact\": [],\n    \"Stop\": []\n  }\n}\n")}}},
		{name: "CRLF with empty hooks", files: []file{{rel: "home/.claude/settings.json", orig: new("{\r\n\t\"hooks\": {},\r\n\t\"a\": 1\r\n}\r\n")}}},
		{name: "empty file", files: []file{{rel: "home/.claude/settings.json", orig: new("")}}},
		{name: "a newline alone", files: []file{{rel: "home/.claude/settings.json", orig: new("\n")}}},
		{name: "the user's own empty object on two lines", files: []file{{rel: "home/.claude/settings.json", orig: new("{\n}\n")}}},
		{name: "no file", files: []file{{rel: "home/.claude/settings.json"}}},
		{name: "install twice", twice: true, files: []file{{rel: "home/.claude/settings.json", orig: new("{\n  \"hooks\": {\n    \"PreCompact\": []\n  }\n}\n")}}},
		{name: "project scope, empty hooks", args: []string{"--scope", "project"}, files: []file{{rel: "proj/.claude/settings.json", orig: new("{\"hooks\": {}}\n")}}},
		{name: "Qwen Code comments and empty hooks", args: []string{"--agent", "qwen"},
			files: []file{{rel: "home/.qwen/settings.json", orig: new("{\n  // mine\n  \"hooks\": {} /* kept */,\n  \"model\": {\"name\": \"q\"}\n}\n")}}},
		{name: "Codex config.toml without a final newline", args: []string{"--agent", "codex"}, files: []file{
			{rel: "home/.codex/hooks.json", orig: new(`{"hooks": {"PreCompact": []}}`)},
			{rel: "home/.codex/config.toml", orig: new(`model = "gpt-5.5"`)}}},
		{name: "Codex config.toml CRLF without a final newline, installed twice", args: []string{"--agent", "codex"}, twice: true, files: []file{
			{rel: "home/.codex/hooks.json", orig: new("{\r\n  \"hooks\": {}\r\n}")},
			{rel: "home/.codex/config.toml", orig: new("# mine\r\nmodel = \"gpt-5.5\"\r\n\r\n[tui]\r\nx = 1")}}},
		{name: "Codex empty config.toml", args: []string{"--agent", "codex"}, files: []file{
			{rel: "home/.codex/hooks.json"},
			{rel: "home/.codex/config.toml", orig: new("")}}},
		{name: "Codex, no files at all", args: []string{"--agent", "codex"}, files: []file{
			{rel: "home/.codex/hooks.json"},
			{rel: "home/.codex/config.toml"}}},
		{name: "edited between: a key added, the user's empty hooks stay",
			files: []file{{rel: "home/.claude/settings.json", orig: new("{\n  \"hooks\": {}\n}\n"),
				want: new("{\n  \"model\": \"opus\",\n  \"hooks\": {}\n}\n")}},
			edit: func(t *testing.T, p string) {
				data := instRead(t, p)
				os.WriteFile(p, []byte(strings.Replace(string(data), "{\n", "{\n  \"model\": \"opus\",\n", 1)), 0o600)
			}},
		{name: "edited between: the user's hook in a list install created stays",
			files: []file{{rel: "home/.claude/settings.json", orig: new(`{"a": 1}`),
				want: new(`{"a": 1, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}`)}},
			edit: func(t *testing.T, p string) {
				data := string(instRead(t, p))
				i := strings.Index(data, `"Stop": [`) + len(`"Stop": [`)
				os.WriteFile(p, []byte(data[:i]+`{"hooks": [{"type": "command", "command": "notify"}]}, `+data[i:]), 0o600)
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			os.MkdirAll(filepath.Join(root, "proj"), 0o755)
			for _, f := range c.files {
				if f.orig != nil {
					instWrite(t, filepath.Join(root, filepath.Dir(f.rel)), filepath.Base(f.rel), *f.orig, 0o600)
				}
			}
			traceRun(t, root, false, c.args...)
			hooks := filepath.Join(root, c.files[0].rel)
			if fi, err := os.Stat(traceFile(root, hooks)); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("no 0600 trace of %s: %v", hooks, err)
			}
			if c.twice {
				traceRun(t, root, true, c.args...)
				traceRun(t, root, false, c.args...)
				// A change between the two, so that the second install
				// writes: its trace must keep what the first found.
				traceRun(t, root, false, c.args...)
			}
			if c.edit != nil {
				c.edit(t, hooks)
			}
			out, _ := traceRun(t, root, true, c.args...)
			for _, f := range c.files {
				p := filepath.Join(root, f.rel)
				want := f.orig
				if f.want != nil {
					want = f.want
				}
				got := fileOrNone(t, p)
				switch {
				case want == nil && got != nil:
					t.Errorf("%s: install created it, uninstall left %q\n%s", f.rel, *got, out)
				case want != nil && got == nil:
					t.Errorf("%s: gone, want %q\n%s", f.rel, *want, out)
				case want != nil && *got != *want:
					t.Errorf("%s:\n got %q\nwant %q\n%s", f.rel, *got, *want, out)
				}
				if _, err := os.Lstat(traceFile(root, p)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s: uninstall left install's trace: %v", f.rel, err)
				}
				backups := settings.BackupFiles(traceBackups(root), p)
				if f.want == nil && len(backups) != 0 {
					t.Errorf("%s is as install found it, backups left: %v\n%s", f.rel, backups, out)
				}
				if f.want != nil && (len(backups) == 0 || !strings.Contains(out, "backups kept in ")) {
					t.Errorf("%s was edited, its backups must stay: %v\n%s", f.rel, backups, out)
				}
			}
			if c.files[0].want == nil && !strings.Contains(out, "(byte for byte as install found it)") && !strings.Contains(out, "removed "+hooks) {
				t.Errorf("output does not say the file is given back:\n%s", out)
			}
		})
	}
}

// spec: IN-81 — without install's trace (an older install), or with one
// that cannot be trusted, uninstall does what it did before: every
// container its removal left empty goes, and the backups stay.
func TestUninstallWithoutTrace(t *testing.T) {
	for _, spoil := range []string{"missing", "writable by others"} {
		t.Run(spoil, func(t *testing.T) {
			root := t.TempDir()
			p := instWrite(t, filepath.Join(root, "home", ".claude"), "settings.json", "{\"hooks\": {}, \"a\": 1}\n", 0o600)
			traceRun(t, root, false)
			tf := traceFile(root, p)
			if spoil == "missing" {
				os.Remove(tf)
			} else {
				os.Chmod(tf, 0o666)
			}
			out, _ := traceRun(t, root, true)
			if got := string(instRead(t, p)); got != "{\"a\": 1}\n" {
				t.Errorf("got %q\n%s", got, out)
			}
			if len(settings.BackupFiles(traceBackups(root), p)) == 0 {
				t.Errorf("backups removed without a trace:\n%s", out)
			}
			if spoil != "missing" && !strings.Contains(out, "install's trace not used") {
				t.Errorf("untrusted trace not named:\n%s", out)
			}
			// An install after that starts afresh, and the next uninstall
			// has its trace again.
			os.Remove(tf)
			instWrite(t, filepath.Dir(p), "settings.json", "{\"hooks\": {}}", 0o600)
			traceRun(t, root, false)
			traceRun(t, root, true)
			if got := string(instRead(t, p)); got != "{\"hooks\": {}}" {
				t.Errorf("after a fresh install: %q", got)
			}
		})
	}
}

// spec: IN-78 — uninstall removes the folders install created once they
// are empty again, never one that was there before or holds anything
// else.
func TestUninstallRemovesFoldersInstallCreated(t *testing.T) {
	t.Run("project folders", func(t *testing.T) {
		root := t.TempDir()
		proj := filepath.Join(root, "proj")
		os.MkdirAll(proj, 0o755)
		for _, args := range [][]string{{"--scope", "project"}, {"--scope", "local"}, {"--agent", "qwen", "--scope", "project"}, {"--agent", "codex", "--scope", "project"}} {
			traceRun(t, root, false, args...)
		}
		for _, d := range []string{".claude", ".qwen", ".codex"} {
			if _, err := os.Stat(filepath.Join(proj, d)); err != nil {
				t.Fatalf("install made no %s: %v", d, err)
			}
		}
		out, _ := traceRun(t, root, true, "--scope", "project")
		if _, err := os.Stat(filepath.Join(proj, ".claude")); err != nil || !strings.Contains(out, "kept    "+filepath.Join(proj, ".claude")) {
			t.Errorf(".claude still holds settings.local.json, it must stay: %v\n%s", err, out)
		}
		for _, args := range [][]string{{"--scope", "local"}, {"--agent", "qwen", "--scope", "project"}, {"--agent", "codex", "--scope", "project"}} {
			out, _ := traceRun(t, root, true, args...)
			if !strings.Contains(out, "(install created the folder; it is empty again)") {
				t.Errorf("%v:\n%s", args, out)
			}
		}
		ents, _ := os.ReadDir(proj)
		if len(ents) != 0 {
			t.Errorf("project folder holds %v after uninstall", ents)
		}
		// ~/.codex held nothing before install: config.toml install
		// created goes, and the folder with it.
		if _, err := os.Stat(filepath.Join(root, "home", ".codex")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("~/.codex left: %v", err)
		}
	})
	t.Run("folders that were there, or hold more", func(t *testing.T) {
		root := t.TempDir()
		proj := filepath.Join(root, "proj")
		os.MkdirAll(filepath.Join(proj, ".claude"), 0o755)
		traceRun(t, root, false, "--scope", "project")
		traceRun(t, root, true, "--scope", "project")
		if _, err := os.Stat(filepath.Join(proj, ".claude")); err != nil {
			t.Errorf("a folder the user had is gone: %v", err)
		}
		traceRun(t, root, false, "--agent", "qwen", "--scope", "project")
		instWrite(t, filepath.Join(proj, ".qwen"), "notes.md", "mine", 0o600)
		out, _ := traceRun(t, root, true, "--agent", "qwen", "--scope", "project")
		if _, err := os.Stat(filepath.Join(proj, ".qwen", "notes.md")); err != nil || !strings.Contains(out, "kept    "+filepath.Join(proj, ".qwen")+" (install created the folder, but it holds other files now)") {
			t.Errorf("a folder holding the user's file: %v\n%s", err, out)
		}
	})
}

// spec: IN-82, IN-83 — watch's state goes with the last registration of
// compact-guard in any file install knows, never the snapshots, the log or
// the backups.
func TestUninstallWatchState(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proj"), 0o755)
	state := filepath.Join(root, "home", ".local", "state", "compact-guard")
	watchDir := filepath.Join(state, "watch")
	run := func(uninstall bool, args ...string) string {
		t.Helper()
		var out string
		old := instAgentWatchDir
		instAgentWatchDir = watchDir
		defer func() { instAgentWatchDir = old }()
		out, _ = traceRun(t, root, uninstall, args...)
		return out
	}
	run(false)
	run(false, "--agent", "qwen", "--scope", "project")
	instWrite(t, watchDir, "abcd1234_0123456789ab.json", "{}", 0o600)
	instWrite(t, watchDir, "abcd1234_0123456789ab.lock", "", 0o600)
	instWrite(t, filepath.Join(state, "snapshots"), "snap_x.json", "{}", 0o600)
	instWrite(t, state, "compact-guard.log", "log\n", 0o600)

	out := run(true)
	qwen := filepath.Join(root, "proj", ".qwen", "settings.json")
	if _, err := os.Stat(watchDir); err != nil || !strings.Contains(out, "kept    "+watchDir+" (watch's state: compact-guard is still registered in "+qwen) {
		t.Errorf("watch/ while Qwen Code's hooks remain: %v\n%s", err, out)
	}
	out = run(true, "--agent", "qwen", "--scope", "project")
	if _, err := os.Stat(watchDir); !errors.Is(err, os.ErrNotExist) || !strings.Contains(out, "removed "+watchDir+" (watch's state: no file install knows registers compact-guard any more)") {
		t.Errorf("watch/ after the last uninstall: %v\n%s", err, out)
	}
	for _, p := range []string{filepath.Join(state, "snapshots", "snap_x.json"), filepath.Join(state, "compact-guard.log")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("uninstall removed %s: %v", p, err)
		}
	}

	// A folder holding something watch does not write stays, named.
	instWrite(t, filepath.Join(watchDir, "sub"), "x", "", 0o600)
	run(false)
	out = run(true)
	if _, err := os.Stat(filepath.Join(watchDir, "sub")); err != nil || !strings.Contains(out, "kept    "+watchDir+" (watch's state: ") {
		t.Errorf("watch/ with a folder in it: %v\n%s", err, out)
	}
}

// spec: IN-19 — the note on a project's committed file offers the scope
// the client has: --scope local for Claude Code, --scope user for Codex CLI
// and Qwen Code, which have no local file.
func TestInstallProjectScopeAdvice(t *testing.T) {
	for agent, want := range map[string]string{"claude": "--scope local keeps them personal", "codex": "--scope user keeps them personal", "qwen": "--scope user keeps them personal"} {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "proj"), 0o755)
		_, errOut := traceRun(t, root, false, "--agent", agent, "--scope", "project")
		if !strings.Contains(errOut, want) || agent != "claude" && strings.Contains(errOut, "--scope local") {
			t.Errorf("%s: %s", agent, errOut)
		}
	}
}

// spec: IN-76, IN-80 — Codex's config.toml holds the trust of the user's
// hooks file and of each project's: its trace lasts through the installs
// and the uninstalls until the last one gives it back byte for byte.
func TestUninstallCodexSharedConfig(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proj"), 0o755)
	cfg := instWrite(t, filepath.Join(root, "home", ".codex"), "config.toml", "model = \"gpt-5.5\"", 0o600)
	traceRun(t, root, false, "--agent", "codex")
	traceRun(t, root, false, "--agent", "codex", "--scope", "project")
	out, _ := traceRun(t, root, true, "--agent", "codex")
	if !strings.Contains(string(instRead(t, cfg)), "proj/.codex/hooks.json") {
		t.Fatalf("the project's trust went with the user's hooks:\n%s", instRead(t, cfg))
	}
	if _, err := os.Stat(traceFile(root, cfg)); err != nil {
		t.Errorf("config.toml's trace went while the project's trust is in it: %v\n%s", err, out)
	}
	out, _ = traceRun(t, root, true, "--agent", "codex", "--scope", "project")
	if got := string(instRead(t, cfg)); got != "model = \"gpt-5.5\"" {
		t.Errorf("config.toml: %q\n%s", got, out)
	}
	if _, err := os.Stat(traceBackups(root)); !errors.Is(err, os.ErrNotExist) {
		filepath.WalkDir(traceBackups(root), func(p string, _ os.DirEntry, _ error) error { t.Log(p); return nil })
		t.Errorf("backups folder left (%v):\n%s", err, out)
	}
}

// spec: IN-87
// A dry run of uninstall removes no folder, no state and no file, and says
// that a real run would look at the folders and watch's state.
func TestUninstallDryRunTouchesNoFolder(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	os.MkdirAll(proj, 0o755)
	traceRun(t, root, false, "--scope", "project")
	out, _ := traceRun(t, root, true, "--scope", "project", "--dry-run")
	if !strings.Contains(out, "dry run: a real run then removes the folders install created that are empty again") {
		t.Errorf("the dry run does not say what it leaves to a real run:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude", "settings.json")); err != nil {
		t.Errorf("the dry run changed the project: %v", err)
	}
}

// spec: IN-88 — without install's trace (the user cleared compact-guard's
// state folder), uninstall has no proof that install created a file, so a
// file its removal leaves holding "{\n}\n" stays, and the output says so
// (issue 28, item 5): the user's own "{\n}\n" is never deleted. With the
// trace, the file install created goes (IN-79).
func TestUninstallWithoutTraceKeepsTheFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		orig  *string // nil: no file before install
		clear bool    // the state folder is removed between install and uninstall
		gone  bool
	}{
		{"the user's file, the state folder cleared", new("{\n}\n"), true, false},
		{"a file install created, the state folder cleared", nil, true, false},
		{"a file install created, with its trace", nil, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "home", ".claude", "settings.json")
			if tc.orig != nil {
				instWrite(t, filepath.Dir(p), "settings.json", *tc.orig, 0o600)
			}
			traceRun(t, root, false)
			if tc.clear {
				if err := os.RemoveAll(filepath.Dir(traceBackups(root))); err != nil {
					t.Fatal(err)
				}
			}
			dry, _ := traceRun(t, root, true, "--dry-run")
			if strings.Contains(dry, "+++ "+os.DevNull) != tc.gone {
				t.Errorf("dry run shows the file removed: %v, want %v\n%s", !tc.gone, tc.gone, dry)
			}
			out, _ := traceRun(t, root, true)
			got := fileOrNone(t, p)
			if (got == nil) != tc.gone {
				t.Fatalf("file gone: %v, want %v\n%s", got == nil, tc.gone, out)
			}
			if tc.gone {
				return
			}
			if *got != "{\n}\n" {
				t.Errorf("file holds %q, want %q", *got, "{\n}\n")
			}
			if want := "kept    " + p + " (it holds nothing but {} now; without install's trace, whether install created it is not known)"; !strings.Contains(out, want) {
				t.Errorf("output does not say the file was kept (%q):\n%s", want, out)
			}
			if strings.Contains(out, "removed "+p) {
				t.Errorf("output says the file was removed:\n%s", out)
			}
		})
	}
}
