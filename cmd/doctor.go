package cmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/compact-guard/compact-guard/cmd/internal/settings"
	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/textesc"
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
	// SelfTest runs the round trip (doctorSelfTest); tests substitute it.
	SelfTest func() doctorCheck
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
(or $QWEN_HOME's) and ./.qwen/settings.json.

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
	c.Flags().StringVar(&agent, "agent", string(settings.AgentClaude), "the client whose hooks to check: claude, codex, qwen or gemini")
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

type checkStatus int

const (
	checkOK checkStatus = iota
	checkInfo
	checkWarn
	checkFail
)

// doctorCheck is one line of doctor's report.
type doctorCheck struct {
	Status checkStatus
	Text   string
	Fix    string
}

func (c doctorCheck) line(fancy, color bool) string {
	marks := map[checkStatus][2]string{
		checkOK:   {"✓", "[ok]  "},
		checkInfo: {"·", "[info]"},
		checkWarn: {"!", "[warn]"},
		checkFail: {"✗", "[FAIL]"},
	}
	colors := map[checkStatus]string{checkOK: "32", checkInfo: "2", checkWarn: "33", checkFail: "31"}
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

func doctorRun(opts *DoctorOptions) error {
	var checks []doctorCheck
	add := func(c ...doctorCheck) { checks = append(checks, c...) }

	exe, exeErr := opts.Executable()
	if exeErr != nil {
		add(doctorCheck{Status: checkWarn, Text: fmt.Sprintf("compact-guard %s: %v", Version, exeErr)})
	} else {
		add(doctorCheck{Status: checkOK, Text: fmt.Sprintf("compact-guard %s (%s, %s/%s) at %s", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, exe)})
	}

	add(checkSettings(opts, exe)...)
	dir := snapshotDir(opts.Global)
	add(checkSnapshotDir(dir))
	if c, ok := checkConfirmations(dir, opts.Now()); ok {
		add(c)
	}
	add(checkLog(logPath(dir), opts.Now()))
	add(checkTurnedDown(logPath(dir), opts.Now()))
	if opts.NoSelfTest {
		add(doctorCheck{Status: checkInfo, Text: "round trip skipped (--no-self-test)"})
	} else {
		add(opts.SelfTest())
	}

	failed, warned := 0, 0
	var b strings.Builder
	for _, c := range checks {
		b.WriteString(c.line(opts.Fancy, opts.Color))
		switch c.Status {
		case checkFail:
			failed++
		case checkWarn:
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

// ---- settings ----

// settingsSource is one settings file doctor reads.
type settingsSource struct {
	Label string
	Scope string // for the fix: "" when install cannot target it by scope
	Agent settings.Agent
	Path  string
	// Ignored explains why Claude Code does not read this file.
	Ignored string
	// Plugin is the plugin id when the entries come from an installed
	// plugin's hooks file (doctor_plugin.go).
	Plugin string
}

func settingsSources(h settings.Host) []settingsSource {
	var out []settingsSource
	if p, err := settings.UserPath(h); err == nil {
		label := "user settings"
		if h.Getenv("CLAUDE_CONFIG_DIR") != "" {
			label = "user settings ($CLAUDE_CONFIG_DIR)"
		}
		out = append(out, settingsSource{Label: label, Scope: settings.ScopeUser, Path: p})
	}
	if h.Getenv("CLAUDE_CONFIG_DIR") != "" {
		if home, err := h.Home(); err == nil {
			out = append(out, settingsSource{Label: "~/.claude settings", Path: filepath.Join(home, ".claude", "settings.json"),
				Ignored: "Claude Code does not read it while CLAUDE_CONFIG_DIR is set"})
		}
	}
	if dir, err := settings.ProjectDir(h); err == nil {
		out = append(out,
			settingsSource{Label: "project settings", Scope: settings.ScopeProject, Path: filepath.Join(dir, ".claude", "settings.json")},
			settingsSource{Label: "local settings", Scope: settings.ScopeLocal, Path: filepath.Join(dir, ".claude", "settings.local.json")})
	}
	return out
}

// registration is one hook of ours found in a settings file.
type registration struct {
	Source settingsSource
	H      settings.Entry
}

func checkSettings(opts *DoctorOptions, exe string) []doctorCheck {
	var out []doctorCheck
	var regs []registration
	var hintEnvs []settingsValue // DR-16
	projDir, _ := settings.ProjectDir(opts.Host)
	sources := settingsSources(opts.Host)
	if !opts.Agent.IsClaude() {
		sources = agentSources(opts.Agent, opts.Host)
	}
	var broken []settingsSource // files that exist but cannot be read or parsed
	for _, src := range sources {
		data, _, err := settings.ReadFile(src.Path)
		if errors.Is(err, os.ErrNotExist) {
			if src.Ignored == "" {
				out = append(out, doctorCheck{Status: checkInfo, Text: fmt.Sprintf("%s %s: not found", src.Label, src.Path)})
			}
			continue
		}
		if err != nil {
			out, broken = append(out, settingsReadProblem(src, err)), append(broken, src)
			continue
		}
		doc, err := settings.ParseFor(src.Agent, data)
		if err != nil {
			out, broken = append(out, settingsParseProblem(src, err, opts.Backups)), append(broken, src)
			continue
		}
		found := doc.Entries(exe)
		if src.Ignored != "" {
			if len(found) > 0 {
				out = append(out, doctorCheck{Status: checkWarn, Text: fmt.Sprintf("%s %s holds compact-guard hooks, but %s", src.Label, src.Path, src.Ignored),
					Fix: fmt.Sprintf("run 'compact-guard install' (it writes to $CLAUDE_CONFIG_DIR/settings.json), then 'compact-guard uninstall --settings %s'", shellQuote(src.Path))})
			}
			continue
		}
		if v, ok := doc.Env(EnvHint); ok && src.Agent.IsClaude() {
			hintEnvs = append(hintEnvs, settingsValue{src, v})
		}
		for _, key := range []string{"disableAllHooks", "allowManagedHooksOnly"} {
			if src.Agent.IsClaude() && doc.IsTrue(key) {
				out = append(out, doctorCheck{Status: checkFail, Text: fmt.Sprintf("%s %s: %q is true: Claude Code runs none of these hooks", src.Label, src.Path, key),
					Fix: fmt.Sprintf("remove %q from %s", key, src.Path)})
			}
		}
		if len(found) == 0 {
			out = append(out, doctorCheck{Status: checkInfo, Text: fmt.Sprintf("%s %s: no compact-guard hooks", src.Label, src.Path)})
		} else {
			out = append(out, doctorCheck{Status: checkInfo, Text: fmt.Sprintf("%s %s:", src.Label, src.Path)})
		}
		for _, h := range found {
			regs = append(regs, registration{src, h})
			if src.Agent == settings.AgentGemini {
				out = append(out, checkGeminiRegistration(src, h, exe, projDir, opts.Host))
				continue
			}
			out = append(out, checkRegistration(src, h, exe, projDir, opts.Host))
		}
	}
	if opts.Agent.IsClaude() {
		pluginRegs, pluginChecks := checkPluginHooks(opts, regs)
		out = append(out, pluginChecks...)
		out = append(out, foldCoverage(checkCoverage(append(regs, pluginRegs...), opts.Agent), broken)...)
		out = append(out, checkClientKnowsEvents(regs, opts.ClaudeVersion)...)
		out = append(out, checkHint(opts, append(regs, pluginRegs...), hintEnvs)...)
	} else if opts.Agent == settings.AgentGemini {
		out = append(out, foldCoverage(checkGeminiCoverage(regs), broken)...)
	} else {
		out = append(out, foldCoverage(checkCoverage(runnable(regs, opts.Agent), opts.Agent), broken)...)
		out = append(out, checkHint(opts, regs, nil)...)
	}
	if opts.Agent == settings.AgentCodex {
		out = append(out, checkCodexTrust(opts.Host, exe)...)
	}
	return out
}

// installFix is the install command that repairs an entry in src.
func installFix(src settingsSource) string {
	if src.Scope == "" || src.Scope == settings.ScopeUser {
		return "run 'compact-guard install" + agentFlag(src.Agent) + "'"
	}
	return "run 'compact-guard install" + agentFlag(src.Agent) + " --scope " + src.Scope + "' in the project folder"
}

// checkRegistration judges one hook entry of ours. All its problems go on
// its one line, the worst deciding the mark.
func checkRegistration(src settingsSource, h settings.Entry, exe, projDir string, host settings.Host) doctorCheck {
	matcher := h.Matcher
	if !h.HasMatcher {
		matcher = "*"
	}
	timeout := "default timeout"
	if h.Timeout != "" {
		timeout = "timeout " + h.Timeout + " s"
	}
	cmdline := strings.TrimSpace(h.Command + " " + strings.Join(h.ExecArgs, " "))
	res := doctorCheck{Status: checkOK, Text: fmt.Sprintf("  %s [%s] runs %s (%s)", h.Event, matcher, cmdline, timeout)}
	var whys, fixes, installNotes []string
	inst := installFix(src)
	needInstall := false
	report := func(st checkStatus, why, fix string) {
		res.Status = max(res.Status, st)
		whys = append(whys, why)
		// One install run mends several problems: say it once.
		if note, ok := strings.CutPrefix(fix, inst); ok {
			needInstall = true
			if note != "" && !slices.Contains(installNotes, note) {
				installNotes = append(installNotes, note)
			}
		} else if fix != "" && !slices.Contains(fixes, fix) {
			fixes = append(fixes, fix)
		}
	}
	fail := func(why, fix string) { report(checkFail, why, fix) }
	warn := func(why, fix string) { report(checkWarn, why, fix) }

	spec, subs := hookSpec(h.Event, h.Sub)
	if len(subs) == 0 {
		warn(fmt.Sprintf("compact-guard %s is not meant for %s", h.Sub, h.Event), "remove it from "+src.Path)
		return finishCheck(res, whys, fixes)
	}

	// Does the program exist?
	prog := expandProgram(h.Program, projDir, host)
	progOK := false
	switch {
	case prog == "":
		warn("cannot tell where the program is", installFix(src))
	case !strings.ContainsAny(prog, `/\`):
		if found, err := exec.LookPath(prog); err != nil {
			fail(fmt.Sprintf("%q is not on PATH", prog), installFix(src)+" to register an absolute path")
		} else {
			warn(fmt.Sprintf("found through this shell's PATH (%s); Claude Code's PATH may differ", found), installFix(src)+" to register an absolute path")
		}
	default:
		st, err := os.Stat(prog)
		switch {
		case err != nil:
			fail(fmt.Sprintf("%s does not exist", prog), installFix(src)+" to point it at "+orUnknown(exe))
		case st.IsDir():
			fail(fmt.Sprintf("%s is a folder", prog), installFix(src))
		case runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0:
			fail(fmt.Sprintf("%s is not executable", prog), "chmod +x "+shellQuote(prog))
		default:
			progOK = true
		}
	}

	// Will it run for the right events, long enough?
	if spec == nil {
		fail(fmt.Sprintf("%s needs compact-guard %s, not %s", h.Event, strings.Join(subs, " or "), h.Sub), installFix(src))
	}
	for _, v := range matcherWants(spec) {
		if ok, bad := settings.MatcherMatches(matcher, v); bad != nil {
			fail(fmt.Sprintf("matcher %q is not a valid pattern: %v", matcher, bad), installFix(src))
			break
		} else if !ok {
			fail(fmt.Sprintf("matcher %q does not match %q", matcher, v), installFix(src))
		}
	}
	if p := hookArgProblem(h.Args, src.Path); p.Status != checkOK {
		report(p.Status, p.Text, p.Fix)
	}
	if p := foreignEntryProblem(src, h); p.Status != checkOK {
		report(p.Status, p.Text, p.Fix)
	}
	if h.If {
		fail(`it has an "if" condition, and hooks with one run only for tool events`, `remove "if" from the entry in `+src.Path)
	}
	if h.Timeout != "" {
		t, ok := h.TimeoutSeconds()
		writes := fmt.Sprintf("%s (it writes %d)", installFix(src), specTimeout(h.Event))
		switch {
		case !ok:
			fail("the timeout is not a number", writes)
		case t >= 1000:
			fail(fmt.Sprintf("timeout %s looks like milliseconds; Claude Code reads seconds (%s)", h.Timeout, time.Duration(t*float64(time.Second)).Round(time.Minute)), writes)
		case t <= 0:
			fail("the timeout is not positive", writes)
		case h.Sub == "precompact" && t < 5:
			fail(fmt.Sprintf("timeout %s s is too short: the snapshot may be cut off", h.Timeout), writes)
		}
	}
	if h.Sub == "precompact" && h.Async {
		warn("async: the compaction may start before the snapshot is written", `remove "async" from the entry in `+src.Path)
	}
	if progOK && exe != "" && !sameFile(prog, exe) {
		warn("another compact-guard than this one ("+exe+")", installFix(src)+" to use this one, or run that binary's doctor")
	}
	if needInstall && h.Unmanaged == "" {
		fixes = append([]string{inst + strings.Join(installNotes, "")}, fixes...)
	}
	return finishCheck(res, whys, fixes)
}

// hookArgProblem parses a hook entry's arguments (global flags, the
// sub-command and its flags) with the real command tree, so that doctor
// and the hook agree on what is valid: a flag error makes the hook print a
// message and do nothing, at every compaction, unseen. It also rejects
// values the flags accept but the hook cannot use (--keep 0, --lang de).
// The zero doctorCheck (checkOK) means no problem.
func hookArgProblem(args []string, file string) doctorCheck {
	fixIn := func(words string) string { return fmt.Sprintf("remove or correct %s in %s", words, file) }
	// A word the shell expands may be valid in Claude Code's environment.
	st := checkFail
	if slices.ContainsFunc(args, func(a string) bool { return strings.ContainsAny(a, "$`") }) {
		st = checkWarn
	}
	ios := &IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	c, rest, err := NewRootCmd(ios).Find(args)
	if err != nil {
		return doctorCheck{Status: st, Text: "its arguments do not parse: " + err.Error(), Fix: fixIn("the arguments")}
	}
	c.InitDefaultHelpFlag()
	if err := c.ParseFlags(rest); err != nil {
		text := fmt.Sprintf("compact-guard %s would reject its arguments (%v) and do nothing", c.Name(), err)
		if st == checkWarn {
			text = fmt.Sprintf("compact-guard %s rejects its arguments as written (%v); only the shell's expansion can make them valid", c.Name(), err)
		}
		return doctorCheck{Status: st, Text: text, Fix: fixIn(offendingWords(err, rest))}
	}
	f := c.Flags()
	if h := f.Lookup("help"); h != nil && h.Changed {
		return doctorCheck{Status: checkFail, Text: fmt.Sprintf("compact-guard %s would print its help and do nothing", c.Name()), Fix: fixIn("--help")}
	}
	if k := f.Lookup("keep"); k != nil && k.Changed {
		if n, err := f.GetInt("keep"); err == nil && n < 1 {
			return doctorCheck{Status: checkFail, Text: fmt.Sprintf("--keep %d: at least 1 snapshot must be kept", n), Fix: fixIn("--keep " + k.Value.String())}
		}
	}
	if l := f.Lookup("lang"); l != nil && l.Changed {
		if _, err := snapshot.ParseLang(l.Value.String()); err != nil {
			return doctorCheck{Status: st, Text: fmt.Sprintf("--lang %s: %v; the hook falls back to the environment's language", l.Value.String(), err),
				Fix: fixIn("--lang " + l.Value.String())}
		}
	}
	if pos := f.Args(); len(pos) > 0 {
		return doctorCheck{Status: checkWarn, Text: fmt.Sprintf("compact-guard %s ignores the argument(s) %s", c.Name(), strings.Join(pos, " ")),
			Fix: fixIn(strings.Join(pos, " "))}
	}
	return doctorCheck{}
}

// pflagInvalid and pflagUnknown take apart pflag's errors, to name the words
// to correct. They compile on first use, as gitBashDrive does: package
// initialisation is paid by every hook process, which never runs doctor
// (PF-16).
var (
	pflagInvalid = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--?[^"]+)" flag`)
	})
	pflagUnknown = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^unknown (?:shorthand )?flag: (?:'.' in )?(\S+)`)
	})
	pflagNeedArg = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^flag needs an argument: (?:'.' in )?(\S+)`)
	})
)

// offendingWords names the words of a flag error as the user wrote them
// when it can, else "the arguments".
func offendingWords(err error, args []string) string {
	msg := err.Error()
	if m := pflagInvalid().FindStringSubmatch(msg); m != nil {
		for i, a := range args {
			if a == m[2]+"="+m[1] {
				return a
			}
			if a == m[2] && i+1 < len(args) && args[i+1] == m[1] {
				return a + " " + args[i+1]
			}
		}
		return m[2] + " " + m[1]
	}
	if m := pflagUnknown().FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	if m := pflagNeedArg().FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return "the arguments"
}

func finishCheck(c doctorCheck, whys, fixes []string) doctorCheck {
	if len(whys) > 0 {
		c.Text += ": " + strings.Join(whys, "; ")
		c.Fix = strings.Join(fixes, "; ")
	}
	return c
}

func orUnknown(s string) string {
	if s == "" {
		return "this binary"
	}
	return s
}

func specTimeout(event string) int {
	for _, s := range settings.Hooks {
		if s.Event == event {
			return s.Timeout
		}
	}
	return 60
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

var gitBashDrive = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^/([a-zA-Z])/`)
})

// expandProgram resolves what the shell would: $VAR and ${VAR} (with
// CLAUDE_PROJECT_DIR known even outside a session), a leading ~/, and on
// Windows Git Bash's /c/... drive paths.
func expandProgram(p, projDir string, h settings.Host) string {
	p = os.Expand(p, func(k string) string {
		if k == "CLAUDE_PROJECT_DIR" && h.Getenv(k) == "" {
			return projDir
		}
		return h.Getenv(k)
	})
	if strings.HasPrefix(p, "~/") {
		if home, err := h.Home(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if runtime.GOOS == "windows" {
		p = gitBashDrive().ReplaceAllString(p, "$1:/")
	}
	return p
}

// hookSpec is what settings.Hooks registers for event: its sub-commands,
// and the registration of sub among them (nil when sub is not one).
func hookSpec(event, sub string) (*settings.Hook, []string) {
	var subs []string
	var spec *settings.Hook
	for i, s := range settings.Hooks {
		if s.Event == event {
			subs = append(subs, s.Sub)
			if s.Sub == sub {
				spec = &settings.Hooks[i]
			}
		}
	}
	return spec, subs
}

// matcherWants are the values an entry's matcher must match for spec:
// those of spec's own matcher, none when it matches everything.
func matcherWants(spec *settings.Hook) []string {
	if spec == nil || spec.Matcher == "" || spec.Matcher == "*" {
		return nil
	}
	v, _ := settings.MatcherValues(spec.Matcher)
	return v
}

// watchMissing says what is lost without each of watch's registrations
// (specs/watch.md WA-1); on Qwen Code watch hands over the late pointer
// only.
func watchMissing(event string, agent settings.Agent) string {
	if agent == settings.AgentQwen {
		if event == "UserPromptSubmit" {
			return "no pointer handed over late"
		}
		return "a resumed session is not noted, so a pointer lost with the process that compacted is not handed over"
	}
	return map[string]string{
		"UserPromptSubmit":   "no notice of a planned compaction with a prompt, and no pointer handed over late",
		"PostToolUse":        "no notice of a planned compaction between prompts",
		"PostToolUseFailure": "no notice of a planned compaction after a tool call that failed, so a turn of failing calls gets none",
		"Stop":               "no Stop gate",
		"SessionStart":       "a resumed session is not noted, so a pointer lost by clients up to 2.1.119 is not handed over",
	}[event]
}

// checkCoverage reports the hooks missing from every file, and the same hook
// registered more than once with different commands (identical handlers run
// once; different ones run twice).
func checkCoverage(regs []registration, agent settings.Agent) []doctorCheck {
	var out []doctorCheck
	install := "run 'compact-guard install" + agentFlag(agent) + "'"
	for _, s := range settings.Hooks {
		if !s.For(agent) {
			continue
		}
		var where []registration
		for _, r := range regs {
			if r.H.Event == s.Event && r.H.Sub == s.Sub {
				where = append(where, r)
			}
		}
		switch {
		case len(where) == 0 && s.Event == "PostCompact":
			out = append(out, doctorCheck{Status: checkWarn, Text: "no PostCompact hook runs compact-guard postcompact: snapshots do not record that the compaction completed",
				Fix: install})
		case len(where) == 0 && s.Event == "PreCompact":
			out = append(out, doctorCheck{Status: checkFail, Text: "no PreCompact hook runs compact-guard precompact: no snapshot is taken before a compaction",
				Fix: install})
		case len(where) == 0 && s.Sub == "watch":
			out = append(out, doctorCheck{Status: checkWarn, Text: fmt.Sprintf("no %s hook runs compact-guard watch: %s", s.Event, watchMissing(s.Event, agent)),
				Fix: install})
		case len(where) == 0:
			out = append(out, doctorCheck{Status: checkFail, Text: `no SessionStart hook with matcher "compact" runs compact-guard postcompact: the compacted session is not pointed at its snapshot`,
				Fix: install})
		case len(where) > 1:
			cmds := map[string]bool{}
			var labels []string
			for _, r := range where {
				cmds[r.H.Command+"\x00"+strings.Join(r.H.ExecArgs, "\x00")] = true
				labels = append(labels, r.Source.Label)
			}
			// A plugin beside a settings file is reported with its own fix
			// (checkPluginDuplicates).
			if len(cmds) > 1 && !slices.ContainsFunc(where, func(r registration) bool { return r.Source.Plugin != "" }) {
				out = append(out, doctorCheck{Status: checkWarn,
					Text: fmt.Sprintf("%s runs compact-guard %s %d times (%s) with different commands", s.Event, s.Sub, len(where), strings.Join(labels, ", ")),
					Fix:  duplicateFix(where)})
			}
		}
	}
	return out
}

// ---- snapshot folder ----

func checkSnapshotDir(dir string) doctorCheck {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		parent := dir
		for {
			parent = filepath.Dir(parent)
			if _, err := os.Stat(parent); err == nil || parent == filepath.Dir(parent) {
				break
			}
		}
		if werr := probeWritable(parent); werr != nil {
			return doctorCheck{Status: checkFail, Text: fmt.Sprintf("snapshot folder %s does not exist and cannot be created: %v", dir, werr),
				Fix: "make " + parent + " writable, or choose another folder with COMPACT_GUARD_DIR in Claude Code's environment"}
		}
		return doctorCheck{Status: checkOK, Text: fmt.Sprintf("snapshot folder %s: not created yet (the first snapshot creates it, mode 0700)", dir)}
	}
	if err != nil {
		return doctorCheck{Status: checkFail, Text: fmt.Sprintf("snapshot folder %s: %v", dir, err)}
	}
	if !st.IsDir() {
		return doctorCheck{Status: checkFail, Text: fmt.Sprintf("snapshot folder %s is not a folder", dir), Fix: "move it away"}
	}
	// precompact refuses a folder another user owns or others can write
	// to, or one in a folder others can rename it in, and postcompact reads
	// nothing from it: the hooks' own check decides (SEC-14, SEC-15).
	if err := snapshot.CheckPrivateDir(dir); err != nil {
		fix := "choose a folder of your own with COMPACT_GUARD_DIR in Claude Code's environment"
		var ue *snapshot.UntrustedError
		if errors.As(err, &ue) && strings.HasPrefix(ue.Fix, "chmod ") {
			fix = ue.Fix
		}
		return doctorCheck{Status: checkFail, Text: fmt.Sprintf("snapshot folder %s: compact-guard refuses it: %v", dir, err), Fix: fix}
	}
	if err := probeWritable(dir); err != nil {
		why, fix := unwritableDir(dir, st.Mode().Perm(), err)
		return doctorCheck{Status: checkFail, Text: fmt.Sprintf("snapshot folder %s is not writable: %s (%v)", dir, why, err), Fix: fix}
	}
	count, newest := countSnapshots(dir)
	what := "no snapshots yet"
	if count > 0 {
		what = fmt.Sprintf("%d snapshot(s), newest %s", count, newest.Local().Format("2006-01-02 15:04"))
	}
	return doctorCheck{Status: checkOK, Text: fmt.Sprintf("snapshot folder %s: writable, private (%s)", dir, what)}
}

func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".compact-guard-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func countSnapshots(dir string) (int, time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, time.Time{}
	}
	n := 0
	var newest time.Time
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok {
			continue
		}
		if nm, ok := snapshot.ParseName(base); ok {
			n++
			if nm.Time.After(newest) {
				newest = nm.Time
			}
		}
	}
	return n, newest
}

// checkConfirmations tells snapshots of compactions that completed (a
// PostCompact run confirmed them) from those whose compaction never did:
// Claude Code can fire PreCompact for a compaction it then skips. It is
// information, not a failure; ok is false when there is nothing to say.
func checkConfirmations(dir string, now time.Time) (doctorCheck, bool) {
	st := &snapshot.Store{Dir: dir}
	entries, err := st.Entries()
	if err != nil || len(entries) == 0 {
		return doctorCheck{}, false
	}
	confirmed, skipped, pending := 0, 0, 0
	for _, e := range entries {
		rec, err := st.Load(e.Name)
		switch {
		case err != nil:
			continue
		case rec.Compaction != nil:
			confirmed++
		case now.Sub(rec.CreatedAt) > snapshot.ConfirmWindow:
			skipped++
		default:
			pending++
		}
	}
	text := fmt.Sprintf("snapshots: %d confirmed by PostCompact, %d never confirmed (the compaction was skipped, or PostCompact did not run)", confirmed, skipped)
	if pending > 0 {
		text += fmt.Sprintf(", %d too recent to tell", pending)
	}
	return doctorCheck{Status: checkInfo, Text: text}, true
}

// ---- log ----

// logLine is what doctor needs of a log line (see logEntry.String).
type logLine struct {
	At      time.Time
	Command string
	Outcome string
	Detail  string
}

func parseLogLine(s string) (logLine, bool) {
	fields := strings.Fields(s)
	if len(fields) < 3 {
		return logLine{}, false
	}
	at, err := time.Parse(time.RFC3339, fields[0])
	if err != nil {
		return logLine{}, false
	}
	l := logLine{At: at, Command: fields[1]}
	for _, f := range fields[2:] {
		if v, ok := strings.CutPrefix(f, "outcome="); ok {
			l.Outcome = v
			break
		}
	}
	if i := strings.Index(s, " detail="); i >= 0 {
		if d, err := strconv.Unquote(s[i+len(" detail="):]); err == nil {
			l.Detail = d
		}
	}
	return l, l.Outcome != ""
}

// maxLogLines bounds the lines doctor reads; the log itself is kept small
// by snapshot.AppendLog.
const maxLogLines = 100000

func checkLog(path string, now time.Time) doctorCheck {
	lines, err := snapshot.RecentLogLines(path, maxLogLines)
	if err != nil {
		return doctorCheck{Status: checkWarn, Text: fmt.Sprintf("log %s: %v", path, err)}
	}
	if lines == nil {
		return doctorCheck{Status: checkOK, Text: fmt.Sprintf("log %s: no hook runs recorded yet", path)}
	}
	since := now.Add(-24 * time.Hour)
	runs, warned, failed := 0, 0, 0
	var last logLine
	for _, s := range lines {
		l, ok := parseLogLine(s)
		if !ok || l.At.Before(since) {
			continue
		}
		runs++
		switch l.Outcome {
		case outcomeFailed:
			failed++
			last = l
		case outcomeWarn:
			warned++
		}
	}
	if failed > 0 {
		return doctorCheck{Status: checkWarn,
			Text: fmt.Sprintf("log %s: %d of %d hook runs in the last 24 h failed; newest %s %s: %s", path, failed, runs, last.At.Local().Format("2006-01-02 15:04"), last.Command, truncateRunes(last.Detail, 300)),
			Fix:  "read the log; a failure stops being reported 24 h after it happened"}
	}
	text := fmt.Sprintf("log %s: %d hook runs in the last 24 h, none failed", path, runs)
	if warned > 0 {
		text += fmt.Sprintf(" (%d with warnings)", warned)
	}
	return doctorCheck{Status: checkOK, Text: text}
}

// ---- round trip ----

// doctorSelfTest feeds a synthetic session through precompact and
// postcompact in a temporary folder, with an empty environment, as Claude
// Code would run them.
func doctorSelfTest() doctorCheck {
	start := time.Now()
	fail := func(format string, a ...any) doctorCheck {
		return doctorCheck{Status: checkFail, Text: "round trip: " + fmt.Sprintf(format, a...),
			Fix: "report it with the output of 'compact-guard version'"}
	}
	tmp, err := os.MkdirTemp("", "compact-guard-doctor-")
	if err != nil {
		return fail("cannot make a temporary folder: %v", err)
	}
	defer os.RemoveAll(tmp)

	sid := fmt.Sprintf("d0c70000-0000-4000-8000-%012x", start.UnixNano()&0xffffffffffff)
	tpath := filepath.Join(tmp, "session.jsonl")
	if err := os.WriteFile(tpath, syntheticTranscript(sid, tmp, start), 0o600); err != nil {
		return fail("cannot write the transcript: %v", err)
	}
	dir := filepath.Join(tmp, "snapshots")
	noEnv := func(string) string { return "" }

	pre, _ := json.Marshal(map[string]any{
		"session_id": sid, "transcript_path": tpath, "cwd": tmp,
		"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": nil,
	})
	var preOut, preErr bytes.Buffer
	err = precompactRun(&PrecompactOptions{
		IO:  &IO{In: bytes.NewReader(pre), Out: &preOut, ErrOut: &preErr},
		Dir: dir, Lang: snapshot.English, Keep: defaultKeep, StateFileName: defaultStateFileName,
		Timeout: defaultTimeout, GitTimeout: defaultGitTimeout, EarlierBudget: defaultEarlierBudget,
		Getenv: noEnv, Now: time.Now,
	})
	if err != nil {
		return fail("precompact returned %v", err)
	}
	md := ""
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if base, ok := strings.CutSuffix(e.Name(), ".md"); ok {
				if _, ok := snapshot.ParseName(base); ok {
					md = e.Name()
				}
			}
		}
	}
	if md == "" {
		return fail("precompact wrote no snapshot in %s; its log says: %s", dir, lastLogLine(logPath(dir)))
	}
	if _, err := os.Stat(filepath.Join(dir, strings.TrimSuffix(md, ".md")+".json")); err != nil {
		return fail("snapshot %s has no .json record", md)
	}
	// DR-8: precompact's stdout is its summary hint, one line of plain text
	// naming the snapshot (PC-27), and nothing else.
	if hint := preOut.String(); strings.Count(hint, "\n") != 1 || !strings.HasSuffix(hint, "\n") ||
		strings.HasPrefix(hint, "{") || !strings.Contains(hint, filepath.Join(dir, md)) {
		return fail("precompact's stdout is not one summary hint naming %s: %q", md, truncateRunes(hint, 300))
	}

	post, _ := json.Marshal(map[string]any{
		"session_id": sid, "transcript_path": tpath, "cwd": tmp,
		"hook_event_name": "SessionStart", "source": "compact",
	})
	var postOut, postErr bytes.Buffer
	err = postcompactRun(&PostcompactOptions{
		IO:  &IO{In: bytes.NewReader(post), Out: &postOut, ErrOut: &postErr},
		Dir: dir, Lang: snapshot.English, MaxAge: defaultMaxAge, MaxChars: defaultMaxChars,
		StateFileName: defaultStateFileName, Timeout: defaultPostcompactTime,
		Getenv: noEnv, Now: time.Now,
	})
	if err != nil {
		return fail("postcompact returned %v", err)
	}
	var hookOut struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(postOut.Bytes(), &hookOut); err != nil {
		return fail("postcompact output is not hook JSON (%v): %q", err, truncateRunes(postOut.String(), 200))
	}
	if !strings.Contains(hookOut.HookSpecificOutput.AdditionalContext, md) {
		return fail("postcompact's pointer does not name %s: %q", md, truncateRunes(hookOut.HookSpecificOutput.AdditionalContext, 300))
	}
	return doctorCheck{Status: checkOK, Text: fmt.Sprintf("round trip: precompact wrote %s and named it in its summary hint, postcompact pointed at it (%d ms)", md, time.Since(start).Milliseconds())}
}

// syntheticTranscript is a minimal session: one typed prompt and one
// answer with usage.
func syntheticTranscript(sid, cwd string, t time.Time) []byte {
	ts := t.UTC().Add(-time.Minute).Format("2006-01-02T15:04:05.000Z")
	lines := []map[string]any{
		{"type": "user", "uuid": "00000000-0000-4000-8000-000000000001", "parentUuid": nil, "isSidechain": false,
			"userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.328", "gitBranch": "",
			"timestamp": ts, "promptSource": "typed",
			"message": map[string]any{"role": "user", "content": "compact-guard doctor: synthetic prompt"}},
		{"type": "assistant", "uuid": "00000000-0000-4000-8000-000000000002", "parentUuid": "00000000-0000-4000-8000-000000000001",
			"isSidechain": false, "userType": "external", "cwd": cwd, "sessionId": sid, "version": "2.1.328", "gitBranch": "",
			"timestamp": ts, "requestId": "req_doctor",
			"message": map[string]any{"model": "claude-doctor", "id": "msg_doctor", "type": "message", "role": "assistant",
				"content":     []any{map[string]any{"type": "text", "text": "ok"}},
				"stop_reason": "end_turn",
				"usage":       map[string]any{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 2}}},
	}
	var b bytes.Buffer
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func lastLogLine(path string) string {
	lines, err := snapshot.RecentLogLines(path, 1)
	if err != nil || len(lines) == 0 {
		return "(no log)"
	}
	return truncateRunes(lines[0], 400)
}
