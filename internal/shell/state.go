package shell

import (
	"math"
	"slices"
	"sort"
)

// The shell state the analysis tracks while it walks a line: variables assigned in the line
// and the working directory. A value is either known exactly or unknown; the analysis never
// picks one of several possible values.
//
// Bindings are kept in a log, in source order, with one scope per construct that runs in a
// subshell (its changes vanish when it ends) or that may not run at all (a branch: its
// changes may or may not have happened). A binding made in a branch that has ended is
// therefore uncertain, which reads as unknown.
//
// Loops and function bodies are the other difficulty: their code may run many times, or at
// a time the source order does not show, so a value bound before them may have changed by
// the time a command inside runs. For those, a first pass over the whole line (changes)
// records where each variable may change; a lookup inside a loop or function trusts a
// binding only if nothing in the range that could run between the binding and the lookup
// may change it.

// Pseudo-variables. None is a valid shell name, so no line can assign them.
const (
	cwdVar = "." // the working directory
	// cdUnknown is "1" after a cd to a directory known only at run time (cd "$(mktemp
	// -d)"), as opposed to a working directory forgotten because eval or source may have
	// changed anything.
	cdUnknown = "./?"
	anyVar    = "*"  // bound when any variable may have changed (read $name)
	anyState  = "**" // bound when any variable and the cwd may have changed (eval, $cmd)
)

// value is a variable's value, when it is known.
type value struct {
	s     string
	known bool
}

type binding struct {
	name   string
	val    value
	base   string // for cwdVar: the best-known directory before this binding
	at     int    // offset of the statement that made it
	depth  int    // the scope that made it: its depth and serial number
	serial int
	prev   int // index in the log of name's previous binding, or -1
}

type scopeKind uint8

const (
	subshell scopeKind = iota + 1 // ( ), $( ), <( ), pipelines, &: changes vanish at the end
	branch                        // && ||, if, case, loops, functions: changes may not happen
)

type scope struct {
	kind   scopeKind
	serial int
	mark   int // len(log) when the scope began
}

// context is a loop or function body being walked.
type context struct {
	start  int // offset of the loop or function
	lo, hi int // source range whose changes may run before any command of the body
	fns    int // function bodies among this context and those enclosing it
}

type state struct {
	log     []binding
	latest  map[string]int // name → index in log of its newest binding
	scopes  []scope
	serials int
	ctxs    []context
	home    value // HOME and the cwd before the line runs
	cwd     value
	vars    map[string]string // other variables known before the line runs
	changes *changes          // set before the first context is entered
}

// newState returns the state before the line runs, keeping its scopes in buf.
func newState(home, cwd value, vars map[string]string, buf []scope) state {
	return state{scopes: append(buf, scope{kind: branch}), home: home, cwd: cwd, vars: vars}
}

// initial returns name's value before the line runs. Of the environment, HOME and the
// variables of Env.Vars are known; IFS is the default, which bash sets whatever the
// environment says.
func (s *state) initial(name string) value {
	switch name {
	case "HOME":
		return s.home
	case cwdVar:
		return s.cwd
	case "IFS":
		return value{" \t\n", true}
	}
	if v, ok := s.vars[name]; ok {
		return value{v, true}
	}
	return value{}
}

func (s *state) push(kind scopeKind) {
	s.serials++
	s.scopes = append(s.scopes, scope{kind: kind, serial: s.serials, mark: len(s.log)})
}

func (s *state) pop() {
	if len(s.scopes) < 2 {
		return // the root scope stays; an unbalanced pop is a bug, not a reason to fail
	}
	sc := s.scopes[len(s.scopes)-1]
	s.scopes = s.scopes[:len(s.scopes)-1]
	if sc.kind != subshell {
		return
	}
	for i := len(s.log) - 1; i >= sc.mark; i-- {
		b := s.log[i]
		if b.prev < 0 {
			delete(s.latest, b.name)
		} else {
			s.latest[b.name] = b.prev
		}
	}
	s.log = s.log[:sc.mark]
}

func (s *state) set(name string, v value, base string, at int) {
	if s.latest == nil {
		s.latest = make(map[string]int)
	}
	prev, ok := s.latest[name]
	if !ok {
		prev = -1
	}
	d := len(s.scopes) - 1
	s.log = append(s.log, binding{name: name, val: v, base: base, at: at, depth: d, serial: s.scopes[d].serial, prev: prev})
	s.latest[name] = len(s.log) - 1
}

// get returns the value of name where the walk is, and the best-known value to fall back on
// when it is unknown (the working directory before an unknown `cd`).
func (s *state) get(name string) (v value, fallback string) {
	idx, bound := s.latest[name]
	if !bound {
		idx = -1
	}
	at := -1
	var base string
	if bound {
		b := &s.log[idx]
		v, base, at = b.val, b.base, b.at
		if !s.open(b) {
			return value{}, base
		}
	} else {
		v = s.initial(name)
	}
	fallback = base
	if v.known {
		fallback = v.s
	}
	if s.newer(anyState, idx) || name != cwdVar && s.newer(anyVar, idx) {
		return value{}, fallback
	}
	if s.changedSince(name, at) {
		return value{}, fallback
	}
	return v, fallback
}

// newer reports whether marker was bound after the binding at index idx.
func (s *state) newer(marker string, idx int) bool {
	p, ok := s.latest[marker]
	return ok && p > idx
}

// open reports whether the scope that made b is still being walked, so that b certainly
// happened before the current point.
func (s *state) open(b *binding) bool {
	return b.depth < len(s.scopes) && s.scopes[b.depth].serial == b.serial
}

func (s *state) enter(c context) {
	if len(s.ctxs) > 0 {
		c.fns += s.ctxs[len(s.ctxs)-1].fns
	}
	s.ctxs = append(s.ctxs, c)
}

func (s *state) leave() {
	if len(s.ctxs) > 0 {
		s.ctxs = s.ctxs[:len(s.ctxs)-1]
	}
}

// changedSince reports whether name may have been changed between the binding made at
// offset at and now, by a loop iterating or a function being called later than it appears.
// Only the contexts that began after the binding matter: code of an enclosing loop that
// also encloses the binding runs the binding again before coming back here.
func (s *state) changedSince(name string, at int) bool {
	if len(s.ctxs) == 0 || s.changes == nil {
		return false
	}
	k := sort.Search(len(s.ctxs), func(i int) bool { return s.ctxs[i].start > at })
	if k == len(s.ctxs) {
		return false
	}
	lo, hi := s.ctxs[k].lo, s.ctxs[k].hi
	before := 0
	if k > 0 {
		before = s.ctxs[k-1].fns
	}
	if s.ctxs[len(s.ctxs)-1].fns > before {
		// A function may be called from anywhere after its definition.
		lo, hi = 0, math.MaxInt
	}
	return s.changes.in(name, lo, hi)
}

// changes records where in a line the shell state may change: for each variable, the
// offsets of the statements that may assign it.
type changes struct {
	names map[string][]int
}

func (c *changes) add(name string, at int) {
	c.names[name] = append(c.names[name], at)
}

func (c *changes) sort() {
	for _, offs := range c.names {
		slices.Sort(offs)
	}
}

// in reports whether name may change within [lo, hi).
func (c *changes) in(name string, lo, hi int) bool {
	return inRange(c.names[name], lo, hi) || inRange(c.names[anyState], lo, hi) ||
		name != cwdVar && inRange(c.names[anyVar], lo, hi)
}

func inRange(sorted []int, lo, hi int) bool {
	i, _ := slices.BinarySearch(sorted, lo)
	return i < len(sorted) && sorted[i] < hi
}
