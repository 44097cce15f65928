package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/health"
)

// doctor's fixes must work (DR-19): each says what is wrong, where, and a
// repair that mends it — never "run install" where install would refuse,
// never "chmod 700" on a folder that is 0700 already.

// settingsReadProblem is the line of a settings file that exists but
// cannot be read (IN-22): not a regular file, larger than any settings
// file, or unreadable.
func settingsReadProblem(src Source, err error) health.Result {
	c := health.Result{Status: health.Fail, Text: fmt.Sprintf("%s %s cannot be read: %v", src.Label, src.Path, err)}
	c.Fix = UnreadableFix(src.Path, err) + ", then " + InstallFix(src)
	return c
}

// UnreadableFix mends a file that cannot be read as a settings file
// (IN-22) without losing anything in it: a link, a FIFO, a socket or a
// device goes (rm removes a link, not its target); a folder or a file too
// large is moved aside; a file the user may not read gets the permission.
func UnreadableFix(path string, err error) string {
	q := health.ShellQuote(path)
	if errors.Is(err, fs.ErrPermission) {
		return "chmod u+r " + q
	}
	fi, lerr := os.Lstat(path)
	switch {
	case lerr != nil:
		return "make " + q + " a regular file"
	case fi.Mode()&fs.ModeSymlink != 0:
		return "rm " + q + " (it removes the link, not its target)"
	case fi.IsDir():
		return "mv " + q + " " + health.ShellQuote(path+".not-settings")
	case fi.Mode().IsRegular():
		return "mv " + q + " " + health.ShellQuote(path+".too-large")
	}
	return "rm " + q
}

// jsonRule says what the client accepts in the file, for a parse error's
// fix.
func jsonRule(a Agent) string {
	if a.Comments() {
		return "JSON; comments are allowed, trailing commas are not"
	}
	return "strict JSON: no comments, no trailing commas"
}

// settingsParseProblem is the line of a settings file that does not parse
// (DR-5, DR-19): where, what the parser says, how to correct it, and the
// backup install made before its last change when one parses.
func settingsParseProblem(src Source, err error, backups string) health.Result {
	c := health.Result{Status: health.Fail, Text: fmt.Sprintf("%s %s: %v; %s reads no hook from it", src.Label, src.Path, err, src.Agent.Title())}
	var se *SyntaxError
	if errors.As(err, &se) {
		c.Fix = fmt.Sprintf("correct line %d, column %d of %s (%s)", se.Line, se.Col, src.Path, jsonRule(src.Agent))
	} else {
		c.Fix = fmt.Sprintf("correct %s by hand (%s)", src.Path, jsonRule(src.Agent))
	}
	if bak := parsableBackup(src, backups); bak != "" {
		c.Fix += fmt.Sprintf(", or put back the copy install made before its last change: cp %s %s", health.ShellQuote(bak), health.ShellQuote(src.Path))
	}
	return c
}

// parsableBackup is the newest backup of src's file (IN-8) that parses,
// "" when there is none.
func parsableBackup(src Source, backups string) string {
	if backups == "" {
		return ""
	}
	target := src.Path
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	}
	for _, b := range BackupFiles(backups, target) {
		if data, _, err := ReadFile(b); err == nil {
			if _, err := ParseFor(src.Agent, data); err == nil {
				return b
			}
		}
	}
	return ""
}

// foldCoverage gives the lines of missing registrations (checkCoverage)
// one fix, on the last of them: one install run adds them all. When the
// file that install writes could not be read, the fix repairs it first,
// since install refuses a file it cannot parse; another broken file is
// named, since its hooks were not counted.
func foldCoverage(cov []health.Result, broken []Source) []health.Result {
	last, n := -1, 0
	for i, c := range cov {
		if strings.HasPrefix(c.Fix, "run 'compact-guard install") && strings.HasPrefix(c.Text, "no ") {
			last, n = i, n+1
		}
	}
	if last < 0 {
		return cov
	}
	fix := cov[last].Fix
	if n > 1 {
		fix += fmt.Sprintf(" (it registers the %d hooks above)", n)
	}
	for _, b := range broken {
		if b.Scope == ScopeUser && b.Ignored == "" {
			fix = "repair " + b.Path + " first (see above), then " + fix
		} else {
			fix += "; " + b.Path + " could not be read, so its hooks are not counted"
		}
	}
	out := append([]health.Result(nil), cov...)
	for i := range out {
		if strings.HasPrefix(out[i].Fix, "run 'compact-guard install") && strings.HasPrefix(out[i].Text, "no ") {
			out[i].Fix = ""
		}
	}
	out[last].Fix = fix
	return out
}
