package gitstate

// The git-less path refuses what git refuses (GS-17): since 2.35.2 git
// reads no repository whose work tree or git folder another user owns,
// unless safe.directory, in configuration that user cannot write, names it.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot/trust"
)

// checkOwnership refuses, as git's safe.directory check does, a repository
// whose work tree, .git file or git folder this user does not own, unless
// the user's system or global config names the work tree safe.
func checkOwnership(root, gitFile, gitDir string) error {
	for _, p := range []string{root, gitFile, gitDir} {
		if p == "" {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if trust.OwnedByMe(p, fi) {
			continue
		}
		if safeDirectory(root) {
			return nil
		}
		return fmt.Errorf("%s is owned by another user, and safe.directory does not name %s (git refuses it too)", p, root)
	}
	return nil
}

// safeDirectory reports whether the safe.directory settings of the system
// and global config files name root: "*" or the path itself (after ~/); an
// empty value clears the list. Values given with -c or through includes,
// and the "folder/*" form of git 2.46, are not read: that can only refuse
// more than git does.
func safeDirectory(root string) bool {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		real = root
	}
	safe := false
	for _, file := range protectedConfigFiles() {
		b, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, kv := range configSettings(string(b), "safe") {
			if kv[0] != "safe.directory" {
				continue
			}
			v := kv[1]
			switch {
			case v == "":
				safe = false
			case v == "*":
				safe = true
			default:
				if rest, ok := strings.CutPrefix(v, "~/"); ok {
					if home, err := os.UserHomeDir(); err == nil {
						v = filepath.Join(home, rest)
					}
				}
				safe = safe || samePath(v, root) || samePath(v, real)
			}
		}
	}
	return safe
}

// protectedConfigFiles are the config files git takes safe.directory from:
// the system file (unless GIT_CONFIG_NOSYSTEM), then the global ones.
func protectedConfigFiles() []string {
	var files []string
	if !gitBool(os.Getenv("GIT_CONFIG_NOSYSTEM")) {
		if f := os.Getenv("GIT_CONFIG_SYSTEM"); f != "" {
			files = append(files, f)
		} else if runtime.GOOS != "windows" {
			files = append(files, "/etc/gitconfig")
		}
	}
	if f, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		return append(files, f)
	}
	home, _ := os.UserHomeDir()
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		files = append(files, filepath.Join(x, "git", "config"))
	} else if home != "" {
		files = append(files, filepath.Join(home, ".config", "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// gitBool is git's reading of a boolean environment variable.
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func samePath(a, b string) bool {
	a, b = filepath.Clean(filepath.FromSlash(a)), filepath.Clean(b)
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
