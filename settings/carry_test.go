package settings

import (
	"bytes"
	"reflect"
	"testing"
)

// spec: IN-6, IN-31
// An entry of ours whose choices install does not carry over becomes
// install's own bare handler in its place: the command without the file's
// flags, the registration's timeout, no statusMessage; the note lists what
// was left out. One the user trusts as it stands keeps everything, and in
// a file of a client without a trust step (Trusts nil) everything stays
// and the flags are named.
func TestInstallCarriesOnlyTheUsersChoices(t *testing.T) {
	const in = `{"hooks": {"PreCompact": [{"matcher": "manual|auto", "hooks": [{"type": "command", "command": "\"/old/compact-guard\" --dir /x precompact --keep 1 --no-redact", "timeout": 600, "statusMessage": "saving"}]}]}}`
	const flagged = `"/opt/tools/compact-guard" --dir /x precompact --keep 1 --no-redact`
	for _, c := range []struct {
		name    string
		carry   Carry
		command string
		timeout string
		status  bool
		note    *CarryNote
	}{
		{"untrusted", Carry{Trusts: func(Handler) bool { return false }}, `"/opt/tools/compact-guard" precompact`, "60", false,
			&CarryNote{Event: "PreCompact", Command: `"/old/compact-guard" --dir /x precompact --keep 1 --no-redact`,
				Words: []string{"--dir /x", "--keep 1", "--no-redact", "timeout 600", `statusMessage "saving"`}}},
		{"trusted as it stands", Carry{Trusts: func(h Handler) bool {
			// as install's trust plan leaves it: the new command trusted too
			return h.Command == `"/old/compact-guard" --dir /x precompact --keep 1 --no-redact` || h.Command == flagged
		}}, flagged, "600", true,
			&CarryNote{Event: "PreCompact", Command: `"/old/compact-guard" --dir /x precompact --keep 1 --no-redact`, Kept: true,
				Words: []string{"--dir /x", "--keep 1", "--no-redact"}}},
		{"no trust step", Carry{}, flagged, "600", true,
			&CarryNote{Event: "PreCompact", Command: `"/old/compact-guard" --dir /x precompact --keep 1 --no-redact`, Kept: true,
				Words: []string{"--dir /x", "--keep 1", "--no-redact"}}},
		{"the user's own file", Carry{Own: true}, flagged, "600", true, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := mustParse(t, in)
			changes, err := d.Install(instExe, "", c.carry)
			if err != nil {
				t.Fatal(err)
			}
			e := ourEntry(t, d, "PreCompact")
			if e.Command != c.command || e.Timeout != c.timeout || (member(e.handler, "statusMessage") != nil) != c.status {
				t.Errorf("got %s, timeout %s, statusMessage %v; want %s, %s, %v\nchanges %v", e.Command, e.Timeout, member(e.handler, "statusMessage") != nil, c.command, c.timeout, c.status, changes)
			}
			if !e.Installed() {
				t.Errorf("not a handler install writes: %s", e.Foreign)
			}
			var want []CarryNote
			if c.note != nil {
				want = []CarryNote{*c.note}
			}
			if got := d.CarryNotes(); !reflect.DeepEqual(got, want) {
				t.Errorf("notes %+v\nwant  %+v", got, want)
			}
			// Again: nothing to change, and nothing left out.
			before := d.Bytes()
			if ch, err := d.Install(instExe, "", c.carry); err != nil || len(ch) != 0 || !bytes.Equal(before, d.Bytes()) {
				t.Errorf("second install: %v %v", err, ch)
			}
			for _, n := range d.CarryNotes() {
				if !n.Kept {
					t.Errorf("second install left out %v", n.Words)
				}
			}
		})
	}
}

// spec: IN-31
// Trust is judged as the file held each handler before install's edit,
// since a trust key is a place: a duplicate removed before a trusted
// handler moves it to another key, and it is still the one the user
// trusted.
func TestCarryJudgesTheFileBeforeTheEdit(t *testing.T) {
	in := `{"hooks": {"SessionStart": [
  {"matcher": "compact", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" postcompact", "timeout": 15}]},
  {"matcher": "compact", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" postcompact", "timeout": 15}]},
  {"matcher": "resume", "hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" watch --max-chars 4000", "timeout": 10}]}
]}}`
	d := mustParse(t, in)
	cfg := &TrustConfig{}
	cfg.Hooks.State = map[string]HookState{}
	for _, h := range d.Handlers(instExe) {
		if h.Group == 2 {
			cfg.Hooks.State[h.TrustKey("/p")] = HookState{TrustedHash: h.TrustHash()}
		}
	}
	if _, err := d.Install(instExe, "", Carry{Trusts: TrustedHandlers(cfg, "/p")}); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, e := range d.Entries(instExe) {
		if e.Sub == "watch" && e.Event == "SessionStart" {
			found++
			if e.Command != `"/opt/tools/compact-guard" watch --max-chars 4000` {
				t.Errorf("the trusted handler lost its flags: %s\n%s", e.Command, d.Bytes())
			}
		}
	}
	if found != 1 {
		t.Errorf("%d watch entries under SessionStart:\n%s", found, d.Bytes())
	}
}

// spec: DR-26
// A handler's flags as doctor judges them: global ones before the
// sub-command, a value as the next word or after =, switches bare.
func TestHandlerFlags(t *testing.T) {
	d := mustParse(t, `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "\"/opt/tools/compact-guard\" --dir '/my snaps' precompact '--keep=7' --no-redact --timeout 10m", "timeout": 60}]}]}}`)
	got := d.Handlers(instExe)[0].Flags()
	want := []Flag{
		{Name: "--dir", Value: "/my snaps", HasValue: true, Text: "--dir '/my snaps'"},
		{Name: "--keep", Value: "7", HasValue: true, Text: "'--keep=7'"},
		{Name: "--no-redact", Text: "--no-redact"},
		{Name: "--timeout", Value: "10m", HasValue: true, Text: "--timeout 10m"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("flags %+v\nwant  %+v", got, want)
	}
}
