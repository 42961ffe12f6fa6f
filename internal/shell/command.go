package shell

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// dir is a working directory: known, or else the best guess to resolve relative paths
// against (the directory before an unknown `cd`), which makes the command opaque.
type dir struct {
	path  string // "" when there is no guess at all
	known bool
}

func (a *analyzer) cwd() dir {
	v, fallback := a.st.get(cwdVar)
	if v.known {
		return dir{v.s, true}
	}
	return dir{fallback, false}
}

func (a *analyzer) callExpr(st *syntax.Stmt, ce *syntax.CallExpr) {
	var redirs []*syntax.Redirect
	if st != nil {
		redirs = st.Redirs
	}
	a.forgetAhead(ce.Assigns, ce.Args, redirs)
	args := slices.Grow(a.args[:0], len(ce.Args))
	for _, w := range ce.Args {
		args = a.expand(args, w, true)
	}
	if len(args) == 0 {
		// No words, or only words that expand to nothing: the assignments are the shell's
		// own, and the redirections are still made.
		a.assign(ce.Assigns)
		if len(redirs) > 0 {
			a.emit(a.nullCommand(redirs))
		}
	} else {
		a.emit(a.command(args, redirs))
	}
	a.args = args[:0]
}

// assign performs assignments to the shell's variables, left to right.
func (a *analyzer) assign(as []*syntax.Assign) {
	for _, x := range as {
		if x.Name == nil {
			continue
		}
		name := x.Name.Value
		if x.Array != nil || x.Index != nil {
			a.forget(name) // arrays are not tracked
			continue
		}
		v, ok := a.assignValue(x.Value)
		if x.Append {
			cur, _ := a.st.get(name)
			v, ok = cur.s+v, ok && cur.known
		}
		a.set(name, value{v, ok})
	}
}

// command builds the command that the expanded words args run, unwrapping wrappers.
func (a *analyzer) command(args []arg, redirs []*syntax.Redirect) call.Command {
	cwd := a.cwd()
	i, u := unwrap(args)
	for _, d := range u.chdirs {
		cwd = a.chdir(d, cwd)
	}
	prog, rest := args[i], args[i+1:]
	var cmd call.Command
	dynamic := prog.dynamic || prog.glob || u.dynamic
	opaque := false
	if dynamic {
		cmd.Dynamic = true
		switch {
		case u.dynamic:
			cmd.Name = u.split.lit // env -S's string
		case prog.glob && prog.word != nil:
			cmd.Name = a.source(prog.word)
		default:
			cmd.Name = prog.lit // a dynamic word's source text
		}
		cmd.Findings = append(cmd.Findings, call.NewFinding(findDynamicCommand, cmd.Name))
	} else {
		cmd.Name = baseName(prog.lit)
		if strings.Contains(prog.lit, "/") {
			cmd.Path = prog.lit
			opaque = a.addAccess(&cmd.Accesses, call.Exec, prog, false, cwd)
		}
	}
	ops := a.finish(&cmd, rest, redirs, cwd, dynamic)
	cmd.Opaque = cmd.Opaque || opaque
	if dynamic {
		// The program may be eval, cd or read: after it, nothing is known.
		a.forget(anyState)
	} else {
		stateChanges(cmd.Name, rest, a.forget)
		if dirChangers[cmd.Name] {
			a.changeDir(cmd.Name, ops)
		}
		if cmd.Name == "rm" && cmd.HasFlag("r") {
			cmd.Findings = append(cmd.Findings, call.NewFinding(findRecursiveDelete, strings.Join(cmd.Operands, " ")))
		}
	}
	return cmd
}

// finish fills in what every command has: arguments, flags, operands, the accesses of its
// operands and redirections, and whether it is opaque. It returns the operands.
func (a *analyzer) finish(cmd *call.Command, rest []arg, redirs []*syntax.Redirect, cwd dir, dynamic bool) []arg {
	aliasesFor := cmd.Name
	if dynamic {
		aliasesFor = ""
	}
	// One array holds the arguments, the operands and the flags.
	strs := make([]string, len(rest), 2*len(rest)+flagBound(rest))
	for i, x := range rest {
		strs[i] = x.lit
	}
	cmd.Args = strs[:len(rest):len(rest)]
	flags, ops := parseOptions(aliasesFor, rest, strs[len(rest):len(rest)], slices.Grow(a.ops[:0], len(rest)))
	a.ops = ops[:0]
	cmd.Operands = flags[len(flags):len(flags)]
	for _, x := range ops {
		cmd.Operands = append(cmd.Operands, x.lit)
	}
	cmd.Flags = flags[:len(flags):len(flags)]
	if len(cmd.Args) == 0 {
		cmd.Args = nil
	}
	if len(cmd.Flags) == 0 {
		cmd.Flags = nil
	}
	if len(cmd.Operands) == 0 {
		cmd.Operands = nil
	}
	eff, known := programEffects[cmd.Name]
	opaque := dynamic || !known
	if known && !dynamic {
		opaque = a.fileAccesses(cmd, eff, ops, cwd)
	}
	a.redirects(&cmd.Accesses, redirs, cwd)
	cmd.Opaque = opaque
	return ops
}

// nullCommand is a statement that runs no program but makes redirections: `> f`, or the
// redirections of a compound command (`{ …; } > f`), which the shell opens once for it.
func (a *analyzer) nullCommand(redirs []*syntax.Redirect) call.Command {
	cmd := call.Command{Name: ":"}
	a.redirects(&cmd.Accesses, redirs, a.cwd())
	return cmd
}

// declClause is export, declare, local, readonly, typeset or nameref: a command, and
// assignments to the shell's variables.
func (a *analyzer) declClause(st *syntax.Stmt, d *syntax.DeclClause) {
	var redirs []*syntax.Redirect
	if st != nil {
		redirs = st.Redirs
	}
	a.forgetAhead(d.Args, nil, redirs)
	variant := ""
	if d.Variant != nil {
		variant = d.Variant.Value
	}
	// Options (-x, -i, -u...) change what a value becomes; a dynamic word may be any
	// option or assignment.
	options, anything := false, false
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			s := as.Value.Lit()
			options = options || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")
			anything = anything || s == "" || nameref(s)
		}
	}
	args := a.args[:0]
	for _, as := range d.Args {
		switch {
		case as.Name == nil:
			if as.Value != nil {
				args = a.expand(args, as.Value, true)
			}
		case as.Naked:
			args = append(args, arg{lit: as.Name.Value})
			if variant != "export" && variant != "readonly" {
				a.forget(as.Name.Value) // declared but unset, or kept: not known either way
			}
		default:
			name := as.Name.Value
			v, ok := "", false
			if as.Array == nil && as.Index == nil {
				v, ok = a.assignValue(as.Value)
			}
			if ok {
				op := "="
				if as.Append {
					op = "+="
				}
				args = append(args, arg{lit: name + op + v})
			} else {
				args = append(args, arg{lit: a.source(as), dynamic: true})
			}
			if as.Append {
				cur, _ := a.st.get(name)
				v, ok = cur.s+v, ok && cur.known
			}
			a.set(name, value{v, ok && !options})
		}
	}
	if anything {
		a.forget(anyVar)
	}
	cmd := call.Command{Name: variant}
	a.finish(&cmd, args, redirs, a.cwd(), false)
	a.emit(cmd)
	a.args = args[:0]
}

// unwrapped is what unwrapping found besides the program.
type unwrapped struct {
	chdirs  []arg // directories the wrappers change to, in order
	dynamic bool  // the program is in a string the wrapper splits (env -S)
	split   arg   // that string
}

// unwrap returns the index of the program that args run, past any wrappers.
func unwrap(args []arg) (int, unwrapped) {
	var u unwrapped
	i := 0
	for i < len(args) {
		p := args[i]
		if p.dynamic || p.glob {
			return i, u
		}
		w, ok := wrappers[baseName(p.lit)]
		if !ok {
			return i, u
		}
		j, r := w.skip(args, i+1)
		if r.stop || j >= len(args) {
			return i, u // it runs no program: the wrapper is the command
		}
		u.chdirs = append(u.chdirs, r.chdirs...)
		if r.dynamic {
			u.dynamic, u.split = true, r.split
			return j, u
		}
		i = j
	}
	return i, u
}

type skipped struct {
	stop    bool
	dynamic bool
	split   arg // when dynamic, the string the wrapper splits into a command
	chdirs  []arg
}

// skip passes over the wrapper's options, NAME=value words and leading operands, starting
// at args[i], and returns the index of the program (when dynamic, of the word holding the
// string the wrapper splits).
func (w wrapper) skip(args []arg, i int) (int, skipped) {
	var r skipped
	ended := false
	operands := w.operands
	for i < len(args) {
		x := args[i]
		if x.dynamic || x.glob {
			return i, r
		}
		s := x.lit
		switch {
		case !ended && s == "--":
			ended = true
			i++
		case !ended && s == "-":
			i++ // env's old spelling of -i
		case !ended && strings.HasPrefix(s, "--"):
			name, val, hasValue := strings.Cut(s[2:], "=")
			at := i
			i++
			if slices.Contains(w.stopLong, name) {
				r.stop = true
				return i, r
			}
			dyn := slices.Contains(w.dynamicLong, name)
			v := arg{lit: val}
			if !hasValue && (dyn || slices.Contains(w.valueLong, name)) {
				if i >= len(args) {
					return i, r
				}
				at, v = i, args[i]
				i++
			}
			if dyn {
				r.dynamic, r.split = true, v
				return at, r
			}
			if name == w.chdirLong && w.chdirLong != "" {
				r.chdirs = append(r.chdirs, v)
			}
		case !ended && len(s) > 1 && s[0] == '-':
			at := i
			i++
			for j := 1; j < len(s); j++ {
				c := s[j]
				if strings.IndexByte(w.stopShort, c) >= 0 {
					r.stop = true
					return i, r
				}
				dyn := strings.IndexByte(w.dynamicShort, c) >= 0
				if !dyn && strings.IndexByte(w.valueShort, c) < 0 {
					continue
				}
				v := arg{lit: s[j+1:]} // the value is the rest of the word, or the next word
				if j+1 == len(s) {
					if i >= len(args) {
						return i, r
					}
					at, v = i, args[i]
					i++
				}
				if dyn {
					r.dynamic, r.split = true, v
					return at, r
				}
				if strings.IndexByte(w.chdirShort, c) >= 0 {
					r.chdirs = append(r.chdirs, v)
				}
				break
			}
		case w.assigns && isAssignment(s):
			i++
		case operands > 0:
			operands--
			i++
		default:
			return i, r
		}
	}
	return i, r
}

func isAssignment(s string) bool {
	n := varName(s)
	return n != "" && len(s) > len(n) && s[len(n)] == '='
}

// chdir returns the directory a wrapper's option (sudo -D, env -C) runs the program in.
func (a *analyzer) chdir(d arg, cwd dir) dir {
	if d.dynamic || d.glob {
		return dir{cwd.path, false}
	}
	p, ok, opaque := a.resolve(d.lit, cwd)
	if !ok {
		return dir{cwd.path, false}
	}
	return dir{p, !opaque}
}

// changeDir records the working directory after cd, pushd or popd with operands ops.
func (a *analyzer) changeDir(name string, ops []arg) {
	cur := a.cwd()
	next := dir{cur.path, false}
	switch {
	case name == "popd":
	case len(ops) == 0:
		if name == "cd" {
			if home, _ := a.st.get("HOME"); home.known && path.IsAbs(home.s) {
				next = dir{path.Clean(home.s), true}
			}
		}
	default:
		o := ops[0]
		stack := name == "pushd" && (strings.HasPrefix(o.lit, "+") || strings.HasPrefix(o.lit, "-"))
		if !o.dynamic && !o.glob && o.lit != "-" && !stack {
			// CDPATH is not consulted: it comes from the environment, which is not known.
			if p, ok, opaque := a.resolve(o.lit, cur); ok {
				next = dir{p, !opaque}
			}
		}
	}
	a.st.set(cwdVar, value{next.path, next.known}, cur.path, a.at)
}

// parseOptions splits arguments into canonical flag names, appended to flags, and operands,
// appended to ops, without knowing which options take a value: "-rf" gives r and f,
// "--force=yes" gives force, "--" ends the options, and a lone "-" or a dynamic word is an
// operand.
func parseOptions(name string, args []arg, flags []string, ops []arg) ([]string, []arg) {
	aliases := flagAliases[name]
	ended := false
	for _, x := range args {
		s := x.lit
		if ended || x.dynamic || x.glob || len(s) < 2 || s[0] != '-' {
			ops = append(ops, x)
			continue
		}
		if s == "--" {
			ended = true
			continue
		}
		if s[1] == '-' {
			n, _, _ := strings.Cut(s[2:], "=")
			flags = addFlag(flags, aliases, n)
			continue
		}
		for j := 1; j < len(s); {
			_, size := utf8.DecodeRuneInString(s[j:])
			flags = addFlag(flags, aliases, s[j:j+size])
			j += size
		}
	}
	return flags, ops
}

// flagBound is at most how many flags parseOptions finds in args, aliases included.
func flagBound(args []arg) int {
	n := 0
	for _, x := range args {
		if !x.dynamic && len(x.lit) > 1 && x.lit[0] == '-' {
			n += 2 * len(x.lit)
		}
	}
	return n
}

func addFlag(flags []string, aliases map[string]string, f string) []string {
	if !slices.Contains(flags, f) {
		flags = append(flags, f)
	}
	if alias, ok := aliases[f]; ok && !slices.Contains(flags, alias) {
		flags = append(flags, alias)
	}
	return flags
}

// fileAccesses adds the accesses a known program makes to its operands, reporting whether
// some could not be resolved.
func (a *analyzer) fileAccesses(cmd *call.Command, eff fileEffects, ops []arg, cwd dir) bool {
	rec := eff.recursive != "" && cmd.HasFlag(eff.recursive)
	opaque, selected := false, false
	for _, r := range eff.rules {
		if r.operands == linkName && len(ops) == 1 {
			// `ln -s target` links target's base name in the cwd.
			selected = true
			if o := ops[0]; o.dynamic || o.glob {
				opaque = true
			} else {
				opaque = a.addAccess(&cmd.Accesses, r.kind, arg{lit: baseName(strings.TrimRight(o.lit, "/"))}, rec, cwd) || opaque
			}
			continue
		}
		lo, hi := r.operands.span(len(ops))
		for _, o := range ops[lo:hi] {
			selected = true
			opaque = a.addAccess(&cmd.Accesses, r.kind, o, rec, cwd) || opaque
		}
	}
	if !selected && (eff.noOperand == cwdAlways || eff.noOperand == cwdIfRecursive && rec) {
		opaque = a.addAccess(&cmd.Accesses, eff.noOperandKind, arg{lit: "."}, rec, cwd) || opaque
	}
	return opaque
}

// span returns the operands the set selects among n, as a range.
func (s operandSet) span(n int) (int, int) {
	switch s {
	case allOperands:
		return 0, n
	case firstOperand:
		return 0, min(1, n)
	case secondOperand:
		if n >= 2 {
			return 1, 2
		}
	case afterFirst:
		return min(1, n), n
	case lastOperand, linkName:
		if n >= 2 {
			return n - 1, n
		}
	case beforeLast:
		if n >= 2 {
			return 0, n - 1
		}
	}
	return 0, 0
}

// redirects adds the accesses of redirections, marked as such: the engine decides each as a
// unit of its own. A target that cannot be known (dynamic, or relative to a working
// directory that is only a guess) is judged as an access anywhere: the whole tree at /.
func (a *analyzer) redirects(dst *[]call.Access, redirs []*syntax.Redirect, cwd dir) {
	for _, r := range redirs {
		read, write := false, false
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
			syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
			write = true
		case syntax.RdrIn:
			read = true
		case syntax.RdrInOut:
			read, write = true, true
		case syntax.DplOut, syntax.DplIn:
			// >&2 and <&- duplicate or close descriptors; >&file is &>file.
			if r.Word == nil || isDescriptor(r.Word.Lit()) {
				continue
			}
			read, write = r.Op == syntax.DplIn, r.Op == syntax.DplOut
		default:
			continue // here-documents and here-strings name no file
		}
		if r.Word == nil {
			continue
		}
		fields := a.expand(a.rargs[:0], r.Word, true)
		a.rargs = fields[:0]
		first := len(*dst)
		// bash refuses a target of several words; a dynamic one is unknown.
		unknown := len(fields) != 1 || fields[0].dynamic
		for _, k := range []struct {
			on   bool
			kind call.AccessKind
		}{{read, call.Read}, {write, call.Write}} {
			if !k.on {
				continue
			}
			if unknown || a.addAccess(dst, k.kind, fields[0], false, cwd) {
				*dst = append(*dst, call.Access{Kind: k.kind, Path: "/", Recursive: true})
			}
		}
		for i := first; i < len(*dst); i++ {
			(*dst)[i].Redirect = true
		}
	}
}

// isDescriptor reports whether a duplication's word names a descriptor: 2, 2- (move) or -.
func isDescriptor(s string) bool {
	s = strings.TrimSuffix(s, "-")
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// addAccess adds an access of kind to the path o names, reporting whether it could not be
// resolved exactly (a dynamic word, or a relative path with the cwd unknown).
func (a *analyzer) addAccess(dst *[]call.Access, kind call.AccessKind, o arg, rec bool, cwd dir) bool {
	if o.dynamic {
		return true
	}
	p := o.lit
	if o.glob {
		p = o.pat
	}
	if p == "-" && kind != call.Delete {
		return false // standard input or output
	}
	abs, ok, opaque := a.resolve(p, cwd)
	if !ok || kind != call.Delete && isStream(abs) {
		return opaque
	}
	*dst = append(*dst, call.Access{Kind: kind, Path: abs, Recursive: rec, Glob: o.glob})
	return opaque
}

// resolve makes p absolute and clean against the cwd. opaque reports that the cwd was only
// a guess, or that the line has produced too much text to resolve more; ok is false when
// there is no path (empty) or no guess at all.
func (a *analyzer) resolve(p string, cwd dir) (abs string, ok, opaque bool) {
	if p == "" {
		return "", false, false
	}
	if p[0] == '/' {
		return path.Clean(p), true, false
	}
	if cwd.path == "" || !a.spend(len(cwd.path)+1+len(p)) {
		return "", false, true
	}
	return path.Clean(cwd.path + "/" + p), true, !cwd.known
}

// isStream reports whether p names a stream rather than a file: /dev/null, /dev/fd/N...
func isStream(p string) bool {
	if notPaths[p] {
		return true
	}
	fd, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && fd != "" && isDescriptor(fd) && !strings.HasSuffix(fd, "-")
}

// baseName is the program's name as rules match it: the part after the last slash.
func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}
