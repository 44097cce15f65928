package gitstate

// What keeps the git that Read runs from running programs a repository's
// configuration names, and from writing (GS-13 to GS-16). A repository's
// .git folder is whatever its author made it: a project unpacked from an
// archive, a folder shared with another user. Its config can name programs
// git runs on its own while it reads: an fsmonitor hook, clean filters, a
// transport fetching a partial clone's missing objects. compact-guard reads
// the state of a session's repository without being asked to trust it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// gitGuard is the configuration every git Read runs gets on its command
// line, where it outranks the repository's (GS-13): no fsmonitor hook or
// daemon, no hooks, no transport (which would run ssh commands, credential
// helpers, upload-pack programs and ext:: commands from the config).
var gitGuard = []string{
	"core.fsmonitor=false",
	"core.hooksPath=" + os.DevNull,
	"protocol.allow=never",
}

// gitGuardListing names the settings git's command line must also override
// but whose names only the configuration knows: filter drivers and
// protocol.<name>.allow.
const gitGuardListing = `^(filter|protocol)\.`

// repoScope reports the scopes `git config --show-scope` gives settings the
// user did not make: the repository's own config (and what it includes), a
// linked worktree's, and any scope a later git may add.
func repoScope(scope string) bool {
	switch scope {
	case "system", "global", "command":
		return false
	}
	return true
}

// gitRepoGuard lists the filter drivers and protocol permissions the
// configuration holds and returns gitGuard plus what neutralises them: a
// driver the repository defines (any of its keys) gets empty clean, smudge
// and process commands and required=false, so that git compares file
// content as it is; every protocol.<name>.allow becomes never. It runs
// `git config`, which reads configuration and runs nothing.
func gitRepoGuard(ctx context.Context, bin, root string) ([]string, error) {
	out := &limitedWriter{max: 1 << 20}
	err := runGit(ctx, bin, root, gitGuard, out, "config", "--null", "--show-scope", "--get-regexp", gitGuardListing)
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && ctx.Err() == nil {
		// Nothing matched.
		return gitGuard, nil
	}
	if err != nil {
		return nil, err
	}
	if out.buf.Len() >= out.max {
		return nil, errors.New("git config: the filter and protocol settings run past 1 MiB")
	}
	guard := append([]string(nil), gitGuard...)
	seen := map[string]bool{}
	// --null --show-scope: "scope\0key\nvalue\0" per setting.
	fields := strings.Split(strings.TrimSuffix(out.buf.String(), "\x00"), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		scope := fields[i]
		key, _, _ := strings.Cut(fields[i+1], "\n")
		section, rest, _ := strings.Cut(key, ".")
		lastDot := strings.LastIndexByte(rest, '.')
		if lastDot < 0 {
			continue // protocol.allow: in gitGuard already
		}
		name, variable := rest[:lastDot], rest[lastDot+1:]
		var set []string
		switch {
		case section == "filter" && repoScope(scope):
			set = []string{"clean=", "smudge=", "process=", "required=false"}
		case section == "protocol" && variable == "allow":
			set = []string{"allow=never"}
		default:
			continue
		}
		if seen[section+"."+name] {
			continue
		}
		seen[section+"."+name] = true
		// git -c splits its argument at the first '=': a name holding one
		// cannot be overridden there.
		if strings.Contains(name, "=") {
			return nil, fmt.Errorf("git config: %s %q cannot be overridden on git's command line (its name holds '='); git status not run", section, name)
		}
		for _, s := range set {
			guard = append(guard, section+"."+name+"."+s)
		}
	}
	return guard, nil
}

// gitArgs is the command line of a guarded git: its folder, no optional
// locks (GS-15), the guard's settings, then args.
func gitArgs(root string, guard []string, args ...string) []string {
	out := []string{"-C", root, "--no-optional-locks"}
	for _, kv := range guard {
		out = append(out, "-c", kv)
	}
	return append(out, args...)
}
