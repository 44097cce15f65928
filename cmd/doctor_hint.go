package cmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/take"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// checkHint says, for each PreCompact entry of ours, whether precompact
// prints the summary hint and why (DR-16): --no-hint in the command, else
// COMPACT_GUARD_HINT as the client would hand it to the hook — the "env"
// of the local settings over the project's over the user's (measured,
// PC-31), over the environment doctor runs in, which is the one a client
// started from the same shell inherits.
// envs are the settings files' values of COMPACT_GUARD_HINT, in the order
// doctor read them (user, project, local).
func checkHint(opts *DoctorOptions, regs []settings.Registration, envs []settings.Value) []health.Result {
	var entries []settings.Registration
	for _, r := range regs {
		if r.Entry.Event == "PreCompact" && r.Entry.Sub == "precompact" {
			entries = append(entries, r)
		}
	}
	if len(entries) == 0 {
		return nil
	}
	if !opts.Agent.IsClaude() {
		return []health.Result{{Status: health.Info, Text: fmt.Sprintf("summary hint: not printed for %s, whose PreCompact hook's plain stdout reaches no summarizer (specs/precompact.md PC-32)", opts.Agent.Title())}}
	}
	value, from := opts.Host.Getenv(take.EnvHint), "doctor's environment (a client started from this shell inherits it)"
	set := value != ""
	for _, e := range envs { // the later wins
		value, from, set = e.Value, fmt.Sprintf(`"env" of %s %s`, e.Source.Label, e.Source.Path), true
	}
	var out []health.Result
	for _, r := range entries {
		where := r.Source.Label + " " + r.Source.Path
		if r.Source.Plugin != "" {
			where = "plugin " + r.Source.Plugin
		}
		out = append(out, hintLine(where, r.Entry.Args, value, from, set))
	}
	return out
}

// hintLine is the line for one PreCompact entry with its arguments.
func hintLine(where string, args []string, value, from string, set bool) health.Result {
	ios := &IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	c, rest, err := NewRootCmd(ios).Find(args)
	if err == nil {
		err = c.ParseFlags(rest)
	}
	if err != nil {
		// DR-12 fails the entry; the hook then runs without its flags.
		return health.Result{Status: health.Info, Text: fmt.Sprintf("summary hint (%s): off, the entry's arguments do not parse, and without them the hook prints no hint", where)}
	}
	if off, _ := c.Flags().GetBool("no-hint"); off {
		return health.Result{Status: health.Info, Text: fmt.Sprintf("summary hint (%s): off, --no-hint in the command", where)}
	}
	on, known := take.HintEnv(value)
	switch {
	case !known:
		return health.Result{Status: health.Warn, Text: fmt.Sprintf("summary hint (%s): off, %s=%q in the %s is neither on nor off", where, take.EnvHint, value, from),
			Fix: fmt.Sprintf(`set %s to "on" or "off" there`, take.EnvHint)}
	case !on:
		return health.Result{Status: health.Info, Text: fmt.Sprintf("summary hint (%s): off, %s=%s in the %s", where, take.EnvHint, value, from)}
	case set:
		return health.Result{Status: health.Info, Text: fmt.Sprintf("summary hint (%s): on (%s=%s in the %s); precompact hands Claude Code's summarizer the snapshot's path, the last request, the files in work and the last failing command", where, take.EnvHint, value, from)}
	}
	return health.Result{Status: health.Info, Text: fmt.Sprintf(`summary hint (%s): on; precompact hands Claude Code's summarizer the snapshot's path, the last request, the files in work and the last failing command (off: --no-hint in the command, or "env": {"%s": "off"} in a settings file)`, where, take.EnvHint)}
}
