package gitstate

// The git-less path (GS-3, GS-7) is built on go-git's format packages
// (index, loose and packed objects, gitignore, the merkletrie differ), not on
// its root package: that one links go-git's transports (net/http, ssh,
// openpgp), whose package initialisation alone costs every compact-guard
// process more than an empty Go program's whole start (PF-15). What the root
// package added over those formats, finding the git folder, reading refs and
// walking a tree, is the little below.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compact-guard/compact-guard/snapshot"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/utils/merkletrie"
	mfs "github.com/go-git/go-git/v5/utils/merkletrie/filesystem"
	mindex "github.com/go-git/go-git/v5/utils/merkletrie/index"
	"github.com/go-git/go-git/v5/utils/merkletrie/noder"
)

// goGitState is what go-git learnt of a repository.
type goGitState struct {
	branch   string
	head     string
	detached bool
	// subject, changes and count are filled only when asked for the status
	// (git missing).
	subject string
	changes []snapshot.GitChange
	count   int
	err     error
}

// readGoGit reads branch and HEAD from the refs of the work tree at root;
// with withStatus it also reads HEAD's subject and the status, which is slow
// on large trees and cannot be cancelled.
func readGoGit(root string, withStatus bool) (s goGitState) {
	repo, err := openGoGitRepo(root)
	if err != nil {
		s.err = err
		return s
	}
	defer repo.close()
	// HEAD itself, unresolved: symbolic on a branch, a hash when detached.
	ref, err := repo.ref(plumbing.HEAD)
	if err != nil {
		s.err = err
		return s
	}
	var head plumbing.Hash
	if ref.Type() == plumbing.SymbolicReference {
		s.branch = ref.Target().Short()
		h, err := repo.resolve(ref.Target())
		switch {
		case errors.Is(err, plumbing.ErrReferenceNotFound):
			// An unborn branch: no commit yet, so no hash.
		case err != nil:
			s.err = err
			return s
		default:
			head = h
		}
	} else {
		s.detached = true
		head = ref.Hash()
	}
	if !head.IsZero() {
		s.head = head.String()
	}
	if !withStatus {
		return s
	}
	var tree plumbing.Hash
	if !head.IsZero() {
		var msg string
		tree, msg, err = repo.commit(head)
		if err != nil {
			s.err = err
			return s
		}
		s.subject = cutSubject(subjectOf(msg))
	}
	st, err := repo.status(tree)
	if err != nil {
		s.err = err
		return s
	}
	s.changes, s.count = goGitChanges(st)
	return s
}

// maxSymrefDepth and maxAlternateDepth are git's own limits.
const (
	maxSymrefDepth    = 5
	maxAlternateDepth = 5
	// maxTreeDepth is git's core.maxTreeDepth default.
	maxTreeDepth = 4096
)

// commit returns a commit's tree and message.
func (r *goGitRepo) commit(h plumbing.Hash) (tree plumbing.Hash, msg string, err error) {
	t, b, err := r.object(h)
	if err != nil {
		return tree, "", err
	}
	if t != plumbing.CommitObject {
		return tree, "", fmt.Errorf("%s is a %s, not a commit", h, t)
	}
	headers, msg, _ := strings.Cut(string(b), "\n\n")
	first, _, _ := strings.Cut(headers, "\n")
	hex, ok := strings.CutPrefix(first, "tree ")
	if !ok || !plumbing.IsHash(hex) {
		return tree, "", fmt.Errorf("commit %s names no tree", h)
	}
	return plumbing.NewHash(hex), msg, nil
}

// treeEntries appends the files of tree h under prefix, as index entries.
func (r *goGitRepo) treeEntries(h plumbing.Hash, prefix string, depth int, out []*index.Entry) ([]*index.Entry, error) {
	if depth > maxTreeDepth {
		return out, errors.New("tree nested too deep")
	}
	t, b, err := r.object(h)
	if err != nil {
		return out, err
	}
	if t != plumbing.TreeObject {
		return out, fmt.Errorf("%s is a %s, not a tree", h, t)
	}
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		nul := bytes.IndexByte(b, 0)
		if sp < 0 || nul < sp || len(b) < nul+1+len(plumbing.ZeroHash) {
			return out, fmt.Errorf("tree %s is malformed", h)
		}
		mode, err := filemode.New(string(b[:sp]))
		name := string(b[sp+1 : nul])
		if err != nil || name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
			return out, fmt.Errorf("tree %s is malformed", h)
		}
		var eh plumbing.Hash
		copy(eh[:], b[nul+1:])
		b = b[nul+1+len(eh):]
		if mode == filemode.Dir {
			if out, err = r.treeEntries(eh, prefix+name+"/", depth+1, out); err != nil {
				return out, err
			}
			continue
		}
		out = append(out, &index.Entry{Name: prefix + name, Hash: eh, Mode: mode})
	}
	return out, nil
}

// index reads the git folder's index; a repository without one has none
// staged.
func (r *goGitRepo) index() (*index.Index, error) {
	idx := &index.Index{Version: 2}
	f, err := os.Open(filepath.Join(r.gitDir, "index"))
	if errors.Is(err, os.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := index.NewDecoder(f).Decode(idx); err != nil {
		return nil, fmt.Errorf("reading the index: %w", err)
	}
	return idx, nil
}

// fileStatus is one path's state, in go-git's letters: ' ' unmodified, '?'
// untracked, 'M', 'A', 'D'.
type fileStatus struct{ staging, worktree byte }

// status compares HEAD's tree (zero: none) with the index, and the index
// with the work tree, as go-git's Worktree.Status does: the same differ,
// the same ignore rules, the same verdicts.
func (r *goGitRepo) status(tree plumbing.Hash) (map[string]*fileStatus, error) {
	idx, err := r.index()
	if err != nil {
		return nil, err
	}
	head := &index.Index{}
	if !tree.IsZero() {
		if head.Entries, err = r.treeEntries(tree, "", 0, nil); err != nil {
			return nil, err
		}
	}
	st := map[string]*fileStatus{}
	file := func(name string) *fileStatus {
		if st[name] == nil {
			st[name] = &fileStatus{staging: '?', worktree: '?'}
		}
		return st[name]
	}
	staged, err := merkletrie.DiffTree(mindex.NewRootNode(head), mindex.NewRootNode(idx), diffTreeIsEquals)
	if err != nil {
		return nil, err
	}
	for _, ch := range staged {
		a, err := ch.Action()
		if err != nil {
			return nil, err
		}
		fs := file(changeName(ch))
		fs.worktree = ' '
		switch a {
		case merkletrie.Delete:
			fs.staging = 'D'
		case merkletrie.Insert:
			fs.staging = 'A'
		case merkletrie.Modify:
			fs.staging = 'M'
		}
	}
	wt := osfs.New(r.root)
	worktree := mfs.NewRootNodeWithOptions(wt, r.submodules(idx), mfs.Options{Index: idx})
	unstaged, err := merkletrie.DiffTree(mindex.NewRootNode(idx), worktree, diffTreeIsEquals)
	if err != nil {
		return nil, err
	}
	ignore := newIgnoreRules(r.root, r.commonDir)
	for _, ch := range unstaged {
		a, err := ch.Action()
		if err != nil {
			return nil, err
		}
		// An ignored path counts only when it is tracked (deleted or
		// changed), as in go-git and git.
		if a == merkletrie.Insert && ignore.ignored(ch.To.String(), ch.To.IsDir()) {
			continue
		}
		fs := file(changeName(ch))
		if fs.staging == '?' {
			fs.staging = ' '
		}
		switch a {
		case merkletrie.Delete:
			fs.worktree = 'D'
		case merkletrie.Insert:
			fs.worktree, fs.staging = '?', '?'
		case merkletrie.Modify:
			fs.worktree = 'M'
		}
	}
	return st, nil
}

// submodules maps each submodule's path to the commit checked out in it,
// else to the one the index records, so that the differ compares commits
// instead of walking the submodule's files.
func (r *goGitRepo) submodules(idx *index.Index) map[string]plumbing.Hash {
	subs := map[string]plumbing.Hash{}
	for _, e := range idx.Entries {
		if e.Mode != filemode.Submodule {
			continue
		}
		subs[e.Name] = e.Hash
		sub, err := openGoGitRepo(filepath.Join(r.root, filepath.FromSlash(e.Name)))
		if err != nil {
			continue
		}
		if h, err := sub.resolve(plumbing.HEAD); err == nil {
			subs[e.Name] = h
		}
		sub.close()
	}
	return subs
}

// emptyNoderHash is the hash of a noder that has none (a folder).
var emptyNoderHash = make([]byte, 24)

// diffTreeIsEquals is go-git's own equality for the differ: a folder is
// never equal, so that the differ walks into it.
func diffTreeIsEquals(a, b noder.Hasher) bool {
	ha, hb := a.Hash(), b.Hash()
	if bytes.Equal(ha, emptyNoderHash) || bytes.Equal(hb, emptyNoderHash) {
		return false
	}
	return bytes.Equal(ha, hb)
}

func changeName(ch merkletrie.Change) string {
	if name := ch.To.String(); name != "" {
		return name
	}
	return ch.From.String()
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

// goGitChanges orders the status as git status does (tracked paths by name,
// then untracked ones by name) and spells the codes as porcelain v2, '.'
// for an unchanged side.
func goGitChanges(st map[string]*fileStatus) ([]snapshot.GitChange, int) {
	var tracked, untracked []snapshot.GitChange
	for path, fs := range st {
		if fs.staging == ' ' && fs.worktree == ' ' {
			continue
		}
		if fs.staging == '?' && fs.worktree == '?' {
			untracked = append(untracked, snapshot.GitChange{Code: "??", Path: path})
			continue
		}
		tracked = append(tracked, snapshot.GitChange{Code: string([]byte{v2Code(fs.staging), v2Code(fs.worktree)}), Path: path})
	}
	byPath := func(a, b snapshot.GitChange) int { return strings.Compare(a.Path, b.Path) }
	slices.SortFunc(tracked, byPath)
	slices.SortFunc(untracked, byPath)
	all := append(tracked, untracked...)
	return all[:min(len(all), snapshot.MaxGitChanges):min(len(all), snapshot.MaxGitChanges)], len(all)
}

func v2Code(c byte) byte {
	if c == ' ' || c == '?' {
		return '.'
	}
	return c
}
