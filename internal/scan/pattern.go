package scan

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
	expr string
	once sync.Once
	c    atomic.Pointer[compiledPattern] // nil until compiled
}

// compiledPattern is a compiled Pattern with the numbers of its named groups, which the
// secret rules use to find a match's value and key name.
type compiledPattern struct {
	re                       *regexp.Regexp
	secretGroups, nameGroups []int // groups named "secret" and "name"
}

// String returns the source text of the expression.
func (p *Pattern) String() string { return p.expr }

// Regexp returns the compiled expression.
func (p *Pattern) Regexp() *regexp.Regexp { return p.compiled().re }

// compiled returns the compiled pattern, compiling it on the first call.
func (p *Pattern) compiled() *compiledPattern {
	if c := p.c.Load(); c != nil {
		return c
	}
	p.once.Do(func() {
		// The expressions are constants of this package, tested: a bad one is a bug.
		c := &compiledPattern{re: regexp.MustCompile(p.expr)}
		for g, n := range c.re.SubexpNames() {
			switch n {
			case "secret":
				c.secretGroups = append(c.secretGroups, g)
			case "name":
				c.nameGroups = append(c.nameGroups, g)
			}
		}
		p.c.Store(c)
	})
	return p.c.Load()
}

// isCompiled reports whether the pattern has been compiled yet.
func (p *Pattern) isCompiled() bool { return p.c.Load() != nil }
