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
		{`{"type":"command","command":"/a/compact-guard precompact && echo done"}`, "", "precompact"},
		{`{"type":"command","command":"/a/compact-guard precompact 2>/dev/null # quiet"}`, "", "precompact"},
		{`{"type":"command","command":"/a/compact-guard \\\n  precompact"}`, "", "precompact"},
		{`{"type":"command","command":"/a/compact\\-guard \"pre\"'compact'"}`, "", "precompact"},
		{`{"type":"command","command":"true && /a/compact-guard precompact"}`, "", ""},
		{`{"type":"command","command":"(/a/compact-guard precompact)"}`, "", ""},
		{`{"type":"command","command":"A=1 B=\"x y\""}`, "", ""},
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
		words, ok := wordTexts(cmdline)
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

// wordTexts is commandWords' texts.
func wordTexts(s string) ([]string, bool) {
	ws, ok := commandWords(s)
	var out []string
	for _, w := range ws {
		out = append(out, w.Text)
	}
	return out, ok
}

// spec: IN-5
func TestCommandWordsLeaveOutRedirectionsAndExpandNothing(t *testing.T) {
	cases := []struct {
		cmdline string
		want    []string
	}{
		{`X=1 "/a b/compact-guard" precompact --keep 3 >/dev/null 2>&1`, []string{"/a b/compact-guard", "precompact", "--keep", "3"}},
		{`compact-guard --dir "$HOME/snaps" precompact --keep $KEEP`, []string{"compact-guard", "--dir", "$HOME/snaps", "precompact", "--keep", "$KEEP"}},
		{`compact-guard --state-file "a \"b\" \x" c\ d 'e\f'`, []string{"compact-guard", "--state-file", `a "b" \x`, "c d", `e\f`}},
		{`~/bin/compact-guard postcompact | tee -a log`, []string{"~/bin/compact-guard", "postcompact"}},
	}
	for _, c := range cases {
		got, ok := wordTexts(c.cmdline)
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q %v, want %q", c.cmdline, got, ok, c.want)
		}
	}
	for _, bad := range []string{`"/a/compact-guard precompact`, `compact-guard 'precompact`, `if true; then compact-guard precompact; fi`, ``} {
		if ws, ok := commandWords(bad); ok {
			t.Errorf("%s: parsed as %v", bad, ws)
		}
	}
}
