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
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/utils/merkletrie"
	mfs "github.com/go-git/go-git/v5/utils/merkletrie/filesystem"
	mindex "github.com/go-git/go-git/v5/utils/merkletrie/index"
	"github.com/go-git/go-git/v5/utils/merkletrie/noder"

	"github.com/compact-guard/compact-guard/snapshot"
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

// goGitRepo is a repository as the format packages see it.
type goGitRepo struct {
	// root is the work tree; gitDir the .git folder or the one a .git file
	// names (linked worktree, submodule); commonDir the folder holding the
	// objects, refs and config (gitDir itself unless gitDir/commondir names
	// another).
	root, gitDir, commonDir string
	// objectDirs are commonDir/objects and its alternates.
	objectDirs []string
	packs      []*goGitPack
	packsRead  bool
}

// goGitPack is one pack of objects, opened on first use.
type goGitPack struct {
	idx  *idxfile.MemoryIndex
	file io.Closer
	pack *packfile.Packfile
}

// maxSymrefDepth and maxAlternateDepth are git's own limits.
const (
	maxSymrefDepth    = 5
	maxAlternateDepth = 5
	// maxTreeDepth is git's core.maxTreeDepth default.
	maxTreeDepth = 4096
)

// openGoGitRepo finds root's git folders and refuses a repository whose
// format this reader does not know.
func openGoGitRepo(root string) (*goGitRepo, error) {
	r := &goGitRepo{root: root, gitDir: filepath.Join(root, ".git")}
	fi, err := os.Stat(r.gitDir)
	if err != nil {
		return nil, err
	}
	gitFile := ""
	if !fi.IsDir() {
		gitFile = r.gitDir
		b, err := readHead(r.gitDir, 4096)
		if err != nil {
			return nil, err
		}
		line, _, _ := strings.Cut(string(b), "\n")
		dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return nil, errors.New(".git file names no gitdir")
		}
		r.gitDir = absUnder(root, strings.TrimSpace(dir))
	}
	if err := checkOwnership(root, gitFile, r.gitDir); err != nil {
		return nil, err
	}
	r.commonDir = r.gitDir
	if b, err := os.ReadFile(filepath.Join(r.gitDir, "commondir")); err == nil {
		r.commonDir = absUnder(r.gitDir, strings.TrimSpace(string(b)))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := checkRepoFormat(filepath.Join(r.commonDir, "config")); err != nil {
		return nil, err
	}
	r.objectDirs = alternates(filepath.Join(r.commonDir, "objects"), nil, 0)
	return r, nil
}

// absUnder resolves p against dir unless it is absolute.
func absUnder(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// knownExtensions are the repository extensions that change nothing this
// reader does (values in lower case; "" accepts any value).
var knownExtensions = map[string]string{
	"noop": "", "noop-v1": "", "preciousobjects": "", "partialclone": "",
	"worktreeconfig": "", "objectformat": "sha1", "refstorage": "files",
}

// checkRepoFormat refuses what git's repositoryformatversion and extensions
// say this reader would misread (SHA-256 objects, reftable refs, extensions
// it does not know), as git refuses extensions it does not know.
func checkRepoFormat(path string) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	// Git reads these from the repository's own file, without includes.
	for _, kv := range configSettings(string(b), "core", "extensions") {
		switch {
		case kv[0] == "core.repositoryformatversion":
			if kv[1] != "0" && kv[1] != "1" {
				return fmt.Errorf("repository format version %q not supported", kv[1])
			}
		case strings.HasPrefix(kv[0], "extensions."):
			name := strings.TrimPrefix(kv[0], "extensions.")
			want, ok := knownExtensions[name]
			if !ok || want != "" && strings.ToLower(kv[1]) != want {
				return fmt.Errorf("repository extension %s=%s not supported", name, kv[1])
			}
		}
	}
	return nil
}

// configSettings reads, from a git config file, the settings of the named
// sections as "section.key" (lower case) and value, in order. Only the
// syntax those simple sections use is understood: quotes, escapes and
// comments; a boolean key without a value is "true"; includes are not
// followed.
func configSettings(cfg string, sections ...string) [][2]string {
	var out [][2]string
	section := ""
	for line := range strings.Lines(cfg) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(line[1:], "]")
			name, _, _ = strings.Cut(strings.TrimSpace(name), " ")
			section = strings.ToLower(name)
			continue
		}
		if !slices.Contains(sections, section) || line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, value, hasValue := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !hasValue {
			value = "true"
		}
		out = append(out, [2]string{section + "." + key, configValue(value)})
	}
	return out
}

// configValue unquotes a git config value and drops a trailing comment.
func configValue(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(v[i])
			}
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// alternates returns objects and the object folders its info/alternates
// names, recursively to git's depth.
func alternates(objects string, seen []string, depth int) []string {
	if slices.Contains(seen, objects) {
		return seen
	}
	seen = append(seen, objects)
	if depth >= maxAlternateDepth {
		return seen
	}
	b, err := os.ReadFile(filepath.Join(objects, "info", "alternates"))
	if err != nil {
		return seen
	}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		seen = alternates(absUnder(objects, line), seen, depth+1)
	}
	return seen
}

func (r *goGitRepo) close() {
	for _, p := range r.packs {
		if p.file != nil {
			p.file.Close()
		}
	}
}

// ref reads one ref unresolved. HEAD and the per-worktree refs live in
// gitDir, the others in commonDir, loose or in packed-refs.
func (r *goGitRepo) ref(name plumbing.ReferenceName) (*plumbing.Reference, error) {
	if err := name.Validate(); err != nil || name != plumbing.HEAD && !strings.HasPrefix(string(name), "refs/") {
		return nil, fmt.Errorf("invalid ref name %q", name)
	}
	dir := r.commonDir
	if name == plumbing.HEAD || perWorktreeRef(name) {
		dir = r.gitDir
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(string(name))))
	if err == nil {
		target := strings.TrimSpace(string(b))
		if t, ok := strings.CutPrefix(target, "ref:"); ok {
			return plumbing.NewSymbolicReference(name, plumbing.ReferenceName(strings.TrimSpace(t))), nil
		}
		if !plumbing.IsHash(target) {
			return nil, fmt.Errorf("ref %s holds neither a hash nor a ref", name)
		}
		return plumbing.NewHashReference(name, plumbing.NewHash(target)), nil
	}
	// A path through a file ("refs/heads/a" a file, "refs/heads/a/b"
	// asked) is as good as not found.
	if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, err
	}
	if name == plumbing.HEAD {
		return nil, errors.New("no HEAD")
	}
	return r.packedRef(name)
}

// perWorktreeRef reports the refs each worktree has its own of.
func perWorktreeRef(name plumbing.ReferenceName) bool {
	for _, p := range []string{"refs/bisect/", "refs/worktree/", "refs/rewritten/"} {
		if strings.HasPrefix(string(name), p) {
			return true
		}
	}
	return false
}

// packedRef looks name up in commonDir/packed-refs.
func (r *goGitRepo) packedRef(name plumbing.ReferenceName) (*plumbing.Reference, error) {
	b, err := os.ReadFile(filepath.Join(r.commonDir, "packed-refs"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, plumbing.ErrReferenceNotFound
	}
	if err != nil {
		return nil, err
	}
	for line := range strings.Lines(string(b)) {
		h, n, ok := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		if ok && n == string(name) && plumbing.IsHash(h) {
			return plumbing.NewHashReference(name, plumbing.NewHash(h)), nil
		}
	}
	return nil, plumbing.ErrReferenceNotFound
}

// resolve follows symbolic refs from name to a commit hash.
func (r *goGitRepo) resolve(name plumbing.ReferenceName) (plumbing.Hash, error) {
	for range maxSymrefDepth {
		ref, err := r.ref(name)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if ref.Type() == plumbing.HashReference {
			return ref.Hash(), nil
		}
		name = ref.Target()
	}
	return plumbing.ZeroHash, fmt.Errorf("ref %s: symbolic refs nested too deep", name)
}

// object reads an object, loose or packed, whole.
func (r *goGitRepo) object(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	for _, dir := range r.objectDirs {
		f, err := os.Open(filepath.Join(dir, hex[:2], hex[2:]))
		if err != nil {
			continue
		}
		t, b, err := readLoose(f)
		f.Close()
		return t, b, err
	}
	if err := r.readPacks(); err != nil {
		return 0, nil, err
	}
	for _, p := range r.packs {
		if ok, _ := p.idx.Contains(h); !ok {
			continue
		}
		o, err := p.pack.Get(h)
		if err != nil {
			return 0, nil, err
		}
		rd, err := o.Reader()
		if err != nil {
			return 0, nil, err
		}
		b, err := io.ReadAll(rd)
		rd.Close()
		return o.Type(), b, err
	}
	return 0, nil, fmt.Errorf("object %s not found", hex)
}

func readLoose(f io.Reader) (plumbing.ObjectType, []byte, error) {
	rd, err := objfile.NewReader(f)
	if err != nil {
		return 0, nil, err
	}
	defer rd.Close()
	t, size, err := rd.Header()
	if err != nil {
		return 0, nil, err
	}
	b, err := io.ReadAll(io.LimitReader(rd, size))
	return t, b, err
}

// readPacks opens the index of every pack, once.
func (r *goGitRepo) readPacks() error {
	if r.packsRead {
		return nil
	}
	r.packsRead = true
	for _, dir := range r.objectDirs {
		packDir := filepath.Join(dir, "pack")
		idxs, _ := filepath.Glob(filepath.Join(packDir, "pack-*.idx"))
		fs := osfs.New(packDir)
		for _, idxPath := range idxs {
			idx := idxfile.NewMemoryIndex()
			f, err := os.Open(idxPath)
			if err != nil {
				return err
			}
			err = idxfile.NewDecoder(f).Decode(idx)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Base(idxPath), err)
			}
			pf, err := fs.Open(strings.TrimSuffix(filepath.Base(idxPath), ".idx") + ".pack")
			if err != nil {
				return err
			}
			r.packs = append(r.packs, &goGitPack{idx: idx, file: pf, pack: packfile.NewPackfile(idx, nil, pf, 0)})
		}
	}
	return nil
}

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
