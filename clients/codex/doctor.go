package codex

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/compact-guard/compact-guard/settings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// What doctor says about trust (specs/install.md DR-15, DR-18): a handler
// counts as install's only when it is one install writes (IN-21); Codex runs
// whatever config.toml trusts, so a trusted handler that names compact-guard
// and is not install's is a failure, whoever trusted it.

// Codex CLI's own doctor checks: only the handlers install can trust count
// for coverage, and config.toml must trust each of them (DR-15, DR-18).
func init() {
	Settings.Doctor = settings.ClientChecks{
		Counted: runnable,
		Last:    func(env settings.DoctorEnv) []health.Result { return checkCodexTrust(env) },
	}
}

// checkCodexTrust checks that Codex will run each hook install wrote, and
// nothing else that names compact-guard (DR-15, DR-18): hooks are on; each
// handler install writes for this binary is trusted with the hash of what
// the file says now; a handler that names compact-guard but is not one
// install writes is not trusted; a project's file is in a trusted project.
// Codex skips an untrusted or changed hook without a word.
func checkCodexTrust(env settings.DoctorEnv) []health.Result {
	h, exe := env.Host, env.Exe
	home, err := Home(h)
	if err != nil {
		return []health.Result{{Status: health.Fail, Text: "Codex trust: " + err.Error()}}
	}
	path := filepath.Join(home, "config.toml")
	data, _, err := settings.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return []health.Result{{Status: health.Fail, Text: fmt.Sprintf("Codex config %s cannot be read: %v", path, err),
			Fix: settings.UnreadableFix(path, err) + ", then run 'compact-guard install --agent codex'"}}
	}
	cfg, err := settings.ReadTrustConfig(data)
	if err != nil {
		return []health.Result{{Status: health.Fail, Text: fmt.Sprintf("Codex config %s: %v", path, err),
			Fix: "correct " + path + " by hand: Codex does not start with a config it cannot parse"}}
	}
	var out []health.Result
	if cfg.Features.Hooks != nil && !*cfg.Features.Hooks {
		out = append(out, health.Result{Status: health.Fail, Text: fmt.Sprintf("Codex config %s: features.hooks is false: Codex runs no hook", path),
			Fix: "remove 'hooks = false' from [features] in " + path})
	}
	for _, src := range settings.DefaultSources(Name, h) {
		data, _, err := settings.ReadFile(src.Path)
		if err != nil {
			continue // checkSettings reports it
		}
		doc, err := settings.ParseFor(Name, data)
		if err != nil {
			continue
		}
		ours := false
		for _, x := range doc.Handlers(exe) {
			ours = ours || x.Ours
			if c, ok := codexHandlerTrust(src, path, cfg, x, env.DefaultKeep); ok {
				out = append(out, c)
			}
		}
		if ours && src.Scope == settings.ScopeProject {
			if proj := filepath.Dir(filepath.Dir(src.Path)); !cfg.TrustsProject(proj) {
				out = append(out, health.Result{Status: health.Fail, Text: fmt.Sprintf("%s is in a project Codex does not trust: it does not load it", src.Path),
					Fix: fmt.Sprintf("trust %s when Codex asks, or set trust_level = \"trusted\" under [projects.%q] in %s", proj, proj, path)})
			}
		}
	}
	return out
}

// codexHandlerTrust judges one handler of a Codex hooks file against
// config.toml; ok is false when there is nothing to say (a handler that
// does not name compact-guard).
func codexHandlerTrust(src settings.Source, cfgPath string, cfg *settings.TrustConfig, x settings.Handler, defaultKeep int) (health.Result, bool) {
	key := x.TrustKey(src.Path)
	st, has := cfg.Hooks.State[key]
	hashed := has && st.TrustedHash == x.TrustHash()
	runs := hashed && (st.Enabled == nil || *st.Enabled)
	switch {
	case x.Exact && (!has || st.TrustedHash == ""):
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("%s [%s] is not trusted in %s: Codex skips it without a word", x.Event, key, cfgPath), Fix: trustFix(src, x)}, true
	case x.Exact && !hashed:
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("%s [%s] changed since it was trusted in %s: Codex skips it as modified", x.Event, key, cfgPath), Fix: trustFix(src, x)}, true
	case x.Exact && !runs:
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("%s [%s] is disabled in %s", x.Event, key, cfgPath), Fix: "remove 'enabled = false' from its [hooks.state] table"}, true
	case x.Exact && src.Scope == settings.ScopeProject && len(x.Flags()) > 0:
		return projectFlagsCheck(src, cfgPath, key, x, defaultKeep), true
	case x.Exact:
		return health.Result{Status: health.OK, Text: fmt.Sprintf("%s [%s] trusted in %s", x.Event, key, cfgPath)}, true
	case !x.NamesCompactGuard():
		return health.Result{}, false
	case runs:
		// DR-18: Codex runs it, and it is not what install writes — what a
		// hostile repository commits and an earlier install trusted.
		why := x.Foreign
		if why == "" {
			why = "it does not run compact-guard as its program"
		}
		return health.Result{Status: health.Fail,
			Text: fmt.Sprintf("%s [%s] %q is trusted in %s, but it is not a handler install writes (%s): Codex runs it", x.Event, key, x.Command, cfgPath, why),
			Fix:  settings.InstallFix(src) + " (it removes that trust), or remove the [hooks.state." + fmt.Sprintf("%q", key) + "] table from " + cfgPath}, true
	case x.Ours && x.Unmanaged != "":
		return health.Result{Status: health.Warn,
			Text: fmt.Sprintf("%s [%s] %q is not trusted, and install trusts only the handlers it writes (%s): Codex skips it", x.Event, key, x.Command, x.Unmanaged),
			Fix:  "remove it from " + src.Path + " (install registers one of its own)"}, true
	case x.Ours:
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("%s [%s] is not trusted in %s: Codex skips it without a word", x.Event, key, cfgPath), Fix: trustFix(src, x)}, true
	}
	return health.Result{}, false
}

// runnable are the registrations that can run on agent: on Codex only
// those install writes or can make its own, since Codex runs no hook it
// does not trust and install trusts only its own (IN-21).
func runnable(regs []settings.Registration) []settings.Registration {
	var out []settings.Registration
	for _, r := range regs {
		if r.Entry.Unmanaged == "" {
			out = append(out, r)
		}
	}
	return out
}

// trustFix is install's fix for a handler install writes that Codex does
// not run as it stands: for a project's handler with flags it says that
// install writes its own handler without them (IN-31), since a project's
// flags are carried over only from a handler config.toml trusts.
func trustFix(src settings.Source, x settings.Handler) string {
	fix := settings.InstallFix(src)
	if flags := flagTexts(x.Flags()); src.Scope == settings.ScopeProject && flags != "" {
		fix += " (it writes its own handler there, without " + flags + ")"
	}
	return fix
}

// projectFlagsCheck judges a handler of a project's hooks file that Codex
// runs and that carries flags (DR-26): the file may come from anyone, and
// versions before IN-31 trusted a committed handler's flags along with it.
// A flag that loses or leaks the user's snapshots beyond this project
// fails; any other is a warning.
func projectFlagsCheck(src settings.Source, cfgPath, key string, x settings.Handler, defaultKeep int) health.Result {
	flags := x.Flags()
	var risks []string
	for _, f := range flags {
		if r := repoFlagRisk(f, defaultKeep); r != "" {
			risks = append(risks, r)
		}
	}
	fix := "run 'compact-guard uninstall" + src.Agent.Flag() + " --scope " + src.Scope + "', then 'compact-guard install" + src.Agent.Flag() + " --scope " + src.Scope +
		"' in the project folder (install writes and trusts its own handlers, without these flags)"
	if len(risks) > 0 {
		return health.Result{Status: health.Fail,
			Text: fmt.Sprintf("%s [%s] is trusted in %s and runs with %s from a project's file, which may come from anyone: %s", x.Event, key, cfgPath, flagTexts(flags), strings.Join(risks, "; ")),
			Fix:  fix}
	}
	return health.Result{Status: health.Warn,
		Text: fmt.Sprintf("%s [%s] is trusted in %s and runs with %s from a project's file, which may come from anyone: check that they are yours", x.Event, key, cfgPath, flagTexts(flags)),
		Fix:  "unless you chose them, " + fix}
}

// repoFlagRisk says what flag f, given by a project's file, does to the
// user's snapshots beyond that project (DR-26), "" for a flag that loses
// and leaks nothing.
func repoFlagRisk(f settings.Flag, defaultKeep int) string {
	switch f.Name {
	case "--keep":
		n, err := strconv.Atoi(f.Value)
		if err != nil {
			return f.Text + " decides how many snapshots of every project are kept"
		}
		switch {
		case n == 1:
			return fmt.Sprintf("%s deletes all but the newest snapshot, of every project, from the folder they share (the default keeps %d)", f.Text, defaultKeep)
		case n < defaultKeep:
			return fmt.Sprintf("%s deletes all but the newest %d snapshots, of every project, from the folder they share (the default keeps %d)", f.Text, n, defaultKeep)
		}
	case "--dir":
		return f.Text + " puts the snapshots where the file says (inside the repository, they would be committed)"
	case "--no-redact":
		if f.Value != "false" {
			return f.Text + " writes secrets into the snapshots verbatim"
		}
	}
	return ""
}

// flagTexts lists flags as the command writes them.
func flagTexts(flags []settings.Flag) string {
	texts := make([]string, len(flags))
	for i, f := range flags {
		texts[i] = f.Text
	}
	return strings.Join(texts, " ")
}
