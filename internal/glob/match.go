package glob

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokenKind uint8

const (
	tokLiteral tokenKind = iota
	tokAny               // '?': one character
	tokStar              // '*': any run of characters
	tokClass             // '[...]'
)

type token struct {
	kind  tokenKind
	lit   string
	class *class
}

// seq is one alternative of a segment or word: tokens matched left to right.
type seq []token

// normalize merges adjacent literals and adjacent stars, so that literals are compared as
// whole strings and a run of stars is one backtracking point, not several.
func (s seq) normalize() seq {
	out := make(seq, 0, len(s))
	for i := 0; i < len(s); {
		t := s[i]
		j := i + 1
		for j < len(s) && s[j].kind == t.kind && (t.kind == tokLiteral || t.kind == tokStar) {
			j++
		}
		if t.kind == tokLiteral && j > i+1 {
			var b strings.Builder
			for _, u := range s[i:j] {
				b.WriteString(u.lit)
			}
			t.lit = b.String()
		}
		out = append(out, t)
		i = j
	}
	return out
}

type matchKind uint8

const (
	matchGlob    matchKind = iota
	matchLiteral           // exactly lit
	matchAll               // anything at all
)

// matcher matches one segment or word against a set of alternatives.
type matcher struct {
	kind matchKind
	lit  string
	alts []seq
}

func newMatcher(alts []seq) matcher {
	if len(alts) == 1 {
		switch s := alts[0]; {
		case len(s) == 0:
			return matcher{kind: matchLiteral}
		case len(s) == 1 && s[0].kind == tokLiteral:
			return matcher{kind: matchLiteral, lit: s[0].lit}
		}
	}
	for _, s := range alts {
		if len(s) == 1 && s[0].kind == tokStar {
			return matcher{kind: matchAll}
		}
	}
	return matcher{kind: matchGlob, alts: alts}
}

func (m *matcher) match(s string, fold bool) bool {
	switch m.kind {
	case matchLiteral:
		if fold {
			return equalFold(s, m.lit)
		}
		return s == m.lit
	case matchAll:
		return true
	}
	for _, a := range m.alts {
		if a.match(s, fold) {
			return true
		}
	}
	return false
}

// match is the classic wildcard algorithm: on a mismatch, go back to the last star and let
// it take one more character. Every other token matches a fixed number of characters, so
// the last star is the only choice worth revisiting, and the work is at most
// O(len(tokens) × len(s)), never exponential.
func (q seq) match(s string, fold bool) bool {
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(q) {
			t := &q[ti]
			switch t.kind {
			case tokStar:
				if ti == len(q)-1 {
					return true
				}
				if ti == len(q)-2 && q[ti+1].kind == tokLiteral {
					// A final "*lit" needs no search: the rest must end in lit.
					if fold {
						return foldSuffix(s[si:], q[ti+1].lit)
					}
					return len(s)-si >= len(q[ti+1].lit) && strings.HasSuffix(s, q[ti+1].lit)
				}
				starTi, starSi = ti, si
				ti++
				continue
			case tokLiteral:
				if fold {
					if n, ok := foldPrefix(s[si:], t.lit); ok {
						ti, si = ti+1, si+n
						continue
					}
				} else if strings.HasPrefix(s[si:], t.lit) {
					ti, si = ti+1, si+len(t.lit)
					continue
				}
			case tokAny:
				if si < len(s) {
					_, w := decode(s[si:])
					ti, si = ti+1, si+w
					continue
				}
			case tokClass:
				if si < len(s) {
					r, w := decode(s[si:])
					if t.class.match(r) {
						ti, si = ti+1, si+w
						continue
					}
				}
			}
		} else if si == len(s) {
			return true
		}
		if starTi < 0 || starSi >= len(s) {
			return false
		}
		_, w := decode(s[starSi:])
		starSi += w
		ti, si = starTi+1, starSi
	}
}

// invalidRune stands for a byte that is not part of valid UTF-8. It equals no pattern
// character and lies in no class range, because patterns are valid UTF-8.
const invalidRune = -1

// decode returns the first character of s, which must not be empty, and its width.
func decode(s string) (rune, int) {
	if s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	r, w := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && w == 1 {
		return invalidRune, 1
	}
	return r, w
}

// foldPrefix reports whether s starts with lit under simple case folding, and how many
// bytes of s that prefix takes: folding can change a character's encoded length (the
// Kelvin sign K folds to k), so the caller must not assume len(lit).
func foldPrefix(s, lit string) (int, bool) {
	i := 0
	for j := 0; j < len(lit); {
		if i >= len(s) {
			return 0, false
		}
		a, b := s[i], lit[j]
		if a < utf8.RuneSelf && b < utf8.RuneSelf {
			if a != b && (a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z') {
				return 0, false
			}
			i, j = i+1, j+1
			continue
		}
		r, wr := decode(s[i:])
		l, wl := utf8.DecodeRuneInString(lit[j:])
		if r != l && !sameFold(r, l) {
			return 0, false
		}
		i, j = i+wr, j+wl
	}
	return i, true
}

// foldSuffix reports whether s ends with lit under simple case folding. Reading backwards
// finds the same character boundaries as reading forwards wherever the characters are
// valid, and an invalid one fails the comparison either way.
func foldSuffix(s, lit string) bool {
	i, j := len(s), len(lit)
	for j > 0 {
		if i == 0 {
			return false
		}
		a, b := s[i-1], lit[j-1]
		if a < utf8.RuneSelf && b < utf8.RuneSelf {
			if a != b && (a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z') {
				return false
			}
			i, j = i-1, j-1
			continue
		}
		r, wr := utf8.DecodeLastRuneInString(s[:i])
		if r == utf8.RuneError && wr == 1 {
			r = invalidRune
		}
		l, wl := utf8.DecodeLastRuneInString(lit[:j])
		if r != l && !sameFold(r, l) {
			return false
		}
		i, j = i-wr, j-wl
	}
	return true
}

func equalFold(s, lit string) bool {
	n, ok := foldPrefix(s, lit)
	return ok && n == len(s)
}

// sameFold reports whether r and l are in the same simple case folding orbit, which is
// the equivalence strings.EqualFold uses.
func sameFold(r, l rune) bool {
	if r < 0 {
		return false
	}
	for f := unicode.SimpleFold(l); f != l; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return false
}

type runeRange struct{ lo, hi rune }

// class is a compiled '[...]'. ascii caches the answer for every ASCII character, folding
// and negation included, since that is nearly every character of a real path.
type class struct {
	negated bool
	fold    bool
	ranges  []runeRange
	ascii   [2]uint64
}

func (c *class) init() {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if c.matchSlow(r) {
			c.ascii[r>>6] |= 1 << (r & 63)
		}
	}
}

func (c *class) match(r rune) bool {
	if r >= 0 && r < utf8.RuneSelf {
		return c.ascii[r>>6]&(1<<(r&63)) != 0
	}
	return c.matchSlow(r)
}

func (c *class) matchSlow(r rune) bool {
	in := c.contains(r)
	if !in && c.fold && r >= 0 {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if c.contains(f) {
				in = true
				break
			}
		}
	}
	return in != c.negated
}

func (c *class) contains(r rune) bool {
	for _, rg := range c.ranges {
		if rg.lo <= r && r <= rg.hi {
			return true
		}
	}
	return false
}
