// Package textmatch holds the matching machinery the scanners share: regular expressions
// compiled on first use, a one-pass index of many keywords, sorted word sets and spans.
package textmatch

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// Pattern is a regular expression, in the syntax of package regexp, that is compiled
// the first time it is used. moat decides each agent tool call in a new process, and a
// call needs few of the package's patterns: compiling them all when the package loads
// would cost every call milliseconds. A Pattern is safe for concurrent use.
type Pattern struct {
	Expr string // the expression; set once, in a composite literal, and never changed
	once sync.Once
	c    atomic.Pointer[Compiled] // nil until compiled
}

// Compiled is a compiled Pattern with the numbers of its named groups, which the secret
// rules use to find a match's value and key name.
type Compiled struct {
	Re     *regexp.Regexp
	groups map[string][]int // group name → the numbers of the groups of that name, in order
}

// Groups returns the numbers of the capture groups named name, in order.
func (c *Compiled) Groups(name string) []int { return c.groups[name] }

// String returns the source text of the expression.
func (p *Pattern) String() string { return p.Expr }

// Regexp returns the compiled expression.
func (p *Pattern) Regexp() *regexp.Regexp { return p.Compiled().Re }

// Compiled returns the compiled pattern, compiling it on the first call.
func (p *Pattern) Compiled() *Compiled {
	if c := p.c.Load(); c != nil {
		return c
	}
	p.once.Do(func() {
		// The expressions are constants of the scanners, tested: a bad one is a bug.
		c := &Compiled{Re: regexp.MustCompile(p.Expr), groups: map[string][]int{}}
		for g, n := range c.Re.SubexpNames() {
			if n != "" {
				c.groups[n] = append(c.groups[n], g)
			}
		}
		p.c.Store(c)
	})
	return p.c.Load()
}

// IsCompiled reports whether the pattern has been compiled yet.
func (p *Pattern) IsCompiled() bool { return p.c.Load() != nil }
