package cmd

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/hookio"
	"github.com/compact-guard/compact-guard/selectsnap"
	"github.com/compact-guard/compact-guard/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/health"
	"github.com/compact-guard/compact-guard/take"
	"github.com/compact-guard/compact-guard/transcript/textesc"
)

func init() {
	register("doctor", func(ios *IO, g *GlobalOptions) *cobra.Command { return newCmdDoctor(ios, g, nil) })
}

// DoctorOptions are the inputs of "compact-guard doctor".
type DoctorOptions struct {
	IO     *IO
	Global *GlobalOptions
	// NoSelfTest skips the round trip through precompact and postcompact.
	NoSelfTest bool
	// Agent is the client whose hooks files are checked (DR-15).
	Agent settings.Agent

	Executable func() (string, error)
	Host       settings.Host
	Now        func() time.Time
	// SelfTest runs the round trip (doctorSelfTest) for the client
	// checked; tests substitute it.
	SelfTest func(settings.Agent) health.Result
	// ClaudeVersion asks the Claude Code on PATH for its release
	// (claudeVersion); tests substitute it.
	ClaudeVersion func() (version, from string)
	// Backups is where install keeps its backups (IN-8), for a fix that
	// puts one back.
	Backups string
	// Fancy selects ✓ ✗ ! marks (a terminal) over [ok] [FAIL] [warn];
	// Color adds colour to them.
	Fancy, Color bool
}

func newCmdDoctor(ios *IO, g *GlobalOptions, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: ios, Global: g, Executable: selfExecutable, Host: settings.DefaultHost(), Now: time.Now, SelfTest: doctorSelfTest, ClaudeVersion: claudeVersion, Backups: backupsDir()}
	c := &cobra.Command{
		Use:   "doctor [--no-self-test]",
		Short: "Check the setup: hooks, binary, snapshot folder, log, and a round trip",
		Long: `Check that compact-guard will actually run at the next compaction. One line
per check, with a fix where one is needed:

  - this binary's version and path;
  - each settings file Claude Code reads (user, project, local): whether
    PreCompact runs "compact-guard precompact" for manual and auto
    compactions, SessionStart (matcher "compact") and PostCompact run
    "compact-guard postcompact", and whether the command's program exists
    and is executable; the command's flags, parsed as the hook parses
    them (an unknown flag or a bad value makes the hook do nothing;
    --keep below 1; --lang other than en or ru); timeouts that look like
    milliseconds (>= 1000) or are too short (< 5 s for precompact); "if"
    conditions (they stop the hook from running); disableAllHooks; the
    same hook in several files with different commands;
  - installed Claude Code plugins (<config>/plugins/installed_plugins.json,
    <config> being $CLAUDE_CONFIG_DIR or ~/.claude) whose hooks run
    compact-guard: enabled or not, their binary for this machine, and a
    plugin and a settings file registering the same hooks (they fire twice);
  - the snapshot folder (--dir, else $COMPACT_GUARD_DIR, else the default
    that 'compact-guard dir' prints; a --dir in a hook's command is not
    followed): exists (or can be created), writable, mode 0700; how many
    snapshots a PostCompact hook confirmed;
  - failed hook runs in the log during the last 24 hours;
  - a round trip in a temporary folder: a synthetic transcript goes
    through precompact, the snapshot appears on disk, and postcompact's
    pointer names it.

Marks: ✓ ok, ! warning, ✗ failure, · information; when the output is not
a terminal, [ok] [warn] [FAIL] [info]. Colour follows NO_COLOR.
Warnings do not change the exit status.

Settings files read:
` + settingsScopesHelp + ` With CLAUDE_CONFIG_DIR set, ~/.claude/settings.json is read too, to
warn about hooks there that Claude Code does not see. Managed policy
settings are not read.

With --agent codex, ~/.codex/hooks.json (or $CODEX_HOME's) and
./.codex/hooks.json instead, and Codex's config.toml: each hook of
compact-guard's must be trusted there with the hash of its current entry,
or Codex skips it without a word. With --agent qwen, ~/.qwen/settings.json
(or $QWEN_HOME's) and ./.qwen/settings.json. With --agent copilot,
~/.copilot/hooks/compact-guard.json (or $COPILOT_HOME's),
./.github/hooks/compact-guard.json and the plugins Copilot CLI has enabled.
With --agent gemini, ~/.gemini/settings.json (or the one under
$GEMINI_CLI_HOME/.gemini) and ./.gemini/settings.json, PreCompress and
BeforeAgent judged by Gemini CLI's rules (timeouts in milliseconds, no
matcher). Only Claude Code takes the summary hint; for Codex CLI and Qwen
Code one line says they get none.

Exit status: 0 every check passed (warnings allowed), 1 at least one check
failed, 2 bad flags.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			opts.Fancy, opts.Color = markStyle(ios.Out, opts.Host.Getenv)
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(opts)
		},
	}
	c.Flags().BoolVar(&opts.NoSelfTest, "no-self-test", false, "skip the round trip through precompact and postcompact")
	var agent string
	c.Flags().StringVar(&agent, "agent", string(settings.AgentClaude), "the client whose hooks to check: "+settings.AgentNames(false))
	c.PreRunE = func(*cobra.Command, []string) (err error) {
		if opts.Agent, err = settings.ParseAgent(agent); err != nil {
			return usageError{err}
		}
		return nil
	}
	return c
}

// markStyle picks Unicode marks for a terminal and plain ASCII for pipes and
// logs, where they survive any encoding and are easy to grep.
func markStyle(w io.Writer, getenv func(string) string) (fancy, color bool) {
	f, ok := w.(*os.File)
	if !ok {
		return false, false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false, false
	}
	if getenv("TERM") == "dumb" {
		return false, false
	}
	return true, getenv("NO_COLOR") == ""
}

// resultLine is one line of doctor's report, with its fix under it.
func resultLine(c health.Result, fancy, color bool) string {
	marks := map[health.Status][2]string{
		health.OK:   {"✓", "[ok]  "},
		health.Info: {"·", "[info]"},
		health.Warn: {"!", "[warn]"},
		health.Fail: {"✗", "[FAIL]"},
	}
	colors := map[health.Status]string{health.OK: "32", health.Info: "2", health.Warn: "33", health.Fail: "31"}
	m, pad := marks[c.Status][1], "       "
	if fancy {
		m, pad = marks[c.Status][0], "  "
		if color {
			m = "\x1b[" + colors[c.Status] + "m" + m + "\x1b[0m"
		}
	}
	// Text and fix quote settings files, commands and log lines: escaped as
	// list escapes them, so that none can move the cursor, forge a line or
	// set the window title (DR-20, SEC-21).
	s := m + " " + textesc.String(c.Text, false) + "\n"
	if c.Fix != "" {
		s += pad + "fix: " + textesc.String(c.Fix, false) + "\n"
	}
	return s
}

// doctorChecks is doctor's list, in the order of its report. Each check
// lives in the package that owns what it checks: the hooks files and the
// clients' own checks in settings (a new client's beside its
// file there), the snapshot folder and the log in snapshot, the selection
// in selectsnap; the hint and the round trip here, beside the code they
// run.
func doctorChecks(opts *DoctorOptions) []health.Check {
	exe, exeErr := opts.Executable()
	dir := snapshotDir(opts.Global)
	now := opts.Now()
	one := func(r health.Result) []health.Result { return []health.Result{r} }
	return []health.Check{
		func() []health.Result { return one(binaryCheck(exe, exeErr)) },
		func() []health.Result { return settings.Check(settingsEnv(opts, exe)) },
		func() []health.Result { return one(snapshot.CheckFolder(dir)) },
		func() []health.Result {
			if c, ok := snapshot.CheckConfirmations(dir, now); ok {
				return one(c)
			}
			return nil
		},
		func() []health.Result { return one(snapshot.CheckLogRuns(hookio.LogPath(dir), now)) },
		func() []health.Result { return one(selectsnap.CheckTurnedDown(hookio.LogPath(dir), now)) },
		func() []health.Result {
			if opts.NoSelfTest {
				return one(health.Result{Status: health.Info, Text: "round trip skipped (--no-self-test)"})
			}
			return one(opts.SelfTest(opts.Agent))
		},
	}
}

// binaryCheck is the first line: this binary's version and path.
func binaryCheck(exe string, err error) health.Result {
	if err != nil {
		return health.Result{Status: health.Warn, Text: fmt.Sprintf("compact-guard %s: %v", version(), err)}
	}
	return health.Result{Status: health.OK, Text: fmt.Sprintf("compact-guard %s (%s, %s/%s) at %s", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, exe)}
}

// settingsEnv is what the hooks files' checks need: the client, this
// binary, and cmd's parsing of a hook's arguments and of the hint.
func settingsEnv(opts *DoctorOptions, exe string) settings.DoctorEnv {
	return settings.DoctorEnv{
		Host: opts.Host, Agent: opts.Agent, Exe: exe, Backups: opts.Backups,
		ClaudeVersion: opts.ClaudeVersion, DefaultKeep: defaultKeep, HintVar: take.EnvHint,
		ArgProblem: hookArgProblem,
		Hint: func(regs []settings.Registration, envs []settings.Value) []health.Result {
			return checkHint(opts, regs, envs)
		},
	}
}

// doctorRun runs the checks and prints their lines and a sum; it fails
// (exit 1) when a check failed, warnings do not.
func doctorRun(opts *DoctorOptions) error {
	var checks []health.Result
	for _, c := range doctorChecks(opts) {
		checks = append(checks, c()...)
	}
	failed, warned := 0, 0
	var b strings.Builder
	for _, c := range checks {
		b.WriteString(resultLine(c, opts.Fancy, opts.Color))
		switch c.Status {
		case health.Fail:
			failed++
		case health.Warn:
			warned++
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintf(&b, "%d check(s) failed, %d warning(s)\n", failed, warned)
	case warned > 0:
		fmt.Fprintf(&b, "no check failed, %d warning(s)\n", warned)
	default:
		b.WriteString("all checks passed\n")
	}
	if _, err := io.WriteString(opts.IO.Out, b.String()); err != nil {
		return err
	}
	if failed > 0 {
		return exitError{ExitFailure}
	}
	return nil
}
