package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/handoff"
)

// forged is text a committed file may hold to drive the terminal: a CR that
// returns to the line's start and prints a fake "[ok]" over a "[FAIL]", an
// OSC sequence that sets the window title, ended by BEL, and a CSI that
// clears the screen.
const forged = "x\r[ok]   all good\x1b]0;pwned\x07\x1b[2J\u009b31m"

// noRawControls fails when out holds a control character other than a line
// break (nor CSI, U+009B).
func noRawControls(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range out {
		if r < 0x20 && r != '\n' || r == 0x7f || r == 0x9b {
			t.Errorf("%s prints %U raw:\n%q", what, r, out)
			return
		}
	}
}

// spec: DR-20, SEC-21
// A settings file's command and path holding terminal sequences: doctor
// prints them escaped, as list does.
func TestDoctorEscapesWhatItQuotes(t *testing.T) {
	d := newDocEnv(t)
	cmd := settings0Command(d.exe) + " --state-file '" + forged + "'"
	quoted, _ := json.Marshal(cmd)
	d.write(d.userSettings(), fmt.Sprintf(`{"hooks":{"PreCompact":[{"matcher":"manual|auto","hooks":[{"type":"command","command":%s,"timeout":60}]}]}}`, quoted))
	bad := filepath.Join(d.proj, ".claude", "settings.local.json")
	d.write(bad, "{\n"+forged+"\n}\n")
	out, _ := d.run()
	noRawControls(t, "doctor", out)
	if !strings.Contains(out, `x\x0d[ok]   all good\x1b]0;pwned\x07`) {
		t.Errorf("the forged text is not shown escaped:\n%s", out)
	}
}

// settings0Command is install's command for exe's precompact.
func settings0Command(exe string) string { return `"` + exe + `" precompact` }

// spec: HO-8, SEC-21
// A state file whose heading, or whose folder's name, holds terminal
// sequences: handoff --check prints them escaped.
func TestHandoffCheckEscapes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj\x1b]0;pwned\x07")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Skip("no such folder name here:", err)
	}
	state := filepath.Join(dir, "SESSION-STATE.md")
	block := handoff.Template(snapshot.English, hoNow)
	heading, rest, _ := strings.Cut(block, "\n")
	block = heading + " " + forged + "\n" + rest
	for _, filled := range []bool{false, true} {
		text := block
		if filled {
			text = strings.ReplaceAll(block, "\n<!-- ", "\nnone <!-- ")
		}
		if err := os.WriteFile(state, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		opts := &HandoffOptions{IO: &IO{Out: &out, ErrOut: &bytes.Buffer{}}, Check: true, File: state, Lang: snapshot.English,
			Dir: filepath.Join(t.TempDir(), "snaps"), Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return dir, nil },
			Now: func() time.Time { return hoNow }}
		handoffRun(opts)
		noRawControls(t, "handoff --check", out.String())
		want := `proj\x1b]0;pwned\x07`
		if filled {
			want = `x\x0d[ok]   all good\x1b]0;pwned\x07`
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("filled=%v: %q is not shown escaped:\n%s", filled, want, out.String())
		}
	}
}
