package engine

import (
	"fmt"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
)

// sensitive matches the paths of one named set: $secrets tells shell analysis which
// accesses touch files that hold credentials, so that dataflow can tell a secret piped
// into curl from any other data; $agent-instructions tells which writes are read for
// prompt injection.
type sensitive struct {
	include, exclude []*glob.Path
}

func newSensitive(set string, h pathset.Host) (*sensitive, error) {
	r, err := pathset.Resolve(set, h)
	if err != nil {
		return nil, err
	}
	s := &sensitive{}
	for _, p := range r.Include {
		g, err := glob.CompilePath(p, glob.Options{})
		if err != nil {
			return nil, fmt.Errorf("compiling %s pattern %q: %w", set, p, err)
		}
		s.include = append(s.include, g)
	}
	for _, p := range r.Exclude {
		g, err := glob.CompilePath(p, glob.Options{})
		if err != nil {
			return nil, fmt.Errorf("compiling %s pattern %q: %w", set, p, err)
		}
		s.exclude = append(s.exclude, g)
	}
	return s, nil
}

// touches reports whether the access may reach a secret file: the path itself, or for a
// recursive access or a glob, anything below it.
func (s *sensitive) touches(acc call.Access) bool {
	p, tree := acc.Path, acc.Recursive
	if acc.Glob {
		p, tree = glob.LiteralPrefix(acc.Path), true
	}
	for _, g := range s.exclude {
		if g.Match(p) {
			return false
		}
	}
	for _, g := range s.include {
		if g.Match(p) || tree && g.TouchesTree(p) {
			return true
		}
	}
	return false
}
