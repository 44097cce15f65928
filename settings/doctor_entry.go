package settings

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// EntryReport gathers the problems of one entry for its one line: the
// worst decides the mark, and install's fixes are said once.
type EntryReport struct {
	res                       health.Result
	inst                      string // install's fix for the entry's file
	whys, fixes, installNotes []string
	needInstall               bool
}

func (r *EntryReport) report(st health.Status, why, fix string) {
	r.res.Status = max(r.res.Status, st)
	r.whys = append(r.whys, why)
	// One install run mends several problems: say it once.
	if note, ok := strings.CutPrefix(fix, r.inst); ok {
		r.needInstall = true
		if note != "" && !slices.Contains(r.installNotes, note) {
			r.installNotes = append(r.installNotes, note)
		}
	} else if fix != "" && !slices.Contains(r.fixes, fix) {
		r.fixes = append(r.fixes, fix)
	}
}

// NewEntryReport starts the report of an entry of src whose line says
// text; until a problem is reported it is OK.
func NewEntryReport(text string, src Source) *EntryReport {
	return &EntryReport{res: health.Result{Status: health.OK, Text: text}, inst: InstallFix(src)}
}

// Fail reports a problem that keeps the entry from working; fix mends it.
func (r *EntryReport) Fail(why, fix string) { r.report(health.Fail, why, fix) }

// Warn reports a problem the entry works despite; fix mends it.
func (r *EntryReport) Warn(why, fix string) { r.report(health.Warn, why, fix) }

// Inst is install's fix for the entry's file, the fix most problems name.
func (r *EntryReport) Inst() string { return r.inst }

// Finish is the entry's one line: the worst problem's mark, every why, and
// the fixes with install's said once, first.
func (r *EntryReport) Finish() health.Result {
	if r.needInstall {
		r.fixes = append([]string{r.inst + strings.Join(r.installNotes, "")}, r.fixes...)
	}
	return finishCheck(r.res, r.whys, r.fixes)
}

// checkRegistration judges one hook entry of ours. All its problems go on
// its one line, the worst deciding the mark.
func checkRegistration(env DoctorEnv, src Source, h Entry, projDir string) health.Result {
	matcher := h.Matcher
	if !h.HasMatcher {
		matcher = "*"
	}
	timeout := "default timeout"
	if h.Timeout != "" {
		timeout = "timeout " + h.Timeout + " s"
	}
	cmdline := strings.TrimSpace(h.Command + " " + strings.Join(h.ExecArgs, " "))
	r := &EntryReport{res: health.Result{Status: health.OK, Text: fmt.Sprintf("  %s [%s] runs %s (%s)", h.Event, matcher, cmdline, timeout)}, inst: InstallFix(src)}

	spec, subs := hookSpec(h.Event, h.Sub)
	if len(subs) == 0 {
		r.Warn(fmt.Sprintf("compact-guard %s is not meant for %s", h.Sub, h.Event), "remove it from "+src.Path)
		return finishCheck(r.res, r.whys, r.fixes)
	}
	prog, progOK := CheckProgram(r, env, src, h, projDir)

	// Will it run for the right events, long enough?
	if spec == nil {
		r.Fail(fmt.Sprintf("%s needs compact-guard %s, not %s", h.Event, strings.Join(subs, " or "), h.Sub), InstallFix(src))
	}
	for _, v := range matcherWants(spec) {
		if ok, bad := MatcherMatches(matcher, v); bad != nil {
			r.Fail(fmt.Sprintf("matcher %q is not a valid pattern: %v", matcher, bad), InstallFix(src))
			break
		} else if !ok {
			r.Fail(fmt.Sprintf("matcher %q does not match %q", matcher, v), InstallFix(src))
		}
	}
	if p := env.argProblem(h.Args, src.Path); p.Status != health.OK {
		r.report(p.Status, p.Text, p.Fix)
	}
	if p := foreignEntryProblem(src, h); p.Status != health.OK {
		r.report(p.Status, p.Text, p.Fix)
	}
	if h.If {
		r.Fail(`it has an "if" condition, and hooks with one run only for tool events`, `remove "if" from the entry in `+src.Path)
	}
	checkTimeout(r, src, h)
	if h.Sub == "precompact" && h.Async {
		r.Warn("async: the compaction may start before the snapshot is written", `remove "async" from the entry in `+src.Path)
	}
	if exe := env.Exe; progOK && exe != "" && !SameFile(prog, exe) {
		r.Warn("another compact-guard than this one ("+exe+")", InstallFix(src)+" to use this one, or run that binary's doctor")
	}
	fixes := r.fixes
	if r.needInstall && h.Unmanaged == "" {
		fixes = append([]string{r.inst + strings.Join(r.installNotes, "")}, fixes...)
	}
	return finishCheck(r.res, r.whys, fixes)
}

// CheckProgram reports whether the entry's program exists and can run; it
// returns the program as the shell would find it and whether it is one.
func CheckProgram(r *EntryReport, env DoctorEnv, src Source, h Entry, projDir string) (string, bool) {
	prog := expandProgram(h.Program, projDir, env.Host)
	switch {
	case prog == "":
		r.Warn("cannot tell where the program is", InstallFix(src))
	case !strings.ContainsAny(prog, `/\`):
		if found, err := exec.LookPath(prog); err != nil {
			r.Fail(fmt.Sprintf("%q is not on PATH", prog), InstallFix(src)+" to register an absolute path")
		} else {
			r.Warn(fmt.Sprintf("found through this shell's PATH (%s); Claude Code's PATH may differ", found), InstallFix(src)+" to register an absolute path")
		}
	default:
		st, err := os.Stat(prog)
		switch {
		case err != nil:
			r.Fail(fmt.Sprintf("%s does not exist", prog), InstallFix(src)+" to point it at "+orUnknown(env.Exe))
		case st.IsDir():
			r.Fail(fmt.Sprintf("%s is a folder", prog), InstallFix(src))
		case runtime.GOOS != "windows" && st.Mode().Perm()&0o111 == 0:
			r.Fail(fmt.Sprintf("%s is not executable", prog), "chmod +x "+health.ShellQuote(prog))
		default:
			return prog, true
		}
	}
	return prog, false
}

// checkTimeout fails a timeout the client would misread or that cuts the
// hook short.
func checkTimeout(r *EntryReport, src Source, h Entry) {
	if h.Timeout == "" {
		return
	}
	t, ok := h.TimeoutSeconds()
	writes := fmt.Sprintf("%s (it writes %d)", InstallFix(src), specTimeout(h.Event))
	switch {
	case !ok:
		r.Fail("the timeout is not a number", writes)
	case t >= 1000:
		r.Fail(fmt.Sprintf("timeout %s looks like milliseconds; Claude Code reads seconds (%s)", h.Timeout, time.Duration(t*float64(time.Second)).Round(time.Minute)), writes)
	case t <= 0:
		r.Fail("the timeout is not positive", writes)
	case h.Sub == "precompact" && t < 5:
		r.Fail(fmt.Sprintf("timeout %s s is too short: the snapshot may be cut off", h.Timeout), writes)
	}
}

func finishCheck(c health.Result, whys, fixes []string) health.Result {
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
	for _, s := range Hooks {
		if s.Event == event {
			return s.Timeout
		}
	}
	return 60
}

var gitBashDrive = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^/([a-zA-Z])/`)
})

// expandProgram resolves what the shell would: $VAR and ${VAR} (with
// CLAUDE_PROJECT_DIR known even outside a session), a leading ~/, and on
// Windows Git Bash's /c/... drive paths.
func expandProgram(p, projDir string, h Host) string {
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

// hookSpec is what Hooks registers for event: its sub-commands,
// and the registration of sub among them (nil when sub is not one).
func hookSpec(event, sub string) (*Hook, []string) {
	var subs []string
	var spec *Hook
	for i, s := range Hooks {
		if s.Event == event {
			subs = append(subs, s.Sub)
			if s.Sub == sub {
				spec = &Hooks[i]
			}
		}
	}
	return spec, subs
}

// matcherWants are the values an entry's matcher must match for spec:
// those of spec's own matcher, none when it matches everything.
func matcherWants(spec *Hook) []string {
	if spec == nil || spec.Matcher == "" || spec.Matcher == "*" {
		return nil
	}
	v, _ := MatcherValues(spec.Matcher)
	return v
}

// foreignEntryProblem is the warning for an entry that names compact-guard
// but is not one install writes nor one it can make its own (IN-21):
// install and uninstall leave it as it is, so install's fix would not
// mend it. The zero doctorCheck means no problem.
func foreignEntryProblem(src Source, h Entry) health.Result {
	if h.Installed() || h.Unmanaged == "" {
		return health.Result{}
	}
	return health.Result{Status: health.Warn,
		Text: fmt.Sprintf("it is not an entry install writes (%s): install and uninstall leave it as it is", h.Unmanaged),
		Fix:  "edit or remove it in " + src.Path + " by hand (install then registers one of its own)"}
}

// duplicateFix is the fix for one registration made by several entries with
// different commands (DR-5, DR-19): uninstall removes the ones install
// wrote, so when one of them is an entry install does not manage, that one
// is the user's to remove by hand.
func duplicateFix(where []Registration) string {
	for _, r := range where {
		if !r.Entry.Installed() && r.Entry.Unmanaged != "" {
			return fmt.Sprintf("keep one: edit or remove by hand the entry install does not write (%q in %s), or remove install's with 'compact-guard uninstall'", r.Entry.Command, r.Source.Path)
		}
	}
	return "keep one: 'compact-guard uninstall --scope project|local' removes the others"
}

// argProblem is ArgProblem, none when doctor gave no parser.
func (env DoctorEnv) argProblem(args []string, file string) health.Result {
	if env.ArgProblem == nil {
		return health.Result{}
	}
	return env.ArgProblem(args, file)
}

func SameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
