package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/compact-guard/compact-guard/clients/codex"
	"github.com/compact-guard/compact-guard/clients/qwen"
	"github.com/compact-guard/compact-guard/settings"
)

// Tests of whose flags install carries over (specs/install.md IN-6, IN-31)
// and of what doctor says about a trusted Codex handler with flags from a
// project's file (DR-26; security.md SEC-22).

// codexTrust appends to config.toml a trust of handler h of the hooks file
// at path, as an earlier install (or the user) wrote it.
func codexTrust(t *testing.T, cfg, path string, h settings.Handler) {
	t.Helper()
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[hooks.state.%q]\ntrusted_hash = %q\n", h.TrustKey(path), h.TrustHash())
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// codexHandlers reads a Codex hooks file's handlers and config.toml.
func codexHandlers(t *testing.T, d *docEnv, hooks, cfg string) ([]settings.Handler, *settings.TrustConfig) {
	t.Helper()
	doc, err := settings.ParseFor(codex.Name, instRead(t, hooks))
	if err != nil {
		t.Fatal(err)
	}
	c, err := settings.ReadTrustConfig(instRead(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	return doc.Handlers(d.exe), c
}

// spec: IN-6, IN-31, IN-20, DR-26, DR-19, SEC-22
// A project's committed .codex/hooks.json holds a handler in install's
// exact form for this very binary, with a flag that loses, moves or leaks
// the user's snapshots, or one that makes compaction wait or the pointer
// long. install does not trust it as it stands, nor keep its flags: it
// writes its own bare handler in its place, trusts that, and says on
// stderr what it left out. Trusted as an earlier install trusted it,
// doctor does not vouch for it: it fails (or warns, for the flags that lose
// nothing), and its fix, applied, leaves install's own handler.
func TestInstallCodexDoesNotCarryCommittedFlags(t *testing.T) {
	for _, a := range []struct {
		name, event, matcher, sub, words string
		mark                             string // doctor's mark once it is trusted
	}{
		{"keep", "PreCompact", "manual|auto", "precompact", "precompact --keep 1", "[FAIL]"},
		{"dir", "PreCompact", "manual|auto", "precompact", "--dir SNAPS precompact", "[FAIL]"},
		{"noredact", "PreCompact", "manual|auto", "precompact", "precompact --no-redact", "[FAIL]"},
		{"timeout", "PreCompact", "manual|auto", "precompact", "precompact --timeout 10m", "[warn]"},
		{"maxchars", "SessionStart", "compact", "postcompact", "postcompact --max-chars 9000", "[warn]"},
	} {
		t.Run(a.name, func(t *testing.T) {
			d := newDocEnv(t)
			d.agent = codex.Name
			hooks := filepath.Join(d.proj, ".codex", "hooks.json")
			cfg := filepath.Join(d.home, ".codex", "config.toml")
			words := strings.ReplaceAll(a.words, "SNAPS", filepath.Join(d.proj, "snaps"))
			flags := strings.TrimSpace(strings.Replace(words, a.sub, "", 1))
			attack := settings.QuotePath(d.exe) + " " + words
			committed := codexHooksWith(a.event, a.matcher, attack)
			d.write(hooks, committed)
			d.write(cfg, fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", d.proj))
			hs, _ := codexHandlers(t, d, hooks, cfg)
			if len(hs) != 1 || !hs[0].Exact {
				t.Fatalf("the committed handler is not in install's exact form: %+v", hs)
			}
			key := hs[0].TrustKey(hooks)
			// DR-15: untrusted, doctor's fix is install, which says it
			// leaves the flags out.
			report, _ := d.run()
			if fix := docFix(t, report, "[FAIL]", key, "is not trusted"); fix != "run 'compact-guard install --agent codex --scope project' in the project folder (it writes its own handler there, without "+flags+")" {
				t.Errorf("doctor's fix for the untrusted committed handler: %q", fix)
			}

			_, errOut, code := d.setup(false, "--agent", "codex", "--scope", "project")
			if code != ExitOK {
				t.Fatalf("install: exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, "without "+flags) || !strings.Contains(errOut, "is not trusted as it stands") {
				t.Errorf("install does not say that it left out %s:\n%s", flags, errOut)
			}
			hs, c := codexHandlers(t, d, hooks, cfg)
			for _, h := range hs {
				trusted := c.Hooks.State[h.TrustKey(hooks)].TrustedHash == h.TrustHash()
				if strings.Contains(h.Command, flags) {
					t.Errorf("install kept %q (trusted: %v)", h.Command, trusted)
				}
				if h.TrustKey(hooks) == key && (h.Command != settings.Command(d.exe, a.sub) || !trusted) {
					t.Errorf("at %s: %q trusted %v, want install's own %q, trusted", key, h.Command, trusted, settings.Command(d.exe, a.sub))
				}
			}
			report, _ = d.run()
			if l := docLine(report, key); !strings.Contains(l, "[ok]") || strings.Contains(l, flags) {
				t.Errorf("doctor after install:\n%s", l)
			}

			// An earlier install trusted it as it stood: Codex runs it.
			// doctor does not say it is fine, and its fix works.
			d.write(hooks, committed)
			d.write(cfg, fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", d.proj))
			hs, _ = codexHandlers(t, d, hooks, cfg)
			codexTrust(t, cfg, hooks, hs[0])
			report, code = d.run()
			l := docLine(report, key, flags)
			if !strings.HasPrefix(strings.TrimSpace(l), a.mark) || strings.Contains(report, "[ok] "+a.event+" ["+key+"] trusted") {
				t.Fatalf("doctor on the trusted committed handler: want %s, got:\n%s", a.mark, report)
			}
			if a.mark == "[FAIL]" && code != ExitFailure {
				t.Errorf("doctor: exit %d, want %d", code, ExitFailure)
			}
			fix := docFix(t, report, key, flags)
			d.apply(fix)
			hs, c = codexHandlers(t, d, hooks, cfg)
			for _, h := range hs {
				if strings.Contains(h.Command, flags) {
					t.Errorf("after the fix %q: %q is still there", fix, h.Command)
				}
				if strings.HasSuffix(h.Command, " "+a.sub) && c.Hooks.State[h.TrustKey(hooks)].TrustedHash != h.TrustHash() {
					t.Errorf("after the fix %q: install's own %q is not trusted", fix, h.Command)
				}
			}
			if report, _ := d.run(); strings.Contains(report, flags) || strings.Contains(report, "[FAIL]") {
				t.Errorf("doctor after the fix %q:\n%s", fix, report)
			}
		})
	}
}

// spec: IN-6, IN-31
// The user's own flags stay: in a project's .codex/hooks.json when
// config.toml already trusts that exact handler (install moves it to this
// binary and trusts the result), and in the user's own ~/.codex/hooks.json,
// which only the user writes, even when the user changed it since it was
// trusted.
func TestInstallCodexKeepsTheUsersOwnFlags(t *testing.T) {
	t.Run("project, trusted", func(t *testing.T) {
		d := newDocEnv(t)
		d.agent = codex.Name
		hooks := filepath.Join(d.proj, ".codex", "hooks.json")
		cfg := filepath.Join(d.home, ".codex", "config.toml")
		old := filepath.Join(d.root, "old", "compact-guard")
		d.write(hooks, codexHooksWith("PreCompact", "manual|auto", settings.QuotePath(old)+" precompact --keep 100"))
		d.write(cfg, fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n", d.proj))
		hs, _ := codexHandlers(t, d, hooks, cfg)
		codexTrust(t, cfg, hooks, hs[0])
		_, errOut, code := d.setup(false, "--agent", "codex", "--scope", "project")
		if code != ExitOK {
			t.Fatalf("install: exit %d: %s", code, errOut)
		}
		if !strings.Contains(errOut, "keeps --keep 100") {
			t.Errorf("install does not say which flags of the project's file it kept:\n%s", errOut)
		}
		hs, c := codexHandlers(t, d, hooks, cfg)
		want := settings.QuotePath(d.exe) + " precompact --keep 100"
		if hs[0].Command != want || c.Hooks.State[hs[0].TrustKey(hooks)].TrustedHash != hs[0].TrustHash() {
			t.Errorf("%q trusted %v, want %q trusted", hs[0].Command, c.Hooks.State[hs[0].TrustKey(hooks)], want)
		}
		// Again: nothing to change, and the flags stay.
		out, _, code := d.setup(false, "--agent", "codex", "--scope", "project")
		if hs2, _ := codexHandlers(t, d, hooks, cfg); code != ExitOK || !strings.Contains(out, "already installed") || hs2[0].Command != want {
			t.Errorf("second install: exit %d, %q\n%s", code, hs2[0].Command, out)
		}
	})
	t.Run("user, changed since trusted", func(t *testing.T) {
		d := newDocEnv(t)
		d.agent = codex.Name
		hooks := filepath.Join(d.home, ".codex", "hooks.json")
		cfg := filepath.Join(d.home, ".codex", "config.toml")
		d.write(cfg, "")
		if _, errOut, code := d.setup(false, "--agent", "codex"); code != ExitOK {
			t.Fatalf("install: exit %d: %s", code, errOut)
		}
		b := instRead(t, hooks)
		d.write(hooks, strings.Replace(string(b), " precompact\"", " precompact --keep 100 --no-redact\"", 1))
		_, errOut, code := d.setup(false, "--agent", "codex")
		if code != ExitOK || strings.Contains(errOut, "note:") {
			t.Fatalf("install again: exit %d: %s", code, errOut)
		}
		hs, c := codexHandlers(t, d, hooks, cfg)
		want := settings.QuotePath(d.exe) + " precompact --keep 100 --no-redact"
		if hs[0].Command != want || c.Hooks.State[hs[0].TrustKey(hooks)].TrustedHash != hs[0].TrustHash() {
			t.Errorf("%q, want %q trusted", hs[0].Command, want)
		}
		if report, code := d.run(); code != ExitOK || docLine(report, "[ok]", hs[0].TrustKey(hooks), "trusted") == "" {
			t.Errorf("doctor on the user's own flags: exit %d\n%s", code, report)
		}
	})
}

// spec: IN-6, IN-31, IN-19
// Claude Code and Qwen Code run a project's hooks as the file says, with
// no trust step install could withhold: install keeps a project file's
// flags (a team's shared --keep 100 survives every member's install) and
// says on stderr which it kept, so that the user sees them. Its note on a
// committed file offers Qwen Code no --scope local, which it lacks.
func TestInstallProjectFlagsAreKeptAndNamed(t *testing.T) {
	for _, c := range []struct {
		agent settings.Agent
		file  string
	}{
		{settings.AgentClaude, filepath.Join(".claude", "settings.json")},
		{qwen.Name, filepath.Join(".qwen", "settings.json")},
	} {
		t.Run(string(c.agent), func(t *testing.T) {
			d := newDocEnv(t)
			p := filepath.Join(d.proj, c.file)
			d.write(p, codexHooksWith("PreCompact", "manual|auto", `"/Users/alice/bin/compact-guard" precompact --keep 100`))
			_, errOut, code := d.setup(false, "--agent", string(c.agent), "--scope", "project")
			if code != ExitOK {
				t.Fatalf("install: exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, "PreCompact entry keeps --keep 100") || !strings.Contains(errOut, "runs a project's hooks as the file says") {
				t.Errorf("install does not name the flags it kept:\n%s", errOut)
			}
			if c.agent == qwen.Name && strings.Contains(errOut, "--scope local") {
				t.Errorf("install offers Qwen Code a scope it does not have:\n%s", errOut)
			}
			if want := settings.QuotePath(d.exe) + ` precompact --keep 100`; !strings.Contains(string(instRead(t, p)), strings.ReplaceAll(want, `"`, `\"`)) {
				t.Errorf("the flags are gone:\n%s", instRead(t, p))
			}
		})
	}
}
