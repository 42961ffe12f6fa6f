package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/glob"
)

// How the allow-list is built. Landlock only grants: a rule gives rights beneath an
// existing directory or on a file, and rules add up, so no rule can take a subpath back
// out of a granted tree. To keep a secret out of a granted tree, the tree is not granted
// whole: the carver walks down from the granted directory towards each denied path and
// grants every sibling on the way on its own, so that nothing on the path to the secret,
// and nothing beneath it, is granted. The directories on the way get only the right to
// list them (which lists the names beneath, never the contents).
//
// A protected path (readable, never changed) is carved the same way, but the directories
// on the way to it keep what they safely can, so that an agent still keeps its own state
// beside a protected settings file. What Landlock checks, and so what each right gives:
//
//   - Rights attach to the inodes that exist when the rules are added, and apply to
//     everything beneath; a file or directory created later has no rule of its own and
//     gets only what its ancestors' rules give. Nothing can be taken back beneath a grant.
//   - Creating an entry needs MAKE_REG (MAKE_DIR, MAKE_SYM, …) on its directory; opening it
//     for writing then needs WRITE_FILE from its own rule or an ancestor's. A directory
//     holding a protected file cannot have WRITE_FILE or TRUNCATE (they would reach the
//     file), so a file created there stays empty and unwritable: MAKE_REG buys nothing
//     and is not given. It would cost something: a same-directory link(2) needs only
//     MAKE_REG, and an existing writable sibling linked to the name of a protected file
//     that does not exist yet would plant its content there; MAKE_SYM would plant a link.
//   - Deleting needs REMOVE_FILE (REMOVE_DIR for a directory) on the directory. Renaming
//     within one directory needs REMOVE_* for the old name, MAKE_* for the new one, and
//     REMOVE_* again when the new name exists and is replaced; link(2) never replaces.
//     Moving or linking into another directory also needs REFER on both sides, and is
//     refused when the entry would gain rights by the move. So the directory of a
//     protected file never gets REMOVE_FILE or REFER: nothing in it can be deleted,
//     renamed over, or moved in or out.
//   - REMOVE_DIR on a directory lets its subdirectories be renamed within it, so it is
//     given only where every protected path beneath is a file directly in it, and no
//     protected directory that is missing would sit directly in it.
//   - MAKE_DIR is given: a new directory gets its parent's rights alone (read, MAKE_DIR,
//     and REMOVE_DIR where given), so it can hold nothing but empty directories. That is
//     what lock directories are (mkdir NAME.lock, rmdir it: Gemini CLI and Claude Code
//     lock their registries so).
//
// So the directory of a protected file is readable, accepts lock directories, and is
// closed to new files; its existing files and subdirectories get their own full grants,
// and the agent's state that would be new there (a profile's state: list) is created
// before Landlock applies, so that it has rules of its own. A write-temp-then-rename in
// that very directory cannot be allowed without allowing the protected file to be
// replaced: profiles say where their agent does it (caveats:), and the report shows it.

// rule is one Landlock path rule being built.
type rule struct {
	path   string
	access Access
	why    []string
}

// limit is a path beneath which access is capped: to nothing (deny) or to reading
// (protect). except holds patterns of paths beneath it that the cap leaves alone.
type limit struct {
	path   string
	mask   Access
	why    string
	except []*glob.Path
	// dir reports whether path is a directory.
	dir bool
}

// chainAccess returns what a directory on the way to the limit's path (strictly above
// it) may keep: listing on the way to a denied path; reading, executing and lock
// directories on the way to a protected one (see the comment at the top).
func (l *limit) chainAccess(dir string, absentDirs []string) Access {
	if l.mask == 0 {
		return ReadDir
	}
	a := l.mask | ReadDir | MakeDir
	if !l.dir && filepath.Dir(l.path) == dir && !slices.ContainsFunc(absentDirs, func(d string) bool { return filepath.Dir(d) == dir }) {
		a |= RemoveDir
	}
	return a
}

func (l *limit) covers(p string) bool {
	if !within(p, l.path) {
		return false
	}
	for _, e := range l.except {
		if e.Match(p) {
			return false
		}
	}
	return true
}

// reopens reports whether something beneath dir is an exception of the cap.
func (l *limit) reopens(dir string) bool {
	for _, e := range l.except {
		if e.TouchesTree(dir) {
			return true
		}
	}
	return false
}

type carver struct {
	fs     probe
	limits []*limit
	// absentDirs are protected directories that do not exist: REMOVE_DIR on their parent
	// would let a writable directory be renamed to their name.
	absentDirs []string
	rules      map[string]*rule
	// hit records the limits that took something away from a grant.
	hit map[*limit]bool
}

// maxCarveDepth bounds the walk, and so the symbolic-link loops it could follow.
const maxCarveDepth = 40

func newCarver(fs probe, limits []*limit) *carver {
	return &carver{fs: fs, limits: limits, rules: make(map[string]*rule), hit: make(map[*limit]bool)}
}

// grant gives access beneath p (a real path), except what the limits take away.
func (c *carver) grant(p string, access Access, why string) {
	c.walk(p, unknownKind, access, why, 0, nil)
}

// kind is what a path is, when the walk already knows it.
type kind uint8

const (
	unknownKind kind = iota
	dirKind
	fileKind
)

func (c *carver) walk(p string, k kind, access Access, why string, depth int, stack []string) {
	if depth > maxCarveDepth || slices.Contains(stack, p) {
		return
	}
	eff := access
	var reopened bool
	for _, l := range c.limits {
		if l.covers(p) {
			if eff&^l.mask != 0 {
				c.hit[l] = true
			}
			eff &= l.mask
			if l.reopens(p) {
				reopened = true
			}
		}
	}
	// Listing a directory on the way to a denied path is allowed: stat(2) shows the names
	// anyway, and tools that walk the tree would otherwise fail.
	chain := eff
	split := reopened && eff != access
	for _, l := range c.limits {
		if l.path != p && within(l.path, p) && eff&^l.mask != 0 {
			split = true
			chain &= l.chainAccess(p, c.absentDirs)
		}
	}
	if k == unknownKind {
		ok, isDir := c.fs.stat(p)
		if !ok {
			return
		}
		k = fileKind
		if isDir {
			k = dirKind
		}
	}
	if !split || k != dirKind {
		c.emit(p, k, eff, why)
		return
	}
	c.emit(p, k, chain, why+" (split)")
	entries, err := c.fs.readDir(p)
	if err != nil {
		return
	}
	stack = append(stack, p)
	for _, e := range entries {
		child := filepath.Join(p, e.Name())
		ck := fileKind
		switch {
		case e.Type()&os.ModeSymlink != 0:
			real, err := c.fs.realPath(child)
			if err != nil {
				continue
			}
			child, ck = real, unknownKind
		case e.IsDir():
			ck = dirKind
		}
		c.walk(child, ck, access, why, depth+1, stack)
	}
}

// emit records a rule, keeping only the rights that apply to what p is.
func (c *carver) emit(p string, k kind, access Access, why string) {
	if k != dirKind {
		access &= fileAccess
	}
	if access == 0 {
		return
	}
	r := c.rules[p]
	if r == nil {
		r = &rule{path: p}
		c.rules[p] = r
	}
	r.access |= access
	if !slices.Contains(r.why, why) {
		r.why = append(r.why, why)
	}
}

// result returns the rules in path order, without those an ancestor's rule already covers.
func (c *carver) result() []*rule {
	paths := make([]string, 0, len(c.rules))
	for p := range c.rules {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out []*rule
	for _, p := range paths {
		r := c.rules[p]
		covered := false
		for a := filepath.Dir(p); ; a = filepath.Dir(a) {
			if ar := c.rules[a]; ar != nil && ar.access&r.access == r.access {
				covered = true
				break
			}
			if a == "/" {
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// within reports whether p is dir or beneath it; both are clean absolute paths.
func within(p, dir string) bool {
	if dir == "/" || p == dir {
		return true
	}
	return strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}
