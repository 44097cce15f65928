package snapshot

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/text/language"
)

// Lang is the language of the pointer text and the snapshot's headings.
type Lang string

// Supported languages.
const (
	English Lang = "en"
	Russian Lang = "ru"
)

// Tag is the language tag used with golang.org/x/text/message printers.
func (l Lang) Tag() language.Tag {
	if l == Russian {
		return language.Russian
	}
	return language.English
}

// langMatcher is built on first use: package initialisation is paid by
// every process, most of which never parse a language (PF-16).
var langMatcher = sync.OnceValue(func() language.Matcher {
	return language.NewMatcher([]language.Tag{language.English, language.Russian})
})

// ParseLang accepts "en", "ru" or any BCP 47 / POSIX locale name that maps
// to one of them ("ru_RU.UTF-8", "en-GB"); "" gives English.
func ParseLang(s string) (Lang, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return English, nil
	}
	tag, err := language.Parse(posixToBCP47(s))
	if err != nil {
		return English, fmt.Errorf("unknown language %q (use en or ru)", s)
	}
	_, idx, conf := langMatcher().Match(tag)
	if conf == language.No {
		return English, fmt.Errorf("unsupported language %q (use en or ru)", s)
	}
	if idx == 1 {
		return Russian, nil
	}
	return English, nil
}

// LangFromEnv picks the language from the POSIX locale variables in their
// order of precedence (LC_ALL, LC_MESSAGES, LANG): Russian when the first one
// set starts with "ru", English otherwise.
func LangFromEnv(getenv func(string) string) Lang {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(k)
		if v == "" {
			continue
		}
		if strings.HasPrefix(strings.ToLower(v), "ru") {
			return Russian
		}
		return English
	}
	return English
}

// posixToBCP47 turns "ru_RU.UTF-8@euro" into "ru-RU".
func posixToBCP47(s string) string {
	if i := strings.IndexAny(s, ".@"); i >= 0 {
		s = s[:i]
	}
	return strings.ReplaceAll(s, "_", "-")
}
