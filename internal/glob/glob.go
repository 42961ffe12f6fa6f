// Package glob matches absolute paths and shell words against precompiled glob patterns.
package glob

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// Options change how a path pattern matches.
type Options struct {
	// FoldCase makes matching case-insensitive under Unicode simple case folding (the
	// equivalence strings.EqualFold uses), for case-insensitive file systems such as the
	// macOS and Windows defaults.
	FoldCase bool
}

// PatternError reports a pattern that does not compile. Offset is the byte offset in
// Pattern where the problem was found, so callers can point at it from a policy file.
type PatternError struct {
	Pattern string
	Offset  int
	Msg     string
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("glob %q: %s at offset %d", e.Pattern, e.Msg, e.Offset)
}

// Path is a compiled path pattern. It is immutable and safe for concurrent use.
//
// A pattern is an absolute, '/'-separated path whose segments may use '*' (any run of
// characters within a segment, leading dots included), '?' (one character), '[a-z]',
// '[!a-z]' or '[^a-z]' classes, '{a,b}' alternatives and '\' escapes. A segment that is
// exactly "**" matches zero or more whole segments.
type Path struct {
	pattern string
	fold    bool
	kind    pathKind
	// lit is the whole cleaned pattern for literal patterns, and the part before the final
	// "/**" for tree patterns ("" when that part is the root).
	lit      string
	segs     []segment
	trailing bool // the last segment is "**"
	// pre, for general patterns, is the run of literal segments they start with ("" when
	// none): a path that leaves it can be rejected by one comparison, before the
	// segment-by-segment match (BenchmarkPathMiss measures it).
	pre string
}

type pathKind uint8

const (
	pathGeneral pathKind = iota
	pathLiteral          // no metacharacters at all: one string comparison
	pathTree             // literal segments followed by "**": a prefix test
)

// CompilePath compiles an absolute path pattern. The pattern is cleaned the way
// path.Clean would clean it (repeated and trailing slashes, "." and ".." segments), except
// that ".." may not follow a segment with metacharacters.
func CompilePath(pattern string, opt Options) (*Path, error) {
	segs, err := parsePath(pattern, opt.FoldCase)
	if err != nil {
		return nil, err
	}
	return newPath(pattern, opt.FoldCase, segs), nil
}

// newPath makes a Path of compiled segments, choosing how it matches.
func newPath(pattern string, fold bool, segs []segment) *Path {
	p := &Path{pattern: pattern, fold: fold, segs: segs}
	p.trailing = len(segs) > 0 && segs[len(segs)-1].doubleStar

	literal := 0 // leading literal segments
	for literal < len(segs) && !segs[literal].doubleStar && segs[literal].m.kind == matchLiteral {
		literal++
	}
	switch {
	case literal == len(segs):
		p.kind = pathLiteral
		p.lit = joinLiterals(segs)
		if p.lit == "" {
			p.lit = "/"
		}
	case literal == len(segs)-1 && p.trailing:
		p.kind = pathTree
		p.lit = joinLiterals(segs[:literal])
	case literal > 0:
		p.pre = joinLiterals(segs[:literal])
	}
	return p
}

func joinLiterals(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(s.m.lit)
	}
	return b.String()
}

// String returns the pattern as it was given to CompilePath.
func (p *Path) String() string { return p.pattern }

// Match reports whether path matches the whole pattern. The path must be absolute and
// clean (no "." or ".." segments, no repeated or trailing slash); a path that does not
// start with '/' never matches.
func (p *Path) Match(path string) bool {
	if path == "" || path[0] != '/' {
		return false
	}
	switch p.kind {
	case pathLiteral:
		if p.fold {
			return equalFold(path, p.lit)
		}
		return path == p.lit
	case pathTree:
		n := len(p.lit)
		if p.fold {
			var ok bool
			if n, ok = foldPrefix(path, p.lit); !ok {
				return false
			}
		} else if !strings.HasPrefix(path, p.lit) {
			return false
		}
		return n == len(path) || path[n] == '/'
	}
	if p.pre != "" && !p.under(path, p.pre) {
		return false
	}
	return p.matchSegments(path)
}

// under reports whether path is dir or below it, folding case when the pattern does.
func (p *Path) under(path, dir string) bool {
	n := len(dir)
	if p.fold {
		var ok bool
		if n, ok = foldPrefix(path, dir); !ok {
			return false
		}
	} else if !strings.HasPrefix(path, dir) {
		return false
	}
	return n == len(path) || path[n] == '/'
}

// matchSegments matches segment by segment. A "**" behaves like '*' in a string glob with
// segments for characters, so remembering only the last "**" keeps the work to
// O(len(pattern) × len(path)) segment comparisons.
func (p *Path) matchSegments(path string) bool {
	pi, pos := 0, firstSegment(path)
	starPi, starPos := -1, 0
	for {
		if pi < len(p.segs) {
			s := &p.segs[pi]
			if s.doubleStar {
				if pi == len(p.segs)-1 {
					return true // a trailing "**" takes whatever is left
				}
				starPi, starPos = pi, pos
				pi++
				continue
			}
			if pos <= len(path) {
				seg, next := nextSegment(path, pos)
				if s.m.match(seg, p.fold) {
					pi, pos = pi+1, next
					continue
				}
			}
		} else if pos > len(path) {
			return true
		}
		if starPi < 0 || starPos > len(path) {
			return false
		}
		_, starPos = nextSegment(path, starPos)
		pi, pos = starPi+1, starPos
	}
}

// MatchTree reports whether dir or any path below it could match the pattern, so that an
// operation on the whole tree at dir (such as rm -rf dir) may touch something the pattern
// names. Like Match, it expects an absolute, clean dir and is false otherwise. It errs
// towards true: it only checks that dir's segments match a prefix of the
// pattern's, not that the segments left over can match a real name.
func (p *Path) MatchTree(dir string) bool {
	if dir == "" || dir[0] != '/' {
		return false
	}
	pos := firstSegment(dir)
	for i := range p.segs {
		s := &p.segs[i]
		if pos > len(dir) || s.doubleStar {
			// dir ran out with pattern to spare, or "**" can absorb the rest of dir.
			return true
		}
		seg, next := nextSegment(dir, pos)
		if !s.m.match(seg, p.fold) {
			return false
		}
		pos = next
	}
	return pos > len(dir)
}

// CoversTree reports whether dir and every path below it match the pattern. It answers
// true only when the pattern ends in "**" and matches dir, because then that "**" absorbs
// any extension of dir; other patterns that happen to cover a tree (such as "/a/**/*" for
// "/a/b") get a conservative false.
func (p *Path) CoversTree(dir string) bool {
	return p.trailing && p.Match(dir)
}

// firstSegment returns the offset of path's first segment, or len(path)+1 when it has none.
func firstSegment(path string) int {
	if path == "/" {
		return 2
	}
	return 1
}

// nextSegment returns the segment starting at pos and the offset of the one after it,
// which is len(path)+1 after the last one.
func nextSegment(path string, pos int) (string, int) {
	rest := path[pos:]
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[:i], pos + i + 1
	}
	return rest, len(path) + 1
}

// LiteralPrefix returns the longest leading run of whole segments of pattern that have no
// metacharacters, cleaned and with escapes removed, as an absolute path: "/home/u/*.txt"
// gives "/home/u", "/etc/passwd" gives "/etc/passwd", and "/*/x" gives "/". It returns ""
// for a pattern CompilePath would reject.
func LiteralPrefix(pattern string) string {
	if prefix, ok := plainPrefix(pattern); ok {
		return prefix
	}
	return parsedPrefix(pattern)
}

// parsedPrefix is LiteralPrefix for any pattern, through the parser.
func parsedPrefix(pattern string) string {
	segs, err := parsePath(pattern, false)
	if err != nil {
		return ""
	}
	n := 0
	for n < len(segs) && !segs[n].doubleStar && segs[n].m.kind == matchLiteral {
		n++
	}
	if n == 0 {
		return "/"
	}
	return joinLiterals(segs[:n])
}

// plainPrefix is LiteralPrefix without compiling the pattern, for the patterns shell
// globs usually are (/p/build/*.o): absolute, valid UTF-8, with no escapes, classes,
// braces or "**", and no "." or ".." segment after the first one with a wildcard. Such a
// pattern has no error for the parser to find, and its literal prefix is its leading
// segments, cleaned. It reports false for any other pattern.
func plainPrefix(pattern string) (string, bool) {
	if pattern == "" || pattern[0] != '/' || strings.ContainsAny(pattern, `\[{`) ||
		strings.Contains(pattern, "**") || !utf8.ValidString(pattern) {
		return "", false
	}
	wild := strings.IndexAny(pattern, "*?")
	if wild < 0 {
		return path.Clean(pattern), true
	}
	dir := pattern[:strings.LastIndexByte(pattern[:wild], '/')]
	for rest := pattern[len(dir)+1:]; ; {
		seg, after, more := strings.Cut(rest, "/")
		if seg == "." || seg == ".." {
			return "", false
		}
		if !more {
			break
		}
		rest = after
	}
	if dir == "" {
		return "/", true
	}
	return path.Clean(dir), true
}

// SearchFilter returns a search's file filter (grep --include, ripgrep's -g, the agents'
// Grep glob) as a pattern below the directory searched: a name pattern without a slash
// matches at any depth (*.env is **/*.env), as those tools match it. It returns "" when
// there is no filter to narrow the search by: none, a negated one (!*.md), or one that
// is absolute or climbs out of the directory.
func SearchFilter(f string) string {
	f = strings.TrimSpace(f)
	if f == "" || strings.HasPrefix(f, "/") || strings.HasPrefix(f, "!") || strings.Contains(f, "..") {
		return ""
	}
	if !strings.Contains(f, "/") {
		return "**/" + f
	}
	return f
}

// HasMeta reports whether s contains an unescaped '*', '?', '[' or '{'.
func HasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return true
		}
	}
	return false
}

// Word is a compiled pattern for a single shell word or name. It uses the path syntax,
// but '*', '?' and classes also match '/', and "**" means the same as '*'.
// It is immutable and safe for concurrent use.
type Word struct {
	pattern string
	m       matcher
}

// CompileWord compiles a word pattern.
func CompileWord(pattern string) (*Word, error) {
	m, err := parseWord(pattern)
	if err != nil {
		return nil, err
	}
	return &Word{pattern: pattern, m: m}, nil
}

// Match reports whether s matches the whole pattern.
func (w *Word) Match(s string) bool { return w.m.match(s, false) }

// Literal returns the one string the pattern matches, and true, when the pattern matches
// exactly one string: it has no metacharacters, or only escapes and one-alternative braces.
func (w *Word) Literal() (string, bool) { return w.m.lit, w.m.kind == matchLiteral }

// String returns the pattern as it was given to CompileWord.
func (w *Word) String() string { return w.pattern }

// Words is a compiled pattern for a sequence of words, such as a command line split into
// arguments. It is immutable and safe for concurrent use.
type Words struct {
	elems []*Word // nil stands for "**": zero or more whole words
}

// CompileWords compiles a sequence of word patterns. An element that is exactly "**"
// matches zero or more whole words; every other element matches one word. An empty
// sequence is an error, since a rule that can only match an empty command is a mistake.
func CompileWords(patterns []string) (*Words, error) {
	if len(patterns) == 0 {
		return nil, errors.New("glob: empty word pattern list")
	}
	ws := &Words{elems: make([]*Word, 0, len(patterns))}
	for i, pat := range patterns {
		if pat == "**" {
			if n := len(ws.elems); n > 0 && ws.elems[n-1] == nil {
				continue // "** **" means the same as "**"
			}
			ws.elems = append(ws.elems, nil)
			continue
		}
		w, err := CompileWord(pat)
		if err != nil {
			return nil, fmt.Errorf("word %d: %w", i+1, err)
		}
		ws.elems = append(ws.elems, w)
	}
	return ws, nil
}

// Match reports whether the whole sequence of words matches the pattern. Like
// Path.Match, it remembers only the last "**", so the work is bounded by
// len(pattern) × len(words) word comparisons whatever the input.
func (ws *Words) Match(words []string) bool {
	pi, wi := 0, 0
	starPi, starWi := -1, 0
	for {
		if pi < len(ws.elems) {
			w := ws.elems[pi]
			if w == nil {
				if pi == len(ws.elems)-1 {
					return true
				}
				starPi, starWi = pi, wi
				pi++
				continue
			}
			if wi < len(words) && w.m.match(words[wi], false) {
				pi, wi = pi+1, wi+1
				continue
			}
		} else if wi == len(words) {
			return true
		}
		if starPi < 0 || starWi >= len(words) {
			return false
		}
		starWi++
		pi, wi = starPi+1, starWi
	}
}
