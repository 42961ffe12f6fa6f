package shell

import (
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// This file follows the shell's own ways of turning a string into code, besides eval and
// sh -c (code.go): a trap's action, an alias used after it is defined, prompt expansion
// (${x@P}), array subscripts that bash evaluates when it reads a name or an arithmetic
// expression out of a string ([[ -v 'a[$(…)]' ]], unset 'a[$(…)]', $(( x )) with x holding
// a subscript), and files sourced into the shell. What is written in the line is analysed as
// the code it is; a sourced file moat cannot read is opaque, unless it is the project's, the
// system's or one of the environment set-up scripts every developer sources.

// trapCode: trap ACTION SIGNAL… runs ACTION, shell code, when a signal comes or the shell
// exits; trap - SIGNAL and trap ” SIGNAL reset or ignore it.
func (a *analyzer) trapCode(at int, ops []arg, cwd dir) {
	if len(ops) < 2 {
		return // trap SIGNAL resets it; trap alone lists the traps
	}
	action := ops[0]
	if !action.dynamic && (action.lit == "-" || strings.TrimSpace(action.lit) == "" || isDescriptor(action.lit)) {
		return
	}
	a.runCode(at, codeRef{code: action, kind: codeShell, carrier: "trap"}, cwd)
}

// defineAlias records an alias defined in the line, so that a later use of its name is
// analysed as the text it stands for.
func (a *analyzer) defineAlias(name, value string) {
	if a.sh.aliases == nil {
		a.sh.aliases = make(map[string]string)
	}
	a.sh.aliases[name] = value
}

// aliasUse analyses a command whose first word is an alias defined earlier in the line: bash
// replaces the word by the alias's text (in an interactive shell, and in a script after
// shopt -s expand_aliases, from the next line on), so `x ~` after alias x='rm -rf' is
// rm -rf ~. When the text ends with a blank, the next word is expanded too (alias
// sudo='sudo '). A quoted or escaped word is not an alias, and an alias is not expanded
// again inside its own text.
func (a *analyzer) aliasUse(at int, ce *syntax.CallExpr, cwd dir) {
	if ce == nil || len(ce.Args) == 0 || len(a.sh.aliases) == 0 || len(ce.Assigns) > 0 {
		return
	}
	var text strings.Builder
	n := 0
	for _, w := range ce.Args {
		value, ok := a.aliasOf(w)
		if !ok {
			break
		}
		text.WriteString(value)
		n++
		if !strings.HasSuffix(value, " ") && !strings.HasSuffix(value, "\t") {
			break
		}
	}
	if n == 0 {
		return
	}
	if from, end := ce.Args[n-1].End(), ce.Args[len(ce.Args)-1].End(); from.IsValid() && end.IsValid() && from.Offset() <= end.Offset() && end.Offset() <= uint(len(a.line)) {
		text.WriteString(a.line[from.Offset():end.Offset()])
	}
	mark := len(a.sh.expanding)
	for _, w := range ce.Args[:n] {
		a.sh.expanding = append(a.sh.expanding, w.Lit())
	}
	a.nested(at, text.String(), cwd, false)
	a.sh.expanding = a.sh.expanding[:mark]
}

// aliasOf returns the text of the alias a word names: an unquoted, unescaped word that is an
// alias the line defined, and not one being expanded.
func (a *analyzer) aliasOf(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.Contains(l.Value, `\`) {
		return "", false
	}
	value, ok := a.sh.aliases[l.Value]
	if !ok || slices.Contains(a.sh.expanding, l.Value) {
		return "", false
	}
	return value, true
}

// tableAssigns returns the code that assignments to bash's own tables define: an element of
// BASH_ALIASES is an alias (BASH_ALIASES[x]='rm -rf' makes `x ~` rm -rf ~), an element of
// BASH_CMDS the program a command name runs (BASH_CMDS[ls]=/tmp/x makes ls run /tmp/x).
func (a *analyzer) tableAssigns(as []*syntax.Assign) []codeRef {
	var refs []codeRef
	for _, x := range as {
		if x.Name == nil || x.Name.Value != "BASH_ALIASES" && x.Name.Value != "BASH_CMDS" {
			continue
		}
		type elem struct {
			key *syntax.Word
			val *syntax.Word
		}
		var elems []elem
		if w, ok := x.Index.(*syntax.Word); ok {
			elems = append(elems, elem{w, x.Value})
		}
		if x.Array != nil {
			for _, e := range x.Array.Elems {
				if w, ok := e.Index.(*syntax.Word); ok {
					elems = append(elems, elem{w, e.Value})
				}
			}
		}
		for _, e := range elems {
			val := a.assignArg(e.val)
			if x.Name.Value == "BASH_CMDS" {
				refs = append(refs, codeRef{code: val, kind: codeProgram, carrier: "BASH_CMDS[" + a.source(e.key) + "]"})
				continue
			}
			refs = append(refs, codeRef{code: val, kind: codeShell, carrier: "BASH_ALIASES", direct: true})
			if key, ok := a.assignValue(e.key); ok && !val.dynamic {
				a.defineAlias(key, val.lit)
			}
		}
	}
	return refs
}

// subscriptCode returns the text bash expands, when it evaluates s as a variable name or an
// arithmetic expression, inside the array subscripts of s that hold a substitution: for
// `a[$(rm -rf ~)]`, `$(rm -rf ~)`. It returns "" when no subscript runs anything.
func subscriptCode(s string) string {
	if len(s) > maxEvaluatedString || !strings.Contains(s, "[") || !strings.ContainsAny(s, "$`") {
		return ""
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '[')
		if i < 0 {
			break
		}
		depth, j := 0, i
		for ; j < len(s); j++ {
			if s[j] == '[' {
				depth++
			} else if s[j] == ']' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		sub := s[i+1 : min(j, len(s))]
		if strings.Contains(sub, "$(") || strings.Contains(sub, "`") || strings.Contains(sub, "<(") {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(sub)
		}
		if j >= len(s) {
			break
		}
		s = s[j+1:]
	}
	return b.String()
}

// maxEvaluatedString bounds the strings read for subscripts and prompt expansions: names and
// expressions are short, and a long value read at every use of a variable would cost the
// analysis more than a hook may spend.
const maxEvaluatedString = 4 << 10

// evaluatedNames are, per builtin, the arguments it reads as variable names, whose
// subscripts bash evaluates: every operand (""), or the value of an option ("v" for
// printf -v). let evaluates each operand as an arithmetic expression, subscripts included.
// The declaration builtins are DeclClauses, judged by declNames.
var evaluatedNames = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"unset": "", "read": "", "let": "", "mapfile": "", "readarray": "", "getopts": "",
		"printf": "v", "wait": "p", "test": "v", "[": "v",
	}
})

// nameStrings queues the code in the subscripts of the names a builtin evaluates:
// unset 'a[$(rm -rf ~)]', printf -v 'a[$(…)]', test -v 'a[$(…)]'. For test and [, the
// names are the operands of -v.
func (a *analyzer) nameStrings(m *cmdMeta, prog string, args []arg) {
	opt, ok := evaluatedNames()[prog]
	if !ok {
		return
	}
	for i, x := range args {
		var name arg
		switch {
		case opt == "":
			name = x
		case x.lit == "-"+opt && i+1 < len(args) && !x.dynamic:
			name = args[i+1]
		default:
			continue
		}
		if name.dynamic {
			continue
		}
		if code := subscriptCode(name.lit); code != "" {
			m.laterCode = append(m.laterCode, codeRef{code: arg{lit: code}, kind: codeText, carrier: "the array subscript in " + prog + " " + shorten(name.lit)})
		}
	}
}

// evalStrings finds, in a construct the walk is entering, the strings bash turns into code
// at run time: ${x@P}, names tested with [[ -v ]], arithmetic on variables whose value holds
// a subscript. It returns the code, as text to expand; dynamic when only known at run time.
func (a *analyzer) evalStrings(n syntax.Node) []arg {
	var out []arg
	add := func(s string) {
		if s != "" {
			out = append(out, arg{lit: s})
		}
	}
	// value returns a name's known value, for arithmetic: bash evaluates a variable's value
	// as an expression in its turn.
	value := func(name string) string {
		// A value that is itself a name is evaluated in its turn (y=x; $(( y ))).
		for depth := 0; depth < 4 && name != ""; depth++ {
			v, _ := a.st.get(name)
			if !v.known || len(v.s) > maxEvaluatedString {
				return ""
			}
			if code := subscriptCode(v.s); code != "" {
				return code
			}
			next := strings.TrimSpace(v.s)
			if varName(next) != next {
				return ""
			}
			name = next
		}
		return ""
	}
	arith := func(x syntax.ArithmExpr) {
		syntax.Walk(x, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				return false
			case *syntax.Word:
				if l := n.Lit(); l != "" {
					add(value(varName(l)))
				}
			case *syntax.ParamExp:
				if n.Param != nil {
					add(value(n.Param.Value))
				}
			}
			return true
		})
	}
	switch n := n.(type) {
	case *syntax.ParamExp:
		if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && n.Exp.Word.Lit() == "P" && n.Param != nil {
			// ${x@P} expands x's value as a prompt string, running its substitutions.
			if v, _ := a.st.get(n.Param.Value); v.known {
				if len(v.s) > maxEvaluatedString {
					out = append(out, arg{lit: "${" + n.Param.Value + "@P}", dynamic: true})
				} else if strings.ContainsAny(v.s, "$`") {
					add(v.s)
				}
			} else {
				out = append(out, arg{lit: "${" + n.Param.Value + "@P}", dynamic: true})
			}
		}
		if n.Excl && n.Param != nil {
			add(value(n.Param.Value)) // ${!x}: x names the variable, subscript included
		}
		if n.Index != nil {
			arith(n.Index)
		}
	case *syntax.ArithmExp:
		arith(n.X)
	case *syntax.ArithmCmd:
		arith(n.X)
	case *syntax.LetClause:
		for _, x := range n.Exprs {
			if w, ok := x.(*syntax.Word); ok && w.Lit() == "" {
				// let 'a[$(…)]=1': a quoted expression, which let evaluates as it reads it.
				add(a.wordSubscript(w, true))
				continue
			}
			arith(x)
		}
	case *syntax.TestClause:
		syntax.Walk(n.X, func(t syntax.Node) bool {
			switch t := t.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				return false
			case *syntax.UnaryTest:
				if t.Op == syntax.TsVarSet {
					if w, ok := t.X.(*syntax.Word); ok {
						add(a.wordSubscript(w, false))
					}
				}
			case *syntax.BinaryTest:
				switch t.Op {
				case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
					// Both sides are arithmetic expressions.
					for _, side := range []syntax.TestExpr{t.X, t.Y} {
						if w, ok := side.(*syntax.Word); ok {
							add(a.wordSubscript(w, true))
						}
					}
				}
			}
			return true
		})
	}
	return out
}

// wordSubscript is the subscript code of a word read as a name (-v) or, when arithmetic is
// set, as an arithmetic expression: its literal text, the known value of the variable it
// expands, and in arithmetic the known value of the variable it names.
func (a *analyzer) wordSubscript(w *syntax.Word, arithmetic bool) string {
	x, ok := plainWord(w)
	if !ok {
		if fields := a.expand(nil, w, true); len(fields) == 1 {
			x, ok = fields[0], true
		}
	}
	if ok && !x.dynamic {
		if code := subscriptCode(x.lit); code != "" {
			return code
		}
		name := varName(x.lit)
		if arithmetic && name == x.lit && name != "" {
			if v, _ := a.st.get(name); v.known {
				return subscriptCode(v.s)
			}
		}
		return ""
	}
	if len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Param != nil {
			if v, _ := a.st.get(p.Param.Value); v.known {
				return subscriptCode(v.s)
			}
		}
	}
	return ""
}

// evaluated emits a command standing for a construct whose strings run code, and analyses
// the code after it.
func (a *analyzer) evaluated(n syntax.Node, label string) {
	codes := a.evalStrings(n)
	if len(codes) == 0 {
		return
	}
	a.emit(call.Command{Name: label}, cmdMeta{prog: label})
	at := len(a.cmds) - 1
	cwd := a.cwd()
	for _, c := range codes {
		a.runCode(at, codeRef{code: c, kind: codeText, carrier: label}, cwd)
	}
}

// sourceScripts are the environment set-up scripts that developers source as a matter of
// course: a virtual environment's activate script, version managers' init scripts, the
// user's own shell startup files. Patterns match the end of the path (or the whole path when
// they start with / or ~/).
var sourceScripts = sync.OnceValue(func() []string {
	return []string{
		"/bin/activate", "/Scripts/activate", "/bin/activate.fish", "/bin/activate.csh",
		"/nvm.sh", "/.nvm/bash_completion", "/.cargo/env", "/.ghcup/env", "/.sdkman/bin/sdkman-init.sh",
		"/etc/profile.d/conda.sh", "/etc/profile.d/mamba.sh", "/.rvm/scripts/rvm", "/asdf.sh", "/.asdf/asdf.sh",
		"/google-cloud-sdk/path.bash.inc", "/google-cloud-sdk/completion.bash.inc", "/emsdk_env.sh",
		"/.deno/env", "/.local/bin/env", "/setup.bash", "/setup.zsh", "/setvars.sh", "/.venv/bin/activate",
		"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile", "~/.zshrc", "~/.zprofile", "~/.zshenv",
		"~/.bash_aliases",
	}
})

// trustedSource reports whether a file sourced into the shell is one that is run as a
// matter of course: the system's, or a well-known set-up script.
func (a *analyzer) trustedSource(p string) bool {
	if systemPath(p) {
		return true
	}
	home := a.st.home // the user's, whatever the line did to $HOME
	for _, s := range sourceScripts() {
		if rest, ok := strings.CutPrefix(s, "~/"); ok {
			if home.known && p == home.s+"/"+rest {
				return true
			}
			continue
		}
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// setupScript reports whether the file a source command names first is a well-known
// set-up script (trustedSource, trustedSourceWord) other than a shell startup file, which
// may do anything, cd included, or a project's .env, which sets variables.
func (a *analyzer) setupScript(ops []arg, cwd dir) bool {
	if len(ops) == 0 {
		return false
	}
	if ops[0].dynamic {
		return a.trustedSourceWord(ops[0].word)
	}
	p, ok, _ := a.resolve(a.tildePath(ops[0].lit), cwd)
	if !ok || systemPath(p) {
		return false
	}
	if home := a.st.home; home.known && strings.HasPrefix(p, home.s+"/.") && !strings.Contains(strings.TrimPrefix(p, home.s+"/"), "/") {
		return false // ~/.bashrc and the other startup files are the user's own code
	}
	if base := path.Base(p); base == ".env" || strings.HasPrefix(base, ".env.") {
		return true // a project's .env sets variables (allow-env-file-loading)
	}
	return a.trustedSource(p)
}

// trustedSourceWord is trustedSource for a computed path, by what is written of it:
// . "$NVM_DIR/nvm.sh" is nvm's script wherever nvm lives.
func (a *analyzer) trustedSourceWord(w *syntax.Word) bool {
	if w == nil || len(w.Parts) == 0 {
		return false
	}
	var tail string
	switch p := w.Parts[len(w.Parts)-1].(type) {
	case *syntax.Lit:
		tail = p.Value
	case *syntax.DblQuoted:
		if len(p.Parts) > 0 {
			if l, ok := p.Parts[len(p.Parts)-1].(*syntax.Lit); ok {
				tail = l.Value
			}
		}
	}
	if !strings.HasPrefix(tail, "/") {
		return false
	}
	for _, s := range sourceScripts() {
		if !strings.HasPrefix(s, "~/") && strings.HasSuffix(tail, s) {
			return true
		}
	}
	return false
}

// setupGenerators are programs whose output is shell code that sets the environment up, which
// developers eval as a matter of course (eval "$(pyenv init -)"): per program, an operand
// that makes it print that code (minikube -p dev docker-env), "" when none is needed.
var setupGenerators = sync.OnceValue(func() map[string][]string {
	initCmd := []string{"init", "virtualenv-init"}
	return map[string][]string{
		"ssh-agent": {""}, "pyenv": initCmd, "rbenv": initCmd, "nodenv": initCmd, "goenv": initCmd, "jenv": initCmd,
		"plenv": initCmd, "phpenv": initCmd, "scalaenv": initCmd, "swiftenv": initCmd, "exenv": initCmd, "tfenv": initCmd, "direnv": {"hook", "export"}, "brew": {"shellenv"}, "dircolors": {""},
		"fnm": {"env", "completions"}, "zoxide": {"init"}, "starship": {"init", "completions"}, "mise": {"activate", "env", "hook-env"}, "rtx": {"activate"},
		"conda": {"shell.bash", "shell.zsh", "shell.posix"}, "micromamba": {"shell"}, "opam": {"env", "config"},
		"luarocks": {"path"}, "keychain": {""}, "thefuck": {""}, "register-python-argcomplete": {""},
		"atuin": {"init"}, "mcfly": {"init"}, "oh-my-posh": {"init"}, "fzf": {""}, "pixi": {"shell-hook", "completion"},
		"rustup": {"completions"}, "kubectl": {"completion"}, "helm": {"completion"}, "gh": {"completion", "alias"},
		"npm": {"completion"}, "pip": {"completion"}, "poetry": {"completions"}, "minikube": {"docker-env", "completion"},
		"docker-machine": {"env"}, "uv": {"generate-shell-completion"}, "path_helper": {""}, "hub": {"alias"},
		"lesspipe": {""}, "lessfile": {""}, "gpg-agent": {""}, "devbox": {"shellenv"}, "navi": {"widget"},
		"vfox": {"activate"}, "proto": {"activate", "completions"}, "sheldon": {"source"}, "jump": {"shell"},
		"scmpuff": {"init"}, "tmuxifier": {"init"}, "volta": {"completions"}, "deno": {"completions"},
		"bun": {"completions"}, "rye": {"completion"}, "zellij": {"setup"},
		// 1Password's CLI prints the export of its session token, for the shell to keep.
		"op": {"signin"},
	}
})

// setupGenerator reports whether the program, given these operands, prints set-up code.
func setupGenerator(prog string, operands []string) bool {
	subs, ok := setupGenerators()[prog]
	if !ok {
		return false
	}
	if slices.Contains(subs, "") {
		return true
	}
	for _, o := range operands {
		if slices.Contains(subs, o) {
			return true
		}
	}
	return false
}

// setupCode reports whether the substitutions a command runs as code are each one command
// that prints set-up code (setupGenerators), reading nothing the line gives it.
func (a *analyzer) setupCode(substs []syntax.Node) bool {
	if len(substs) == 0 {
		return false
	}
	for _, n := range substs {
		s, ok := a.substs[n]
		if !ok {
			return false
		}
		count := 0
		for j := s.start; j < s.end; j++ {
			if a.meta[j].nested {
				continue
			}
			count++
			m, c := &a.meta[j], &a.cmds[j]
			if !setupGenerator(m.prog, c.Operands) || m.piped || m.ownStdin && !m.stdin.known {
				return false
			}
		}
		if count != 1 {
			return false
		}
	}
	return true
}
