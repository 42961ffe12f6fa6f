package fileid

import (
	"path"
	"path/filepath"
	"strings"
)

// maxFiles bounds how many files Concrete lists, and maxTreeDepth how deep it walks a
// protected tree: moat's own directories hold a handful of files (policy, trust store,
// audit log and its rotations), and a bound keeps a huge tree from slowing a decision.
const (
	maxFiles     = 1024
	maxTreeDepth = 4
)

// Concrete returns the existing paths that the absolute patterns match, as path-set
// patterns are written: a segment may hold * ? and [...], a trailing /** stands for the
// whole tree beneath (every file in it is listed), and a leading /**/ ("in any
// directory") is taken in each of roots, the directories the call works in. The order
// follows the patterns; files that cannot be listed are left out. When within is not "",
// only files in that directory are listed, and patterns that cannot name one are not
// looked up at all.
func Concrete(fsys FS, patterns, roots []string, within string) []string {
	c := concrete{fs: fsys, seen: make(map[string]bool), within: within, dirs: make(map[string]bool)}
	for _, p := range patterns {
		if rel, ok := strings.CutPrefix(p, "/**/"); ok {
			for _, root := range roots {
				if c.reaches(root, rel) {
					c.expand(joinClean(root, rel))
				}
			}
			continue
		}
		c.expand(p)
	}
	return c.out
}

// reaches reports whether root/rel can lie in c.within, by comparing strings: it runs
// for every root and every pattern that names a file in any directory.
func (c *concrete) reaches(root, rel string) bool {
	switch {
	case c.within == "" || Inside(root, c.within):
		return true
	case !Inside(c.within, root):
		return false
	}
	rest := strings.TrimPrefix(c.within[len(root):], "/") // c.within below root
	if hasMeta(rel) {
		return true
	}
	return rel == rest || strings.HasPrefix(rel, rest+"/")
}

// joinClean joins an absolute, clean directory and a clean relative path.
func joinClean(dir, rel string) string {
	if dir == "/" {
		return "/" + rel
	}
	return dir + "/" + rel
}

type concrete struct {
	fs     FS
	seen   map[string]bool
	out    []string
	within string
	// dirs remembers which directories exist: most patterns name a file in a directory
	// of a project (.claude, .cursor, .codex…) that is not there, and one lookup of the
	// directory answers for all its files.
	dirs map[string]bool
}

// isDir reports whether d exists and is a directory, looking each directory up once.
func (c *concrete) isDir(d string) bool {
	if ok, known := c.dirs[d]; known {
		return ok
	}
	ok := false
	if parent := filepath.Dir(d); parent == d || c.isDir(parent) {
		fi, err := c.fs.Stat(d)
		ok = err == nil && fi.IsDir()
	}
	c.dirs[d] = ok
	return ok
}

// related reports whether a path below prefix can lie in c.within.
func (c *concrete) related(prefix string) bool {
	return c.within == "" || Inside(prefix, c.within) || Inside(c.within, prefix)
}

// Inside reports whether p is dir or lies below it; both are absolute and clean.
func Inside(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == dir || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

func (c *concrete) add(p string) {
	if !c.seen[p] && len(c.out) < maxFiles {
		c.seen[p] = true
		c.out = append(c.out, p)
	}
}

// expand lists what one absolute pattern matches.
func (c *concrete) expand(pattern string) {
	tree := false
	if base, ok := strings.CutSuffix(pattern, "/**"); ok {
		pattern, tree = base, true
	}
	if !hasMeta(pattern) {
		if c.related(pattern) {
			c.found(pattern, tree)
		}
		return
	}
	if lit := pattern[:strings.IndexAny(pattern, "*?[")]; !c.related(filepath.Dir(lit + "x")) {
		return
	}
	segs := strings.Split(filepath.ToSlash(pattern), "/")
	c.match("/", segs[1:], tree)
}

// match follows the segments left from dir, listing directories where a segment is a
// pattern.
func (c *concrete) match(dir string, segs []string, tree bool) {
	if len(c.out) >= maxFiles {
		return
	}
	if len(segs) == 0 {
		c.found(dir, tree)
		return
	}
	seg := segs[0]
	if seg == "**" {
		return // only a leading or trailing ** is a form of the sets; others match nothing here
	}
	if !hasMeta(seg) {
		c.match(filepath.Join(dir, seg), segs[1:], tree)
		return
	}
	entries, err := c.fs.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if ok, _ := path.Match(seg, e.Name()); ok {
			c.match(filepath.Join(dir, e.Name()), segs[1:], tree)
		}
	}
}

// found lists p when it exists, and the files of its tree when tree is set.
func (c *concrete) found(p string, tree bool) {
	if !c.isDir(filepath.Dir(p)) {
		return
	}
	fi, err := c.fs.Stat(p)
	if err != nil {
		return
	}
	if !fi.IsDir() {
		if c.within == "" || Inside(p, c.within) {
			c.add(p)
		}
		return
	}
	if tree {
		c.walk(p, 0)
	}
}

func (c *concrete) walk(dir string, depth int) {
	if depth >= maxTreeDepth || len(c.out) >= maxFiles {
		return
	}
	entries, err := c.fs.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			c.walk(p, depth+1)
			continue
		}
		if e.Type().IsRegular() && (c.within == "" || Inside(p, c.within)) {
			c.add(p)
		}
	}
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }
