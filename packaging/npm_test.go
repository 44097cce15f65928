package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// npmWorld is an npm install of the main package and this machine's
// platform package, laid out as npm lays them out, with a shell script
// standing in for the binary: it prints its arguments, and after
// "install" the advice the real install ends with.
type npmWorld struct {
	t                     *testing.T
	root, home, launcher  string
	platDir, bin, nodeDir string
}

func newNpmWorld(t *testing.T) *npmWorld {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is needed to run the npm launcher: %v", err)
		}
		t.Skipf("node is needed to run the npm launcher: %v", err)
	}
	w := &npmWorld{t: t, root: t.TempDir(), home: t.TempDir(), nodeDir: filepath.Dir(node)}
	nm := filepath.Join(w.root, "node_modules")
	w.launcher = filepath.Join(nm, "compact-guard", "bin", "compact-guard.js")
	w.platDir = filepath.Join(nm, "@compact-guard", npmOS[runtime.GOOS]+"-"+npmCPU[runtime.GOARCH])
	w.bin = filepath.Join(w.platDir, "bin", "compact-guard")
	for p, data := range map[string]string{
		filepath.Join(nm, "compact-guard", "package.json"): `{"name":"compact-guard","version":"1.2.3"}`,
		w.launcher:                               string(npmLauncher),
		filepath.Join(w.platDir, "package.json"): `{"name":"@compact-guard/x","version":"1.2.3"}`,
		w.bin: "#!/bin/sh\necho \"ran $0: $*\"\n" +
			"case \" $* \" in *' install '*) echo 'check the setup with: compact-guard doctor';; esac\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// run runs the launcher with PATH holding node and the system folders
// (not ~/.local/bin) plus extraPath, and an environment free of npm's
// configuration unless env adds some.
func (w *npmWorld) run(extraPath string, env []string, args ...string) (string, error) {
	w.t.Helper()
	path := w.nodeDir + string(os.PathListSeparator) + "/usr/bin" + string(os.PathListSeparator) + "/bin"
	if extraPath != "" {
		path = extraPath + string(os.PathListSeparator) + path
	}
	c := exec.Command("node", append([]string{w.launcher}, args...)...)
	c.Env = append([]string{"HOME=" + w.home, "PATH=" + path}, env...)
	out, err := c.CombinedOutput()
	return string(out), err
}

func (w *npmWorld) stable() string { return filepath.Join(w.home, ".local", "bin", "compact-guard") }

// Dry runs and every kind of help write nothing: no copy, no folder.
//
// spec: NP-5
func TestNpmLauncherWritesNothing(t *testing.T) {
	w := newNpmWorld(t)
	for _, args := range [][]string{
		{"install", "--dry-run"},
		{"install", "--scope", "local", "--dry-run"},
		{"--lang", "en", "install", "--dry-run"},
		{"install", "--help"},
		{"install", "-h"},
		{"--help"},
		{"help", "install"},
		{"install", "--agent", "codex", "--help"},
	} {
		out, err := w.run("", nil, args...)
		if err != nil || !strings.Contains(out, "ran "+w.bin+": "+strings.Join(args, " ")) {
			t.Errorf("%q: %v\n%s", args, err, out)
		}
		if _, err := os.Stat(filepath.Join(w.home, ".local")); !os.IsNotExist(err) {
			t.Fatalf("%q wrote into %s (%v)", args, filepath.Join(w.home, ".local"), err)
		}
		if dry := args[len(args)-1] == "--dry-run"; dry != strings.Contains(out, "a real install first copies it to "+w.stable()) {
			t.Errorf("%q: the note about the path a real install registers is wrong:\n%s", args, out)
		}
	}
}

// install copies the binary and runs the copy; when its folder is not on
// PATH the closing advice names a command that reaches it.
//
// spec: NP-3, NP-8
func TestNpmLauncherInstallAdvice(t *testing.T) {
	w := newNpmWorld(t)
	out, err := w.run("", nil, "install")
	if err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	for _, want := range []string{
		"compact-guard: installed the binary as " + w.stable(),
		"ran " + w.stable() + ": install",
		"check the setup with: " + w.stable() + " doctor   (or: npx compact-guard doctor)",
		"note: " + filepath.Dir(w.stable()) + " is not on your PATH",
		`export PATH="` + filepath.Dir(w.stable()) + `:$PATH"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "check the setup with: compact-guard doctor") {
		t.Errorf("install advises a bare compact-guard that PATH does not reach:\n%s", out)
	}

	// On PATH, the binary's own advice stands, and an identical copy is not
	// written again.
	out, err = w.run(filepath.Dir(w.stable()), nil, "install")
	if err != nil || !strings.Contains(out, "check the setup with: compact-guard doctor\n") || strings.Contains(out, "not on your PATH") || strings.Contains(out, "installed the binary") {
		t.Errorf("install with the folder on PATH: %v\n%s", err, out)
	}
	// Other commands run the copy once it is the same binary.
	if out, err := w.run("", nil, "doctor"); err != nil || !strings.Contains(out, "ran "+w.stable()+": doctor") {
		t.Errorf("doctor: %v\n%s", err, out)
	}
}

// A missing binary gets a message per cause.
//
// spec: NP-6
func TestNpmLauncherMissingBinary(t *testing.T) {
	check := func(t *testing.T, w *npmWorld, env []string, want string) {
		t.Helper()
		out, err := w.run("", env, "doctor")
		if err == nil || !strings.Contains(out, want) {
			t.Errorf("want exit 1 and %q, got %v:\n%s", want, err, out)
		}
	}
	t.Run("incomplete package", func(t *testing.T) {
		w := newNpmWorld(t)
		os.Remove(w.bin)
		check(t, w, nil, "is installed in "+w.platDir+" but holds no bin/compact-guard")
	})
	t.Run("optional dependencies off", func(t *testing.T) {
		w := newNpmWorld(t)
		os.RemoveAll(w.platDir)
		check(t, w, []string{"npm_config_omit=optional"}, "optional dependencies are turned off (--omit=optional)")
	})
	t.Run("left out", func(t *testing.T) {
		w := newNpmWorld(t)
		os.RemoveAll(w.platDir)
		check(t, w, nil, "npm did not install @compact-guard/"+filepath.Base(w.platDir)+"@1.2.3, although optional dependencies are on")
	})
	t.Run("platform without a package", func(t *testing.T) {
		w := newNpmWorld(t)
		preload := filepath.Join(w.root, "arch.js")
		if err := os.WriteFile(preload, []byte(`Object.defineProperty(process, "arch", { value: "ia32" });`), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, w, []string{"NODE_OPTIONS=--require " + preload}, "no binary for "+npmOS[runtime.GOOS]+"/ia32: compact-guard ships binaries for macOS, Linux and Windows on x64 and arm64 only")
	})
	t.Run("not executable", func(t *testing.T) {
		w := newNpmWorld(t)
		if err := os.Chmod(w.bin, 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, w, nil, "cannot run "+w.bin+": it is not executable")
	})
}
