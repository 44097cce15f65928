package settings

import (
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spec: IN-20 (the hash is SHA-256; sum256 stands in for crypto/sha256,
// which PF-15 keeps out of the binary)
func TestSum256MatchesCryptoSHA256(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		if got, want := sum256(data), sha256.Sum256(data); got != want {
			t.Fatalf("%d bytes: %x, want %x", n, got, want)
		}
	}
}

// spec: IN-20 (hashes as Codex CLI 0.169.0 reports them: codex app-server
// hooks/list "currentHash" for these hooks.json handlers, measured
// 2026-12-01; non-ASCII and U+2028 unescaped, a tab escaped,
// statusMessage included, a missing timeout counted as 600)
func TestTrustHashAsCodexReportsIt(t *testing.T) {
	str := func(s string) *string { return &s }
	cases := []struct {
		h    Handler
		want string
	}{
		{Handler{Event: "UserPromptSubmit", Type: "command", Command: "REC_DIR=/tmp/probe15/c1/rec /tmp/probe15/rec.py", Timeout: 30},
			"sha256:6a81851e91285d6e7027c1bd285cd2b40872f667ed458af1aaef42af748a27a3"},
		{Handler{Event: "Stop", Type: "command", Command: "REC_DIR=/tmp/probe15/c1/rec /tmp/probe15/rec.py", Timeout: 30},
			"sha256:a1f45d2d9f4401c41d68b79a5292e7ec97e8fe52914cd98f5b90a13d8e108d06"},
		{Handler{Event: "PreCompact", Matcher: str("manual|auto"), Type: "command",
			Command: "\"/tmp/проект демо/compact-guard\" precompact <x> & 'y' \u2028 é\t", Timeout: 60},
			"sha256:144f2875f1e4e92095c8e35348c8ba5e2b0a7ce2f3cd6d14ada0167b8e4043ce"},
		{Handler{Event: "SessionStart", Matcher: str("compact"), Type: "command", Command: "/x/compact-guard postcompact", StatusMessage: str("saving")},
			"sha256:c7d6e4e5c40e2f392503cbd943639d7bde59a57ab09e484e8e68b294cc900451"},
	}
	for _, c := range cases {
		if got := c.h.TrustHash(); got != c.want {
			t.Errorf("%s %q: %s, want %s", c.h.Event, c.h.Command, got, c.want)
		}
	}
	h := Handler{Event: "PreCompact", Group: 2, Index: 1}
	if k := h.TrustKey("/h/.codex/hooks.json"); k != "/h/.codex/hooks.json:pre_compact:2:1" {
		t.Errorf("key %q", k)
	}
}

// codexInstall runs install's two edits on a hooks file and a config.toml
// in dir, as cmd does, and returns the config's bytes.
func codexEdit(t *testing.T, dir string, uninstall bool) (*Result, *TrustResult) {
	t.Helper()
	hooks := filepath.Join(dir, "hooks.json")
	var plan TrustPlan
	res, err := Edit{Agent: AgentCodex, Path: hooks, Now: time.Now, DirPerm: 0o700, MustExist: uninstall, Backups: filepath.Join(dir, "backups"),
		Change: func(d *Document) ([]Change, error) {
			before := d.Handlers(testExe)
			var ch []Change
			var err error
			if uninstall {
				ch = d.Uninstall(testExe)
			} else {
				ch, err = d.Install(testExe, "", Carry{Own: true})
			}
			plan = PlanTrust(hooks, before, d.Handlers(testExe))
			return ch, err
		}}.Apply()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := TrustEdit{Path: filepath.Join(dir, "config.toml"), Plan: plan, Now: time.Now, Backups: filepath.Join(dir, "backups")}.Apply()
	if err != nil {
		t.Fatal(err)
	}
	return res, tr
}

const testExe = "/opt/bin/compact-guard"

// spec: IN-20 (trust written for each handler of ours at its key, the rest
// of config.toml byte for byte; idempotent; uninstall gives the original
// back)
func TestCodexTrustInstallUninstall(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	orig := "# my codex config\nmodel = \"gpt-5.5\" # the model\n\n[model_providers.fake]\nname = 'fake'\n"
	if err := os.WriteFile(cfg, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	_, tr := codexEdit(t, dir, false)
	if len(tr.Trusted) != 3 || tr.Backup == "" {
		t.Fatalf("trusted %v backup %q", tr.Trusted, tr.Backup)
	}
	got, _ := os.ReadFile(cfg)
	if !strings.HasPrefix(string(got), orig+"\n[hooks.state.") {
		t.Fatalf("config.toml:\n%s", got)
	}
	c, err := ReadTrustConfig(got)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "hooks.json"))
	doc, _ := ParseFor(AgentCodex, data)
	hs := doc.Handlers(testExe)
	if len(hs) != 3 {
		t.Fatalf("handlers %v", hs)
	}
	for _, h := range hs {
		if st := c.Hooks.State[h.TrustKey(filepath.Join(dir, "hooks.json"))]; st.TrustedHash != h.TrustHash() {
			t.Errorf("%s: trusted %q, want %q", h.Event, st.TrustedHash, h.TrustHash())
		}
	}

	res, tr := codexEdit(t, dir, false)
	if len(res.Changes) != 0 || tr.Changed() || tr.Backup != "" {
		t.Errorf("second install changed %v %v", res.Changes, tr)
	}
	if again, _ := os.ReadFile(cfg); string(again) != string(got) {
		t.Errorf("second install rewrote config.toml")
	}

	_, tr = codexEdit(t, dir, true)
	if len(tr.Untrusted) != 3 {
		t.Errorf("uninstall untrusted %v", tr.Untrusted)
	}
	if back, _ := os.ReadFile(cfg); string(back) != orig {
		t.Errorf("after uninstall:\n%q\nwant\n%q", back, orig)
	}
}

// spec: IN-20 (a foreign handler whose place changes keeps its state; a
// stale hash of ours is replaced in place; CRLF kept; dotted-key state is
// refused)
func TestCodexTrustEdits(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.json")
	json := `{"hooks": {"PreCompact": [
  {"matcher": "auto", "hooks": [{"type": "command", "command": "/opt/bin/compact-guard precompact", "timeout": 60}, {"type": "command", "command": "/usr/bin/other"}]}
]}}
`
	if err := os.WriteFile(hooks, []byte(json), 0o600); err != nil {
		t.Fatal(err)
	}
	k := func(g, h int) string {
		return hooks + ":pre_compact:" + string(rune('0'+g)) + ":" + string(rune('0'+h))
	}
	cfg := "a = 1\r\n\r\n[hooks.state." + tomlKey(k(0, 1)) + "]\r\ntrusted_hash = \"sha256:other\" # theirs\r\nenabled = true\r\n\r\n[hooks.state." + tomlKey(k(0, 0)) + "]\r\ntrusted_hash = \"sha256:stale\"\r\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	_, tr := codexEdit(t, dir, false)
	got, _ := os.ReadFile(filepath.Join(dir, "config.toml"))
	c, err := ReadTrustConfig(got)
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	// Ours moved out of the foreign group to a group of its own (IN-6):
	// the foreign handler is now 0:0 and keeps its state there.
	if st := c.Hooks.State[k(0, 0)]; st.TrustedHash != "sha256:other" || st.Enabled == nil || !*st.Enabled {
		t.Errorf("foreign state %+v in\n%s", st, got)
	}
	if _, ok := c.Hooks.State[k(0, 1)]; ok {
		t.Errorf("old key of the moved foreign handler stays:\n%s", got)
	}
	if !strings.Contains(string(got), "# theirs\r\n") || strings.Contains(strings.ReplaceAll(string(got), "\r\n", ""), "\n") {
		t.Errorf("comment or CRLF lost:\n%q", got)
	}
	if len(tr.Moved) != 1 {
		t.Errorf("moved %v", tr.Moved)
	}

	dotted := "[hooks]\nstate." + tomlKey(k(0, 0)) + ".trusted_hash = \"x\"\n"
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(dotted), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := TrustPlan{Set: map[string]string{k(0, 0): "sha256:y"}}
	if _, err := (TrustEdit{Path: filepath.Join(dir, "config.toml"), Plan: plan, Now: time.Now, Backups: filepath.Join(dir, "backups")}).Apply(); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("dotted form: %v", err)
	}
	if _, err := (TrustEdit{Path: filepath.Join(dir, "config.toml"), Plan: plan, Now: time.Now, Backups: filepath.Join(dir, "backups")}).Apply(); err == nil {
		t.Error("no error")
	}
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("a = \n"), 0o600)
	if _, err := (TrustEdit{Path: bad, Plan: plan, Now: time.Now, Backups: filepath.Join(dir, "backups")}).Apply(); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("invalid TOML: %v", err)
	}
}

// spec: IN-19 (Qwen Code's settings may hold comments, which stay; a
// trailing comma is still invalid)
func TestQwenSettingsComments(t *testing.T) {
	data := []byte("{\n  // the model\n  \"model\": {\"name\": \"q\"}, /* more */\n  \"x\": \"// not a comment\"\n}\n")
	if _, err := Parse(data); err == nil {
		t.Error("Claude Code settings with comments parsed")
	}
	d, err := ParseFor(AgentQwen, data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Install(testExe, "", Carry{Own: true}); err != nil {
		t.Fatal(err)
	}
	out := string(d.Bytes())
	if !strings.Contains(out, "// the model") || !strings.Contains(out, "/* more */") || !strings.Contains(out, `"PreCompact"`) {
		t.Errorf("after install:\n%s", out)
	}
	if _, err := ParseFor(AgentQwen, []byte(`{"a": 1,}`)); err == nil {
		t.Error("trailing comma accepted")
	}
}

// spec: IN-19
func TestAgentPaths(t *testing.T) {
	h := Host{
		Getenv: func(k string) string { return map[string]string{"QWEN_HOME": "/q"}[k] },
		Home:   func() (string, error) { return "/home/u", nil },
		Getwd:  func() (string, error) { return "/work/p", nil },
	}
	abs := func(p string) string { a, _ := filepath.Abs(filepath.FromSlash(p)); return a }
	for _, c := range []struct {
		a     Agent
		scope string
		want  string
	}{
		{AgentCodex, ScopeUser, filepath.FromSlash("/home/u/.codex/hooks.json")},
		{AgentCodex, ScopeProject, filepath.FromSlash("/work/p/.codex/hooks.json")},
		{AgentQwen, ScopeUser, abs("/q/settings.json")},
		{AgentQwen, ScopeProject, filepath.FromSlash("/work/p/.qwen/settings.json")},
	} {
		if got, err := AgentPathFor(c.a, c.scope, "", h); err != nil || got != c.want {
			t.Errorf("%s %s: %q %v, want %q", c.a, c.scope, got, err, c.want)
		}
	}
	if _, err := AgentPathFor(AgentCodex, ScopeLocal, "", h); err == nil {
		t.Error("codex local scope accepted")
	}
}
