package gitstate

import (
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
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// The repository side of the go-git path (moved out of gogit.go when it
// grew): opening a repository under the guards of GS-3 and GS-7, its config,
// references, objects and packs.

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
