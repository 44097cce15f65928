package snapshot

import (
	"os"
	"path/filepath"
)

// DefaultStateFileName is the project state file looked for when no other
// name is given.
const DefaultStateFileName = "SESSION-STATE.md"

// FindStateFile looks for the project's state file called name
// (DefaultStateFileName when empty) in each candidate folder in turn and
// records the first one that is a regular file. Empty and repeated
// candidates are skipped; Searched lists the folders looked in.
func FindStateFile(name string, candidates []string) StateFile {
	if name == "" {
		name = DefaultStateFileName
	}
	sf := StateFile{Name: name, Searched: []string{}}
	seen := make(map[string]bool, len(candidates))
	for _, dir := range candidates {
		if dir == "" {
			continue
		}
		dir = filepath.Clean(dir)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		sf.Searched = append(sf.Searched, dir)
		p := filepath.Join(dir, name)
		// Stat, not Lstat: a state file kept elsewhere and linked in counts.
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			sf.Path = p
			sf.ModTime = fi.ModTime()
			return sf
		}
	}
	return sf
}
