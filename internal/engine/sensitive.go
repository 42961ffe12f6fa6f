package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
)

// sensitive matches the paths of named sets: $secrets and $agent-credentials tell shell
// analysis which accesses touch files that hold credentials, so that dataflow can tell a secret piped
// into curl from any other data; $agent-instructions tells which writes are read for
// prompt injection.
type sensitive struct {
	include, exclude []*glob.Path
	// names are the last literal segment of every include pattern: a path that matches
	// one holds its name, so a path holding none of them matches none (the test runs for
	// every path of every command). nil when some pattern has no literal segment.
	names map[string]bool
}

func newSensitive(h pathset.Host, sets ...string) (*sensitive, error) {
	s := &sensitive{names: map[string]bool{}}
	for _, set := range sets {
		r, err := resolveGuarded(set, h)
		if err != nil {
			return nil, err
		}
		for _, p := range r.Include {
			g, err := h.Globs.CompilePath(p, glob.Options{})
			if err != nil {
				return nil, fmt.Errorf("compiling %s pattern %q: %w", set, p, err)
			}
			s.include = append(s.include, g)
			if name := lastLiteral(p); name != "" && s.names != nil {
				s.names[name] = true
			} else {
				s.names = nil
			}
		}
		for _, p := range r.Exclude {
			g, err := h.Globs.CompilePath(p, glob.Options{})
			if err != nil {
				return nil, fmt.Errorf("compiling %s pattern %q: %w", set, p, err)
			}
			s.exclude = append(s.exclude, g)
		}
	}
	return s, nil
}

// touches reports whether the access may reach a secret file: the path itself, or for a
// recursive access or a glob, anything below it.
func (s *sensitive) touches(acc call.Access) bool {
	if acc.Glob && acc.Matches != nil {
		// A glob resolved to the entries it names on disk reaches those.
		for _, m := range acc.Matches {
			if s.touches(call.Access{Kind: acc.Kind, Path: m, Recursive: acc.Recursive}) {
				return true
			}
		}
		return false
	}
	p, tree := acc.Path, acc.Recursive
	if acc.Glob {
		p, tree = glob.LiteralPrefix(acc.Path), true
	}
	if !tree && s.names != nil && !holdsName(p, s.names) {
		return false
	}
	for _, g := range s.exclude {
		if g.Match(p) {
			return false
		}
	}
	for _, g := range s.include {
		if g.Match(p) || tree && g.TouchesTree(p) {
			return true
		}
	}
	return false
}

// lastLiteral returns the last segment of an absolute path pattern that has no
// metacharacters ("settings.json" of "/**/.claude/settings.json", ".ssh" of
// "/home/u/.ssh/**"), or "" when it has none or cannot be read that way.
func lastLiteral(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i := len(segs) - 1; i >= 0; i-- {
		seg := segs[i]
		if seg == "" || seg == "." || seg == ".." {
			continue
		}
		if strings.ContainsAny(seg, "*?[]{}\\") {
			continue
		}
		return seg
	}
	return ""
}

// holdsName reports whether one of the segments of the path p is in names.
func holdsName(p string, names map[string]bool) bool {
	for p != "" {
		seg := p
		if i := strings.IndexByte(p, '/'); i >= 0 {
			seg, p = p[:i], p[i+1:]
		} else {
			p = ""
		}
		if names[seg] {
			return true
		}
	}
	return false
}

// maxTreeEntries bounds the look for credentials in a tree whose files leave for the
// network: the directory entries read, breadth first, so that the files a project keeps
// at its top (.env, terraform.tfstate) are seen first.
const maxTreeEntries = 5000

// unsearchedDirs are directories within does not enter: installed packages, caches and
// build output, large, rebuilt by tools, and not where a project keeps its own secrets.
var unsearchedDirs = []string{".git", "node_modules", "vendor", ".venv", "venv", "__pycache__", ".tox", ".terraform", ".gradle", ".cache", ".next", "target"}

// within names a file below dir that the set names, as the disk shows it now, or a link
// there to one or to a directory holding one (scp -r and zip follow links); "" when it
// finds none among the first maxTreeEntries entries.
func (s *sensitive) within(dir string) string {
	queue := []string{filepath.Clean(dir)}
	visited := map[string]bool{}
	seen := 0
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if real, err := filepath.EvalSymlinks(d); err == nil {
			if visited[real] {
				continue // a link back up the tree, or two links to one directory
			}
			visited[real] = true
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue // unreadable to moat; not to be invented
		}
		for _, ent := range entries {
			if seen++; seen > maxTreeEntries {
				return ""
			}
			p := filepath.Join(d, ent.Name())
			switch {
			case ent.IsDir():
				if !slices.Contains(unsearchedDirs, ent.Name()) {
					queue = append(queue, p)
				}
			case s.touches(call.Access{Kind: call.Read, Path: p}):
				return p
			case ent.Type()&fs.ModeSymlink != 0:
				t, err := filepath.EvalSymlinks(p)
				if err != nil {
					continue
				}
				if s.touches(call.Access{Kind: call.Read, Path: t, Recursive: true}) {
					return p + " (a link to " + t + ")" // ~/.ssh/id_rsa, or ~/.ssh
				}
				if fi, err := os.Stat(t); err == nil && fi.IsDir() {
					queue = append(queue, p)
				}
			}
		}
	}
	return ""
}
