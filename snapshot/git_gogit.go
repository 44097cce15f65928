package snapshot

import (
	"errors"
	"slices"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// goGitState is what go-git learnt of a repository.
type goGitState struct {
	branch   string
	head     string
	detached bool
	// subject, changes and count are filled only when asked for the status
	// (git missing).
	subject string
	changes []GitChange
	count   int
	err     error
}

// readGoGit reads branch and HEAD from the refs of the work tree at root;
// with withStatus it also reads HEAD's subject and Worktree.Status(), which
// is slow on large trees and cannot be cancelled.
func readGoGit(root string, withStatus bool) (s goGitState) {
	repo, err := gogit.PlainOpenWithOptions(root, &gogit.PlainOpenOptions{
		DetectDotGit:          true,
		EnableDotGitCommonDir: true,
	})
	if err != nil {
		s.err = err
		return s
	}
	// HEAD itself, unresolved: symbolic on a branch, a hash when detached.
	ref, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		s.err = err
		return s
	}
	if ref.Type() == plumbing.SymbolicReference {
		s.branch = ref.Target().Short()
		res, err := storer.ResolveReference(repo.Storer, plumbing.HEAD)
		switch {
		case errors.Is(err, plumbing.ErrReferenceNotFound):
			// An unborn branch: no commit yet, so no hash.
		case err != nil:
			s.err = err
			return s
		default:
			s.head = res.Hash().String()
		}
	} else {
		s.detached = true
		s.head = ref.Hash().String()
	}
	if !withStatus {
		return s
	}
	if s.head != "" {
		c, err := repo.CommitObject(plumbing.NewHash(s.head))
		if err != nil {
			s.err = err
			return s
		}
		s.subject = cutSubject(subjectOf(c.Message))
	}
	wt, err := repo.Worktree()
	if err != nil {
		s.err = err
		return s
	}
	st, err := wt.Status()
	if err != nil {
		s.err = err
		return s
	}
	s.changes, s.count = goGitChanges(st)
	return s
}

// subjectOf is what git's %s gives: the first paragraph, its lines joined
// by spaces.
func subjectOf(msg string) string {
	var parts []string
	for line := range strings.Lines(msg) {
		line = strings.TrimSpace(line)
		if line == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, " ")
}

// goGitChanges orders go-git's status as git status does (tracked paths by
// name, then untracked ones by name) and spells the codes as porcelain v2,
// '.' for an unchanged side.
func goGitChanges(st gogit.Status) ([]GitChange, int) {
	var tracked, untracked []GitChange
	for path, fs := range st {
		if fs.Staging == gogit.Unmodified && fs.Worktree == gogit.Unmodified {
			continue
		}
		if fs.Staging == gogit.Untracked && fs.Worktree == gogit.Untracked {
			untracked = append(untracked, GitChange{Code: "??", Path: path})
			continue
		}
		code := string([]byte{v2Code(fs.Staging), v2Code(fs.Worktree)})
		tracked = append(tracked, GitChange{Code: code, Path: path, From: renamedFrom(fs)})
	}
	byPath := func(a, b GitChange) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(tracked, byPath)
	slices.SortFunc(untracked, byPath)
	all := append(tracked, untracked...)
	return all[:min(len(all), MaxGitChanges):min(len(all), MaxGitChanges)], len(all)
}

func v2Code(c gogit.StatusCode) byte {
	if c == gogit.Unmodified || c == gogit.Untracked {
		return '.'
	}
	return byte(c)
}

func renamedFrom(fs *gogit.FileStatus) string {
	if fs.Staging == gogit.Renamed {
		return fs.Extra
	}
	return ""
}
