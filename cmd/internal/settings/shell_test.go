package settings

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

// spec: IN-5
func TestHookCommandRecognition(t *testing.T) {
	cases := []struct {
		handler string
		self    string
		sub     string // "" = not ours
	}{
		{`{"type":"command","command":"\"/a b/compact-guard\" precompact"}`, "", "precompact"},
		{`{"type":"command","command":"'/a b/compact-guard' postcompact"}`, "", "postcompact"},
		{`{"command":"/a/compact-guard --dir /tmp/x precompact"}`, "", "precompact"},
		{`{"type":"command","command":"COMPACT_GUARD_DIR=/x compact-guard postcompact"}`, "", "postcompact"},
		{`{"type":"command","command":"C:\\Tools\\Compact-Guard.EXE precompact"}`, "", ""},
		{`{"type":"command","command":"\"C:/Tools/compact-guard.EXE\" precompact"}`, "", "precompact"},
		{`{"type":"command","command":"/a/compact-guard","args":["precompact"]}`, "", "precompact"},
		{`{"type":"command","command":"/a/cg precompact"}`, "/a/cg", "precompact"},
		{`{"type":"command","command":"/a/cg precompact"}`, "/b/cg", ""},
		{`{"type":"command","command":"/a/compact-guard version"}`, "", ""},
		{`{"type":"command","command":"/a/compact-guard list precompact"}`, "", ""},
		{`{"type":"command","command":"echo /a/compact-guard precompact"}`, "", ""},
		{`{"type":"command","command":"\"/a/compact-guard precompact"}`, "", ""},
		{`{"type":"http","command":"/a/compact-guard precompact"}`, "", ""},
		{`{"type":"command","command":"/a/compact-guard precompact; rm -rf /"}`, "", "precompact"},
	}
	for _, c := range cases {
		d, err := Parse([]byte(`{"hooks":{"E":[{"hooks":[` + c.handler + `]}]}}`))
		if err != nil {
			t.Fatal(err)
		}
		found := d.Entries(c.self)
		got := ""
		if len(found) == 1 {
			got = found[0].Sub
		}
		if got != c.sub {
			t.Errorf("%s (self %q): sub %q, want %q", c.handler, c.self, got, c.sub)
		}
	}
}

// spec: IN-3
func TestShellQuoteRoundTrip(t *testing.T) {
	for _, p := range []string{
		"/usr/local/bin/compact-guard",
		"/Users/Jane Doe/My Tools/compact-guard",
		"/home/иван/инструменты/compact-guard",
		`/weird/$HOME/"quoted"/back\slash/` + "`tick`/compact-guard",
		"/it's/compact-guard",
	} {
		cmdline := Command(p, "precompact")
		words, ok := splitShellWords(cmdline)
		want := []string{p, "precompact"}
		if runtime.GOOS == "windows" {
			want[0] = filepath.ToSlash(p)
		}
		if !ok || !reflect.DeepEqual(words, want) {
			t.Errorf("%q -> %q -> %q", p, cmdline, words)
		}
	}
	if runtime.GOOS == "windows" {
		if got := QuotePath(`C:\Program Files\cg\compact-guard.exe`); got != `"C:/Program Files/cg/compact-guard.exe"` {
			t.Errorf("windows quoting: %s", got)
		}
	}
}

// spec: IN-3
func TestShellQuoteRunsInSh(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := filepath.Join(t.TempDir(), `a b $x "q" `+"`t`"+` \z иван`)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "compact-guard")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"ran $1\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sh, "-c", Command(bin, "precompact")).Output()
	if err != nil || string(out) != "ran precompact\n" {
		t.Errorf("sh -c %s: %q %v", Command(bin, "precompact"), out, err)
	}
}
