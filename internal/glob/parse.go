package glob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxAlternatives bounds how many alternatives the braces of one segment (or one word) may
// expand to, and maxExpanded the bytes of pattern text that expansion may produce, so that
// a short pattern like "{a,b}{c,d}…" cannot cost unbounded memory.
const (
	maxAlternatives = 256
	maxExpanded     = 1 << 16
)

// segment is one compiled path segment: either "**" or a matcher for a single name.
type segment struct {
	doubleStar bool
	m          matcher
}

// piece is a parsed part of a segment: a single token, or a {…} group of alternatives.
type piece struct {
	off  int
	tok  token
	alts []seq // non-nil for a group
}

type parser struct {
	pat  string
	path bool // '/' separates segments; '*' and '?' never see it
	fold bool
}

func (p *parser) errorf(off int, format string, args ...any) error {
	return &PatternError{Pattern: p.pat, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// checkUTF8 rejects invalid UTF-8 up front, so that every literal rune and class bound in a
// compiled pattern is a real character and can never equal a stray byte of a path.
func (p *parser) checkUTF8() error {
	for i := 0; i < len(p.pat); {
		r, w := utf8.DecodeRuneInString(p.pat[i:])
		if r == utf8.RuneError && w == 1 {
			return p.errorf(i, "invalid UTF-8")
		}
		i += w
	}
	return nil
}

func parsePath(pattern string, fold bool) ([]segment, error) {
	p := &parser{pat: pattern, path: true, fold: fold}
	if err := p.checkUTF8(); err != nil {
		return nil, err
	}
	if pattern == "" || pattern[0] != '/' {
		return nil, p.errorf(0, "path pattern must be absolute (start with '/')")
	}
	segs := make([]segment, 0, strings.Count(pattern, "/"))
	for i := 0; i < len(pattern); {
		i++ // the '/' before the segment
		start := i
		if rest := pattern[i:]; len(rest) >= 2 && rest[:2] == "**" && (len(rest) == 2 || rest[2] == '/') {
			if n := len(segs); n == 0 || !segs[n-1].doubleStar {
				segs = append(segs, segment{doubleStar: true})
			}
			i += 2
			continue
		}
		var m matcher
		if lit, ok := literalSegment(pattern[i:]); ok {
			// Most segments of the patterns policies and path sets name are plain names
			// (.ssh, credentials): their matcher is the name, as compile would make it,
			// without the pieces and alternatives compile builds on the way.
			i += len(lit)
			if lit == "" {
				continue // "//" or a trailing '/'
			}
			m = matcher{kind: matchLiteral, lit: lit}
		} else {
			pieces, next, err := p.pieces(i)
			if err != nil {
				return nil, err
			}
			i = next
			if next == start {
				continue // "//" or a trailing '/'
			}
			if m, err = p.compile(pieces, start, next); err != nil {
				return nil, err
			}
		}
		if m.kind == matchLiteral {
			switch m.lit {
			case ".":
				continue
			case "..":
				n := len(segs)
				if n == 0 {
					continue // "/.." is "/"
				}
				if segs[n-1].doubleStar || segs[n-1].m.kind != matchLiteral {
					return nil, p.errorf(start, "'..' cannot follow a segment with wildcards")
				}
				segs = segs[:n-1]
				continue
			}
		}
		segs = append(segs, segment{m: m})
	}
	return segs, nil
}

// literalSegment returns the segment rest starts with (up to the next '/') when none of
// its characters is special in a path pattern: it then matches exactly itself.
func literalSegment(rest string) (string, bool) {
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		end = len(rest)
	}
	seg := rest[:end]
	return seg, !strings.ContainsAny(seg, `\*?[{`)
}

func parseWord(pattern string) (matcher, error) {
	p := &parser{pat: pattern}
	if err := p.checkUTF8(); err != nil {
		return matcher{}, err
	}
	pieces, end, err := p.pieces(0)
	if err != nil {
		return matcher{}, err
	}
	return p.compile(pieces, 0, end)
}

// pieces parses from i to the end of the segment: the next '/' in a path, the end of the
// pattern otherwise.
func (p *parser) pieces(i int) ([]piece, int, error) {
	var out []piece
	for i < len(p.pat) {
		c := p.pat[i]
		if p.path && c == '/' {
			break
		}
		if c == '{' {
			alts, next, err := p.group(i)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, piece{off: i, alts: alts})
			i = next
			continue
		}
		tok, next, err := p.token(i)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, piece{off: i, tok: tok})
		i = next
	}
	return out, i, nil
}

// group parses the {…} alternatives starting at i.
func (p *parser) group(i int) ([]seq, int, error) {
	var alts []seq
	var cur seq
	for j := i + 1; ; {
		if j >= len(p.pat) {
			return nil, 0, p.errorf(i, "unclosed '{'")
		}
		switch c := p.pat[j]; {
		case c == '}':
			if j == i+1 {
				return nil, 0, p.errorf(i, "empty alternative list '{}'")
			}
			return append(alts, cur), j + 1, nil
		case c == ',':
			alts = append(alts, cur)
			cur = nil
			j++
		case c == '{':
			return nil, 0, p.errorf(j, "nested '{' is not supported")
		case c == '/' && p.path:
			return nil, 0, p.errorf(j, "'/' cannot appear inside '{...}' in a path pattern")
		default:
			tok, next, err := p.token(j)
			if err != nil {
				return nil, 0, err
			}
			cur = append(cur, tok)
			j = next
		}
	}
}

// token parses one token at i. '{' never reaches it; '}' and ',' outside a group are
// ordinary characters.
func (p *parser) token(i int) (token, int, error) {
	switch p.pat[i] {
	case '\\':
		if i+1 >= len(p.pat) {
			return token{}, 0, p.errorf(i, "trailing '\\' escapes nothing")
		}
		if p.path && p.pat[i+1] == '/' {
			return token{}, 0, p.errorf(i, "'/' cannot be escaped in a path pattern")
		}
		_, w := utf8.DecodeRuneInString(p.pat[i+1:])
		return token{kind: tokLiteral, lit: p.pat[i+1 : i+1+w]}, i + 1 + w, nil
	case '*':
		if p.path && i+1 < len(p.pat) && p.pat[i+1] == '*' {
			return token{}, 0, p.errorf(i, "'**' must be a whole path segment (use '*' to match within a segment)")
		}
		return token{kind: tokStar}, i + 1, nil
	case '?':
		return token{kind: tokAny}, i + 1, nil
	case '[':
		c, next, err := p.class(i)
		if err != nil {
			return token{}, 0, err
		}
		return token{kind: tokClass, class: c}, next, nil
	}
	// A run of ordinary characters is one token; the run may stop early (at '}' or ',',
	// which the caller may treat as ordinary), since normalize joins literals anyway.
	j := i + 1
	for j < len(p.pat) && !strings.ContainsRune(`\*?[{},/`, rune(p.pat[j])) {
		j++
	}
	return token{kind: tokLiteral, lit: p.pat[i:j]}, j, nil
}

// class parses the bracket expression starting at open. A ']' right after the '[' (or
// after '!' or '^') is a member, as in POSIX; '-' between two members makes a range.
func (p *parser) class(open int) (*class, int, error) {
	c := &class{fold: p.fold}
	j := open + 1
	if j < len(p.pat) && (p.pat[j] == '!' || p.pat[j] == '^') {
		c.negated = true
		j++
	}
	for first := true; ; first = false {
		if j >= len(p.pat) {
			return nil, 0, p.errorf(open, "unclosed '['")
		}
		if p.pat[j] == ']' && !first {
			j++
			break
		}
		if p.pat[j] == '[' && j+1 < len(p.pat) && p.pat[j+1] == ':' {
			return nil, 0, p.errorf(j, "POSIX classes like '[:alpha:]' are not supported")
		}
		lo, next, err := p.classChar(j, open)
		if err != nil {
			return nil, 0, err
		}
		hi := lo
		if next+1 < len(p.pat) && p.pat[next] == '-' && p.pat[next+1] != ']' {
			hi, next, err = p.classChar(next+1, open)
			if err != nil {
				return nil, 0, err
			}
			if hi < lo {
				return nil, 0, p.errorf(j, "invalid range %q in '[...]' (the end comes before the start)", p.pat[j:next])
			}
		}
		c.ranges = append(c.ranges, runeRange{lo, hi})
		j = next
	}
	c.init()
	return c, j, nil
}

func (p *parser) classChar(j, open int) (rune, int, error) {
	start := j
	if p.pat[j] == '\\' {
		j++
		if j >= len(p.pat) {
			return 0, 0, p.errorf(open, "unclosed '['")
		}
	}
	r, w := utf8.DecodeRuneInString(p.pat[j:])
	if r == '/' && p.path {
		return 0, 0, p.errorf(start, "'/' cannot appear inside '[...]' in a path pattern")
	}
	return r, j + w, nil
}

// compile expands the groups of the segment pattern[start:end] into alternatives and
// builds their matcher.
func (p *parser) compile(pieces []piece, start, end int) (matcher, error) {
	n := 1
	for _, pc := range pieces {
		if pc.alts == nil {
			continue
		}
		if n *= len(pc.alts); n > maxAlternatives {
			return matcher{}, p.errorf(pc.off, "braces expand to more than %d alternatives", maxAlternatives)
		}
	}
	if n > 1 && n*(end-start) > maxExpanded {
		return matcher{}, p.errorf(start, "braces expand to more than %d bytes of pattern", maxExpanded)
	}
	alts := []seq{nil}
	for _, pc := range pieces {
		if pc.alts == nil {
			for k := range alts {
				alts[k] = append(alts[k], pc.tok)
			}
			continue
		}
		next := make([]seq, 0, len(alts)*len(pc.alts))
		for _, a := range alts {
			for _, b := range pc.alts {
				s := make(seq, 0, len(a)+len(b))
				next = append(next, append(append(s, a...), b...))
			}
		}
		alts = next
	}
	for k := range alts {
		alts[k] = alts[k].normalize()
	}
	return newMatcher(alts), nil
}
