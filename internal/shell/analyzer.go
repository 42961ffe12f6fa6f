package shell

import (
	"math"
	"path"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// analyzer walks one parsed line with syntax.Walk, so that no construct can hide a command,
// keeping the shell state (state.go) that each command's words are expanded in.
type analyzer struct {
	line           string
	file           *syntax.File
	sh             *shared
	depth          int
	meta           []cmdMeta // parallel to cmds: what dataflow needs to know about each
	pipes          []pipeIn  // the pipelines whose right-hand side is being walked, innermost last
	substs         map[syntax.Node]span
	opts           []option           // scratch for a command's options
	pending        []call.Finding     // findings a rule body reported (knowledge.go)
	curRedirs      []*syntax.Redirect // the redirections of the command being built
	curAssigns     []*syntax.Assign   // the assignments before the command being built (X=1 cmd)
	later          []codeRef          // code a rule body found the command makes a program run (knowledge.go)
	forgetOnLeave  bool               // the command being visited makes everything unknown once walked
	keepCwdOnLeave bool               // …but the working directory: a well-known set-up script is sourced
	forgetCmd      int                // the index+1 of the command that makes everything unknown, 0 for none
	tainted        map[string]taint   // files the line writes secret data into (flow.go)
	netFDs         map[string]bool    // descriptors opened on /dev/tcp or /dev/udp (exec 3<>/dev/tcp/…)
	remotes        map[string]bool    // git remotes the line adds or points elsewhere (exfil.go)
	// varSubsts are the command substitutions whose output variables hold (K=$(cat key)),
	// so that dataflow follows what the variable carries where it is used.
	varSubsts map[string][]syntax.Node
	// loopVars are the variables for loops take their words in (for f in dist/*.zip).
	loopVars map[string]bool
	bombs    []string // functions that start themselves in the background or a pipeline
	bomb     int      // endless loops starting processes in the background being walked
	spin     int      // endless loops that never pause being walked (exhaustion.go)
	// pipeStarts maps each statement of a pipeline to the index of its first command.
	pipeStarts map[*syntax.Stmt]int
	st         state
	frames     []frame
	at         int // offset of the statement being walked
	cmds       []call.Command
	budget     int  // bytes the line's expansions may still produce
	leaves     Left // what the line leaves for later calls of the session (earlier.go)

	field   fieldBuf
	args    []arg // scratch for a command's words
	rargs   []arg // scratch for a redirection's word
	ops     []arg // scratch for a command's operands
	printer *syntax.Printer
	// patches are the patch tools whose diff may be in the line (editors.go).
	patches []patchTarget

	visitFn, forgetFn func(syntax.Node) bool // method values, made once

	// Backing arrays for the slices above, so that a typical line needs no more.
	frameBuf [16]frame
	argBuf   [16]arg
	scopeBuf [8]scope
}

// frame is a node being walked, and what entering it changed.
type frame struct {
	node    syntax.Node
	at      int  // a.at to restore when the node is left
	scopes  int  // scopes pushed for the node
	ctx     bool // a loop or function context was entered for the node
	thenEnd bool // the node is the last of an if's then-list, whose scope ends with it
	root    int  // for an &&: the index in frames of the outermost && of its chain
	start   int  // len(cmds) when the node was entered
	pipe    bool // the node is the right-hand side of a pipe, whose input was pushed
	bomb    bool // the node is an endless loop that starts processes in the background
	spin    bool // the node is an endless loop that never pauses
	forget  bool // leaving the node makes every variable and the cwd unknown
	keepCwd bool // with forget: the cwd stays (source .venv/bin/activate changes no directory)
	// forgetCmd, with forget, is the index+1 of the command (eval, source) that forgets:
	// when all it runs is set-up code (eval "$(pyenv init -)"), the cwd stays too.
	forgetCmd int
	// generic, for a for loop analysed once per value (unroll), is 1 + the index of the
	// first command of the body's own walk, in which the variable is unknown; 0 otherwise.
	// unrolledOut is what the copies print.
	generic     int
	unrolledOut taint
	loopVar     string // the loop's variable, with generic
}

func newAnalyzer(line string, cwd value, sh *shared, depth int, f *syntax.File, params map[string]string) *analyzer {
	a := analyzers.Get().(*analyzer)
	a.line, a.file, a.sh, a.depth = line, f, sh, depth
	a.budget = 16*len(line) + 1<<16
	// The analysis returned must not hold the analyzer, so commands get their own array,
	// sized once for a long line: growing it for thousands of commands costs more than
	// counting them first.
	if len(line) > 4<<10 {
		n := maxCommands(f)
		a.cmds = make([]call.Command, 0, n)
		a.meta = make([]cmdMeta, 0, n)
	}
	vars := sh.env.Vars
	if len(params) > 0 {
		vars = make(map[string]string, len(vars)+len(params))
		for k, v := range sh.env.Vars {
			vars[k] = v
		}
		for k, v := range params {
			vars[k] = v
		}
	}
	a.st = newState(absolute(sh.env.Home), cwd, vars, a.scopeBuf[:0])
	a.frames = a.frameBuf[:0]
	a.args = a.argBuf[:0]
	a.visitFn = a.visit
	a.forgetFn = a.forgetVisit
	return a
}

// analyzers keeps analyzers between lines: one is 2.7 KiB, most of it the backing arrays
// that spare a typical line any other allocation, and allocating and collecting one per
// line (and per nested line) was a tenth of a decision's time. An analyzer goes back
// zeroed, when its line is analysed; nothing of what analyze returns points into it
// (commands get their own arrays, see finish), so no line sees another's state.
var analyzers = sync.Pool{New: func() any { return new(analyzer) }}

// release zeroes the analyzer and returns it to the pool. The line's shared state forgets
// it: another level of the same line may get it next.
func (a *analyzer) release() {
	delete(a.sh.writes, a)
	*a = analyzer{}
	analyzers.Put(a)
}

// absolute returns p cleaned when it is an absolute path; anything else is not known.
func absolute(p string) value {
	if !path.IsAbs(p) {
		return value{}
	}
	return value{path.Clean(p), true}
}

func (a *analyzer) run() {
	syntax.Walk(a.file, a.visitFn)
	a.flow()
}

func (a *analyzer) visit(n syntax.Node) bool {
	if n == nil {
		a.leaveNode()
		return true
	}
	var parent syntax.Node
	if len(a.frames) > 0 {
		parent = a.frames[len(a.frames)-1].node
	}
	fr := frame{node: n, at: a.at, start: len(a.cmds)}
	switch n := n.(type) {
	case *syntax.Stmt:
		a.at = int(n.Position.Offset())
		if b, ok := parent.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			if n == b.Y {
				// What b.X wrote flows into what b.Y reads: in a | b | c, which parses as
				// (a | b) | c, only b's output reaches c.
				a.pipes = append(a.pipes, pipeIn{from: span{a.pipeOut(b.X), len(a.cmds)}, stderr: b.Op == syntax.PipeAll})
				fr.pipe = true
			}
			if a.pipeStarts == nil {
				a.pipeStarts = make(map[*syntax.Stmt]int)
			}
			a.pipeStarts[n] = len(a.cmds)
		}
		if ifc, ok := parent.(*syntax.IfClause); ok && len(ifc.Then) > 0 {
			// The then-list is one branch, apart from the condition and the else part.
			if n == ifc.Then[0] {
				a.st.push(branch)
			}
			fr.thenEnd = n == ifc.Then[len(ifc.Then)-1]
		}
		if k, chained := stmtScope(parent, n); k != 0 {
			a.st.push(k)
			if chained {
				a.frames[a.frames[len(a.frames)-1].root].scopes++
			} else {
				fr.scopes++
			}
		}
		if len(n.Redirs) > 0 && !ownsRedirects(n.Cmd) {
			// `> f` alone, or `{ …; } > f`: the shell makes the redirections itself, once.
			a.emitNull(n.Redirs, n.Cmd == nil)
		}
	case *syntax.BinaryCmd:
		fr.root = a.chainRoot(n)
	case *syntax.CallExpr:
		a.callExpr(stmtOf(parent), n)
	case *syntax.DeclClause:
		a.declClause(stmtOf(parent), n)
	case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
		a.st.push(subshell)
		fr.scopes++
	case *syntax.CoprocClause:
		nodeChanges(n, a.forget)
		a.st.push(subshell)
		fr.scopes++
	case *syntax.IfClause, *syntax.CaseItem:
		a.st.push(branch)
		fr.scopes++
	case *syntax.WhileClause:
		a.loop(&fr, n.WhilePos, n.DonePos)
		if endless(n) && backgrounds(n.Do) {
			fr.bomb = true
			a.bomb++
		} else if endless(n) && spins(n.Do) {
			fr.spin = true
			a.spin++
		}
	case *syntax.ForClause:
		if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			// for l in $(cat key): the variable takes the words the substitutions print.
			for _, w := range wi.Items {
				a.noteVarSubsts(wi.Name.Value, w, true)
			}
			if a.loopVars == nil {
				a.loopVars = map[string]bool{}
			}
			a.loopVars[wi.Name.Value] = true
		}
		if out, ok := a.unroll(n); ok {
			fr.generic, fr.unrolledOut = len(a.cmds)+1, out
			fr.loopVar = n.Loop.(*syntax.WordIter).Name.Value
		}
		a.loop(&fr, n.ForPos, n.DonePos)
		if c, ok := n.Loop.(*syntax.CStyleLoop); ok && c.Cond == nil && backgrounds(n.Do) {
			// for ((;;)); do …& done: the C-style loop without a condition never ends.
			fr.bomb = true
			a.bomb++
		} else if ok && c.Cond == nil && spins(n.Do) {
			fr.spin = true
			a.spin++
		}
	case *syntax.FuncDecl:
		if n.Name != nil {
			if forksItself(n) {
				a.bombs = append(a.bombs, n.Name.Value)
			}
			if a.sh.functions == nil {
				a.sh.functions = map[string]bool{}
			}
			a.sh.functions[n.Name.Value] = true
		}
		a.st.push(branch)
		fr.scopes++
		a.ensureChanges()
		a.st.enter(context{start: int(n.Position.Offset()), lo: 0, hi: math.MaxInt, fns: 1})
		fr.ctx = true
	case *syntax.ParamExp:
		nodeChanges(n, a.forget)
		if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps || n.Excl || n.Index != nil {
			a.evaluated(n, "${…}")
		}
	case *syntax.ArithmExp:
		nodeChanges(n, a.forget)
		a.evaluated(n, "$((…))")
	case *syntax.ArithmCmd:
		nodeChanges(n, a.forget)
		a.evaluated(n, "((…))")
	case *syntax.LetClause:
		nodeChanges(n, a.forget)
		a.evaluated(n, "let")
	case *syntax.TestClause:
		nodeChanges(n, a.forget)
		a.evaluated(n, "[[")
	default:
		nodeChanges(n, a.forget)
	}
	if a.forgetOnLeave {
		fr.forget, fr.keepCwd, fr.forgetCmd = true, a.keepCwdOnLeave, a.forgetCmd
		a.forgetOnLeave, a.keepCwdOnLeave, a.forgetCmd = false, false, 0
	}
	a.frames = append(a.frames, fr)
	return true
}

func (a *analyzer) leaveNode() {
	if len(a.frames) == 0 {
		return
	}
	fr := a.frames[len(a.frames)-1]
	a.frames = a.frames[:len(a.frames)-1]
	switch fr.node.(type) {
	case *syntax.CmdSubst, *syntax.ProcSubst:
		if a.substs == nil {
			a.substs = make(map[syntax.Node]span)
		}
		a.substs[fr.node] = span{fr.start, len(a.cmds)}
	}
	if fr.pipe {
		a.pipes = a.pipes[:len(a.pipes)-1]
	}
	if fr.bomb {
		a.bomb--
	}
	if fr.spin {
		a.spin--
	}
	if fr.generic > 0 {
		a.unrolledOpacity(fr.start, fr.generic-1, fr.loopVar)
		a.unrolledOutput(fr.generic-1, fr.unrolledOut)
	}
	if fr.forget {
		cwd := a.cwd()
		a.forget(anyState)
		if fr.forgetCmd > 0 {
			// The command's substitutions have been walked: its code is known to be set-up
			// code or not.
			m := &a.meta[fr.forgetCmd-1]
			fr.keepCwd = fr.keepCwd || m.codeFromSubst && a.setupCode(m.codeSubsts)
		}
		if fr.keepCwd && cwd.known {
			a.st.set(cwdVar, value{cwd.path, true}, cwd.path, a.at)
		}
	}
	if fr.ctx {
		a.st.leave()
	}
	for range fr.scopes {
		a.st.pop()
	}
	if fr.thenEnd {
		a.st.pop()
	}
	a.at = fr.at
}

// loop enters a while, until, for or select loop: a branch (it may run no time) and a
// context (it may run many times).
func (a *analyzer) loop(fr *frame, start, done syntax.Pos) {
	a.st.push(branch)
	fr.scopes++
	a.ensureChanges()
	lo := int(start.Offset())
	hi := int(done.Offset()) + len("done")
	a.st.enter(context{start: lo, lo: lo, hi: hi})
	fr.ctx = true
}

func (a *analyzer) ensureChanges() {
	if a.st.changes == nil {
		a.st.changes = a.scanChanges()
	}
}

// stmtScope returns the scope a statement runs in, given the node that holds it. chained
// reports a branch that lasts to the end of the && chain it is in: in `a && b && c`, c runs
// only if b did, so what b changes is certain for c, though not after the chain.
func stmtScope(parent syntax.Node, s *syntax.Stmt) (kind scopeKind, chained bool) {
	if s.Background || s.Coprocess || s.Disown {
		return subshell, false
	}
	b, ok := parent.(*syntax.BinaryCmd)
	if !ok {
		return 0, false
	}
	switch b.Op {
	case syntax.Pipe, syntax.PipeAll:
		return subshell, false
	case syntax.AndStmt:
		if s == b.Y {
			return branch, true
		}
	case syntax.OrStmt:
		// In `x || y`, y runs only if x failed, so x's changes (a `cd` that failed) may not
		// have happened; unless y ends the shell, which is the `cd dir || exit` idiom.
		if s == b.Y || !exits(b.Y) {
			return branch, false
		}
	}
	return 0, false
}

// chainRoot returns the index in a.frames of the outermost && of the chain that b, about to
// be pushed, belongs to: `a && b && c` parses as ((a && b) && c).
func (a *analyzer) chainRoot(b *syntax.BinaryCmd) int {
	self := len(a.frames)
	if b.Op != syntax.AndStmt || self < 2 {
		return self
	}
	s, ok := a.frames[self-1].node.(*syntax.Stmt)
	outer, ok2 := a.frames[self-2].node.(*syntax.BinaryCmd)
	if !ok || !ok2 || outer.Op != syntax.AndStmt || outer.X != s {
		return self
	}
	return a.frames[self-2].root
}

// exits reports whether a statement certainly ends the shell or function (exit, return).
func exits(s *syntax.Stmt) bool {
	if s == nil {
		return false
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return false
		}
		w := c.Args[0].Lit()
		return w == "exit" || w == "return"
	case *syntax.Block:
		return len(c.Stmts) > 0 && exits(c.Stmts[len(c.Stmts)-1])
	}
	return false
}

// ownsRedirects reports whether cmd reports its statement's redirections as its own.
func ownsRedirects(cmd syntax.Command) bool {
	switch cmd.(type) {
	case *syntax.CallExpr, *syntax.DeclClause:
		return true
	}
	return false
}

func stmtOf(n syntax.Node) *syntax.Stmt {
	s, _ := n.(*syntax.Stmt)
	return s
}

func (a *analyzer) emit(c call.Command, m cmdMeta) {
	if len(a.pipes) > 0 && !m.ownStdin {
		m.in = a.pipes[len(a.pipes)-1]
		m.piped = true
	}
	m.at = a.at
	a.cmds = append(a.cmds, c)
	a.meta = append(a.meta, m)
	a.sh.commands++
}

// maxCommands returns at most how many commands walking f can emit: one per simple command
// or declaration, and one per statement whose redirections no command owns.
func maxCommands(f *syntax.File) int {
	n, _ := size(f)
	return n
}

// size returns at most how many commands walking f can emit, and how many words the
// commands hold.
func size(f *syntax.File) (commands, words int) {
	n := 0
	syntax.Walk(f, func(node syntax.Node) bool {
		switch node := node.(type) {
		case *syntax.CallExpr:
			n++
			words += len(node.Args)
			return true
		case *syntax.DeclClause:
			n++
		case *syntax.Stmt:
			if len(node.Redirs) > 0 && !ownsRedirects(node.Cmd) {
				n++
			}
		}
		return true
	})
	return n, words
}

// pipeOut returns the index of the first command of the last element of the pipeline x,
// whose output is the pipeline's.
func (a *analyzer) pipeOut(x *syntax.Stmt) int {
	for {
		b, ok := x.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			break
		}
		x = b.Y
	}
	return a.pipeStarts[x]
}

// forksItself reports whether a function calls itself in the background or in a pipeline,
// the shape of a fork bomb: :(){ :|:& };:
func forksItself(fn *syntax.FuncDecl) bool {
	name := fn.Name.Value
	found := false
	var walk func(n syntax.Node, forked bool)
	walk = func(n syntax.Node, forked bool) {
		syntax.Walk(n, func(c syntax.Node) bool {
			if found || c == nil {
				return false
			}
			switch c := c.(type) {
			case *syntax.Stmt:
				if c != n && (c.Background || c.Coprocess) {
					walk(c.Cmd, true)
					return false
				}
			case *syntax.BinaryCmd:
				if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
					walk(c.X, true)
					walk(c.Y, true)
					return false
				}
			case *syntax.CallExpr:
				if forked && len(c.Args) > 0 && c.Args[0].Lit() == name {
					found = true
					return false
				}
			}
			return true
		})
	}
	walk(fn.Body, false)
	return found
}

// endless reports whether a while loop's condition is always true (true, :, [ 1 ]), or an
// until loop's always false.
func endless(w *syntax.WhileClause) bool {
	if len(w.Cond) != 1 {
		return false
	}
	ce, ok := w.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return false
	}
	if w.Until {
		// until false; do …; done
		return len(ce.Args) == 1 && ce.Args[0].Lit() == "false"
	}
	switch ce.Args[0].Lit() {
	case "true", ":":
		return len(ce.Args) == 1
	case "[", "test":
		return len(ce.Args) >= 2 && ce.Args[1].Lit() == "1"
	}
	return false
}

// backgrounds reports whether any statement of a list runs in the background, itself or
// inside a subshell or a block of it: (sleep 1000 &) leaves the process running as surely.
func backgrounds(stmts []*syntax.Stmt) bool {
	for _, s := range stmts {
		if s.Background {
			return true
		}
		switch c := s.Cmd.(type) {
		case *syntax.Subshell:
			if backgrounds(c.Stmts) {
				return true
			}
		case *syntax.Block:
			if backgrounds(c.Stmts) {
				return true
			}
		}
	}
	return false
}
