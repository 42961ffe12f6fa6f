package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
	"mvdan.cc/sh/v3/syntax"
)

// This file resolves the globs of a line that runs now to the entries they name on disk
// (call.Access.Matches), so that `rm -f build.*` or `tar cf ../out.tar *` is judged by the
// files that are there rather than by every name the pattern could match (a
// build.moat-key, an id_rsa). A glob is resolved only where what the disk shows now is
// what the shell will expand: the command is the line's own (not code a file, a hook or
// a schedule runs later, nor code handed to another program), nothing that runs before it
// or beside it can make an entry in the glob's directory (every such command is one whose
// file effects moat models, and none of them writes there), and the line does not change
// how the shell globs (shopt, set -f, GLOBIGNORE).

// maxGlobMatches bounds the entries one glob is judged by: each is matched against the
// policy's path patterns, on the hook's path. A glob naming more is judged by its pattern.
const maxGlobMatches = 256

// resolveGlobs sets the Matches of the globs of the line's own commands, where Env.Entries
// is set and the entries cannot change before the shell expands them.
func (a *analyzer) resolveGlobs() {
	if a.sh.env.Entries == nil || a.depth != 0 || !a.hasOwnGlob() || a.changesGlobbing() {
		return
	}
	seq, ok := sequence(a.file)
	if !ok {
		return
	}
	for i := range a.cmds {
		c := &a.cmds[i]
		if !a.ownGlobs(i) {
			continue
		}
		for j := range c.Accesses {
			acc := &c.Accesses[j]
			if !acc.Glob || acc.Hidden {
				continue // find's patterns name paths at any depth, dot names included
			}
			dir, pat, ok := lastSegmentGlob(acc.Path)
			if !ok || !a.entriesSettled(i, dir, seq) {
				continue
			}
			matches, listed := a.globEntries(dir, pat)
			if listed && len(matches) == 0 {
				// Matching nothing, the pattern is passed on as a file name, which names
				// no file (it would match itself): nothing, unless the program expands
				// patterns itself or may be one that does.
				eff, known := programEffects()[a.meta[i].prog]
				if !acc.Redirect && (!known || eff.ownGlobs) {
					continue
				}
				matches = []string{}
			}
			acc.Matches = matches
		}
	}
}

// ownGlobs reports whether command i is one of the line's own whose globs may be
// resolved: not code another program runs, and run here, in a directory moat knows.
func (a *analyzer) ownGlobs(i int) bool {
	c := &a.cmds[i]
	return !a.meta[i].nested && !c.Opaque && !c.Dynamic && !c.Elsewhere
}

// hasOwnGlob reports whether a command of the line's own has a glob to resolve, so that
// a line without one costs nothing more.
func (a *analyzer) hasOwnGlob() bool {
	for i := range a.cmds {
		if a.ownGlobs(i) && slices.ContainsFunc(a.cmds[i].Accesses, func(acc call.Access) bool { return acc.Glob && !acc.Hidden }) {
			return true
		}
	}
	return false
}

// changesGlobbing reports whether the line may change how the shell expands globs:
// dotglob, nullglob, nocaseglob, globstar, extglob (shopt), noglob (set -f), zsh's
// options, or GLOBIGNORE, which also makes * match names starting with a dot.
func (a *analyzer) changesGlobbing() bool {
	if strings.Contains(a.line, "GLOBIGNORE") {
		return true
	}
	for i := range a.cmds {
		c := &a.cmds[i]
		switch a.meta[i].prog {
		case "shopt", "setopt", "unsetopt", "noglob":
			return true
		case "set":
			if c.HasFlag("f") || c.HasFlag("o") && !onlyOptions(c.Operands, "pipefail", "errexit", "nounset", "xtrace") {
				return true
			}
		}
	}
	return false
}

func onlyOptions(ops []string, allowed ...string) bool {
	for _, o := range ops {
		ok := false
		for _, x := range allowed {
			ok = ok || o == x
		}
		if !ok {
			return false
		}
	}
	return true
}

// step is one part of the line that runs after the one before it has ended: a statement
// of the line, or a side of && or ||. A part run in the background does not end first.
type step struct {
	start, end int
	background bool
}

// sequence returns the steps of the line, in order. It fails for a line that defines a
// function, whose body (analysed where it is defined) runs where it is called.
func sequence(f *syntax.File) ([]step, bool) {
	ok := true
	syntax.Walk(f, func(n syntax.Node) bool {
		if _, fn := n.(*syntax.FuncDecl); fn {
			ok = false
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	var steps []step
	var split func(s *syntax.Stmt)
	split = func(s *syntax.Stmt) {
		if b, isBin := s.Cmd.(*syntax.BinaryCmd); isBin && !s.Background && !s.Coprocess && len(s.Redirs) == 0 &&
			(b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) {
			split(b.X)
			split(b.Y)
			return
		}
		steps = append(steps, step{start: int(s.Pos().Offset()), end: int(s.End().Offset()), background: s.Background || s.Coprocess})
	}
	for _, s := range f.Stmts {
		split(s)
	}
	return steps, true
}

// stepOf returns the index of the step holding offset at, or -1.
func stepOf(seq []step, at int) int {
	for k, s := range seq {
		if at >= s.start && at < s.end {
			return k
		}
	}
	return -1
}

// runsAfter reports whether a command of step k starts only once step i has ended, and
// so once the globs of i's commands are expanded.
func runsAfter(seq []step, k, i int) bool {
	if i < 0 || k <= i {
		return false
	}
	for j := i; j < k; j++ {
		if seq[j].background {
			return false
		}
	}
	return true
}

// entriesSettled reports whether the entries of dir cannot change before command at's
// globs expand: every command that may run before or beside it (its own step's, its
// pipeline's, the steps before it) is one whose file effects moat models, none of them
// writes into dir or over it, and the command's own writes do not either when its step
// repeats (a loop).
func (a *analyzer) entriesSettled(at int, dir string, seq []step) bool {
	mine := stepOf(seq, a.meta[at].at)
	if mine < 0 {
		return false
	}
	repeats := loops(a.file, seq[mine])
	for k := range a.cmds {
		if runsAfter(seq, stepOf(seq, a.meta[k].at), mine) {
			continue
		}
		c := &a.cmds[k]
		if k != at || repeats {
			for _, acc := range c.Accesses {
				if acc.Kind == call.Write && writesInto(acc, dir) {
					return false
				}
			}
		}
		if k == at {
			continue
		}
		if c.Opaque || c.Dynamic || !has(programEffects(), a.meta[k].prog) {
			return false // a program that may make files moat does not see
		}
	}
	return true
}

// loops reports whether the step holds a loop, whose body runs more than once.
func loops(f *syntax.File, s step) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if found || n == nil {
			return false
		}
		if int(n.End().Offset()) <= s.start || int(n.Pos().Offset()) >= s.end {
			return false // outside the step
		}
		switch n.(type) {
		case *syntax.WhileClause, *syntax.ForClause:
			found = true
		}
		return !found
	})
	return found
}

// writesInto reports whether a write may make or replace an entry of dir: it writes a
// path in dir, or dir itself or a directory above it (mv x DIR, cp -r SRC/. DIR, a
// redirection whose target is unknown).
func writesInto(acc call.Access, dir string) bool {
	p := acc.Path
	if acc.Glob {
		p = path.Dir(glob.LiteralPrefix(p) + "x")
	}
	return under(p, dir) || under(dir, p)
}

// lastSegmentGlob splits an absolute glob whose only pattern is its last segment into the
// directory and that segment as path.Match reads it. Others (src/*/test, a class such as
// [[:alpha:]], a pattern that matches . or .., as .* does in some shells) stay judged by
// their pattern.
func lastSegmentGlob(p string) (dir, pat string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "", "", false // the root's entries: judged as the whole system, as before
	}
	dir, pat = p[:i], p[i+1:]
	if glob.HasMeta(dir) || strings.ContainsRune(dir, '\\') || pat == "" ||
		strings.Contains(pat, "[:") || strings.Contains(pat, "[=") || strings.Contains(pat, "[.") {
		return "", "", false
	}
	pat = strings.ReplaceAll(pat, "[!", "[^")
	if _, err := path.Match(pat, ""); err != nil {
		return "", "", false
	}
	if pat[0] == '.' {
		// Only a pattern spelling the leading dot matches a dot name, and only one that
		// cannot match . or .. is resolved.
		dot, _ := path.Match(pat, ".")
		dots, _ := path.Match(pat, "..")
		if dot || dots {
			return "", "", false
		}
	}
	return dir, pat, true
}

// globEntries returns the paths of dir's entries that pat matches, as the shell expands
// it (a name starting with a dot only for a pattern starting with one), and whether they
// are known: not when the directory cannot be listed or more than maxGlobMatches match.
func (a *analyzer) globEntries(dir, pat string) ([]string, bool) {
	names, ok := a.sh.env.Entries(dir)
	if !ok {
		return nil, false
	}
	var out []string
	for _, n := range names {
		if n == "" || n[0] == '.' && pat[0] != '.' {
			continue
		}
		if m, _ := path.Match(pat, n); m {
			if len(out) == maxGlobMatches {
				return nil, false
			}
			out = append(out, dir+"/"+n)
		}
	}
	return out, true
}
