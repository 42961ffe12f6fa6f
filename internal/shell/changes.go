package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// This file finds where a line changes the shell state that later words are expanded in:
// the main walk uses it to forget what it can no longer know, and scanChanges to record,
// before a loop or function body is walked, where each variable may change (state.go).

// set binds name where the walk is.
func (a *analyzer) set(name string, v value) {
	a.st.set(name, v, "", a.at)
}

// forget makes name unknown from here on.
func (a *analyzer) forget(name string) {
	a.set(name, value{})
}

// forgetAhead forgets the variables that a command's own words assign (${x:=v}, $((x=1))),
// before any of its words is expanded: the walk reaches those parts only afterwards, and a
// later word may read the variable (`echo ${x:=rm} $x`).
func (a *analyzer) forgetAhead(assigns []*syntax.Assign, words []*syntax.Word, redirs []*syntax.Redirect) {
	for _, as := range assigns {
		if as.Value != nil && !quiet(as.Value) || as.Index != nil || as.Array != nil {
			syntax.Walk(as, a.forgetFn)
		}
	}
	for _, w := range words {
		if !quiet(w) {
			syntax.Walk(w, a.forgetFn)
		}
	}
	for _, r := range redirs {
		if r.Word != nil && !quiet(r.Word) {
			syntax.Walk(r.Word, a.forgetFn)
		}
	}
}

// quiet reports whether expanding w cannot change any variable.
func quiet(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

func (a *analyzer) forgetVisit(n syntax.Node) bool {
	switch n.(type) {
	case nil:
		return true
	case *syntax.CmdSubst, *syntax.ProcSubst:
		return false // they run in a subshell: their assignments stay there
	}
	nodeChanges(n, a.forget)
	return true
}

// nodeChanges reports the variables that evaluating node n assigns, apart from commands
// (callExpr, declClause): ${x:=v}, arithmetic assignments, {fd}> redirections, loop and
// coprocess names.
func nodeChanges(n syntax.Node, fn func(string)) {
	switch n := n.(type) {
	case *syntax.ParamExp:
		if n.Exp != nil && (n.Exp.Op == syntax.AssignUnset || n.Exp.Op == syntax.AssignUnsetOrNull) {
			if n.Param != nil && !n.Excl && n.NestedParam == nil {
				fn(n.Param.Value)
			} else {
				fn(anyVar)
			}
		}
	case *syntax.BinaryArithm:
		if arithAssign(n.Op) {
			arithTarget(n.X, fn)
		}
	case *syntax.UnaryArithm:
		if n.Op == syntax.Inc || n.Op == syntax.Dec {
			arithTarget(n.X, fn)
		}
	case *syntax.Redirect:
		if n.N != nil && strings.HasPrefix(n.N.Value, "{") {
			fn(strings.Trim(n.N.Value, "{}"))
		}
	case *syntax.WordIter:
		if n.Name != nil {
			fn(n.Name.Value)
		}
	case *syntax.CoprocClause:
		switch {
		case n.Name == nil:
			fn("COPROC")
		case n.Name.Lit() != "":
			fn(n.Name.Lit())
		default:
			fn(anyVar)
		}
	}
}

func arithAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn,
		syntax.RemAssgn, syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn,
		syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// arithTarget reports the variable an arithmetic assignment writes (x, or a in a[i]).
func arithTarget(x syntax.ArithmExpr, fn func(string)) {
	if w, ok := x.(*syntax.Word); ok && len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if n := varName(p.Value); n != "" {
				fn(n)
				return
			}
		case *syntax.ParamExp:
			if p.Param != nil {
				fn(p.Param.Value)
				return
			}
		}
	}
	fn(anyVar)
}

// varName returns the shell name at the start of s ("x" for "x+=1"), or "".
func varName(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			i++
			continue
		}
		break
	}
	return s[:i]
}

// stateChanges reports the variables that the program name, run with args, assigns: anyState
// for an evaluator (eval, source), the named ones for read, unset, printf -v...
func stateChanges(name string, args []arg, fn func(string)) {
	if evaluators[name] {
		fn(anyState)
		return
	}
	opt, ok := varSetters()[name]
	if !ok {
		return
	}
	if opt == "" {
		for _, x := range args {
			if x.dynamic {
				fn(anyVar)
				return
			}
			if n := varName(x.lit); n != "" {
				fn(n)
			}
		}
		return
	}
	for i, x := range args {
		switch {
		case x.dynamic:
			if i == 0 {
				fn(anyVar) // it may be the option; later ones are the format and data
			}
		case x.lit == "-"+opt:
			if i+1 < len(args) {
				if y := args[i+1]; y.dynamic {
					fn(anyVar)
				} else if n := varName(y.lit); n != "" {
					fn(n)
				}
			}
		case strings.HasPrefix(x.lit, "-"+opt):
			if n := varName(x.lit[len(opt)+1:]); n != "" {
				fn(n)
			}
		}
	}
}

// declChanges reports the variables a declaration (export, local, declare...) assigns.
func declChanges(d *syntax.DeclClause, fn func(string)) {
	for _, as := range d.Args {
		switch {
		case as.Name != nil:
			fn(as.Name.Value)
		case as.Value != nil:
			if s := as.Value.Lit(); s == "" || nameref(s) {
				fn(anyVar)
			}
		}
	}
}

// nameref reports whether s is a declaration option that makes a name reference, through
// which a later assignment may write any variable.
func nameref(s string) bool {
	return (strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")) && strings.Contains(s, "n")
}

// scanChanges walks the whole line once, before a loop or function is entered, to record
// where each variable may change (see state.go). It must report at least every change the
// main walk makes; it may report more.
func (a *analyzer) scanChanges() *changes {
	c := &changes{names: make(map[string][]int)}
	at := 0
	var ats []int
	var args []arg
	add := func(name string) { c.add(name, at) }
	syntax.Walk(a.file, func(n syntax.Node) bool {
		if n == nil {
			if len(ats) > 0 {
				at = ats[len(ats)-1]
				ats = ats[:len(ats)-1]
			}
			return true
		}
		ats = append(ats, at)
		switch n := n.(type) {
		case *syntax.Stmt:
			at = int(n.Position.Offset())
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, as := range n.Assigns {
					if as.Name != nil {
						add(as.Name.Value)
					}
				}
				break
			}
			args = args[:0]
			for _, w := range n.Args {
				args = a.expand(args, w, false)
			}
			if len(args) == 0 {
				add(anyState)
				break
			}
			i, u := unwrap(args, a.sh.env.Wrappers)
			p := args[i]
			if p.dynamic || p.glob || u.dynamic {
				add(anyState)
				break
			}
			name := baseName(p.lit)
			stateChanges(name, args[i+1:], add)
			if dirChangers[name] {
				add(cwdVar)
			}
		case *syntax.DeclClause:
			declChanges(n, add)
		default:
			nodeChanges(n, add)
		}
		return true
	})
	c.sort()
	return c
}
