package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"mvdan.cc/sh/v3/syntax"
)

// doctor's fixes must work: each says what is wrong, where, and a repair
// that mends it.

// shellQuote quotes a path for a fix line the user pastes into a POSIX
// shell (as is when the shell reads nothing into it).
func shellQuote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil {
		return q
	}
	return strconv.Quote(s)
}

// settingsReadProblem is the line of a settings file that exists but
// cannot be read (IN-22): not a regular file, larger than any settings
// file, or unreadable.
func settingsReadProblem(src settingsSource, err error) doctorCheck {
	c := doctorCheck{Status: checkFail, Text: fmt.Sprintf("%s %s cannot be read: %v", src.Label, src.Path, err)}
	c.Fix = unreadableFix(src.Path, err) + ", then " + installFix(src)
	return c
}

// unreadableFix mends a file that cannot be read as a settings file
// (IN-22) without losing anything in it: a link, a FIFO, a socket or a
// device goes (rm removes a link, not its target); a folder or a file too
// large is moved aside; a file the user may not read gets the permission.
func unreadableFix(path string, err error) string {
	q := shellQuote(path)
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
		return "mv " + q + " " + shellQuote(path+".not-settings")
	case fi.Mode().IsRegular():
		return "mv " + q + " " + shellQuote(path+".too-large")
	}
	return "rm " + q
}
