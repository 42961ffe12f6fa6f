package policy

import (
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
)

// pathsCond is a rule's `paths` condition: per access kind, the paths it names.
//
// Its meaning depends on the rule's decision, so that a rule can only ever err towards
// caution. In an ask or deny rule it holds when the unit touches any named path with a
// named kind (a recursive delete of / touches ~/.ssh). In an allow or audit rule it holds
// only when the unit's every access is of a named kind and entirely inside the named paths
// (rm -rf ./build / is not covered by "deletes in $workspace"), and never for a unit that
// may touch paths analysis cannot see; a unit that touches no path satisfies it.
type pathsCond struct {
	text  []string
	kinds map[call.AccessKind][]*pathList
}

// pathList is one kind's list: the union of its terms minus its `!` terms.
type pathList struct {
	include []*pathTerm
	exclude []*pathTerm
}

// pathTerm is one entry of a list: a pattern, or a named set with its own exclusions.
type pathTerm struct {
	include []*glob.Path
	exclude []*glob.Path
	// ws, when set, is a pattern relative to each workspace root, compiled as if the root
	// were "/"; include and exclude are then empty.
	ws *glob.Path
}

const anyKind = "any"

var pathKinds = []string{"read", "write", "delete", "exec", anyKind}

func (l *loader) pathsCond(n *yaml.Node) *pathsCond {
	fields, ok := l.mapping(n, "paths", pathKinds)
	if !ok {
		return nil
	}
	if len(fields) == 0 {
		l.errorf(n, "paths names no access kind (read, write, delete, exec or any), so it can never match")
		return nil
	}
	pc := &pathsCond{kinds: make(map[call.AccessKind][]*pathList)}
	for _, f := range fields {
		items, ok := l.strs(f.value, "paths."+f.key)
		if !ok {
			continue
		}
		list := &pathList{}
		for _, it := range items {
			exclude := strings.HasPrefix(it.val, "!")
			t := l.pathTerm(strings.TrimPrefix(it.val, "!"), it.node)
			if t == nil {
				continue
			}
			if exclude {
				list.exclude = append(list.exclude, t)
			} else {
				list.include = append(list.include, t)
			}
		}
		if len(list.include) == 0 && len(list.exclude) > 0 {
			// Only exclusions: everything but them.
			all, _ := l.host.Globs.CompilePath("/**", l.globOptions())
			list.include = []*pathTerm{{include: []*glob.Path{all}}}
		}
		vals := make([]string, len(items))
		for i, it := range items {
			vals[i] = it.val
		}
		pc.text = append(pc.text, f.key+": "+strings.Join(vals, ", "))
		if f.key == anyKind {
			for _, k := range call.AccessKinds {
				pc.kinds[k] = append(pc.kinds[k], list)
			}
			continue
		}
		k, _ := call.ParseAccessKind(f.key)
		pc.kinds[k] = append(pc.kinds[k], list)
	}
	return pc
}

func (l *loader) globOptions() glob.Options { return glob.Options{FoldCase: caseInsensitiveFS} }

// pathTerm compiles one pattern as policies write it.
func (l *loader) pathTerm(s string, n *yaml.Node) *pathTerm {
	if s == "" {
		l.errorf(n, "empty path pattern")
		return nil
	}
	if strings.HasPrefix(s, "$") {
		name, rest, _ := strings.Cut(s, "/")
		if !pathset.Known(name) {
			l.errorf(n, "unknown path set %s%s (known: %s)", name, suggest(name, pathset.Names), strings.Join(pathset.Names, ", "))
			return nil
		}
		if rest != "" && !pathset.IsRoot(name) {
			l.errorf(n, "%s is a set of files, not a directory; only %s can be followed by a path", name, strings.Join(pathset.Roots, ", "))
			return nil
		}
		if name == pathset.Workspace {
			if rest == "" {
				rest = "**"
			}
			return l.workspaceTerm(rest, s, n)
		}
		if t, ok := l.sets[s]; ok {
			return t
		}
		set, err := pathset.Resolve(name, l.host)
		if err != nil {
			l.errorf(n, "%v", err)
			return nil
		}
		if rest != "" {
			// $home/x or $temp/x: the set's roots with the path appended.
			for i, p := range set.Include {
				set.Include[i] = path.Join(strings.TrimSuffix(p, "/**"), rest)
			}
		}
		t := l.staticTerm(set.Include, set.Exclude, n)
		if t != nil {
			// Sets run to dozens of patterns and rules name the same ones again and again
			// ($secrets, $system): compile each once per document. A term is never
			// changed after it is compiled, so rules can share it.
			l.sets[s] = t
		}
		return t
	}
	abs := pathset.Expand(s, l.host.Home)
	if !strings.HasPrefix(abs, "/") {
		return l.workspaceTerm(s, s, n)
	}
	return l.staticTerm([]string{abs}, nil, n)
}

func (l *loader) staticTerm(include, exclude []string, n *yaml.Node) *pathTerm {
	t := &pathTerm{}
	for _, p := range include {
		g, err := l.host.Globs.CompilePath(p, l.globOptions())
		if err != nil {
			l.errorf(n, "path: %v", err)
			return nil
		}
		t.include = append(t.include, g)
	}
	for _, p := range exclude {
		g, err := l.host.Globs.CompilePath(p, l.globOptions())
		if err != nil {
			l.errorf(n, "path: %v", err)
			return nil
		}
		t.exclude = append(t.exclude, g)
	}
	return t
}

func (l *loader) workspaceTerm(rel, written string, n *yaml.Node) *pathTerm {
	clean := path.Clean("/" + rel)
	if strings.HasPrefix(path.Clean(rel), "..") {
		l.errorf(n, "path %q leaves the workspace; write it as an absolute path", written)
		return nil
	}
	g, err := l.host.Globs.CompilePath(clean, l.globOptions())
	if err != nil {
		l.errorf(n, "path %q: %v", written, err)
		return nil
	}
	return &pathTerm{ws: g}
}

// possibleFor reports whether a call of class c can have an access the condition names.
func (pc *pathsCond) possibleFor(c call.Class) bool {
	for k := range pc.kinds {
		if classCanAccess(c, k) {
			return true
		}
	}
	return false
}

func classCanAccess(c call.Class, k call.AccessKind) bool {
	switch c {
	case call.Shell, call.MCP:
		// A shell command can do anything; an MCP tool's accesses are read from its
		// arguments, whatever they are.
		return true
	case call.FileRead, call.FileSearch:
		return k == call.Read
	case call.FileWrite, call.FileEdit:
		return k == call.Write
	case call.FileDelete:
		return k == call.Delete
	}
	return false
}

// match applies the condition to a unit's accesses: any access for restrictive rules,
// every access for permissive ones (see pathsCond).
func (pc *pathsCond) match(accesses []judgedAccess, opaque, permissive bool, workspace []string) bool {
	if permissive {
		// A unit that touches no path at all is inside any set of paths, but only when
		// analysis can see everything it does.
		if opaque {
			return false
		}
		for i := range accesses {
			if !pc.covers(&accesses[i], workspace) {
				return false
			}
		}
		return true
	}
	for i := range accesses {
		a := &accesses[i]
		for _, list := range pc.kinds[a.Kind] {
			if list.touches(a, workspace) {
				return true
			}
		}
	}
	return false
}

func (pc *pathsCond) covers(a *judgedAccess, workspace []string) bool {
	for _, list := range pc.kinds[a.Kind] {
		if list.covers(a, workspace) {
			return true
		}
	}
	return false
}

// judgedAccess is an access with the paths it is judged by.
type judgedAccess struct {
	call.Access
	// target is the path the access is judged by, and tree whether it stands for
	// everything below it too.
	target string
	tree   bool
	// cover and coverTree are what a permissive rule judges it by. A glob whose only
	// wildcard is its last segment, not starting with a dot, names entries strictly inside
	// its literal directory, never the directory itself nor a hidden entry such as .git
	// (the shell's `*` skips names starting with a dot): `rm -rf build/*` and `rm -rf ./*`
	// stay inside the workspace. They are judged as a stand-in entry of that directory
	// whose name no rule spells; every other access as restrictive rules judge it.
	cover     string
	coverTree bool
	// empties is the directory the glob names every entry of (`rm -rf ./*`), or "".
	// Emptying the workspace is judged as deleting it: a rule that allows what is inside
	// the project, not the project, does not cover it.
	empties string
	// glob is the compiled pattern of a glob access; nil for a plain path or a pattern
	// the glob package does not take.
	glob *glob.Path
}

func judge(a call.Access) judgedAccess {
	j := judgedAccess{Access: a}
	j.target, j.tree = target(a)
	j.cover, j.coverTree = j.target, j.tree
	if cover, ok := entriesOf(a); ok {
		j.cover, j.coverTree = cover, true
	}
	j.empties = emptied(a)
	j.glob = accessGlob(a)
	return j
}

// target is the path an access is judged by, and whether it stands for a whole tree.
func target(a call.Access) (string, bool) {
	if a.Glob {
		return glob.LiteralPrefix(a.Path), true
	}
	return a.Path, a.Recursive
}

func (pl *pathList) touches(a *judgedAccess, ws []string) bool {
	p, tree, g := a.target, a.tree, a.glob
	hit := false
	for _, t := range pl.include {
		if g != nil && t.ws == nil {
			if t.touchesGlob(a.Access, p, g, ws) {
				hit = true
				break
			}
			continue
		}
		if t.touches(p, tree, ws) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	for _, t := range pl.exclude {
		if t.covers(p, tree, ws) {
			return false
		}
	}
	return true
}

func (pl *pathList) covers(a *judgedAccess, ws []string) bool {
	p, tree := a.cover, a.coverTree
	if a.empties != "" && slices.Contains(ws, a.empties) {
		p, tree = a.empties, true
	}
	hit := false
	for _, t := range pl.include {
		if t.covers(p, tree, ws) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	for _, t := range pl.exclude {
		if t.touches(p, tree, ws) {
			return false
		}
	}
	return true
}

// touches reports whether p (or, for a tree, anything at or below p) is in the term.
func (t *pathTerm) touches(p string, tree bool, ws []string) bool {
	if t.ws != nil {
		for _, root := range ws {
			if rel, under := relativeTo(p, root); under {
				if matchOne(t.ws, rel, tree) {
					return true
				}
			} else if tree {
				// The tree holds the whole workspace.
				if _, rootUnder := relativeTo(root, p); rootUnder {
					return true
				}
			}
		}
		return false
	}
	for _, g := range t.include {
		if matchOne(g, p, tree) {
			for _, x := range t.exclude {
				if coverOne(x, p, tree) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// covers reports whether p (and, for a tree, everything below it) is in the term.
func (t *pathTerm) covers(p string, tree bool, ws []string) bool {
	if t.ws != nil {
		for _, root := range ws {
			if rel, under := relativeTo(p, root); under && coverOne(t.ws, rel, tree) {
				return true
			}
		}
		return false
	}
	for _, g := range t.include {
		if coverOne(g, p, tree) {
			for _, x := range t.exclude {
				if matchOne(x, p, tree) {
					return false
				}
			}
			return true
		}
	}
	return false
}

func matchOne(g *glob.Path, p string, tree bool) bool {
	if tree {
		return g.TouchesTree(p)
	}
	return g.Match(p)
}

func coverOne(g *glob.Path, p string, tree bool) bool {
	if tree {
		return g.CoversTree(p)
	}
	return g.Match(p)
}

// relativeTo returns p relative to root as an absolute path ("/" for root itself), and
// whether p is root or below it.
func relativeTo(p, root string) (string, bool) {
	if root == "/" {
		return p, true
	}
	if !hasPathPrefix(p, root) {
		return "", false
	}
	if len(p) == len(root) {
		return "/", true
	}
	return p[len(root):], true
}

func hasPathPrefix(p, root string) bool {
	if len(p) < len(root) {
		return false
	}
	head := p[:len(root)]
	if caseInsensitiveFS {
		if !strings.EqualFold(head, root) {
			return false
		}
	} else if head != root {
		return false
	}
	return len(p) == len(root) || p[len(root)] == '/'
}
