// Package fileid tells which protected file a path really is on this machine: through
// symbolic links in it, or as a hard link of the same device and inode.
package fileid

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ID is a file's identity on this machine: its device and inode. Two names with the same
// ID are the same file, whatever their paths.
type ID struct{ Dev, Ino uint64 }

// FS is what the package asks of the file system; OS answers from the real one, tests
// from a temporary directory.
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	Stat(name string) (fs.FileInfo, error)
	EvalSymlinks(name string) (string, error)
	Readlink(name string) (string, error)
	ReadDir(name string) ([]fs.DirEntry, error)
}

// OS is the machine's file system.
type OS struct{}

func (OS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (OS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (OS) EvalSymlinks(name string) (string, error)   { return filepath.EvalSymlinks(name) }
func (OS) Readlink(name string) (string, error)       { return os.Readlink(name) }
func (OS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

// maxHops bounds how many dangling links in a row are followed, as the kernel bounds
// symbolic links in one lookup (40 on Linux).
const maxHops = 40

// Identity is what a written path really is.
type Identity struct {
	// Real is the path after resolving every symbolic link of its longest existing prefix
	// (and dangling links, whose target a write creates); "" when it is the path itself.
	Real string
	// HardLinkOf is the protected file the path is another name of (same device and
	// inode), when it is one.
	HardLinkOf string
}

// Resolver answers for one decision: the identities of the protected files are read at
// most once, and only when a written file has more than one name, so that the usual write
// (a new file, or a file with one link) costs a few lookups of its own path.
type Resolver struct {
	fs FS
	// protected lists the protected files that exist, all of them (within "") or those in
	// one directory.
	protected func(within string) []string
	index     map[ID]string
	indexed   bool
	seen      map[string]result
	trees     map[string][]string
	// dirs are the real paths of directories resolved for this decision, which the
	// several paths a line writes mostly share.
	dirs map[string]string
}

type result struct {
	id  Identity
	err error
}

// NewResolver returns a resolver over fsys; protected lists the protected files that
// exist (see Concrete), all of them or those in one directory. It is called when first
// needed, at most once for all and once per directory.
func NewResolver(fsys FS, protected func(within string) []string) *Resolver {
	return &Resolver{fs: fsys, protected: protected}
}

// Resolve returns what a write to the absolute path p really writes. An error means p's
// identity could not be told (a lookup failed for another reason than the file not
// existing): the caller must not take p for an ordinary file then.
func (r *Resolver) Resolve(p string) (Identity, error) {
	if res, ok := r.seen[p]; ok {
		return res.id, res.err
	}
	id, err := r.resolve(p)
	if r.seen == nil {
		r.seen = make(map[string]result)
	}
	r.seen[p] = result{id, err}
	return id, err
}

func (r *Resolver) resolve(p string) (Identity, error) {
	var id Identity
	real, fi, err := r.realPath(p)
	if err != nil {
		return id, err
	}
	if real != p {
		id.Real = real
	}
	if fi == nil {
		return id, nil // a new file is no other file
	}
	fid, links, ok := identify(fi)
	if !ok || links < 2 || !fi.Mode().IsRegular() {
		return id, nil
	}
	if other, found := r.protectedIDs()[fid]; found && other != real && other != p {
		id.HardLinkOf = other
	}
	return id, nil
}

// ProtectedExists reports whether any protected file exists, which decides whether a
// path whose identity cannot be told could be one.
func (r *Resolver) ProtectedExists() bool { return len(r.protectedIDs()) > 0 }

// protectedIDs reads the identity of every protected file once. A protected file that
// cannot be read is left out: it is then not one a write through another name could reach
// either, since the same permissions guard both names.
func (r *Resolver) protectedIDs() map[ID]string {
	if r.indexed {
		return r.index
	}
	r.indexed = true
	for _, p := range r.protected("") {
		fi, err := r.fs.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fid, _, ok := identify(fi); ok {
			if r.index == nil {
				r.index = make(map[ID]string)
			}
			if _, dup := r.index[fid]; !dup {
				r.index[fid] = p
			}
		}
	}
	return r.index
}

// ProtectedIn returns the protected files in the tree at dir (absolute and clean), after
// resolving the links of dir: what a write or delete of the whole tree reaches.
func (r *Resolver) ProtectedIn(dir string) ([]string, error) {
	real, fi, err := r.realPath(dir)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, nil // a tree that does not exist holds nothing yet
	}
	if files, ok := r.trees[real]; ok {
		return files, nil
	}
	files := r.protected(real)
	if r.trees == nil {
		r.trees = make(map[string][]string)
	}
	r.trees[real] = files
	return files, nil
}

// realPath resolves the links of p's longest existing prefix, looked for from p upwards
// (a written path is usually new, and its directory near): a link is followed to its
// target even when that does not exist, since a write through it creates the target.
// fi describes the file the path leads to, nil when there is none yet.
func (r *Resolver) realPath(p string) (real string, fi fs.FileInfo, err error) {
	rest := ""
	hops := 0
	// inP says dir is p itself or one of its directories, so that rest is the end of p
	// and needs no building.
	inP := true
	for dir := p; ; {
		var err error
		fi, err = r.fs.Lstat(dir)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			if hops++; hops > maxHops {
				return "", nil, fmt.Errorf("resolving links in %s: %w", p, syscall.ELOOP)
			}
			target, err := r.fs.Readlink(dir)
			if err != nil {
				return "", nil, fmt.Errorf("reading link %s: %w", dir, err)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(dir), target)
			}
			dir = filepath.Clean(target)
			inP = false
			continue
		case err == nil:
			// dir is there and no link: the directories above it may still be links.
			real, err := r.realDir(dir)
			if err != nil {
				return "", nil, fmt.Errorf("resolving links in %s: %w", dir, err)
			}
			if rest != "" {
				fi = nil
			}
			return join(real, rest), fi, nil
		case !absent(err):
			return "", nil, fmt.Errorf("looking up %s: %w", dir, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p, nil, nil
		}
		if inP && parent != "/" && len(parent) < len(p) && p[len(parent)] == '/' {
			rest = p[len(parent)+1:]
		} else {
			rest = join(filepath.Base(dir), rest)
		}
		dir = parent
	}
}

// realDir resolves the links of an existing path that is no link itself: its
// directory's, remembered for the decision, and its own name.
func (r *Resolver) realDir(p string) (string, error) {
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	real, ok := r.dirs[parent]
	if !ok {
		var err error
		if real, err = r.fs.EvalSymlinks(parent); err != nil {
			return "", err
		}
		if r.dirs == nil {
			r.dirs = make(map[string]string)
		}
		r.dirs[parent] = real
	}
	return filepath.Join(real, filepath.Base(p)), nil
}

func join(dir, rest string) string {
	if rest == "" {
		return dir
	}
	return filepath.Join(dir, rest)
}

// absent reports whether err means that the file is not there: a write creates it.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}
