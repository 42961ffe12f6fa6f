package glob

import (
	"strings"
	"unicode/utf8"
)

// Overlap says how the glob an access names stands for paths, for Path.Overlaps.
type Overlap struct {
	// Tree means the access also reaches everything below each path the glob names
	// (rm -rf build/*). As in TouchesTree, a pattern reaches such a tree only through the
	// names the glob itself spells: "/**/.env" is not reached by rm -rf build/*, since
	// whether some build/x holds a .env is unknown, but it is by rm -rf ./.e*.
	Tree bool
	// Hidden means the glob's wildcards match names that start with a dot, as find's
	// -name patterns and its walk do. A shell's wildcards do not (bash without dotglob):
	// `rm *` never names .claude.
	Hidden bool
	// Spelled means p reaches the glob only through names the glob spells: its wildcard
	// segments are taken by p's "**" alone. It is how a pattern for a file in any
	// directory ("/**/moat.yaml") is judged away from the places such a file is known
	// to be: `rm -rf build/*` does not name build/moat.yaml, `rm -f */moat.yaml` does.
	// The glob's "**" then takes p's segments only when the glob spells its last name.
	Spelled bool
	// Shallow means the glob's "**" takes none of the segments p spells: a walk reaches
	// p's names only where the glob's own segments meet them (find . -name '*.go' does
	// not name /ws/secrets/x.go merely because some directory may be called secrets).
	Shallow bool
}

// Overlaps reports whether some path could match both p (a policy pattern) and glob (the
// pattern an access names: the words a shell would expand, the paths a find would
// visit). It answers "can `rm *.pyc` delete moat.yaml" by intersecting the two patterns,
// not by judging the glob as the whole directory it starts from. It errs towards true
// where character classes would need exact set arithmetic outside ASCII. glob's "**"
// matches any run of segments, whichever way the glob came, which is never less than
// what the shell would expand it to.
func (p *Path) Overlaps(glob *Path, o Overlap) bool {
	a, b := p.segs, glob.segs
	if len(b) == 0 {
		// The glob names the root: it overlaps every pattern when it is a tree.
		return o.Tree || p.Match("/")
	}
	if !p.fold && !glob.fold && !sameBranch(p.head(), glob.head()) {
		// Every path either names starts with its literal head; heads that part ways
		// (/home/u/.ssh and /home/u/project/dist) leave no path to share. Most pairs a
		// policy asks about end here, before the search.
		return false
	}
	// Breadth over states (i, j, e): i segments of p and j of glob consumed, e whether
	// glob's last consumed segment was matched by a segment p spells (not absorbed by
	// p's "**"), which is what a tree needs at the end.
	stride := len(b) + 1
	seen := make([]bool, (len(a)+1)*stride*2)
	type state struct {
		i, j int
		e    bool
	}
	stack := []state{{0, 0, false}}
	push := func(i, j int, e bool) {
		k := (i*stride + j) * 2
		if e {
			k++
		}
		if !seen[k] {
			seen[k] = true
			stack = append(stack, state{i, j, e})
		}
	}
	seen[0] = true
	star := matcher{kind: matchAll}
	// Whether the glob's "**" may take segments p spells: always, unless Shallow, or
	// Spelled with a glob whose last name is a wildcard (find . -name settings.json
	// names .claude/settings.json wherever it is; find . -name '*.go' names no file of
	// a secrets directory by name).
	walks := !o.Shallow && (!o.Spelled || b[len(b)-1].m.kind == matchLiteral && !b[len(b)-1].doubleStar)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.j == len(b) && (s.i == len(a) || o.Tree && s.e) {
			return true
		}
		pd := s.i < len(a) && a[s.i].doubleStar
		gd := s.j < len(b) && b[s.j].doubleStar
		if pd {
			push(s.i+1, s.j, s.e) // p's "**" matches no segment
			if s.j < len(b) {
				push(s.i, s.j+1, false) // p's "**" takes glob's segment
			}
		}
		if gd {
			push(s.i, s.j+1, s.e) // glob's "**" matches no segment
			if s.i < len(a) && !pd && walks && segmentsOverlap(&a[s.i].m, &star, o.Hidden, p.fold) {
				push(s.i+1, s.j, true) // glob's "**" takes p's segment
			}
		}
		if s.i < len(a) && s.j < len(b) && !pd && !gd && (!o.Spelled || b[s.j].m.kind == matchLiteral || spellsSuffix(&a[s.i].m, &b[s.j].m)) && segmentsOverlap(&a[s.i].m, &b[s.j].m, o.Hidden, p.fold) {
			push(s.i+1, s.j+1, true)
		}
	}
	return false
}

// spellsSuffix reports whether p's segment is "*SUFFIX" (names of one kind, such as
// *.moat-key) and an alternative of g's segment ends in SUFFIX, spelt out: g then names
// names of that kind as a literal name would. `cat keys/*.moat-key` names the key files
// wherever they are; `cat keys/*` does not, whether keys holds one being unknown.
func spellsSuffix(p, g *matcher) bool {
	if p.kind != matchGlob || len(p.alts) != 1 {
		return false
	}
	ps := p.alts[0]
	if len(ps) != 2 || ps[0].kind != tokStar || ps[1].kind != tokLiteral || ps[1].lit == "" {
		return false
	}
	if g.kind != matchGlob {
		return false
	}
	for _, alt := range g.alts {
		if len(alt) > 0 && alt[len(alt)-1].kind == tokLiteral && strings.HasSuffix(alt[len(alt)-1].lit, ps[1].lit) {
			return true
		}
	}
	return false
}

// unit is one character position of a segment pattern.
type unit struct {
	kind tokenKind // tokLiteral (one rune), tokAny, tokStar or tokClass
	r    rune
	c    *class
}

func units(q seq) []unit {
	var out []unit
	for _, t := range q {
		if t.kind != tokLiteral {
			out = append(out, unit{kind: t.kind, c: t.class})
			continue
		}
		for _, r := range t.lit {
			out = append(out, unit{kind: tokLiteral, r: r})
		}
	}
	return out
}

func alternatives(m *matcher) []seq {
	switch m.kind {
	case matchLiteral:
		return []seq{{{kind: tokLiteral, lit: m.lit}}}
	case matchAll:
		return []seq{{{kind: tokStar}}}
	}
	return m.alts
}

// segmentsOverlap reports whether one name matches both the policy segment pm and the
// glob segment gm. A policy's wildcards match a leading dot; the glob's only when hidden.
//
// Two wildcard segments meet on a hidden name only where the glob spells its dot: find's
// -name '*.pyc' is not taken to name .env.pyc for a policy's .env.*, a name neither
// pattern spells, while it names .env for a policy's literal .env.
func segmentsOverlap(pm, gm *matcher, hidden, fold bool) bool {
	switch {
	case pm.kind == matchLiteral && gm.kind == matchLiteral:
		return pm.lit == gm.lit || fold && equalFold(pm.lit, gm.lit)
	case pm.kind == matchLiteral && (hidden || !strings.HasPrefix(pm.lit, ".")):
		// The glob must match the name the policy spells. (A name with a leading dot,
		// which the glob's wildcards may not take, goes through the search below.)
		return gm.match(pm.lit, fold)
	case gm.kind == matchLiteral:
		return pm.match(gm.lit, fold)
	}
	if pm.kind != matchLiteral && gm.kind != matchLiteral {
		hidden = false
	}
	for _, x := range alternatives(pm) {
		for _, y := range alternatives(gm) {
			if seqsOverlap(units(x), units(y), hidden, fold) {
				return true
			}
		}
	}
	return false
}

// seqsOverlap runs the product of the two patterns' automata over states (i, j, started),
// which is at most (len(x)+1)·(len(y)+1)·2 states whatever the patterns.
func seqsOverlap(x, y []unit, hidden, fold bool) bool {
	stride := len(y) + 1
	seen := make([]bool, (len(x)+1)*stride*2)
	type state struct {
		i, j    int
		started bool
	}
	stack := []state{{0, 0, false}}
	seen[0] = true
	push := func(i, j int, started bool) {
		k := (i*stride + j) * 2
		if started {
			k++
		}
		if !seen[k] {
			seen[k] = true
			stack = append(stack, state{i, j, started})
		}
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.i == len(x) && s.j == len(y) && s.started {
			return true // a name is never empty
		}
		if s.i < len(x) && x[s.i].kind == tokStar {
			push(s.i+1, s.j, s.started)
		}
		if s.j < len(y) && y[s.j].kind == tokStar {
			push(s.i, s.j+1, s.started)
		}
		if s.i == len(x) || s.j == len(y) {
			continue
		}
		// Both take one character: a star stays where it is.
		u, v := x[s.i], y[s.j]
		if !charsOverlap(u, v, !s.started && !hidden, fold) {
			continue
		}
		ni, nj := s.i+1, s.j+1
		if u.kind == tokStar {
			ni = s.i
		}
		if v.kind == tokStar {
			nj = s.j
		}
		push(ni, nj, true)
	}
	return false
}

// charsOverlap reports whether one character is accepted by the policy unit u and the
// glob unit v. noDot means it starts a name the glob must not match with a wildcard, so it
// may be '.' only where v spells the dot.
func charsOverlap(u, v unit, noDot, fold bool) bool {
	if v.kind == tokLiteral {
		return acceptsRune(u, v.r, fold)
	}
	if u.kind == tokLiteral {
		if noDot && u.r == '.' {
			return false
		}
		return acceptsRune(v, u.r, fold)
	}
	// Neither spells its character: look for a common one, in ASCII exactly.
	mask := [2]uint64{^uint64(0), ^uint64(0)}
	for _, w := range []unit{u, v} {
		if w.kind == tokClass {
			mask[0] &= w.c.ascii[0]
			mask[1] &= w.c.ascii[1]
		}
	}
	mask[0] &^= 1<<0 | 1<<'/' // NUL and '/' are in no name
	if noDot {
		mask[0] &^= 1 << '.'
	}
	if mask[0] != 0 || mask[1] != 0 {
		return true
	}
	return mayBeWide(u) && mayBeWide(v)
}

func acceptsRune(u unit, r rune, fold bool) bool {
	switch u.kind {
	case tokLiteral:
		return u.r == r || fold && (sameFold(r, u.r))
	case tokClass:
		return u.c.match(r)
	}
	return true
}

// mayBeWide reports whether u may accept a character outside ASCII.
func mayBeWide(u unit) bool {
	if u.kind != tokClass {
		return true
	}
	if u.c.negated || u.c.fold {
		return true
	}
	for _, rg := range u.c.ranges {
		if rg.hi >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// Anywhere reports whether the pattern names a path in any directory: it starts with "**"
// and spells something after it ("/**/moat.yaml").
func (p *Path) Anywhere() bool {
	return len(p.segs) > 1 && p.segs[0].doubleStar
}

// Anchor returns an Anywhere pattern with its leading "**" replaced by dir, an absolute,
// clean directory: "/**/moat.yaml" anchored at /ws is "/ws/moat.yaml". Other patterns
// are returned as they are.
func (p *Path) Anchor(dir string) *Path {
	if !p.Anywhere() || dir == "" || dir[0] != '/' {
		return p
	}
	var segs []segment
	for pos := firstSegment(dir); pos <= len(dir); {
		seg, next := nextSegment(dir, pos)
		segs = append(segs, segment{m: matcher{kind: matchLiteral, lit: seg}})
		pos = next
	}
	segs = append(segs, p.segs[1:]...)
	return newPath(p.pattern+" at "+dir, p.fold, segs)
}

// head is the run of literal segments every path the pattern names starts with, as a
// path ("" for none).
func (p *Path) head() string {
	switch p.kind {
	case pathLiteral:
		if p.lit == "/" {
			return ""
		}
		return p.lit
	case pathTree:
		return p.lit
	}
	return p.pre
}

// sameBranch reports whether one of two absolute paths is the other or below it.
func sameBranch(x, y string) bool {
	if len(x) > len(y) {
		x, y = y, x
	}
	return x == "" || y == x || len(y) > len(x) && y[len(x)] == '/' && y[:len(x)] == x
}
