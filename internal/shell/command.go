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
		if len(args) > maxAnalysedWords {
			// Brace expansion can make a short line huge; the rest is unknown.
			args = append(args, arg{lit: a.source(w), dynamic: true, word: w})
			break
		}
		args = a.expand(args, w, true)
	}
	if len(args) == 0 {
		// No words, or only words that expand to nothing: the assignments are the shell's
		// own, and the redirections are still made.
		env := a.prefixAssigns(ce.Assigns, nil, 0)
		refs := a.tableAssigns(ce.Assigns)
		a.assign(ce.Assigns)
		switch {
		case len(redirs) > 0:
			a.emitNull(redirs, true)
		case len(env) > 0 || len(refs) > 0:
			a.persistentEnv(call.Command{Name: ":", Findings: a.settingFindings(a.commandEnv(ce.Assigns, nil, 0, allSettings), nil)}, cmdMeta{laterCode: refs}, env)
		default:
			if fs := a.settingFindings(a.commandEnv(ce.Assigns, nil, 0, allSettings), nil); len(fs) > 0 {
				a.emit(call.Command{Name: ":", Findings: fs}, cmdMeta{})
			}
		}
	} else {
		a.command(args, ce, redirs)
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
		a.noteVarSubsts(name, x.Value, x.Append)
	}
}

// command analyses the command that the expanded words args run, unwrapping wrappers, and
// emits it, followed by the commands it runs in turn (sh -c, eval, find -exec…).
func (a *analyzer) command(args []arg, ce *syntax.CallExpr, redirs []*syntax.Redirect) {
	var assigns []*syntax.Assign
	var words []*syntax.Word
	if ce != nil {
		assigns, words = ce.Assigns, ce.Args
	}
	cwd := a.cwd()
	i, u := a.unwrap(args)
	for _, d := range u.chdirs {
		cwd = a.chdir(d, cwd)
	}
	prog, rest := args[i], args[i+1:]
	if mod, after, ok := moduleProgram(prog, rest); ok {
		prog, rest = mod, after // python -m pip install X is pip install X
	}
	if u.xargs {
		spec := xargsOptions(args[:i])
		if len(spec.argFiles) > 0 {
			// xargs -a FILE reads the file, whose words it hands to the command: a read
			// of xargs's own.
			x := call.Command{Name: "xargs"}
			for _, f := range spec.argFiles {
				x.Opaque = a.addAccess(&x.Accesses, call.Read, f, false, cwd) || x.Opaque
			}
			a.pathFindings(&x)
			a.emit(x, cmdMeta{})
		}
		a.curRedirs = redirs
		rest = a.xargsInput(spec, rest)
		a.curRedirs = nil
	}
	var cmd call.Command
	var m cmdMeta
	m.envFiles = u.envFiles
	dynamic := prog.dynamic || prog.glob || u.dynamic
	opaque := false

	if dynamic && !u.dynamic && !prog.glob {
		if base, ok := staticBase(prog.word); ok {
			// $(go env GOPATH)/bin/golangci-lint: the directory is computed, the program
			// is named. It is judged by its name; where it lives is unknown.
			cmd.Name, cmd.Path, dynamic, opaque = base, prog.lit, false, true
		}
	}
	switch {
	case cmd.Name != "":
		// Named by staticBase above.
	case dynamic:
		cmd.Dynamic = true
		switch {
		case u.dynamic:
			cmd.Name = u.split.lit // env -S's string
		case prog.glob && prog.word != nil:
			cmd.Name = a.source(prog.word)
		default:
			cmd.Name = prog.lit // a dynamic word's source text
		}
		if !u.dynamic || u.split.dynamic {
			cmd.Findings = append(cmd.Findings, newFinding(findDynamicCommand, cmd.Name))
		}
		if subs := a.codeWord(prog); len(subs) > 0 {
			// $(curl …) as a command runs what the substitution prints.
			m.codeSubsts, m.execStdin, m.codeFromSubst = subs, execShell, true
		}
	default:
		cmd.Name = baseName(prog.lit)
		if u.runner {
			// npx prisma@5: the package's program, judged with its package (wrappedPackage).
			if k := strings.IndexByte(cmd.Name, '@'); k > 0 {
				cmd.Name = cmd.Name[:k]
			}
		}
		if strings.Contains(prog.lit, "/") {
			cmd.Path = prog.lit
			opaque = a.addAccess(&cmd.Accesses, call.Exec, prog, false, cwd)
		}
	}
	if !dynamic {
		if name, ok := a.copiedProgram(prog, cwd); ok {
			cmd.Name = name // ./x after cp /bin/rm ./x is rm
		}
	}
	if !dynamic {
		cmd.Name = foldedProgram(cmd.Name) // REG.EXE is reg, RM is rm: every table knows it so
	}
	m.prog = canonicalProgram(cmd.Name)
	m.xargs = u.xargs
	m.cwd = cwd
	m.params = rest
	if dynamic {
		m.prog = ""
	}
	ops, opts := a.finish(&cmd, &m, rest, redirs, cwd, dynamic)
	cmd.Opaque = cmd.Opaque || opaque
	if !dynamic && !u.runner {
		a.unknownProgram(&cmd, m.prog, cwd)
	}
	if env := a.prefixAssigns(assigns, args, i); len(env) > 0 {
		a.envEffects(&cmd, &m, env, envReader{prog: m.prog, opts: opts}, cwd)
	}
	if !dynamic {
		for _, o := range opts {
			if o.name == "i" {
				a.interactiveEnv(&cmd, &m, cwd)
				break
			}
		}
		a.nameStrings(&m, m.prog, rest)
	}
	if u.privileged != "" {
		cmd.Findings = append(cmd.Findings, newFinding(findSudo, u.privileged))
	}
	for _, f := range u.findings {
		cmd.Findings = appendFinding(cmd.Findings, f.id, f.evidence)
	}
	a.curAssigns = assigns
	// Both NAME=value cmd and a wrapper's env NAME=value cmd.
	cmd.Findings = a.settingFindings(a.commandEnv(assigns, args, i, allSettings), cmd.Findings)
	if a.bomb > 0 || slices.Contains(a.bombs, cmd.Name) {
		cmd.Findings = appendFinding(cmd.Findings, findForkBomb, "starts copies of itself without end: "+cmd.Name)
	}
	if a.spin > 0 {
		cmd.Findings = appendFinding(cmd.Findings, findExhaustion, "runs in a loop without end that never pauses: "+cmd.Name)
	}
	if dynamic {
		// The program may be eval, cd or read: after it, nothing is known. Its own
		// substitutions, walked next, run before it, so the state is forgotten when the
		// walk leaves the command.
		a.forgetOnLeave = true
	} else if evaluators[cmd.Name] {
		// eval, source, trap: what they run may change anything, but only once they run,
		// after their own substitutions (. <(printf … ~)), which are walked next. A
		// well-known set-up script (a virtual environment's activate, nvm.sh) sets the
		// environment up and changes no directory.
		a.forgetOnLeave = true
		a.keepCwdOnLeave = (cmd.Name == "source" || cmd.Name == ".") && a.setupScript(ops, cwd)
		a.effects(&cmd, &m, rest, ops, opts, cwd)
	} else {
		stateChanges(cmd.Name, rest, a.forget)
		if dirChangers[cmd.Name] {
			a.changeDir(cmd.Name, ops)
		}
		a.effects(&cmd, &m, rest, ops, opts, cwd)
		a.agentLaunch(&cmd, prog, rest, assigns, args[:i], cwd)
		a.runnerLookalikes(&cmd, args[:i+1])
	}
	a.curAssigns = nil
	cmd.Findings = a.wordFindings(&m, words, cmd.Findings)
	a.emit(cmd, m)
	at := len(a.cmds) - 1
	if a.forgetOnLeave {
		a.forgetCmd = at + 1
	}
	a.noteCopies(at)
	a.runsByPath(at)
	if u.runner {
		a.wrappedPackage(at, args[:i], prog)
	}
	for _, line := range u.pipes {
		a.nestedWord(at, line, cwd)
	}
	switch {
	case u.shell != nil:
		a.nestedWord(at, *u.shell, cwd)
	case !dynamic:
		a.runs(at, rest, ops, opts, cwd)
	}
	for _, code := range a.meta[at].laterCode {
		a.runCode(at, code, cwd)
	}
	a.aliasUse(at, ce, cwd)
}

// finish fills in what every command has: arguments, flags, operands, the accesses of its
// operands and redirections, and whether it is opaque. It returns the operands.
func (a *analyzer) finish(cmd *call.Command, m *cmdMeta, rest []arg, redirs []*syntax.Redirect, cwd dir, dynamic bool) ([]arg, []option) {
	aliasesFor := canonicalProgram(cmd.Name)
	if dynamic {
		aliasesFor = ""
	}
	// One array holds the arguments, the operands and the flags.
	strs := make([]string, len(rest), 2*len(rest)+flagBound(rest))
	for i, x := range rest {
		strs[i] = x.lit
	}
	cmd.Args = strs[:len(rest):len(rest)]
	flags, ops, opts := parseOptions(aliasesFor, rest, strs[len(rest):len(rest)], slices.Grow(a.ops[:0], len(rest)), a.opts[:0])
	a.ops = ops[:0]
	a.opts = opts[:0]
	cmd.Operands = flags[len(flags):len(flags)]
	for _, x := range ops {
		cmd.Operands = append(cmd.Operands, x.lit)
	}
	cmd.Flags = flags[:len(flags):len(flags)]
	if at := subcommandAt(aliasesFor, rest); at > 0 {
		cmd.Subcommand = cmd.Args[at:]
	}
	if len(cmd.Args) == 0 {
		cmd.Args = nil
	}
	if len(cmd.Flags) == 0 {
		cmd.Flags = nil
	}
	if len(cmd.Operands) == 0 {
		cmd.Operands = nil
	}
	eff, known := programEffects()[aliasesFor]
	opaque := dynamic || !known
	if known && !dynamic {
		opaque = a.fileAccesses(cmd, eff, ops, opts, cwd)
	}
	if !dynamic && (m.prog == ":" || m.prog == "true" || m.prog == "false") {
		// `: > f` prints nothing: the redirection only empties f, as `> f` does.
		for _, r := range redirs {
			before := len(cmd.Accesses)
			a.redirects(cmd, m, []*syntax.Redirect{r}, cwd)
			if truncates(r.Op) {
				emptied(cmd, before)
			}
		}
	} else {
		a.redirects(cmd, m, redirs, cwd)
	}
	cmd.Opaque = opaque || cmd.Opaque // a redirection to a file the environment names
	return ops, opts
}

// emitNull emits a statement that runs no program but makes redirections: `> f`, or the
// redirections of a compound command (`{ …; } > f`), which the shell opens once for it.
// alone says nothing writes through them, so that `> f` only empties f.
func (a *analyzer) emitNull(redirs []*syntax.Redirect, alone bool) {
	cmd := call.Command{Name: ":"}
	var m cmdMeta
	for _, r := range redirs {
		before := len(cmd.Accesses)
		a.redirects(&cmd, &m, []*syntax.Redirect{r}, a.cwd())
		if alone && truncates(r.Op) {
			emptied(&cmd, before)
		}
	}
	// $(< file) prints the file, as zsh's `< file` does: what it reads flows out.
	m.pass = m.ownStdin && !m.stdoutRedirected
	a.pathFindings(&cmd)
	a.emit(cmd, m)
}

// variableTarget judges a redirection that writes to or reads from a file named by
// variables moat does not know (echo $(VERSION) > $(BUILD_DIR)/version.txt in a Makefile,
// … >> "$LOG", sort < "$INPUT"): the user's environment names it, as it names tee
// "$LOG"'s, cp x "$DIR"'s or cat "$INPUT"'s, which are opaque, not accesses of every
// file. What the literal end of the name says is judged at its worst places, the working
// directory and the home directory and its .config (> "$X/.ssh/authorized_keys" writes
// ~/.ssh/authorized_keys; > "$X/moat.yaml" may be moat's policy), and so is a directory
// holding secrets or moat's files that the name starts with (< ~/.ssh/$K). A target
// computed by a command (> "$(cat /tmp/p)") is not this: it reports false, and the
// access is judged as one anywhere.
func (a *analyzer) variableTarget(cmd *call.Command, dst *[]call.Access, kind call.AccessKind, w *syntax.Word, cwd dir) bool {
	if w == nil {
		return false
	}
	suffix, computed := "", false
	// A variable the line set to what it does not know (x=$(ls), read f) holds what a
	// command computed or read; one from the environment, or a for loop's over written
	// words (for f in dist/*.zip), is a name the user or the line wrote.
	setHere := a.computedHere
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			suffix += p.Value
		case *syntax.SglQuoted:
			suffix += p.Value
		case *syntax.ParamExp:
			if p.Exp != nil || p.Repl != nil || p.Slice != nil || p.Index != nil || p.Names != 0 || p.Excl || setHere(p) {
				computed = true // ${X:-$(cmd)}, ${!X}: more than a variable's value
			}
			suffix = ""
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					suffix += q.Value
				case *syntax.ParamExp:
					if q.Exp != nil || q.Repl != nil || q.Slice != nil || q.Index != nil || q.Names != 0 || q.Excl || setHere(q) {
						computed = true
					}
					suffix = ""
				default:
					computed = true
				}
			}
		default:
			computed = true // a command substitution, arithmetic, a process substitution
		}
	}
	if computed {
		return false
	}
	cmd.Opaque = true
	if !strings.HasPrefix(suffix, "/") || strings.Trim(suffix, "/") == "" || strings.ContainsAny(suffix, "*?[") {
		// No file name moat can place: the variable names the file, unless the line
		// spells the directory it is in, and that directory holds secrets or moat's files
		// (> ~/.ssh/$K).
		if place := a.placeOfDynamic(w, cwd); place != "" && a.heldPlace(place) {
			*dst = append(*dst, call.Access{Kind: kind, Path: place, Recursive: true, Redirect: true})
		}
		return true
	}
	bases := []string{}
	if cwd.known {
		bases = append(bases, cwd.path)
	}
	if home, _ := a.st.get("HOME"); home.known {
		bases = append(bases, home.s, home.s+"/.config")
	}
	first := len(*dst)
	for _, b := range bases {
		*dst = append(*dst, call.Access{Kind: kind, Path: path.Clean(b + suffix)})
	}
	for i := first; i < len(*dst); i++ {
		(*dst)[i].Redirect = true
	}
	return true
}

// truncates reports whether a redirection empties its file before the command writes
// (> and >|, alone or with stderr), as opposed to appending.
func truncates(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob:
		return true
	}
	return false
}

// emptied records that the files the command writes from cmd.Accesses[from:] on are left
// empty (`> f` alone, truncate -s 0, cp /dev/null f): their content is deleted, which
// the rules about deleting outside the project judge, besides the write.
func emptied(cmd *call.Command, from int) {
	for _, acc := range cmd.Accesses[from:] {
		if acc.Kind == call.Write && !acc.Glob {
			cmd.Accesses = append(cmd.Accesses, call.Access{Kind: call.Delete, Path: acc.Path, Redirect: acc.Redirect})
		}
	}
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
	options, anything, namerefs, integers := false, false, false, false
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			s := as.Value.Lit()
			options = options || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+")
			anything = anything || s == "" || nameref(s)
			namerefs = namerefs || strings.HasPrefix(s, "-") && nameref(s)
			integers = integers || strings.HasPrefix(s, "-") && strings.Contains(s, "i")
		}
	}
	args := a.args[:0]
	var env []envAssign
	var names []string // names whose subscripts bash evaluates
	for _, as := range d.Args {
		switch {
		case as.Name == nil:
			if as.Value != nil {
				n := len(args)
				args = a.expand(args, as.Value, true)
				for _, x := range args[n:] {
					if !x.dynamic && !strings.HasPrefix(x.lit, "-") && !strings.HasPrefix(x.lit, "+") {
						name, _, _ := strings.Cut(x.lit, "=")
						names = append(names, name)
					}
				}
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
			if as.Array == nil && as.Index == nil && !as.Append {
				if _, carries := lookupEnvVar(name); carries {
					x := arg{lit: v}
					if !ok {
						x = arg{lit: a.source(as.Value), dynamic: true, word: as.Value}
					}
					env = append(env, envAssign{name, x})
				}
				if (namerefs || integers) && ok {
					// declare -n r='a[$(…)]': using r evaluates it; declare -i n='…' evaluates
					// the value as arithmetic at once.
					names = append(names, v)
				}
			}
			if as.Append {
				cur, _ := a.st.get(name)
				v, ok = cur.s+v, ok && cur.known
			}
			a.set(name, value{v, ok && !options})
			a.noteVarSubsts(name, as.Value, as.Append)
		}
	}
	if anything {
		// A word known only at run time may set any variable, HOME too, but only once
		// the command runs: its own substitutions (export $(cat ~/.aws/credentials)),
		// walked next, expand first. The state is forgotten when the walk leaves it.
		a.forgetOnLeave, a.keepCwdOnLeave = true, true
	}
	cmd := call.Command{Name: variant}
	var m cmdMeta
	m.prog = variant
	cwd := a.cwd()
	ops, opts := a.finish(&cmd, &m, args, redirs, cwd, false)
	a.effects(&cmd, &m, args, ops, opts, cwd)
	cmd.Findings = a.settingFindings(a.commandEnv(d.Args, nil, 0, allSettings), cmd.Findings)
	// The substitutions that are its words (export $(grep -v '^#' .env | xargs)) are its
	// own: dataflow follows what they print into it. One in an assignment's value
	// (export X=$(…)) is the variable's, followed where the variable is used.
	words := make([]*syntax.Word, 0, len(d.Args))
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			words = append(words, as.Value)
		}
	}
	cmd.Findings = a.wordFindings(&m, words, cmd.Findings)
	if len(env) > 0 {
		a.envEffects(&cmd, &m, env, envReader{persist: true}, cwd)
	}
	for _, n := range names {
		if code := subscriptCode(n); code != "" {
			m.laterCode = append(m.laterCode, codeRef{code: arg{lit: code}, kind: codeText, carrier: "the array subscript in " + variant + " " + shorten(n)})
		}
	}
	a.emit(cmd, m)
	a.args = args[:0]
	at := len(a.cmds) - 1
	for _, code := range a.meta[at].laterCode {
		a.runCode(at, code, cwd)
	}
}

// unwrapped is what unwrapping found besides the program.
type unwrapped struct {
	chdirs     []arg  // directories the wrappers change to, in order
	dynamic    bool   // the program is in a string the wrapper splits (env -S)
	split      arg    // that string
	privileged string // the wrapper that runs the program as another user (sudo, doas)
	xargs      bool   // the program's last operands come from standard input
	shell      *arg   // the program is a shell command line built from the rest (watch)
	pipes      []arg  // command lines a wrapper pipes its output to (strace -o '|CMD')
	findings   []wrapperFinding
	runner     bool // a package runner fetches the program (npx)
	envFiles   []syntax.Node
}

// wrapperFinding is what a wrapper makes of the program it runs (wrapper.finding).
type wrapperFinding struct{ id, evidence string }

// unwrap returns the index of the program that args run, past any wrappers. extra are the
// wrappers the policy declares.
func (a *analyzer) unwrap(args []arg) (int, unwrapped) {
	return unwrap(args, a.sh.env.Wrappers)
}

func unwrap(args []arg, extra map[string]Wrapper) (int, unwrapped) {
	var u unwrapped
	i := 0
	for i < len(args) {
		p := args[i]
		if p.dynamic || p.glob {
			return i, u
		}
		name := baseName(p.lit)
		w, ok := wrappers()[name]
		if !ok {
			x, ok := extra[name]
			if !ok {
				return i, u
			}
			w = wrapper{valueShort: x.ValueShort, valueLong: x.ValueLong, assigns: x.Assigns, operands: x.Operands}
		}
		j, r := w.skip(args, i+1)
		if r.stop || j >= len(args) {
			return i, u // it runs no program: the wrapper is the command
		}
		u.chdirs = append(u.chdirs, r.chdirs...)
		u.pipes = append(u.pipes, r.pipes...)
		u.envFiles = append(u.envFiles, r.envFiles...)
		if w.privileged && u.privileged == "" {
			u.privileged = name
		}
		if w.finding != "" {
			u.findings = append(u.findings, wrapperFinding{w.finding, name})
		}
		if r.later != "" {
			u.findings = append(u.findings, wrapperFinding{findCron, name + " " + r.later})
		}
		u.runner = u.runner || w.runner
		u.xargs = u.xargs || w.xargs
		if r.dynamic {
			if !r.split.dynamic {
				// env -S 'rm -rf /x': the wrapper is the command, and its string is code.
				split := r.split
				u.shell = &split
				return i, u
			}
			u.dynamic, u.split = true, r.split
			return j, u
		}
		if w.joinShell && !r.noJoin || r.join {
			// watch rm -rf /x: the wrapper is the command, and its words joined are code.
			line := joinArgs(args[j:])
			if w.joinQuoted && len(args[j:]) > 1 {
				line = quotedArgs(args[j:])
			}
			u.shell = &line
			return i, u
		}
		i = j
	}
	return i, u
}

// joinArgs joins words with spaces, as ssh and watch do before a shell parses them.
func joinArgs(args []arg) arg {
	var b strings.Builder
	dyn := false
	for k, x := range args {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.lit)
		dyn = dyn || x.dynamic
	}
	return arg{lit: b.String(), dynamic: dyn}
}

type skipped struct {
	stop    bool
	dynamic bool
	split   arg // when dynamic, the string the wrapper splits into a command
	chdirs  []arg
	noJoin  bool // an option said the program's words are not joined into a shell line (watch -x)
	join    bool // an option said they are (entr -s)
	later   string
	pipes   []arg // command lines of pipe options (wrapper.pipeShort, pipeLong)
	// envFiles are the substitutions that print a dotenv file as assignments
	// (envFileSubst).
	envFiles []syntax.Node
}

// pipeTo returns the command line an output option's value pipes to: the value after
// its | or !.
func pipeTo(v arg) (arg, bool) {
	line, ok := cutAnyPrefix(v.lit, "|", "!")
	if !ok {
		return arg{}, false
	}
	return arg{lit: line, dynamic: v.dynamic, word: v.word}, true
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
		if x.dynamic && w.assigns && !ended && envFileSubst(x.word) {
			// env $(cat .env | xargs) CMD: the project's dotenv, as assignments.
			r.envFiles = append(r.envFiles, x.word.Parts[0])
			i++
			continue
		}
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
			if name == w.noJoinLong && w.noJoinLong != "" {
				r.noJoin = true
			}
			if slices.Contains(w.laterLong, name) {
				r.later = "--" + name // a timer: the program runs later, again
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
			if line, ok := pipeTo(v); ok && slices.Contains(w.pipeLong, name) {
				r.pipes = append(r.pipes, line)
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
				if strings.IndexByte(w.noJoinShort, c) >= 0 {
					r.noJoin = true
				}
				if strings.IndexByte(w.joinShort, c) >= 0 {
					r.join = true
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
				if line, ok := pipeTo(v); ok && strings.IndexByte(w.pipeShort, c) >= 0 {
					r.pipes = append(r.pipes, line)
				}
				break
			}
		case w.assigns && wrapperAssignment(s):
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

// wrapperAssignment reports whether a word is NAME=value to a wrapper that sets the
// environment (env, sudo): they take any word with an = before the program as one, even a
// name the shell could not assign (env 'BASH_FUNC_ls%%=() { …; }').
func wrapperAssignment(s string) bool {
	i := strings.IndexByte(s, '=')
	return i > 0 && !strings.ContainsAny(s[:i], "/ ")
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
	p, ok, opaque := a.abs(d.lit, cwd)
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
			if p, ok, opaque := a.abs(o.lit, cur); ok {
				next = dir{p, !opaque}
			}
		}
	}
	a.st.set(cwdVar, value{next.path, next.known}, cur.path, a.at)
	computed := ""
	if !next.known && name != "popd" {
		computed = "1"
	}
	a.st.set(cdUnknown, value{computed, true}, "", a.at)
}

// cdToUnknown reports whether the working directory is unknown because the line changed to
// a directory known only at run time.
func (a *analyzer) cdToUnknown() bool {
	v, _ := a.st.get(cdUnknown)
	return v.known && v.s == "1"
}

// option is an option given to a command, by canonical name, with its value when the
// program's table says it takes one (valueOptions) or it was written --name=value.
type option struct {
	name     string
	val      arg
	hasValue bool
}

// parseOptions splits arguments into canonical flag names, appended to flags, operands,
// appended to ops, and options with their values, appended to opts: "-rf" gives r and f,
// "--force=yes" gives force (with the value yes), "--" ends the options, and a lone "-" or
// a dynamic word is an operand. An option the program's valueOptions entry lists takes
// the rest of its word or the next word as its value.
func parseOptions(name string, args []arg, flags []string, ops []arg, opts []option) ([]string, []arg, []option) {
	aliases := flagAliases()[name]
	values := valueOptions()[name]
	ended := false
	for i := 0; i < len(args); i++ {
		x := args[i]
		s := x.lit
		if !ended && x.dynamic {
			if o, ok := attachedDynamic(x, values); ok {
				// --header="Authorization: $TOKEN", -H"…$TOKEN": the option is written out,
				// its value is known only at run time.
				flags = addFlag(flags, aliases, o.name)
				o.name = canonicalFlag(aliases, o.name)
				opts = append(opts, o)
				continue
			}
		}
		if ended || x.dynamic || x.glob || len(s) < 2 || s[0] != '-' ||
			values.dashOperand != "" && s[1] != '-' && strings.Trim(s[1:], values.dashOperand) == "" {
			ops = append(ops, x)
			continue
		}
		if s == "--" {
			ended = true
			continue
		}
		if s[1] == '-' || values.oneDash {
			n, v, has := strings.Cut(strings.TrimPrefix(s[1:], "-"), "=")
			n = longOption(name, n)
			flags = addFlag(flags, aliases, n)
			o := option{name: canonicalFlag(aliases, n), val: arg{lit: v}, hasValue: has}
			if !has && slices.Contains(values.long, n) && i+1 < len(args) {
				i++
				o.val, o.hasValue = args[i], true
			}
			opts = append(opts, o)
			continue
		}
		for j := 1; j < len(s); {
			_, size := utf8.DecodeRuneInString(s[j:])
			f := s[j : j+size]
			flags = addFlag(flags, aliases, f)
			j += size
			o := option{name: canonicalFlag(aliases, f)}
			if size == 1 && strings.IndexByte(values.attached, f[0]) >= 0 {
				if j < len(s) {
					o.val, o.hasValue = arg{lit: s[j:]}, true
				}
				opts = append(opts, o)
				break
			}
			if size == 1 && strings.IndexByte(values.short, f[0]) >= 0 {
				if j < len(s) {
					o.val, o.hasValue = arg{lit: s[j:]}, true
				} else if i+1 < len(args) {
					i++
					o.val, o.hasValue = args[i], true
				}
				opts = append(opts, o)
				break
			}
			opts = append(opts, o)
		}
	}
	return flags, ops, opts
}

// attachedDynamic reads a word known only at run time that starts with an option written
// out and its value attached: --name=VALUE, or -XVALUE for a short option X that takes a
// value. The word's source text is its text: the option's name must be plain letters.
func attachedDynamic(x arg, values valueOpts) (option, bool) {
	s := x.lit
	if name, val, ok := strings.Cut(strings.TrimPrefix(s, "--"), "="); ok && strings.HasPrefix(s, "--") && plainName(name) {
		return option{name: name, val: arg{lit: val, dynamic: true, word: x.word}, hasValue: true}, true
	}
	if len(s) > 2 && s[0] == '-' && s[1] != '-' && strings.IndexByte(values.short, s[1]) >= 0 && plainName(s[1:2]) {
		return option{name: s[1:2], val: arg{lit: s[2:], dynamic: true, word: x.word}, hasValue: true}, true
	}
	return option{}, false
}

// plainName reports whether s is an option name: letters, digits and dashes.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func canonicalFlag(aliases map[string]string, f string) string {
	if to, ok := aliases[f]; ok {
		return to
	}
	return f
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
func (a *analyzer) fileAccesses(cmd *call.Command, eff fileEffects, ops []arg, opts []option, cwd dir) bool {
	rec := eff.alwaysRecursive || eff.recursive != "" && cmd.HasFlag(eff.recursive)
	opaque, selected := false, false
	for _, o := range opts {
		if o.hasValue && slices.Contains(eff.outputs, o.name) {
			opaque = a.addAccess(&cmd.Accesses, call.Write, o.val, false, cwd) || opaque
		}
	}
	for _, o := range opts {
		if o.hasValue && slices.Contains(eff.targetDir, o.name) {
			return a.intoDir(cmd, eff, ops, o.val, rec, cwd) || opaque
		}
	}
	if len(eff.targetDir) > 0 && len(ops) >= 2 && a.intoDirectory(cmd, ops, cwd) {
		return a.intoDir(cmd, eff, ops[:len(ops)-1], ops[len(ops)-1], rec, cwd) || opaque
	}
	patternGiven := false
	for _, o := range opts {
		if o.hasValue && slices.Contains(eff.patterns, o.name) {
			patternGiven = true
			if slices.Contains(eff.patternFiles, o.name) {
				opaque = a.addAccess(&cmd.Accesses, call.Read, o.val, false, cwd) || opaque
			}
		}
	}
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
		if patternGiven && r.operands == afterFirst {
			lo = 0 // grep -e PAT FILE…: every operand is a file
		}
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

// intoDir adds the accesses of cp, mv, ln or install given the directory every operand
// goes into (-t DIR): the rules that select sources apply to every operand, and those that
// select the destination to DIR/NAME for each operand's NAME.
func (a *analyzer) intoDir(cmd *call.Command, eff fileEffects, ops []arg, target arg, rec bool, cwd dir) bool {
	opaque := false
	for _, r := range eff.rules {
		for _, o := range ops {
			if r.operands != lastOperand && r.operands != linkName {
				opaque = a.addAccess(&cmd.Accesses, r.kind, o, rec, cwd) || opaque
				continue
			}
			if target.dynamic || o.dynamic || o.glob {
				// The destination's name is known only at run time: the whole directory.
				opaque = a.addAccess(&cmd.Accesses, r.kind, target, true, cwd) || opaque
				continue
			}
			dest := strings.TrimRight(target.lit, "/") + "/" + baseName(strings.TrimRight(o.lit, "/"))
			opaque = a.addAccess(&cmd.Accesses, r.kind, arg{lit: dest}, rec, cwd) || opaque
		}
	}
	return opaque
}

// intoDirectory reports whether the last operand of cp, mv, ln or install is a directory
// the others go into, each under its own name (cp -r build /tmp/ writes /tmp/build, not
// all of /tmp): written so (a trailing slash, ., ..), after several sources, or, for a
// command of the line's own that nothing before it in the line may have created or
// removed, a directory on disk now. -T makes it the copy itself.
func (a *analyzer) intoDirectory(cmd *call.Command, ops []arg, cwd dir) bool {
	last := ops[len(ops)-1]
	if last.dynamic || last.glob || cmd.HasFlag("T") || cmd.HasFlag("no-target-directory") {
		return false
	}
	base := baseName(last.lit)
	if len(ops) > 2 || strings.HasSuffix(last.lit, "/") || base == "." || base == ".." {
		return true
	}
	if a.depth > 0 || a.sh.env.Entries == nil {
		return false // code run by another program, or later: the disk then is unknown
	}
	dest, ok, unsure := a.abs(a.tildePath(last.lit), cwd)
	if !ok || unsure {
		return false
	}
	for i := range a.cmds { // the commands before this one
		c := &a.cmds[i]
		if c.Opaque || c.Dynamic || slices.ContainsFunc(c.Accesses, func(acc call.Access) bool {
			return acc.Kind != call.Read && (under(dest, acc.Path) || under(acc.Path, dest))
		}) {
			return false
		}
	}
	_, isDir := a.sh.env.Entries(dest)
	return isDir
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
// What dataflow needs (where standard input comes from, where output goes) is noted in m.
func (a *analyzer) redirects(cmd *call.Command, m *cmdMeta, redirs []*syntax.Redirect, cwd dir) {
	dst := &cmd.Accesses
	for _, r := range redirs {
		fd := ""
		if r.N != nil {
			fd = r.N.Value
		}
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
			if r.Word == nil {
				continue
			}
			if src := a.source(r.Word); a.netFDs[src] || a.netFDs["$"+strings.Trim(src, "${}")] {
				m.netRedirect = true
				if r.Op == syntax.DplIn || fd == "0" {
					m.ownStdin = true
					m.stdin = flowVal{t: tNetwork}
				}
				continue
			}
			d := r.Word.Lit()
			if d == "" && !strings.Contains(a.source(r.Word), "/") {
				continue // >&$fd: a descriptor held in a variable
			}
			if d != "" && isDescriptor(d) {
				if a.netFDs[strings.TrimSuffix(d, "-")] {
					// A descriptor opened on /dev/tcp earlier (exec 3<>/dev/tcp/…).
					m.netRedirect = true
					if r.Op == syntax.DplIn || fd == "0" {
						m.ownStdin = true
						m.stdin = flowVal{t: tNetwork}
					}
				}
				continue
			}
			read, write = r.Op == syntax.DplIn, r.Op == syntax.DplOut
		case syntax.Hdoc, syntax.DashHdoc:
			if fd == "" || fd == "0" {
				m.ownStdin = true
				m.stdin = a.hdocFlow(r.Hdoc, false)
			}
			continue
		case syntax.WordHdoc:
			if fd == "" || fd == "0" {
				m.ownStdin = true
				m.stdin = a.hdocFlow(r.Word, true)
			}
			continue
		default:
			continue
		}
		if r.Word == nil {
			continue
		}
		if subst := procSubst(r.Word); subst != nil && read {
			// < <(cmd): the input is the substitution's output, not a file.
			if fd == "" || fd == "0" {
				m.ownStdin = true
				m.stdin = flowVal{substs: []syntax.Node{subst}}
			}
			continue
		}
		// A quoted device ("/dev/tcp/$host/$port") is the same device.
		if src := strings.TrimLeft(a.source(r.Word), `"'`); strings.HasPrefix(src, "/dev/tcp/") || strings.HasPrefix(src, "/dev/udp/") {
			host, _ := netDevice(src)
			if strings.ContainsAny(host, "$`") {
				host = ""
			}
			cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Both})
			m.netRedirect = true
			if fd != "" && fd != "0" && fd != "1" && fd != "2" {
				if a.netFDs == nil {
					a.netFDs = make(map[string]bool)
				}
				a.netFDs[fd] = true
			}
			if read && (fd == "" || fd == "0") {
				m.ownStdin = true
				m.stdin = flowVal{t: tNetwork}
			}
			continue
		}
		fields := a.expand(a.rargs[:0], r.Word, true)
		a.rargs = fields[:0]
		// bash refuses a target of several words; a dynamic one is unknown.
		unknown := len(fields) != 1 || fields[0].dynamic
		if !unknown {
			if host, ok := netDevice(fields[0].lit); ok {
				cmd.Net = append(cmd.Net, call.Net{Host: host, Direction: call.Both})
				m.netRedirect = true
				if read && (fd == "" || fd == "0") {
					m.ownStdin = true
					m.stdin = flowVal{t: tNetwork}
				}
				continue
			}
		}
		stdinRedirect := read && (fd == "" || fd == "0")
		stdoutRedirect := write && (fd == "" || fd == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.Op == syntax.DplOut && fd == "")
		first := len(*dst)
		for _, k := range []struct {
			on   bool
			kind call.AccessKind
		}{{read, call.Read}, {write, call.Write}} {
			if !k.on {
				continue
			}
			if unknown || a.addAccess(dst, k.kind, fields[0], false, cwd) {
				if a.sh.elsewhere > 0 {
					continue // on a CI runner: one of its files (echo … >> $GITHUB_ENV)
				}
				if unknown && a.variableTarget(cmd, dst, k.kind, r.Word, cwd) {
					continue
				}
				*dst = append(*dst, call.Access{Kind: k.kind, Path: "/", Recursive: true})
			}
		}
		for i := first; i < len(*dst); i++ {
			acc := &(*dst)[i]
			acc.Redirect = true
			if stdinRedirect && acc.Kind == call.Read {
				m.ownStdin = true
				m.stdin = flowVal{t: a.fileTaint(*acc)}
			}
			if stdoutRedirect && acc.Kind == call.Write {
				m.stdoutFile = acc.Path
				switch r.Op {
				case syntax.AppOut, syntax.AppAll, syntax.AppClob, syntax.AppAllClob:
					m.stdoutAppend = true
				}
			}
		}
		if stdoutRedirect {
			m.stdoutRedirected = true
			m.stdoutNull = !unknown && fields[0].lit == "/dev/null"
		}
		if stdinRedirect && len(*dst) == first {
			m.ownStdin = true // /dev/null and the like
		}
	}
}

// netDevice reports whether p is bash's /dev/tcp/HOST/PORT or /dev/udp/HOST/PORT, which
// open a connection instead of a file.
func netDevice(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/dev/tcp/")
	if !ok {
		rest, ok = strings.CutPrefix(p, "/dev/udp/")
	}
	if !ok {
		return "", false
	}
	host, _, _ := strings.Cut(rest, "/")
	return host, true
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
		// The value names the file, but a directory the word spells before it that holds
		// secrets or moat's files is where the file is (cat ~/.ssh/$KEY).
		if place := a.placeOfDynamic(o.word, cwd); place != "" && (a.heldPlace(place) || kind == call.Read && a.namesLeaf(o.word) && a.secretsWithin(place) != "") {
			// A read of a name computed in a directory that holds a credential file
			// now (cat ~/.aws/$F, with ~/.aws/credentials there) may read it.
			*dst = append(*dst, call.Access{Kind: kind, Path: place, Recursive: true})
		}
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
	*dst = append(*dst, call.Access{Kind: kind, Path: abs, Recursive: rec, Glob: o.glob, Hidden: o.glob && o.hidden})
	return opaque
}

// resolve makes p absolute and clean against the cwd: the path of the host that p names.
// opaque reports that the cwd was only a guess, or that the line has produced too much
// text to resolve more; ok is false when there is no path (empty) or no guess at all, or
// when p is a path of a container that none of its mounts shows from the host.
func (a *analyzer) resolve(p string, cwd dir) (abs string, ok, opaque bool) {
	abs, ok, opaque = a.abs(p, cwd)
	if ok && a.sh.mounts != nil {
		host, ok, unknown := a.sh.mounts.host(abs)
		return host, ok, opaque || unknown
	}
	return abs, ok, opaque
}

// abs makes p absolute and clean against the cwd, in the file system the line runs in
// (a container's, when it runs in one): the form of working directories.
func (a *analyzer) abs(p string, cwd dir) (abs string, ok, opaque bool) {
	if p == "" {
		return "", false, false
	}
	here := ""
	if cwd.known {
		here = cwd.path
	}
	if p[0] == '/' {
		// /proc/self/root/etc/shadow is /etc/shadow, /proc/self/cwd/x is x here.
		return call.ThroughProc(p, here), true, false
	}
	if w, ok := call.WindowsPath(p); ok {
		return w, true, false
	}
	if cwd.path == "" || !a.spend(len(cwd.path)+1+len(p)) {
		return "", false, true
	}
	return call.ThroughProc(cwd.path+"/"+p, here), true, !cwd.known
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

// staticBase returns the program name at the end of a word whose directory is computed
// but whose last path segment is written out: $(go env GOPATH)/bin/tool gives tool.
func staticBase(w *syntax.Word) (string, bool) {
	if w == nil || len(w.Parts) < 2 {
		return "", false
	}
	l, ok := w.Parts[len(w.Parts)-1].(*syntax.Lit)
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(l.Value, '/')
	if i < 0 {
		return "", false
	}
	base := l.Value[i+1:]
	if base == "" || strings.ContainsAny(base, "*?[]{}\\$`'\"~") {
		return "", false
	}
	return base, true
}

// hereString returns the static text of the here-string given to the command being built
// (xargs rm <<< /).
func (a *analyzer) hereString() (string, bool) {
	for _, r := range a.curRedirs {
		if r.Op == syntax.WordHdoc && (r.N == nil || r.N.Value == "0") && r.Word != nil {
			v := a.hdocFlow(r.Word, true)
			return v.text, v.known
		}
	}
	return "", false
}

// moduleCommand returns the program the tables know a Python module run with python -m
// as: python -m pip install is pip install.
func moduleCommand(mod string) (string, bool) {
	switch mod {
	case "pip", "pip3":
		return "pip", true
	case "twine", "pytest", "pipx", "poetry", "uv", "venv":
		return mod, true
	case "base64", "gzip":
		// The standard library's command lines of the tools of the same name: they read
		// the files they are given and print them, encoded or not.
		return mod, true
	case "json.tool":
		return "cat", true // prints the JSON file it is given, formatted
	}
	return "", false
}

// moduleProgram returns, for python -m MODULE ARGS… (or -mMODULE) whose module
// moduleCommand knows, the module's program and its arguments.
func moduleProgram(prog arg, rest []arg) (arg, []arg, bool) {
	if prog.dynamic || canonicalProgram(baseName(prog.lit)) != "python" || len(rest) == 0 || rest[0].dynamic {
		return prog, rest, false
	}
	mod, after := "", rest[1:]
	switch w := rest[0].lit; {
	case w == "-m" && len(rest) > 1 && !rest[1].dynamic:
		mod, after = rest[1].lit, rest[2:]
	case strings.HasPrefix(w, "-m") && len(w) > 2:
		mod = w[2:]
	}
	name, ok := moduleCommand(mod)
	if !ok {
		return prog, rest, false
	}
	return arg{lit: name}, after, true
}
