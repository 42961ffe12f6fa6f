package shell

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
	"mvdan.cc/sh/v3/syntax"
)

// This file follows code that a command runs in turn: the string of sh -c, eval's words,
// ssh's remote command, find -exec's command, an interpreter's one-liner. Static code is
// analysed (shell code parsed again, one level deeper; interpreter code inspected by the
// interp package); code that only exists at run time is left to dataflow (flow.go) when it
// comes from a substitution, and reported otherwise.

// runs analyses the code that the command at index at runs.
func (a *analyzer) runs(at int, rest, ops []arg, opts []option, cwd dir) {
	m := &a.meta[at]
	name := m.prog
	if e, ok := executors()[name]; ok {
		// Programs that run code given in their arguments (executors.go).
		if a.executorCode(e, &execCall{at: at, prog: name, rest: rest, ops: ops, opts: opts, cwd: cwd}) {
			return
		}
		m = &a.meta[at]
	}
	switch {
	case shells()[name]:
		a.shellCode(at, ops, opts, cwd)
	case name == "eval":
		a.evalCode(at, rest, cwd)
	case name == "alias":
		a.aliasCode(at, ops, cwd)
	case name == "trap":
		a.trapCode(at, ops, cwd)
	case name == "source" || name == ".":
		if len(ops) > 0 {
			m.sourced = true
			a.scriptOperand(at, ops[0], cwd, nil)
		}
	case name == "ssh":
		a.sshCode(at, ops)
	case name == "find":
		a.find(at, rest, cwd)
	case containerEngines[name] || composeTools[name] || name == "kubectl":
		a.containerRun(at, rest, cwd)
	case name == "flock":
		a.flock(at, rest, opts, cwd)
	case name == "su":
		for _, o := range opts {
			if (o.name == "c" || o.name == "command") && o.hasValue {
				a.nestedWord(at, o.val, cwd)
			}
		}
	case name == "script":
		for _, o := range opts {
			if (o.name == "c" || o.name == "command") && o.hasValue {
				a.nestedWord(at, o.val, cwd)
			}
		}
	case name == "at" || name == "batch":
		m.execStdin = execShell
	case name == "cmd" || name == "cmd.exe":
		a.cmdExeCode(at, rest, cwd)
	default:
		if in, ok := oneliner.Lookup(name); ok && in.Lang == oneliner.PowerShell {
			a.powershellCode(at, rest, cwd)
		} else if ok {
			a.interpreterCode(at, in, ops, opts, cwd)
		}
	}
	a.frameworkCode(at, rest, cwd)
	a.catalogEffects(at, rest, ops, opts, cwd)
}

// flock [OPTIONS] FILE -c STRING or flock [OPTIONS] FILE COMMAND [ARGS]: runs the command
// while holding a lock on FILE.
func (a *analyzer) flock(at int, rest []arg, opts []option, cwd dir) {
	for _, o := range opts {
		if (o.name == "c" || o.name == "command") && o.hasValue {
			a.nestedWord(at, o.val, cwd)
			return
		}
	}
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		if x.dynamic || !strings.HasPrefix(x.lit, "-") {
			if i+1 < len(rest) {
				a.command(rest[i+1:], nil, nil)
			}
			return
		}
		if x.lit == "-w" || x.lit == "-E" || x.lit == "--timeout" || x.lit == "--conflict-exit-code" {
			i++
		}
	}
}

// shellCode: sh -c STRING runs STRING; sh SCRIPT runs a file; sh alone (or -s, or a
// script of -) runs its standard input.
func (a *analyzer) shellCode(at int, ops []arg, opts []option, cwd dir) {
	m := &a.meta[at]
	for _, o := range opts {
		if o.name == "i" {
			m.interactive = true
		}
	}
	for _, o := range opts {
		if o.name == "c" {
			if len(ops) == 0 {
				return
			}
			if ops[0].dynamic {
				a.nestedWord(at, ops[0], cwd)
				return
			}
			// sh -c CODE NAME ARG…: NAME is the code's $0 and the ARGs its $1….
			var params map[string]string
			for k, p := range ops[1:] {
				if k > 9 {
					break
				}
				if params == nil {
					params = make(map[string]string)
				}
				if !p.dynamic {
					params[string(rune('0'+k))] = p.lit
				}
			}
			a.nestedWith(at, ops[0].lit, cwd, false, params)
			return
		}
	}
	for _, o := range opts {
		if (o.name == "rcfile" || o.name == "init-file") && o.hasValue {
			// bash --rcfile FILE -i sources FILE before reading commands.
			if o.val.dynamic {
				a.opaque(at, "bash --"+o.name+" names a file computed at run time: "+shorten(o.val.lit))
			} else if p, ok, _ := a.resolve(a.tildePath(o.val.lit), cwd); ok && p != "/dev/null" {
				m.runs = append(m.runs, runFile{path: p, carrier: "bash --" + o.name, shell: true, opaque: true})
			}
		}
	}
	stdin := false
	for _, o := range opts {
		stdin = stdin || o.name == "s"
	}
	if stdin || len(ops) == 0 || !ops[0].dynamic && (ops[0].lit == "-" || ops[0].lit == "/dev/stdin") {
		m.execStdin = execShell
		return
	}
	a.scriptOperand(at, ops[0], cwd, nil)
}

// scriptOperand: a file given to a shell, to source or to an interpreter is read and run.
// When it is a process substitution (bash <(curl …)), its output is the code.
func (a *analyzer) scriptOperand(at int, o arg, cwd dir, in *oneliner.Interpreter) {
	m := &a.meta[at]
	if subst := procSubst(o.word); subst != nil {
		m.codeSubsts = append(m.codeSubsts, subst)
		if in != nil {
			m.execStdin, m.lang = execInterp, in.Lang
		} else {
			m.execStdin = execShell
		}
		m.codeFromSubst = true
		return
	}
	if o.dynamic {
		a.cmds[at].Opaque = true
		if m.sourced && !a.trustedSourceWord(o.word) {
			a.opaque(at, "sources a file computed at run time: "+shorten(o.lit))
		}
		return
	}
	if p, ok, _ := a.resolve(o.lit, cwd); ok {
		if p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0" {
			if in != nil {
				m.execStdin, m.lang = execInterp, in.Lang
			} else {
				m.execStdin = execShell
			}
			return
		}
		c := &a.cmds[at]
		c.Accesses = append(c.Accesses, call.Access{Kind: call.Read, Path: p})
		c.Opaque = true // what the script does is not known
		m.script = p
		if in != nil {
			m.lang = in.Lang
		}
	}
}

// procSubst returns the process substitution that a word is, if it is exactly one.
func procSubst(w *syntax.Word) syntax.Node {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	if p, ok := w.Parts[0].(*syntax.ProcSubst); ok && p.Op == syntax.CmdIn {
		return p
	}
	return nil
}

// cmdSubsts returns the command substitutions in a word.
func cmdSubsts(w *syntax.Word) []syntax.Node {
	if w == nil {
		return nil
	}
	var out []syntax.Node
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.CmdSubst:
			out = append(out, p)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if c, ok := q.(*syntax.CmdSubst); ok {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// nestedWord analyses a word that is shell code: static, it is parsed again; built from
// command substitutions, dataflow follows what they print; otherwise it is unknown.
func (a *analyzer) nestedWord(at int, w arg, cwd dir) {
	if !w.dynamic {
		a.nested(at, w.lit, cwd, false)
		return
	}
	a.codeFromWord(at, w, execShell, "")
}

// codeFromWord notes that the code the command runs is the word w, known only at run time.
func (a *analyzer) codeFromWord(at int, w arg, kind execKind, lang oneliner.Lang) {
	m := &a.meta[at]
	if substs := cmdSubsts(w.word); len(substs) > 0 {
		m.codeSubsts = append(m.codeSubsts, substs...)
		m.execStdin, m.lang, m.codeFromSubst = kind, lang, true
		return
	}
	c := &a.cmds[at]
	c.Findings = appendFinding(c.Findings, findDynamicCommand, "runs code known only at run time: "+shorten(w.lit))
}

// codeWord is the word a dynamic program name comes from, when dataflow can follow it
// ($(curl …) run as a command).
func (a *analyzer) codeWord(prog arg) []syntax.Node {
	return cmdSubsts(prog.word)
}

// evalCode: eval joins its words with spaces and runs the result.
func (a *analyzer) evalCode(at int, rest []arg, cwd dir) {
	if len(rest) > 0 && !rest[0].dynamic && rest[0].lit == "--" {
		rest = rest[1:] // eval -- CODE: the end of eval's (no) options
	}
	if len(rest) == 0 {
		return
	}
	line := joinArgs(rest)
	if !line.dynamic {
		a.nested(at, line.lit, cwd, false)
		return
	}
	for _, x := range rest {
		if x.dynamic {
			a.codeFromWord(at, x, execShell, "")
		}
	}
	// The static words around the substitution are code too: eval "rm -rf $x".
	if !hasFinding(a.cmds[at].Findings, findDynamicCommand) && !a.meta[at].codeFromSubst {
		c := &a.cmds[at]
		c.Findings = appendFinding(c.Findings, findDynamicCommand, "eval of a value known only at run time")
	}
}

// aliasCode: alias NAME=VALUE defines a word that runs VALUE as shell code wherever it
// is used, later in the line or in a later call (bash expands aliases in scripts after
// shopt -s expand_aliases, and always in interactive shells). The use is a bare name
// that says nothing, so the value is judged where it is defined, as if it ran there.
func (a *analyzer) aliasCode(at int, ops []arg, cwd dir) {
	for _, x := range ops {
		if x.dynamic {
			c := &a.cmds[at]
			c.Findings = appendFinding(c.Findings, findDynamicCommand, "an alias to code known only at run time: "+shorten(x.lit))
			continue
		}
		if name, value, ok := strings.Cut(x.lit, "="); ok && strings.TrimSpace(value) != "" {
			a.nested(at, value, cwd, false)
			a.defineAlias(name, value)
		}
	}
}

// sshCode: ssh HOST COMMAND… runs COMMAND (its words joined) on HOST, in the remote
// user's home directory. The remote machine is not this one, but deleting its root or
// piping a download into its shell is as bad; it is analysed with this machine's home
// standing for the remote one.
func (a *analyzer) sshCode(at int, ops []arg) {
	if len(ops) < 2 {
		return
	}
	line := joinArgs(ops[1:])
	c := &a.cmds[at]
	c.Findings = appendFinding(c.Findings, findRemoteExec, shorten(ops[0].lit+": "+line.lit))
	home, _ := a.st.get("HOME")
	cwd := dir{}
	if home.known {
		cwd = dir{home.s, true}
	}
	if line.dynamic {
		a.codeFromWord(at, ops[1], execShell, "")
		return
	}
	a.nested(at, line.lit, cwd, true)
}

// find ROOT… EXPRESSION: -delete deletes what it finds, -exec/-execdir/-ok/-okdir run a
// command with {} standing for each path found, below the roots.
func (a *analyzer) find(at int, rest []arg, cwd dir) {
	var roots []arg
	i := 0
	for ; i < len(rest); i++ {
		x := rest[i]
		if !x.dynamic && (strings.HasPrefix(x.lit, "-") || x.lit == "(" || x.lit == "!") {
			break
		}
		roots = append(roots, x)
	}
	if len(roots) == 0 {
		roots = []arg{{lit: "."}}
	}
	name, named := findName(literals(rest[i:]))
	found := make([]arg, 0, len(roots))
	for _, r := range roots {
		found = append(found, belowRoot(r, name))
	}
	c := &a.cmds[at]
	for ; i < len(rest); i++ {
		x := rest[i]
		if x.dynamic {
			continue
		}
		switch x.lit {
		case "-delete":
			for _, f := range found {
				// -delete removes a directory only when it is empty: what a name
				// picks is deleted alone, the whole walk when no name is picked.
				a.addAccess(&c.Accesses, call.Delete, f, !named, cwd)
			}
			c.Findings = appendFinding(c.Findings, findRecursiveDelete, "find "+roots[0].lit+" -delete")
			a.pathFindings(c)
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(rest) && !(rest[j].lit == ";" || rest[j].lit == "+") {
				j++
			}
			argv := make([]arg, 0, j-i-1+len(found))
			for _, w := range rest[i+1 : j] {
				switch {
				case !w.dynamic && w.lit == "{}":
					argv = append(argv, found...)
				case !w.dynamic && strings.Contains(w.lit, "{}"):
					// GNU find puts the path wherever {} appears in a word: f=@{}.
					for _, f := range found {
						x := arg{lit: strings.ReplaceAll(w.lit, "{}", f.lit), glob: f.glob, hidden: f.hidden, dynamic: f.dynamic, word: w.word}
						if f.glob {
							x.pat = strings.ReplaceAll(escapeGlob(w.lit), "{}", f.pat)
						}
						argv = append(argv, x)
					}
				default:
					argv = append(argv, w)
				}
			}
			if len(argv) > 0 {
				a.command(argv, nil, nil)
				c = &a.cmds[at]
			}
			i = j
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			// The paths found are written to FILE: find / -fprintf ~/.bashrc FORMAT.
			if i+1 < len(rest) {
				i++
				c.Opaque = a.addAccess(&c.Accesses, call.Write, rest[i], false, cwd) || c.Opaque
				a.pathFindings(c)
			}
			if x.lit == "-fprintf" {
				i++ // the format
			}
		}
	}
}

// belowRoot is a glob standing for every path below a find root, or when name is not
// empty (find ROOT -name NAME), for the paths at any depth below it with that name. find
// walks into hidden directories and its -name wildcards match a leading dot.
func belowRoot(r arg, name string) arg {
	if r.dynamic || r.glob {
		return arg{lit: r.lit, dynamic: true, word: r.word}
	}
	p := strings.TrimSuffix(r.lit, "/") // find / walks from the root: "" + "/*"
	if name != "" {
		return arg{lit: p + "/**/" + name, pat: escapeGlob(p) + "/**/" + name, glob: true, hidden: true}
	}
	pat := escapeGlob(p) + "/*"
	return arg{lit: p + "/*", pat: pat, glob: true, hidden: true}
}

func escapeGlob(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`*?[]\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// xargsOperands adds to a command run by xargs the words it reads from standard input:
// the paths a find upstream prints, when that is where they come from, the text an
// upstream command or a here-string gives, split into items by split, else unknown.
func (a *analyzer) xargsOperands(rest []arg, split func(string) []string) []arg {
	// parallel CMD ::: A B: the words after ::: are the inputs.
	for i, x := range rest {
		if !x.dynamic && (x.lit == ":::" || x.lit == "::::") {
			out := append([]arg(nil), rest[:i]...)
			for _, y := range rest[i+1:] {
				if y.lit != ":::" {
					out = append(out, y)
				}
			}
			return out
		}
	}
	out := append([]arg(nil), rest...)
	if len(a.pipes) > 0 {
		from := a.pipes[len(a.pipes)-1].from
		if from.end-from.start == 1 {
			up := &a.meta[from.start]
			switch {
			case up.prog == "find":
				args := a.cmds[from.start].Args
				name, _ := findName(args[findExpr(args):])
				for _, r := range findRoots(args) {
					out = append(out, belowRoot(r, name))
				}
				return out
			case up.prog == "ls":
				return append(out, lsListing(&a.cmds[from.start])...)
			case up.out.known && up.out.t == 0 && !up.pass:
				// echo / | xargs rm -rf: the words are in the line.
				return append(out, xargsWords(split(up.out.text))...)
			}
		}
	}
	if text, ok := a.hereString(); ok {
		return append(out, xargsWords(split(text))...)
	}
	return append(out, arg{lit: "(standard input)", dynamic: true})
}

// xargsWords are the items xargs reads as arguments (quotes in blank-separated input are
// not modelled, which only matters for words that contain blanks).
func xargsWords(items []string) []arg {
	var out []arg
	for _, w := range items {
		out = append(out, arg{lit: w, glob: false})
	}
	if len(out) == 0 {
		return []arg{{lit: "(standard input)", dynamic: true}}
	}
	return out
}

func findRoots(args []string) []arg {
	var roots []arg
	for _, s := range args {
		if strings.HasPrefix(s, "-") || s == "(" || s == "!" {
			break
		}
		roots = append(roots, arg{lit: s})
	}
	if len(roots) == 0 {
		roots = []arg{{lit: "."}}
	}
	return roots
}

// interpreterCode: python -c CODE, perl -e CODE, node -e CODE, awk PROGRAM…: static code is
// inspected; a script operand is a file run; no code and no script (or -) means standard
// input is the code.
func (a *analyzer) interpreterCode(at int, in oneliner.Interpreter, ops []arg, opts []option, cwd dir) {
	a.preloads(at, in.Lang, opts, cwd)
	m := &a.meta[at]
	for _, o := range opts {
		if !isCodeOption(in, o.name) {
			continue
		}
		if !o.hasValue {
			continue
		}
		if o.val.dynamic {
			a.codeFromWord(at, o.val, execInterp, in.Lang)
			return
		}
		if readsArgFiles(in.Lang, opts, o.val.lit) {
			// perl -ne CODE FILE…, ruby -pe CODE FILE…: the code runs on each line of the
			// files its operands name.
			c := &a.cmds[at]
			for _, f := range ops {
				c.Opaque = a.addAccess(&c.Accesses, call.Read, f, false, cwd) || c.Opaque
			}
		}
		a.inspect(at, in.Lang, o.val.lit, cwd)
		return
	}
	if in.Lang == oneliner.Awk {
		// gawk -i FILE includes awk source and -l LIB loads a native extension; a bare name
		// (-i inplace, -l ordchr) is one of gawk's own, found on its path.
		for _, o := range opts {
			if !o.hasValue || !strings.ContainsAny(o.val.lit, "/.") && !o.val.dynamic {
				continue
			}
			switch o.name {
			case "i", "include":
				a.codeFile(at, o.val, cwd, "gawk -"+o.name)
			case "l", "load":
				a.codeFile(at, o.val, cwd, "gawk --load")
			}
		}
	}
	for _, o := range opts {
		if o.hasValue && (in.Lang == oneliner.Awk && (o.name == "f" || o.name == "file" || o.name == "E" || o.name == "exec") || in.Lang == oneliner.PHP && o.name == "f") {
			if in.Lang == oneliner.Awk {
				a.awkInputs(at, opts, ops, cwd) // with the program in a file, every operand is input
			}
			a.scriptOperand(at, o.val, cwd, &in) // the program is a file: awk -f, php -f
			return
		}
	}
	if in.Lang == oneliner.Awk {
		if len(ops) > 0 {
			a.awkInputs(at, opts, ops[1:], cwd)
			if ops[0].dynamic {
				a.codeFromWord(at, ops[0], execInterp, in.Lang)
				return
			}
			a.inspect(at, in.Lang, ops[0].lit, cwd)
		}
		return
	}
	for _, o := range opts {
		if o.name == "m" && in.Lang == oneliner.Python {
			return // python -m module
		}
	}
	if len(ops) == 0 || !ops[0].dynamic && ops[0].lit == "-" {
		m.execStdin, m.lang = execInterp, in.Lang
		return
	}
	a.scriptOperand(at, ops[0], cwd, &in)
}

// awkInputs records the files awk reads, its operands but NAME=value assignments; with
// gawk's -i inplace (the inplace extension) it writes them back too.
func (a *analyzer) awkInputs(at int, opts []option, files []arg, cwd dir) {
	inplace := false
	for _, o := range opts {
		if o.hasValue && (o.name == "i" || o.name == "include") && strings.TrimSuffix(o.val.lit, ".awk") == "inplace" {
			inplace = true
		}
	}
	c := &a.cmds[at]
	for _, f := range files {
		if strings.Contains(f.lit, "=") && !f.dynamic {
			continue
		}
		c.Opaque = a.addAccess(&c.Accesses, call.Read, f, false, cwd) || c.Opaque
		if inplace {
			c.Opaque = a.addAccess(&c.Accesses, call.Write, f, false, cwd) || c.Opaque
		}
	}
}

// readsArgFiles reports whether a Perl or Ruby one-liner reads the files its operands
// name: a loop over their lines (-n, -p, and -a, -F and -i, which imply one), or code
// that reads them (<>, ARGF).
func readsArgFiles(lang oneliner.Lang, opts []option, code string) bool {
	if lang != oneliner.Perl && lang != oneliner.Ruby {
		return false
	}
	for _, o := range opts {
		switch o.name {
		case "n", "p", "a", "F", "i":
			return true
		}
	}
	return strings.Contains(code, "<>") || strings.Contains(code, "ARGF") || strings.Contains(code, "<ARGV>")
}

// preloadOptions returns, for a language, the command-line options that load a module or
// library before the program, as the same options do in NODE_OPTIONS, RUBYOPT and PERL5OPT.
func preloadOptions(lang oneliner.Lang) []string {
	switch lang {
	case oneliner.Node:
		return []string{"r", "require", "import", "loader", "experimental-loader"}
	case oneliner.Ruby:
		return []string{"r", "I"}
	case oneliner.Perl:
		return []string{"M", "m", "I"}
	}
	return nil
}

// preloads judges an interpreter's options that load code (node -r FILE, ruby -r FILE,
// perl -M'Mod;CODE'), as optionWords judges them in the environment.
func (a *analyzer) preloads(at int, lang oneliner.Lang, opts []option, cwd dir) {
	names := preloadOptions(lang)
	if names == nil {
		return
	}
	var words []string
	for _, o := range opts {
		if !o.hasValue || !slices.Contains(names, o.name) {
			continue
		}
		if o.val.dynamic {
			a.opaque(at, string(lang)+" -"+o.name+" loads code computed at run time: "+shorten(o.val.lit))
			return
		}
		flag := "-" + o.name
		if len(o.name) > 1 {
			flag = "--" + o.name
		}
		words = append(words, flag, o.val.lit)
	}
	if len(words) == 0 {
		return
	}
	a.optionWords(&a.cmds[at], &a.meta[at], a.cmds[at].Name, string(lang), words, cwd)
}

func isCodeOption(in oneliner.Interpreter, name string) bool {
	if len(name) == 1 && strings.Contains(in.CodeShort, name) {
		return true
	}
	for _, l := range in.CodeLong {
		if l == name {
			return true
		}
	}
	return false
}

// maxInterpreterCode bounds the interpreter code inspected: a longer program is not a
// one-liner, and inspecting it would cost more than a hook may spend. maxInterpreterLine
// bounds the interpreter code of all the programs of one line, which costs several times
// more per byte to read than shell code.
const (
	maxInterpreterCode = 16 << 10
	maxInterpreterLine = 16 << 10
	// maxProgramCode is the most of a source file written into the project that is read
	// (planted's Program kinds): larger than a one-liner, since modules are. A new file
	// larger still is too large to read, and asked about; an edit of one is judged by the
	// lines it adds (maxProgramWhole). Reading costs about a microsecond a byte (every
	// pattern of the language runs over the text), so this bounds a write's answer to
	// about a seventh of a second.
	maxProgramCode = 128 << 10
	// maxProgramWhole is the largest source file whose edit is judged by the whole file it
	// leaves; an edit of a larger one is judged by the lines it adds (planted.go).
	maxProgramWhole = 64 << 10
)

// inspect applies what interpreter code does to the command that runs it.
func (a *analyzer) inspect(at int, lang oneliner.Lang, code string, cwd dir) {
	limit := maxInterpreterCode
	if a.sh.program {
		limit = maxProgramCode
	}
	if len(code) > limit {
		c := &a.cmds[at]
		c.Findings = appendFinding(c.Findings, findTooLarge, fmt.Sprintf("interpreter code of %d bytes; at most %d are inspected", len(code), limit))
		return
	}
	if !a.spendNested(len(code)) || len(code) > a.sh.interp {
		c := &a.cmds[at]
		c.Findings = appendFinding(c.Findings, findTooDeep, "too much nested code to analyse")
		return
	}
	a.sh.interp -= len(code)
	if !a.sh.program {
		a.inspected(at, lang, oneliner.Inspect(lang, code), cwd)
		return
	}
	units := oneliner.Units(lang, code)
	if len(units) == 1 {
		a.inspected(at, lang, oneliner.InspectProgram(lang, units[0]), cwd)
		return
	}
	// A source file's units are judged one by one, each against the command alone: what
	// one unit reads and another sends (in two unrelated functions) is no exfiltration,
	// and a fork in one and a loop in another no fork bomb. What each finds is the
	// command's.
	writer := a.cmds[at]
	findings, accesses, opaque := slices.Clone(writer.Findings), slices.Clone(writer.Accesses), false
	for _, u := range units {
		c := &a.cmds[at]
		c.Findings, c.Accesses, c.Opaque = nil, nil, writer.Opaque
		a.inspected(at, lang, oneliner.InspectProgram(lang, u), cwd)
		c = &a.cmds[at] // nested commands may have grown a.cmds
		for _, f := range c.Findings {
			findings = appendFinding(findings, f.ID, f.Evidence)
		}
		accesses = append(accesses, c.Accesses...)
		opaque = opaque || c.Opaque
	}
	c := &a.cmds[at]
	c.Findings, c.Accesses, c.Opaque = findings, accesses, opaque
}

// inspected applies the result of inspecting interpreter code to the command at index at.
func (a *analyzer) inspected(at int, lang oneliner.Lang, res oneliner.Result, cwd dir) {
	for _, why := range res.Opaque {
		a.opaque(at, why)
		if slices.Contains(res.Computed, why) {
			c := &a.cmds[at]
			c.Findings = appendFinding(c.Findings, findComputedCode, why)
		}
	}
	c := &a.cmds[at]
	if len(res.Opaque) == 0 && lang != oneliner.Awk && !hasFinding(c.Findings, findOpaque) && !c.Dynamic {
		// The code was read to its end and nothing in it is computed at run time: its
		// accesses are all it touches, as for a program of the tables (rm -rf build). A
		// program known only at run time (PERL5DB=… $X) may be any program still.
		c.Opaque = false
	}
	for _, f := range res.Findings {
		c.Findings = appendFinding(c.Findings, f.ID, f.Evidence)
		if f.ID == findEnvDump {
			a.meta[at].out.t |= tEnvDump
		}
		if f.ID == findCredentialsRead {
			a.meta[at].out.t |= tSecret // a keyring or browser store read by a library
		}
	}
	home, _ := a.st.get("HOME")
	resolve := func(p string) (string, bool) {
		if p == "~" && home.known {
			return home.s, true
		}
		if rest, ok := strings.CutPrefix(p, "~/"); ok && home.known {
			p = home.s + "/" + rest
		}
		abs, ok, _ := a.resolve(p, cwd)
		return abs, ok
	}
	for _, d := range res.Deletes {
		if windowsPath(d.Path) {
			// Remove-Item -Recurse C:\Users\me: a path of a Windows machine, which no
			// rule's path names; judged as a delete of a path moat cannot place.
			a.opaque(at, "deletes a Windows path moat cannot place: "+shorten(d.Path))
			if d.Recursive {
				c.Findings = appendFinding(c.Findings, findRecursiveDelete, d.Path)
			}
			continue
		}
		if p, ok := resolve(d.Path); ok {
			if d.Entries != "" {
				// The entries a listing gave: the directory's own stays (rm -rf DIR/*).
				p = path.Join(p, d.Entries)
			}
			c.Accesses = append(c.Accesses, call.Access{Kind: call.Delete, Path: p, Recursive: d.Recursive, Glob: d.Entries != ""})
			if d.Recursive {
				c.Findings = appendFinding(c.Findings, findRecursiveDelete, p)
			}
		}
	}
	for _, r := range res.Reads {
		if windowsPath(r) {
			a.opaque(at, "reads a Windows path moat cannot place: "+shorten(r))
			continue
		}
		if p, ok := resolve(r); ok {
			c.Accesses = append(c.Accesses, call.Access{Kind: call.Read, Path: p})
		}
	}
	for _, r := range res.Trees {
		if windowsPath(r) {
			a.opaque(at, "reads a Windows path moat cannot place: "+shorten(r))
			continue
		}
		if p, ok := resolve(r); ok {
			c.Accesses = append(c.Accesses, call.Access{Kind: call.Read, Path: p, Recursive: true})
		}
	}
	for _, w := range res.Writes {
		if windowsPath(w) {
			a.opaque(at, "writes a Windows path moat cannot place: "+shorten(w))
			continue
		}
		if p, ok := resolve(w); ok {
			c.Accesses = append(c.Accesses, call.Access{Kind: call.Write, Path: p})
		}
	}
	a.pathFindings(c)
	if a.sh.env.Sensitive != nil {
		for _, acc := range c.Accesses {
			if acc.Kind == call.Read && a.sh.env.Sensitive(acc) {
				c.Findings = appendFinding(c.Findings, findCredentialsRead, acc.Path)
				a.meta[at].out.t |= tSecret
				a.meta[at].secretRead = true
			}
		}
	}
	if res.Sends || res.Network && len(res.URLHosts) > 0 {
		// Posting what it read, or putting it in a URL it requests: either way it leaves.
		secret := hasFinding(c.Findings, findEnvDump)
		for _, acc := range c.Accesses {
			if acc.Kind == call.Read && a.sh.env.Sensitive != nil && a.sh.env.Sensitive(acc) {
				secret = true
			}
		}
		if secret {
			c.Findings = appendFinding(c.Findings, findExfiltration, "the code sends credentials or the environment over the network")
		}
		for _, acc := range c.Accesses {
			if acc.Kind != call.Read || !acc.Recursive || secret {
				continue
			}
			if what := a.treeLeaving(at, acc.Path); what != "" {
				c.Findings = appendFinding(c.Findings, findUpload, "the code reads "+what+" and sends data over the network")
				break
			}
		}
	}
	if e := secretEnvSent(res); e != "" {
		c.Findings = appendFinding(c.Findings, findExfiltration, e)
	}
	first := len(a.cmds)
	if len(res.Shell) > 0 {
		// The commands the code runs, one after another, read as one script: what one
		// downloads and the next runs is a download run (PowerShell's curl -o x.ps1;
		// ./x.ps1), as in a shell line.
		a.nested(at, strings.Join(res.Shell, "\n"), cwd, false)
	}
	if res.Sends || res.Network && res.URLHosts != nil {
		// `cat ~/.ssh/id_rsa` run by code that then posts: what its commands read is sent.
		for k := first; k < len(a.cmds); k++ {
			if hasFinding(a.cmds[k].Findings, findCredentialsRead) || hasFinding(a.cmds[k].Findings, findEnvDump) {
				a.cmds[at] = withFinding(a.cmds[at], findExfiltration, "the code sends what "+a.cmds[k].Name+" reads over the network")
				break
			}
		}
	}
}

// windowsPath reports whether p is an absolute path of Windows: a drive's (C:\Users,
// D:/data, C: alone) or a share's (\\server\share).
func windowsPath(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return true
	}
	if len(p) < 2 || p[1] != ':' || !('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') {
		return false
	}
	return len(p) == 2 || p[2] == '\\' || p[2] == '/'
}

// nested analyses shell code that the command at index at runs, one level deeper, and
// adds the commands it runs after it. Findings about the code as a whole (it does not
// parse, it nests too deep) become the command's.
func (a *analyzer) nested(at int, code string, cwd dir, remote bool) {
	a.nestedWith(at, code, cwd, remote, nil)
}

// nestedWith is nested with positional parameters for the code.
func (a *analyzer) nestedWith(at int, code string, cwd dir, remote bool, params map[string]string) {
	c := &a.cmds[at]
	if a.depth+1 >= maxDepth {
		c.Findings = appendFinding(c.Findings, findTooDeep, fmt.Sprintf("shell code nested more than %d levels deep", maxDepth))
		return
	}
	if !a.spendNested(len(code)) {
		c.Findings = appendFinding(c.Findings, findTooDeep, "too much nested code to analyse")
		return
	}
	if a.sh.commands >= maxAnalysedCommands {
		c.Findings = appendFinding(c.Findings, findTooComplex, fmt.Sprintf("the line and the code it runs hold more than %d commands; lines of at most %d are analysed", maxAnalysedCommands, maxAnalysedCommands))
		return
	}
	if strings.TrimSpace(code) == "" {
		return
	}
	start := value{}
	if cwd.known {
		start = value{cwd.path, true}
	}
	if remote {
		a.sh.remote++
	}
	sub := analyze(code, start, a.sh, a.depth+1, params)
	if remote {
		a.sh.remote--
	}
	c = &a.cmds[at]
	for _, f := range sub.Findings {
		c.Findings = appendFinding(c.Findings, f.ID, f.Evidence)
	}
	a.meta[at].out.t |= sub.out
	for _, sc := range sub.Commands {
		if !cwd.known && !remote {
			sc.Opaque = sc.Opaque || hasRelative(sc)
		}
		a.cmds = append(a.cmds, sc)
		a.meta = append(a.meta, cmdMeta{prog: canonicalProgram(sc.Name), nested: true, at: a.meta[at].at})
	}
}

func hasRelative(c call.Command) bool {
	for _, o := range c.Operands {
		if !path.IsAbs(o) {
			return true
		}
	}
	return false
}

// spendNested takes n bytes from the budget of code all levels of one line may parse.
func (a *analyzer) spendNested(n int) bool {
	if n > a.sh.budget {
		a.sh.budget = 0
		return false
	}
	a.sh.budget -= n
	return true
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// secretName matches environment variable names that say they hold a secret. It is
// compiled on first use, so that a process that analyses no shell command does not pay.
var secretName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|AUTH_KEY|SESSION_KEY|_PAT$|^PAT_)`)
})

// readsSecretValue reports whether a parameter expansion gives the value of a variable
// named as a secret: not its length (${#TOKEN}), not a word in its stead (${TOKEN:+set}).
func readsSecretValue(p *syntax.ParamExp) bool {
	if p.Param == nil || p.Length || p.Excl || p.Names != 0 {
		return false
	}
	if p.Exp != nil && (p.Exp.Op == syntax.AlternateUnset || p.Exp.Op == syntax.AlternateUnsetOrNull) {
		return false
	}
	return secretName().MatchString(p.Param.Value) && !notSecretName(p.Param.Value)
}

// notSecretName are names that match secretName but hold no secret themselves.
func notSecretName(n string) bool {
	u := strings.ToUpper(n)
	for _, suffix := range []string{"_FILE", "_PATH", "_DIR", "_URL", "_URI", "_ID", "_NAME", "_TYPE", "_HOST", "_ENDPOINT", "_SOCK", "_EXPIRY", "_EXPIRES"} {
		if strings.HasSuffix(u, suffix) {
			return true
		}
	}
	return u == "AWS_ACCESS_KEY_ID" || u == "SSH_AUTH_SOCK"
}

// printers print their arguments.
var printers = map[string]bool{"echo": true, "printf": true, "print": true, "printenv": true}

// wordFindings notes, for dataflow and as findings, what a command's words read at run
// time: secret environment variables and command substitutions.
func (a *analyzer) wordFindings(m *cmdMeta, words []*syntax.Word, fs []call.Finding) []call.Finding {
	for _, w := range words {
		if w == nil {
			continue
		}
		if len(w.Parts) == 1 {
			switch w.Parts[0].(type) {
			case *syntax.Lit, *syntax.SglQuoted:
				continue // nothing in it is read at run time
			}
		}
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ParamExp:
				if n.Param != nil && !n.Length {
					for _, s := range a.varSubsts[n.Param.Value] {
						// The variable holds what a substitution printed: the command uses it.
						m.substs = append(m.substs, s)
						if m.viaVar == nil {
							m.viaVar = make(map[syntax.Node]*syntax.Word)
						}
						m.viaVar[s] = w
					}
				}
				if readsSecretValue(n) {
					if v, _ := a.st.get(n.Param.Value); !v.known {
						if printers[m.prog] || downloaders()[m.prog] || m.netArgs {
							// Printed into the agent's context, or sent: worth a flag. Only
							// tested or passed to a program, it is not.
							fs = appendFinding(fs, findSecretEnv, "$"+n.Param.Value)
						}
						m.secretArgs = true
						m.secretWords = append(m.secretWords, w)
						m.secretVars = append(m.secretVars, n.Param.Value)
						if printers[m.prog] && m.prog != "printenv" {
							m.showsSecret, m.shownVar = true, "$"+n.Param.Value
						}
					}
				}
			case *syntax.CmdSubst, *syntax.ProcSubst:
				m.substs = append(m.substs, n)
				return false
			}
			return true
		})
	}
	return fs
}

// settingFindings reports assignments that change where packages come from, which
// certificates are trusted, or switch off shell history: GOPROXY=… go get,
// env NODE_TLS_REJECT_UNAUTHORIZED=0 npm i, HISTFILE=/dev/null. A value computed at run
// time counts as empty.
func (a *analyzer) settingFindings(env []envAssign, fs []call.Finding) []call.Finding {
	for _, x := range env {
		name := x.name
		val := x.val.lit
		if x.val.dynamic {
			val = ""
		}
		lower := strings.ToLower(name)
		if proxyVar(lower) {
			if why := proxyRisk(x.val); why != "" {
				fs = appendFinding(fs, findRegistry, name+"="+shorten(x.val.lit)+": "+why)
			}
			continue
		}
		if caBundleVar(lower) {
			if why := caBundleRisk(x.val); why != "" {
				fs = appendFinding(fs, findRegistry, name+"="+shorten(x.val.lit)+": "+why)
			}
			continue
		}
		switch strings.ToUpper(name) {
		case "HISTFILE":
			if val == "" || val == "/dev/null" {
				fs = appendFinding(fs, findLogTamper, name+"="+val)
			}
		case "HISTSIZE", "HISTFILESIZE", "SAVEHIST":
			if val == "0" || val == "" {
				fs = appendFinding(fs, findLogTamper, name+"="+val)
			}
		default:
			if registrySetting(lower, val, x.val.dynamic) {
				fs = appendFinding(fs, findRegistry, name+"="+val)
			}
		}
	}
	return fs
}

// allSettings keeps every variable of a command's environment (commandEnv).
func allSettings(string) bool { return true }

// hdocFlow is what a here-document or here-string feeds a command: its text when it can be
// known (a quoted delimiter, or only known variables in it).
func (a *analyzer) hdocFlow(w *syntax.Word, hereString bool) flowVal {
	if w == nil {
		return flowVal{known: true}
	}
	var v flowVal
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.CmdSubst:
			v.substs = append(v.substs, p)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if c, ok := q.(*syntax.CmdSubst); ok {
					v.substs = append(v.substs, c)
				}
			}
		}
	}
	if a.secretParams(w) {
		// nc host <<< "$AWS_SECRET_ACCESS_KEY": the text fed is a secret.
		v.t |= tSecret
	}
	if hereString {
		fields := a.expand(a.rargs[:0], w, true)
		a.rargs = fields[:0]
		if len(fields) == 1 && !fields[0].dynamic {
			v.text, v.known = fields[0].lit+"\n", true
		}
		return v
	}
	text, ok := a.heredocText(w)
	v.text, v.known = text, ok
	return v
}

// heredocText expands a here-document body: parameters are expanded (when known), and
// nothing else is; command substitutions make it unknown.
func (a *analyzer) heredocText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.ParamExp:
			v, ok := a.param(p, true)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		default:
			return "", false
		}
		if b.Len() > MaxInput {
			return "", false
		}
	}
	return b.String(), true
}

// fileTaint is what reading a file brings into a pipeline.
func (a *analyzer) fileTaint(acc call.Access) taint {
	if a.sh.env.Sensitive != nil && a.sh.env.Sensitive(acc) {
		return tSecret
	}
	if strings.HasPrefix(acc.Path, "/proc/") && strings.HasSuffix(acc.Path, "/environ") {
		return tEnvDump
	}
	if endlessDevice(acc.Path) {
		return tEndless
	}
	return 0
}

// inheritStdin gives the command just emitted for a container the standard input of the
// command that runs it: `docker exec -i db psql <<< 'DROP TABLE t'` feeds psql the
// here-string, and `… | kubectl exec -i pod -- sh` the pipe.
func (a *analyzer) inheritStdin(at int) {
	if len(a.meta) <= at+1 {
		return
	}
	from, to := &a.meta[at], &a.meta[len(a.meta)-1]
	to.ownStdin, to.stdin, to.piped, to.in = from.ownStdin, from.stdin, from.piped, from.in
}

// maxUnrolled bounds the loops analysed once per value: a few literal values, a short body.
const (
	maxUnrolledItems = 8
	maxUnrolledBody  = 4 << 10
)

// unroll analyses the body of `for v in WORDS; do BODY; done` once for each value, when the
// words are a few literal values: the walk sees the body once with v unknown (it takes
// several values), so `for d in /etc /usr; do rm -rf $d; done` would only ask. Each
// iteration is analysed as the code `v=VALUE; BODY`, one level deeper.
//
// It reports whether every value was analysed, and what the copies print: the loop's
// output, which the copies, analysed apart, do not pipe anywhere themselves.
func (a *analyzer) unroll(fc *syntax.ForClause) (taint, bool) {
	wi, ok := fc.Loop.(*syntax.WordIter)
	if !ok || wi.Name == nil || !wi.InPos.IsValid() || len(wi.Items) == 0 || len(wi.Items) > maxUnrolledItems || len(fc.Do) == 0 {
		return 0, false
	}
	var values []string
	for _, w := range wi.Items {
		x, ok := plainWord(w)
		switch {
		case ok && !x.dynamic && !x.glob:
			values = append(values, shellQuote(x.lit))
		case unquotedPattern(w) != "":
			// for f in ~/.ssh/id_*: the variable takes each path the pattern matches;
			// assigned the pattern unquoted, it expands to them where it is used.
			values = append(values, unquotedPattern(w))
		default:
			return 0, false
		}
	}
	start, end := fc.Do[0].Pos(), fc.Do[len(fc.Do)-1].End()
	if !start.IsValid() || !end.IsValid() || end.Offset() > uint(len(a.line)) || start.Offset() >= end.Offset() {
		return 0, false
	}
	body := a.line[start.Offset():end.Offset()]
	if len(body) > maxUnrolledBody || a.depth+1 >= maxDepth {
		return 0, false
	}
	cwd := a.cwd()
	startDir := value{}
	if cwd.known {
		startDir = value{cwd.path, true}
	}
	var out taint
	for _, v := range values {
		code := wi.Name.Value + "=" + v + "\n" + body
		if !a.spendNested(len(code)) {
			return 0, false
		}
		sub := analyze(code, startDir, a.sh, a.depth+1, nil)
		out |= sub.out
		for _, sc := range sub.Commands {
			a.cmds = append(a.cmds, sc)
			a.meta = append(a.meta, cmdMeta{prog: canonicalProgram(sc.Name), nested: true, at: a.at})
		}
	}
	return out, true
}

// unrolledOpacity drops the opacity findings of the commands of a loop body's own walk,
// from generic on, when no copy analysed with a value (from unrolled to generic) has one.
// The copies see each value the variable takes, the walk sees the variable unknown and
// the line around the loop known; the copies, analysed apart, know less of that line, so
// what the walk alone cannot see through is the variable, whose every value was judged
// (for d in api web; do (cd $d && npm test); done). Its other findings stay.
func (a *analyzer) unrolledOpacity(unrolled, generic int, loopVar string) {
	if slices.ContainsFunc(a.cmds[unrolled:generic], func(c call.Command) bool { return hasFinding(c.Findings, findOpaque) }) {
		return
	}
	for k := generic; k < len(a.cmds); k++ {
		c := &a.cmds[k]
		c.Findings = dropFinding(c.Findings, findOpaque)
		if name := strings.Trim(c.Name, `"`); c.Dynamic && (name == "$"+loopVar || name == "${"+loopVar+"}") {
			// A program named by the variable alone (for t in go cargo; do $t build;
			// done) is each value's program, judged in the copies: no longer a program
			// known only at run time. One computed otherwise (0$t, $t$x) stays one.
			c.Dynamic = false
			c.Findings = dropFinding(c.Findings, findDynamicCommand)
		}
	}
}

// unrolledOutput adds what a loop's copies print, out, to the output of the first command
// of its body's own walk, from generic on, which stands for the loop where its output
// goes (for f in notes .ssh/id_rsa; do cat ~/$f; done | curl -d @- URL).
func (a *analyzer) unrolledOutput(generic int, out taint) {
	for k := generic; k < len(a.meta); k++ {
		if !a.meta[k].nested {
			a.meta[k].out.t |= out
			return
		}
	}
}

// unquotedPattern returns the text of a word made only of unquoted literals with a glob
// or a leading tilde and nothing else that expands (~/.ssh/id_*, /proc/[0-9]*), or "".
func unquotedPattern(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return ""
		}
		b.WriteString(l.Value)
	}
	v := b.String()
	if v == "" || strings.ContainsAny(v, "\\{}$`'\"") || !isPattern(v) && !strings.HasPrefix(v, "~") {
		return ""
	}
	return v
}

// shellQuote quotes s as one shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
