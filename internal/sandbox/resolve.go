package sandbox

import (
	"path/filepath"
	"strings"

	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
)

// resolver turns the patterns of a section into absolute patterns for one host and
// workspace, and patterns into the paths that exist.
type resolver struct {
	host      pathset.Host
	workspace []string
	fs        probe
}

// expand returns the absolute patterns an entry stands for and, for a path set, the
// patterns of its exceptions (paths the set leaves out, such as ~/.ssh/known_hosts).
func (r resolver) expand(pattern string) (include, except []string, err error) {
	if strings.HasPrefix(pattern, "$") {
		name, rest, hasRest := strings.Cut(pattern, "/")
		var roots []string
		switch name {
		case pathset.Workspace:
			roots = r.workspace
		case "$home":
			roots = []string{r.host.Home}
		case "$temp":
			roots = r.host.Temp
		default:
			set, err := pathset.Resolve(name, r.host)
			if err != nil {
				return nil, nil, err
			}
			return set.Include, set.Exclude, nil
		}
		for _, root := range roots {
			if hasRest {
				include = append(include, filepath.Join(root, rest))
			} else {
				include = append(include, root)
			}
		}
		return include, nil, nil
	}
	return []string{pathset.Expand(pattern, r.host.Home)}, nil, nil
}

// Expand returns the absolute patterns a section's pattern stands for on host, with
// $workspace standing for workspace, and, for a path set, the patterns of its exceptions.
// It does not look at the file system: the profile generators call it for another machine.
func Expand(pattern string, host pathset.Host, workspace []string) (include, except []string, err error) {
	return resolver{host: host, workspace: workspace}.expand(pattern)
}

// anywhere reports whether a pattern matches in any directory ("**/.env", "/a/**/b"):
// Landlock grants and carves whole existing hierarchies, so such a pattern cannot be
// turned into rules.
func anywhere(pattern string) bool {
	return strings.Contains(strings.TrimSuffix(pattern, "/**"), "**")
}

// existing returns the real paths (symbolic links resolved) of what pattern names on
// this machine. A trailing /** names the directory itself; other glob segments are
// matched against the directories as they are now.
func (fs probe) existing(pattern string) []string {
	base := strings.TrimSuffix(pattern, "/**")
	if base == "" {
		base = "/"
	}
	var paths []string
	if glob.HasMeta(base) {
		paths = fs.expandGlob(base)
	} else if fs.exists(base) {
		paths = []string{filepath.Clean(base)}
	}
	out := paths[:0]
	for _, p := range paths {
		if real, err := fs.realPath(p); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// expandGlob lists the paths that match an absolute pattern without "**", one segment
// at a time from its literal prefix.
func (fs probe) expandGlob(pattern string) []string {
	prefix := glob.LiteralPrefix(pattern)
	if prefix == "" {
		return nil
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(pattern, prefix), "/")
	if prefix == "/" {
		rest = strings.TrimPrefix(pattern, "/")
	}
	paths := []string{prefix}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" {
			continue
		}
		var next []string
		if !glob.HasMeta(seg) {
			for _, p := range paths {
				if fs.exists(filepath.Join(p, seg)) {
					next = append(next, filepath.Join(p, seg))
				}
			}
			paths = next
			continue
		}
		w, err := glob.CompileWord(seg)
		if err != nil {
			return nil
		}
		for _, p := range paths {
			entries, err := fs.readDir(p)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if w.Match(e.Name()) {
					next = append(next, filepath.Join(p, e.Name()))
				}
			}
		}
		paths = next
	}
	return paths
}
