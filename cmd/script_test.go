package cmd

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

var updateScripts = flag.Bool("update-scripts", false, "rewrite testscript files' cmp targets with actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"compact-guard": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the end-to-end scripts in testdata/script against the
// real binary entry point, as a user would run it by hand.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			// Isolate every script from the user's real folders.
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_STATE_HOME", filepath.Join(env.WorkDir, "state"))
			env.Setenv("COMPACT_GUARD_DIR", filepath.Join(env.WorkDir, "snaps"))
			env.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(env.WorkDir, "claude"))
			env.Setenv("CLAUDE_CODE_SESSION_ID", "")
			env.Setenv("CLAUDE_PROJECT_DIR", "")
			env.Setenv("LANG", "C")
			env.Setenv("LC_ALL", "")
			env.Setenv("LC_MESSAGES", "")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "unix":
				return runtime.GOOS != "windows" && runtime.GOOS != "plan9", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"payload": scriptPayload,
			"encode":  scriptEncode,
			"snaps":   scriptSnaps,
			"cpsnap":  scriptCopySnapshot,
		},
	})
}

// payload FILE key=value... writes a JSON object; "key=null" writes null,
// values are expanded by the script engine beforehand ($WORK etc.).
func scriptPayload(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: payload FILE key=value...")
	}
	obj := map[string]any{}
	for _, kv := range args[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("payload: %q is not key=value", kv)
		}
		if v == "null" {
			obj[k] = nil
		} else {
			obj[k] = v
		}
	}
	b, err := json.Marshal(obj)
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o600))
}

// encode ENCODING SRC DST re-encodes a UTF-8 file: utf-16le-bom, utf-16le,
// utf-16be, utf-8-bom, windows-1251.
func scriptEncode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: encode ENCODING SRC DST")
	}
	src, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	var out []byte
	switch args[0] {
	case "utf-16le-bom":
		out, err = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes(src)
	case "utf-16le":
		out, err = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().Bytes(src)
	case "utf-16be":
		out, err = unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewEncoder().Bytes(src)
	case "utf-8-bom":
		out = append([]byte{0xEF, 0xBB, 0xBF}, src...)
	case "windows-1251":
		out, err = charmap.Windows1251.NewEncoder().Bytes(src)
	default:
		ts.Fatalf("encode: unknown encoding %q", args[0])
	}
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o600))
}

// snaps DIR N asserts that DIR holds exactly N snapshots, each with both
// files, non-empty, and (on unix) private: files 0600, folder 0700.
func scriptSnaps(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: snaps DIR N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	names := snapshotBases(ts, ts.MkAbs(args[0]))
	if got := len(names); (got == want) == neg {
		ts.Fatalf("snapshots in %s: %d (%v), want %s%d", args[0], got, names, map[bool]string{true: "not ", false: ""}[neg], want)
	}
	if neg {
		return
	}
	dir := ts.MkAbs(args[0])
	if runtime.GOOS != "windows" && len(names) > 0 {
		if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm() != 0o700 {
			ts.Fatalf("folder mode %v, want 0700", fi.Mode().Perm())
		}
	}
	for _, n := range names {
		for _, ext := range []string{".md", ".json"} {
			fi, err := os.Stat(filepath.Join(dir, n+ext))
			if err != nil {
				ts.Fatalf("%s%s: %v", n, ext, err)
			}
			if fi.Size() == 0 {
				ts.Fatalf("%s%s is empty", n, ext)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				ts.Fatalf("%s%s mode %v, want 0600", n, ext, fi.Mode().Perm())
			}
		}
	}
}

// cpsnap DIR DST copies the newest snapshot's .md and .json to DST.md and
// DST.json, so that the script can grep them without knowing the name.
func scriptCopySnapshot(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cpsnap DIR DST")
	}
	dir := ts.MkAbs(args[0])
	names := snapshotBases(ts, dir)
	if len(names) == 0 {
		ts.Fatalf("no snapshot in %s", args[0])
	}
	newest := names[len(names)-1]
	for _, ext := range []string{".md", ".json"} {
		b, err := os.ReadFile(filepath.Join(dir, newest+ext))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]+ext), b, 0o600))
	}
	ts.Setenv("SNAP", filepath.Join(dir, newest))
}

func snapshotBases(ts *testscript.TestScript, dir string) []string {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	ts.Check(err)
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok && strings.HasPrefix(n, "snap_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
