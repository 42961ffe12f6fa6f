package glob

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fuzzers compare the matchers with a regular expression built from the same compiled
// pattern. That does not test the parser's reading of the syntax (the tables do), but it
// does test every matching shortcut against an independent engine.

// seqRegexp writes one alternative; any is the expression for one character.
func seqRegexp(b *strings.Builder, q seq, any string, excl rune) {
	for _, t := range q {
		switch t.kind {
		case tokLiteral:
			b.WriteString(regexp.QuoteMeta(t.lit))
		case tokAny:
			b.WriteString(any)
		case tokStar:
			b.WriteString(any + "*")
		case tokClass:
			var body strings.Builder
			for _, r := range t.class.ranges {
				lo, hi := r.lo, r.hi
				// A separator is never in a segment or word: take it out of positive ranges.
				if !t.class.negated && lo <= excl && excl <= hi {
					if lo < excl {
						fmt.Fprintf(&body, `\x{%x}-\x{%x}`, lo, excl-1)
					}
					lo = excl + 1
					if lo > hi {
						continue
					}
				}
				fmt.Fprintf(&body, `\x{%x}-\x{%x}`, lo, hi)
			}
			switch {
			case t.class.negated && excl >= 0:
				fmt.Fprintf(b, `[^\x{%x}%s]`, excl, body.String())
			case t.class.negated:
				fmt.Fprintf(b, `[^%s]`, body.String())
			case body.Len() == 0:
				b.WriteString(`[^\x00-\x{10ffff}]`) // matches nothing
			default:
				fmt.Fprintf(b, `[%s]`, body.String())
			}
		}
	}
}

func matcherRegexp(b *strings.Builder, m matcher, any string, excl rune) {
	switch m.kind {
	case matchLiteral:
		b.WriteString(regexp.QuoteMeta(m.lit))
	case matchAll:
		b.WriteString(any + "*")
	default:
		b.WriteString("(?:")
		for i, a := range m.alts {
			if i > 0 {
				b.WriteString("|")
			}
			seqRegexp(b, a, any, excl)
		}
		b.WriteString(")")
	}
}

// pathRegexp matches the same paths as segs, once "/" is written as "".
func pathRegexp(segs []segment, fold bool) *regexp.Regexp {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	for _, s := range segs {
		if s.doubleStar {
			b.WriteString(`(?:/[^/]*)*`)
			continue
		}
		b.WriteString("/")
		matcherRegexp(&b, s.m, `[^/]`, '/')
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func regexpSubject(path string) string {
	if path == "/" {
		return ""
	}
	return path
}

func FuzzPath(f *testing.F) {
	for _, tc := range pathCases {
		f.Add(tc.pattern, tc.path, tc.fold)
	}
	for _, tc := range treeCases {
		f.Add(tc.pattern, tc.dir, false)
	}
	for _, tc := range errCases {
		if !tc.word {
			f.Add(tc.pattern, "/a/b", false)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, path string, fold bool) {
		if got, ok := plainPrefix(pattern); ok && got != parsedPrefix(pattern) {
			t.Fatalf("plainPrefix(%q) = %q, the parser says %q", pattern, got, parsedPrefix(pattern))
		}
		p, err := CompilePath(pattern, Options{FoldCase: fold})
		if err != nil {
			if _, ok := err.(*PatternError); !ok {
				t.Fatalf("error %v is not a *PatternError", err)
			}
			if LiteralPrefix(pattern) != "" {
				t.Fatalf("LiteralPrefix(%q) is not empty for a bad pattern", pattern)
			}
			return
		}
		match, tree, covers := p.Match(path), p.MatchTree(path), p.CoversTree(path)
		if covers && !match || match && !tree {
			t.Fatalf("%q on %q: CoversTree %v, Match %v, MatchTree %v", pattern, path, covers, match, tree)
		}
		// Match ⇒ TouchesTree ⇒ MatchTree.
		if touches := p.TouchesTree(path); match && !touches || touches && !tree {
			t.Fatalf("%q on %q: Match %v, TouchesTree %v, MatchTree %v", pattern, path, match, touches, tree)
		}
		if path != "" && path[0] == '/' {
			child := strings.TrimSuffix(path, "/") + "/any/child"
			if covers && !p.Match(child) {
				t.Fatalf("%q covers %q but does not match %q", pattern, path, child)
			}
			if !tree && p.Match(child) {
				t.Fatalf("%q: MatchTree(%q) is false but Match(%q) is true", pattern, path, child)
			}
		}
		if !fold {
			folded, err := CompilePath(pattern, Options{FoldCase: true})
			if err != nil {
				t.Fatalf("compiles only without FoldCase: %v", err)
			}
			// Folding widens everything but negated classes, which it narrows.
			if match && !strings.ContainsAny(pattern, "!^") && !folded.Match(path) {
				t.Fatalf("%q matches %q, but not with FoldCase", pattern, path)
			}
			if prefix := LiteralPrefix(pattern); match && prefix != "/" && path != prefix && !strings.HasPrefix(path, prefix+"/") {
				t.Fatalf("%q matches %q outside its literal prefix %q", pattern, path, prefix)
			}
		}
		if !utf8.ValidString(path) || path == "" || path[0] != '/' {
			return
		}
		if want := pathRegexp(p.segs, fold).MatchString(regexpSubject(path)); match != want {
			t.Fatalf("%q.Match(%q) = %v, regexp says %v", pattern, path, match, want)
		}
		want := false
		for i := 0; i <= len(p.segs) && !want; i++ {
			want = pathRegexp(p.segs[:i], fold).MatchString(regexpSubject(path))
		}
		if tree != want {
			t.Fatalf("%q.MatchTree(%q) = %v, regexp says %v", pattern, path, tree, want)
		}
	})
}

func FuzzWord(f *testing.F) {
	for _, tc := range wordCases {
		f.Add(tc.pattern, tc.s)
	}
	for _, tc := range errCases {
		f.Add(tc.pattern, "x")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		w, err := CompileWord(pattern)
		if err != nil {
			if _, ok := err.(*PatternError); !ok {
				t.Fatalf("error %v is not a *PatternError", err)
			}
			return
		}
		got := w.Match(s)
		if lit, ok := w.Literal(); ok && got != (s == lit) {
			t.Fatalf("%q: Literal() = %q but Match(%q) = %v", pattern, lit, s, got)
		}
		if !utf8.ValidString(s) {
			return
		}
		var b strings.Builder
		b.WriteString("^")
		matcherRegexp(&b, w.m, `(?s:.)`, -1)
		b.WriteString("$")
		if want := regexp.MustCompile(b.String()).MatchString(s); got != want {
			t.Fatalf("%q.Match(%q) = %v, regexp %s says %v", pattern, s, got, b.String(), want)
		}
	})
}

func FuzzWords(f *testing.F) {
	for _, tc := range wordsCases {
		f.Add(tc.pattern, tc.words)
	}
	f.Fuzz(func(t *testing.T, pattern, words string) {
		pats := strings.Split(pattern, " ")
		ws, err := CompileWords(pats)
		if err != nil {
			return
		}
		list := strings.Split(words, " ")
		if words == "" {
			list = nil
		}
		got := ws.Match(list)
		if !utf8.ValidString(words) || strings.ContainsRune(words, 0) || strings.ContainsRune(pattern, 0) {
			return
		}
		// Each word becomes "\x00word", so a sequence is one string for the regexp.
		var b strings.Builder
		b.WriteString("^")
		for _, w := range ws.elems {
			if w == nil {
				b.WriteString(`(?:\x00[^\x00]*)*`)
				continue
			}
			b.WriteString(`\x00`)
			matcherRegexp(&b, w.m, `[^\x00]`, 0)
		}
		b.WriteString("$")
		var subject strings.Builder
		for _, w := range list {
			subject.WriteString("\x00" + w)
		}
		if want := regexp.MustCompile(b.String()).MatchString(subject.String()); got != want {
			t.Fatalf("%q.Match(%q) = %v, regexp %s says %v", pats, list, got, b.String(), want)
		}
	})
}

// TestRandomAgainstRegexp draws patterns and paths from a small alphabet, where matches are
// common, which the fuzzer finds only slowly.
func TestRandomAgainstRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "b", "A", "ab", "*", "?", "[a-b]", "[!a]", "{a,b*}", "{,b}", "a*b", "*a*", "K", "é", "[k-l]"}
	names := []string{"a", "b", "A", "ab", "ba", "aab", "bab", "k", "\u212a", "aK", "É", "\xffa"}
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for range n {
		var pat strings.Builder
		for range 1 + rng.IntN(4) {
			pat.WriteString("/")
			if rng.IntN(4) == 0 {
				pat.WriteString("**")
				continue
			}
			for range 1 + rng.IntN(2) {
				pat.WriteString(parts[rng.IntN(len(parts))])
			}
		}
		fold := rng.IntN(2) == 0
		p, err := CompilePath(pat.String(), Options{FoldCase: fold})
		if err != nil {
			continue // "*" next to "*" is an error
		}
		re := pathRegexp(p.segs, fold)
		var prefixes []*regexp.Regexp
		for i := range len(p.segs) + 1 {
			prefixes = append(prefixes, pathRegexp(p.segs[:i], fold))
		}
		for range 10 {
			var path strings.Builder
			for range rng.IntN(5) {
				path.WriteString("/" + names[rng.IntN(len(names))])
			}
			x := path.String()
			if x == "" {
				x = "/"
			}
			if !utf8.ValidString(x) {
				if p.Match(x) && !p.MatchTree(x) {
					t.Fatalf("%q matches %q, but MatchTree does not", pat.String(), x)
				}
				continue
			}
			if got, want := p.Match(x), re.MatchString(regexpSubject(x)); got != want {
				t.Fatalf("%q (fold %v).Match(%q) = %v, regexp says %v", pat.String(), fold, x, got, want)
			}
			tree := false
			for _, re := range prefixes {
				tree = tree || re.MatchString(regexpSubject(x))
			}
			if got := p.MatchTree(x); got != tree {
				t.Fatalf("%q (fold %v).MatchTree(%q) = %v, regexp says %v", pat.String(), fold, x, got, tree)
			}
			if p.CoversTree(x) && !p.Match(x+"/a/b") || !p.MatchTree(x) && p.Match(x+"/a") {
				t.Fatalf("%q: tree invariants fail on %q", pat.String(), x)
			}
		}
	}
}

// FuzzLiteralSegment checks parsePath's shortcut for plain segments: a segment that
// literalSegment takes as plain gets the matcher that parsing it piece by piece gives.
func FuzzLiteralSegment(f *testing.F) {
	for _, seed := range []string{".ssh", "id_rsa.pub", "a}b", "x,y", "ünïcode", ".", "..", "", "a b", "~", "*", "a\\b", "[x]", "{a,b}", "a?"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		if strings.Contains(seg, "/") || !utf8.ValidString(seg) {
			return
		}
		lit, ok := literalSegment(seg)
		if !ok {
			return
		}
		if lit != seg {
			t.Fatalf("literalSegment(%q) = %q, want the whole segment", seg, lit)
		}
		if seg == "" {
			return
		}
		p := &parser{pat: "/" + seg, path: true}
		pieces, end, err := p.pieces(1)
		if err != nil {
			t.Fatalf("%q: %v", seg, err)
		}
		m, err := p.compile(pieces, 1, end)
		if err != nil {
			t.Fatalf("%q: %v", seg, err)
		}
		if m.kind != matchLiteral || m.lit != seg {
			t.Fatalf("%q parsed piece by piece is %+v, the shortcut's is a literal", seg, m)
		}
	})
}
