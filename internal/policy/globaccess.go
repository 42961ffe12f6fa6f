package policy

import (
	"path"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
)

// accessGlob compiles the pattern of a glob access, or returns nil for a plain path or a
// pattern the glob package does not take (then the access is judged as the whole
// directory its pattern starts from, which is never less than what it can name).
func accessGlob(a call.Access) *glob.Path {
	if !a.Glob {
		return nil
	}
	g, err := glob.CompilePath(a.Path, glob.Options{FoldCase: caseInsensitiveFS})
	if err != nil {
		return nil
	}
	return g
}

// touchesGlob reports whether a glob access (rm *.pyc, find . -name '*.orig' -delete) may
// reach a path of the term, judging the glob by what its pattern can match rather than by
// the directory it starts from (prefix). The term is reached when:
//   - it names that directory itself, or the glob starts from the root: rm -rf ~/*
//     empties ~, however its names are spelt;
//   - one of its patterns and the glob can name the same path (glob.Path.Overlaps);
//   - for a pattern of a file in any directory (/**/moat.yaml), the glob names it
//     through names it spells (rm */moat.yaml), or can name it in a workspace root,
//     where such files are known to be (rm *.yaml), but not merely because some other
//     directory might hold one (rm -rf build/*).
//
// A glob the analysis resolved to the entries it names on disk (call.Access.Matches) is
// judged by those entries instead of the last two, as the paths it names are; the
// directory it empties is still the term's when the term names that directory.
func (t *pathTerm) touchesGlob(a call.Access, prefix string, g *glob.Path, ws []string) bool {
	tree := glob.Overlap{Tree: a.Recursive, Hidden: a.Hidden}
	spelled, shallow := tree, tree
	spelled.Spelled, shallow.Shallow = true, true
	for _, inc := range t.include {
		hit := prefix == "/" || inc.Match(prefix)
		switch {
		case hit:
		case a.Matches != nil:
			continue // judged by its entries below
		case inc.Anywhere():
			hit = inc.Overlaps(g, spelled)
			for _, root := range ws {
				if hit {
					break
				}
				hit = inc.Anchor(root).Overlaps(g, shallow)
			}
			if len(ws) == 0 {
				// No workspace known: any directory may be where the file is.
				hit = hit || inc.Overlaps(g, tree)
			}
		default:
			hit = inc.Overlaps(g, tree)
		}
		if !hit {
			continue
		}
		for _, x := range t.exclude {
			if coverOne(x, prefix, true) {
				return false
			}
		}
		return true
	}
	for _, m := range a.Matches {
		if t.touches(m, a.Recursive, ws) {
			return true
		}
	}
	return false
}

// entriesOf returns the path a permissive rule judges a glob access by, when the glob
// names entries strictly inside a literal directory (see judgedAccess.cover): its first
// segment with wildcards is where the literal part ends, and each segment with wildcards
// from there on starts neither with a dot nor with a class, so that it names no hidden
// entry such as .git (`build/*`, and the paths find picks by name, `/ws/**/*.pyc`). Each
// such segment becomes the stand-in entry name, which no rule spells, and the literal
// segments after it are kept: `*/.git` is judged as DIR/ENTRY/.git, which a rule's
// exclusion of `**/.git` still names, and `*/node_modules` as DIR/ENTRY/node_modules. A
// glob of "**" alone may name the directory itself.
func entriesOf(a call.Access) (string, bool) {
	if !a.Glob || len(a.Path) < 2 || a.Path[0] != '/' {
		return "", false
	}
	segs := strings.Split(a.Path[1:], "/")
	k := 0
	for k < len(segs) && !glob.HasMeta(segs[k]) {
		k++
	}
	if k == len(segs) {
		return "", false
	}
	dir := "/" + strings.Join(segs[:k], "/")
	if strings.ContainsRune(dir, '\\') {
		return "", false // escapes: leave the judging to the glob's literal prefix
	}
	cover, named := dir, false
	for _, s := range segs[k:] {
		switch {
		case s == "**":
			continue
		case s == "" || strings.ContainsRune(s, '\\'):
			return "", false
		case glob.HasMeta(s):
			if s[0] == '.' || s[0] == '[' {
				return "", false
			}
			cover, named = path.Join(cover, standInEntry), true
		default:
			if !named {
				// A literal after "**" (**/build): an entry at some depth, below one
				// that is not hidden, as bash's ** descends.
				cover, named = path.Join(cover, standInEntry), true
			}
			cover = path.Join(cover, s)
		}
	}
	if !named {
		return "", false // "**" alone may name the directory itself
	}
	return cover, true
}

// emptied returns the directory a glob access names every entry of, but those starting
// with a dot (`./*`, `build/?*`), or "".
func emptied(a call.Access) string {
	if !a.Glob {
		return ""
	}
	i := strings.LastIndexByte(a.Path, '/')
	if i < 0 {
		return ""
	}
	dir, seg := a.Path[:i], a.Path[i+1:]
	rest := strings.Trim(seg, "*")
	if seg == rest || rest != "" && rest != "?" || glob.HasMeta(dir) || strings.ContainsRune(dir, '\\') {
		return ""
	}
	if dir == "" {
		return "/"
	}
	return dir
}

// standInEntry is the name a glob's wildcard segment is judged by: one no rule spells.
const standInEntry = "\x00entry"
