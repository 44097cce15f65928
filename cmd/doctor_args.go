package cmd

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/compact-guard/compact-guard/snapshot/health"
)

// hookArgProblem parses a hook entry's arguments (global flags, the
// sub-command and its flags) with the real command tree, so that doctor
// and the hook agree on what is valid: a flag error makes the hook print a
// message and do nothing, at every compaction, unseen. It also rejects
// values the flags accept but the hook cannot use (--keep 0, --lang de).
// The zero doctorCheck (checkOK) means no problem.
func hookArgProblem(args []string, file string) health.Result {
	fixIn := func(words string) string { return fmt.Sprintf("remove or correct %s in %s", words, file) }
	// A word the shell expands may be valid in Claude Code's environment.
	st := health.Fail
	if slices.ContainsFunc(args, func(a string) bool { return strings.ContainsAny(a, "$`") }) {
		st = health.Warn
	}
	ios := &IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	c, rest, err := NewRootCmd(ios).Find(args)
	if err != nil {
		return health.Result{Status: st, Text: "its arguments do not parse: " + err.Error(), Fix: fixIn("the arguments")}
	}
	c.InitDefaultHelpFlag()
	if err := c.ParseFlags(rest); err != nil {
		text := fmt.Sprintf("compact-guard %s would reject its arguments (%v) and do nothing", c.Name(), err)
		if st == health.Warn {
			text = fmt.Sprintf("compact-guard %s rejects its arguments as written (%v); only the shell's expansion can make them valid", c.Name(), err)
		}
		return health.Result{Status: st, Text: text, Fix: fixIn(offendingWords(err, rest))}
	}
	f := c.Flags()
	if h := f.Lookup("help"); h != nil && h.Changed {
		return health.Result{Status: health.Fail, Text: fmt.Sprintf("compact-guard %s would print its help and do nothing", c.Name()), Fix: fixIn("--help")}
	}
	if k := f.Lookup("keep"); k != nil && k.Changed {
		if n, err := f.GetInt("keep"); err == nil && n < 1 {
			return health.Result{Status: health.Fail, Text: fmt.Sprintf("--keep %d: at least 1 snapshot must be kept", n), Fix: fixIn("--keep " + k.Value.String())}
		}
	}
	if l := f.Lookup("lang"); l != nil && l.Changed {
		if _, err := snapshot.ParseLang(l.Value.String()); err != nil {
			return health.Result{Status: st, Text: fmt.Sprintf("--lang %s: %v; the hook falls back to the environment's language", l.Value.String(), err),
				Fix: fixIn("--lang " + l.Value.String())}
		}
	}
	if pos := f.Args(); len(pos) > 0 {
		return health.Result{Status: health.Warn, Text: fmt.Sprintf("compact-guard %s ignores the argument(s) %s", c.Name(), strings.Join(pos, " ")),
			Fix: fixIn(strings.Join(pos, " "))}
	}
	return health.Result{}
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
