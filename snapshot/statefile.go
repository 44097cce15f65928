package snapshot

import (
	"context"
	"io/fs"
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
//
// Each look runs under ctx: a file system that does not answer before ctx
// ends (a hung network mount) is named in Unanswered, the folders after it
// are not looked in, and the caller goes on (its stat is left to finish or
// to end with the process).
func FindStateFile(ctx context.Context, name string, candidates []string) StateFile {
	return findStateFile(ctx, name, candidates, os.Stat)
}

func findStateFile(ctx context.Context, name string, candidates []string, stat func(string) (fs.FileInfo, error)) StateFile {
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
		p := filepath.Join(dir, name)
		// Stat, not Lstat: a state file kept elsewhere and linked in counts.
		fi, err, answered := statUnder(ctx, stat, p)
		if !answered {
			sf.Unanswered = dir
			return sf
		}
		sf.Searched = append(sf.Searched, dir)
		if err == nil && fi.Mode().IsRegular() {
			sf.Path = p
			sf.ModTime = fi.ModTime()
			return sf
		}
	}
	return sf
}

// statUnder runs stat in its own goroutine and waits for it until ctx ends;
// answered is false when ctx ended first.
func statUnder(ctx context.Context, stat func(string) (fs.FileInfo, error), p string) (fs.FileInfo, error, bool) {
	if ctx.Err() != nil {
		return nil, nil, false
	}
	type answer struct {
		fi  fs.FileInfo
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		fi, err := stat(p)
		ch <- answer{fi, err}
	}()
	select {
	case a := <-ch:
		return a.fi, a.err, true
	case <-ctx.Done():
		return nil, nil, false
	}
}
