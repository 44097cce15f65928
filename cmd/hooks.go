package cmd

import (
	"os"

	"github.com/compact-guard/compact-guard/snapshot"
)

// hookAnnotation marks the commands Claude Code runs as hooks: they exit 0
// whatever happens, because exit 2 from PreCompact blocks the compaction.
const hookAnnotation = "compact-guard/hook"

// resolveLang applies --lang, else the POSIX locale. An unknown --lang falls
// back to the locale, with a warning: a hook must not fail over a flag.
func resolveLang(ios *IO, g *GlobalOptions, getenv func(string) string) snapshot.Lang {
	if g.Lang != "" {
		l, err := snapshot.ParseLang(g.Lang)
		if err == nil {
			return l
		}
		ios.hookWarnings = append(ios.hookWarnings, "--lang: "+err.Error())
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return snapshot.LangFromEnv(getenv)
}
