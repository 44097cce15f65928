package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const instExe = "/opt/tools/compact-guard"

func mustParse(t *testing.T, s string) *Document {
	t.Helper()
	d, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// ourEntry is the one entry of ours under event that runs precompact or
// postcompact (watch has its own under SessionStart).
func ourEntry(t *testing.T, d *Document, event string) Entry {
	t.Helper()
	var found []Entry
	for _, e := range d.Entries(instExe) {
		if e.Event == event && e.Sub != "watch" {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d entries of ours under %s:\n%s", len(found), event, d.Bytes())
	}
	return found[0]
}

// jsonEqual compares two JSON texts by meaning.
func jsonEqual(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("JSON differs\n got: %s\nwant: %s", got, want)
	}
}

// spec: IN-6
func TestInstallKeepsUserFlagsAndTimeout(t *testing.T) {
	cases := []struct {
		name, event, in, want string
		timeoutIn, timeoutOut string
	}{
		{"flags after the sub-command", "PreCompact",
			`"/old/bin/compact-guard" precompact --keep 100`, `"/opt/tools/compact-guard" precompact --keep 100`, "120", "120"},
		{"global flags before it, quoted values", "PreCompact",
			`/old/compact-guard --dir "/my snaps" precompact --state-file 'NOTES.md'  --keep=7`,
			`"/opt/tools/compact-guard" --dir '/my snaps' precompact --state-file NOTES.md '--keep=7'`, "5", "5"},
		{"exec-form words quoted", "PreCompact",
			`~/bin/compact-guard precompact --no-redact`,
			`"/opt/tools/compact-guard" precompact --no-redact`, "600", "600"},
		{"precompact timeout too short", "PreCompact",
			`/old/compact-guard precompact --keep 3`, `"/opt/tools/compact-guard" precompact --keep 3`, "4", "60"},
		{"timeout in milliseconds", "SessionStart",
			`/old/compact-guard postcompact --max-age 1h`, `"/opt/tools/compact-guard" postcompact --max-age 1h`, "15000", "15"},
		{"short postcompact timeout kept", "SessionStart",
			`/old/compact-guard postcompact --lang ru`, `"/opt/tools/compact-guard" postcompact --lang ru`, "1", "1"},
		{"timeout not a number", "SessionStart",
			`/old/compact-guard postcompact`, `"/opt/tools/compact-guard" postcompact`, `"30"`, "15"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			matcher := map[string]string{"PreCompact": "manual|auto", "SessionStart": "compact"}[c.event]
			in := fmt.Sprintf(`{"hooks": {%q: [{"matcher": %q, "hooks": [{"type": "command", "command": %q, "timeout": %s}]}]}}`,
				c.event, matcher, c.in, c.timeoutIn)
			d := mustParse(t, in)
			changes, err := d.Install(instExe, "", Carry{Own: true})
			if err != nil {
				t.Fatal(err)
			}
			h := ourEntry(t, d, c.event)
			if h.Command != c.want {
				t.Errorf("command %s\n want %s\nchanges: %v", h.Command, c.want, changes)
			}
			if h.Timeout != c.timeoutOut {
				t.Errorf("timeout %s, want %s", h.Timeout, c.timeoutOut)
			}
			// The same words reach the shell, the program aside.
			withoutProgram := func(cmdline string) []string {
				words, _ := wordTexts(cmdline)
				return words[1:]
			}
			if a, b := withoutProgram(c.in), withoutProgram(c.want); !reflect.DeepEqual(a, b) {
				t.Errorf("arguments changed: %q -> %q", a, b)
			}

			// spec: IN-7 — and again: nothing to do.
			before := d.Bytes()
			if changes, err := d.Install(instExe, "", Carry{Own: true}); err != nil || len(changes) != 0 || !bytes.Equal(before, d.Bytes()) {
				t.Errorf("second install changed the file: %v %v", err, changes)
			}
		})
	}
}

// spec: IN-6
func TestInstallExecFormArgsBecomeShellWords(t *testing.T) {
	in := `{"hooks": {"PreCompact": [{"matcher": "manual|auto", "hooks": [{"type": "command", "command": "/old/compact-guard", "args": ["--dir", "/a b/$x", "precompact", "--keep", "9"], "timeout": 60}]}]}}`
	d := mustParse(t, in)
	if _, err := d.Install(instExe, "", Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	h := ourEntry(t, d, "PreCompact")
	want := `"/opt/tools/compact-guard" --dir '/a b/$x' precompact --keep 9`
	if h.Command != want || h.ExecArgs != nil {
		t.Errorf("command %s (args %v), want %s", h.Command, h.ExecArgs, want)
	}
	words, _ := wordTexts(want)
	if w := []string{instExe, "--dir", "/a b/$x", "precompact", "--keep", "9"}; !reflect.DeepEqual(words, w) {
		t.Errorf("words %q, want %q", words, w)
	}
}

// spec: IN-6, IN-21
// An entry whose program is named compact-guard but which runs more than
// compact-guard and its flags is the user's: install leaves it as it is
// and adds its own, uninstall leaves it too.
func TestInstallLeavesForeignEntriesAlone(t *testing.T) {
	for _, c := range []struct{ name, handler, why string }{
		{"a tail", `{"type": "command", "command": "compact-guard precompact && notify", "timeout": 60}`, "more than compact-guard"},
		{"environment words", `{"type": "command", "command": "COMPACT_GUARD_DIR=/x ~/bin/compact-guard precompact --no-redact", "timeout": 60}`, "sets COMPACT_GUARD_DIR="},
		{"a redirection", `{"type": "command", "command": "/old/compact-guard precompact 2>/dev/null"}`, "redirects"},
		{"an expansion", `{"type": "command", "command": "$HOME/bin/compact-guard precompact --state-file \"$NAME\""}`, "the shell reads something into"},
		{"an exec-form argument no shell word holds", `{"type": "command", "command": "/old/compact-guard", "args": ["precompact", "--state-file", "a\u0001b"]}`, "cannot be written as a shell word"},
		{"an unknown flag", `{"type": "command", "command": "/old/compact-guard precompact --bogus"}`, "--bogus is not a flag"},
		{"an if condition", `{"type": "command", "command": "/old/compact-guard precompact", "if": "x"}`, `"if"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := `{"hooks": {"PreCompact": [{"matcher": "manual|auto", "hooks": [` + c.handler + `]}]}}`
			d := mustParse(t, in)
			var foreign []Entry
			for _, e := range d.Entries(instExe) {
				if !e.Installed() {
					foreign = append(foreign, e)
				}
			}
			if len(foreign) != 1 || !strings.Contains(foreign[0].Unmanaged, c.why) {
				t.Fatalf("foreign entries %+v, want one saying %q", foreign, c.why)
			}
			if _, err := d.Install(instExe, "", Carry{Own: true}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(d.Bytes()), c.handler) {
				t.Errorf("install changed the foreign entry:\n%s", d.Bytes())
			}
			n := 0
			for _, e := range d.Entries(instExe) {
				if e.Event == "PreCompact" && e.Installed() && e.Command == Command(instExe, "precompact") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d entries of install's under PreCompact, want 1:\n%s", n, d.Bytes())
			}
			d.Uninstall(instExe)
			jsonEqual(t, d.Bytes(), []byte(in))
		})
	}
}

// spec: IN-6
func TestInstallFixesMatcher(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{
			name: "own group gets our matcher",
			in:   `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"compact-guard postcompact","timeout":15}]}]}}`,
			want: `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"\"/opt/tools/compact-guard\" postcompact","timeout":15}],"matcher":"compact"}]}}`,
		},
		{
			name: "shared group keeps its matcher, ours moves out",
			in:   `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"},{"type":"command","command":"\"/opt/tools/compact-guard\" postcompact","timeout":15}]}]}}`,
			want: `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"command","command":"echo hi"}]},{"matcher":"compact","hooks":[{"type":"command","command":"\"/opt/tools/compact-guard\" postcompact","timeout":15}]}]}}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := mustParse(t, c.in)
			if _, err := d.Install(instExe, "", Carry{Own: true}); err != nil {
				t.Fatal(err)
			}
			var got struct{ Hooks map[string]any }
			if err := json.Unmarshal(d.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			// The last group is watch's (matcher "resume"): not this test's.
			groups := got.Hooks["SessionStart"].([]any)
			sessionStart, _ := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": groups[:len(groups)-1]}})
			jsonEqual(t, sessionStart, []byte(c.want))
		})
	}
}

// spec: IN-12, IN-21
func TestUninstallRemovesOnlyOurs(t *testing.T) {
	in := `{"hooks":{
  "Stop":[],
  "PreCompact":[{"matcher":"manual|auto","hooks":[{"type":"command","command":"echo keep"},{"type":"command","command":"\"/x/compact-guard\" precompact"}]}],
  "SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"C:/Tools/compact-guard.exe postcompact"}]},{"matcher":"startup","hooks":[]}],
  "Notification":[{"hooks":[{"type":"command","command":"notify compact-guard precompact"},{"type":"command","command":"/x/not-compact-guard precompact"},{"type":"http","command":"/x/compact-guard precompact"}]}]
}}`
	want := `{"hooks":{
  "Stop":[],
  "PreCompact":[{"matcher":"manual|auto","hooks":[{"type":"command","command":"echo keep"}]}],
  "SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"C:/Tools/compact-guard.exe postcompact"}]},{"matcher":"startup","hooks":[]}],
  "Notification":[{"hooks":[{"type":"command","command":"notify compact-guard precompact"},{"type":"command","command":"/x/not-compact-guard precompact"},{"type":"http","command":"/x/compact-guard precompact"}]}]
}}`
	d := mustParse(t, in)
	// The unquoted Windows path is not one install writes (IN-21): it stays.
	if ch := d.Uninstall(""); len(ch) != 1 {
		t.Errorf("removed %d handlers, want 1: %v", len(ch), ch)
	}
	jsonEqual(t, d.Bytes(), []byte(want))
}

// spec: IN-6, WA-1
func TestInstallWatchMatchers(t *testing.T) {
	// Events that take no matcher get no matcher key; a group of ours with
	// none, "" or "*" is left as it is where the registration matches all.
	d := mustParse(t, `{}`)
	if _, err := d.Install(instExe, "", Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hooks map[string][]map[string]any
	}
	if err := json.Unmarshal(d.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for ev, want := range map[string]any{"UserPromptSubmit": nil, "Stop": nil, "PostToolUse": "*"} {
		g := got.Hooks[ev]
		if len(g) != 1 || g[0]["matcher"] != want || !strings.HasSuffix(fmt.Sprint(g[0]["hooks"]), "watch timeout:10 type:command]]") {
			t.Errorf("%s: %v", ev, g)
		}
	}
	if ss := got.Hooks["SessionStart"]; len(ss) != 2 || ss[1]["matcher"] != "resume" {
		t.Errorf("SessionStart: %v", ss)
	}
	for _, in := range []string{
		`{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"\"/opt/tools/compact-guard\" watch --stop-gate","timeout":10}]}]}}`,
		`{"hooks":{"PostToolUse":[{"matcher":"","hooks":[{"type":"command","command":"\"/opt/tools/compact-guard\" watch","timeout":10}]}]}}`,
		`{"hooks":{"Stop":[{"matcher":"*","hooks":[{"type":"command","command":"\"/opt/tools/compact-guard\" watch --stop-gate","timeout":10}]}]}}`,
	} {
		d := mustParse(t, in)
		changes, err := d.Install(instExe, "", Carry{Own: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			if c.Hook.Sub == "watch" && c.Verb != "added" {
				t.Errorf("%s: install changed a watch entry that matches all: %v", in, c)
			}
		}
	}
}

// spec: DR-4
func TestMatcherMatches(t *testing.T) {
	for _, c := range []struct {
		m, v string
		want bool
	}{
		{"", "auto", true}, {"*", "compact", true}, {"manual|auto", "auto", true}, {"manual, auto", "auto", true},
		{"manual", "auto", false}, {"compact", "compaction", false}, {"comp.*", "compact", true}, {"^startup$", "compact", false},
	} {
		if got, _ := MatcherMatches(c.m, c.v); got != c.want {
			t.Errorf("matcher %q on %q: %v", c.m, c.v, got)
		}
	}
}

// spec: IN-18
func TestInstallLeavesOutEventsTheClientDoesNotKnow(t *testing.T) {
	events := func(d *Document) []string {
		var out []string
		for _, e := range d.Entries(instExe) {
			out = append(out, e.Event)
		}
		return out
	}
	for _, c := range []struct {
		client string
		want   []string
	}{
		{"", []string{"PreCompact", "SessionStart", "SessionStart", "PostCompact", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}},
		{"2.1.76", []string{"PreCompact", "SessionStart", "SessionStart", "PostCompact", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}},
		{"2.1.328", []string{"PreCompact", "SessionStart", "SessionStart", "PostCompact", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}},
		{"2.1.75", []string{"PreCompact", "SessionStart", "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}},
		{"2.0.76", []string{"PreCompact", "SessionStart", "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}},
		{"2.0.56", []string{"PreCompact", "SessionStart", "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}},
		{"2.0.55", []string{"PreCompact", "SessionStart", "SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}},
	} {
		d := mustParse(t, `{}`)
		if _, err := d.Install(instExe, c.client, Carry{Own: true}); err != nil {
			t.Fatal(err)
		}
		if got := events(d); !reflect.DeepEqual(got, c.want) {
			t.Errorf("client %q: registered %v, want %v", c.client, got, c.want)
		}
	}
	// Installed for a newer release, then for an older one: our PostCompact
	// goes, with the reason, and nothing else of the file changes.
	d := mustParse(t, `{"model": "x"}`)
	if _, err := d.Install(instExe, "", Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	changes, err := d.Install(instExe, "2.0.76", Carry{Own: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Verb != "removed" || changes[0].Hook.Event != "PostCompact" || !strings.Contains(changes[0].What, "2.0.76") {
		t.Errorf("changes = %v", changes)
	}
	if got := events(d); !reflect.DeepEqual(got, []string{"PreCompact", "SessionStart", "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}) {
		t.Errorf("registered %v", got)
	}
	if changes, _ := d.Install(instExe, "2.0.76", Carry{Own: true}); len(changes) != 0 {
		t.Errorf("second install changed %v", changes)
	}
}
