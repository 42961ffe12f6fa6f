package shell

import (
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// Editors run commands given on their command line: vim's -c, +CMD and --cmd are Ex
// commands, among which :!CMD, :r !CMD, :terminal and system() run shell commands, :py3
// and :lua run interpreter code, :w FILE writes; emacs's --eval is Lisp, whose process
// and file functions are followed when their arguments are written out.

// exKind is what an Ex command does, as far as the analysis cares.
type exKind uint8

const (
	exOther      exKind = iota // edits the buffer, moves, sets options…: nothing outside
	exRead                     // :r FILE reads, :r !CMD runs CMD
	exWrite                    // :w FILE writes, :w !CMD runs CMD
	exWriteFile                // :saveas FILE, :wq FILE, :mksession FILE…
	exRedir                    // :redir > FILE
	exTerminal                 // :terminal CMD
	exShell                    // :shell, an interactive shell
	exSource                   // :source FILE
	exRuntime                  // :runtime FILE, from the runtime path: the system's and plugins'
	exInterp                   // :py3 CODE, :lua CODE
	exInterpFile               // :py3file FILE
	exForeign                  // :tcl, :mzscheme: code moat does not read
	exExecute                  // :execute EXPR
	exNormal                   // :normal KEYS
	exModifier                 // :silent CMD, :bufdo CMD: the rest is a command
	exGlobal                   // :g/PAT/CMD
	exExpr                     // :call, :let, :echo: expressions, which may call system()
	exDefine                   // :autocmd, :command: the rest ends in a command run later
	exSubstitute               // :s/PAT/\=EXPR/
	exMake                     // :make, :grep: run 'makeprg', 'grepprg'
	exSet                      // :set: may name a program vim runs
	exSandbox                  // :sandbox CMD: CMD may not run programs or write files
)

// exCommand is an Ex command's full name, the shortest abbreviation vim accepts, what it
// does and, for interpreters, its language.
type exCommand struct {
	name string
	min  int
	kind exKind
	lang oneliner.Lang
}

// exCommands are the Ex commands that run code, write or read files, or prefix another
// command, in the order vim resolves abbreviations among them.
var exCommands = sync.OnceValue(func() []exCommand {
	return []exCommand{
		{"read", 1, exRead, ""}, {"write", 1, exWrite, ""}, {"wq", 2, exWriteFile, ""}, {"wnext", 2, exWriteFile, ""},
		{"xit", 1, exWriteFile, ""}, {"exit", 3, exWriteFile, ""}, {"update", 2, exWriteFile, ""}, {"saveas", 3, exWriteFile, ""},
		{"mksession", 3, exWriteFile, ""}, {"mkvimrc", 3, exWriteFile, ""}, {"mkview", 5, exWriteFile, ""},
		{"wviminfo", 2, exWriteFile, ""}, {"wshada", 3, exWriteFile, ""}, {"redir", 4, exRedir, ""},
		{"terminal", 3, exTerminal, ""}, {"shell", 2, exShell, ""}, {"source", 2, exSource, ""}, {"runtime", 2, exRuntime, ""},
		{"python", 2, exInterp, oneliner.Python}, {"py3", 3, exInterp, oneliner.Python}, {"python3", 7, exInterp, oneliner.Python},
		{"pyx", 3, exInterp, oneliner.Python}, {"pythonx", 7, exInterp, oneliner.Python}, {"pydo", 3, exInterp, oneliner.Python},
		{"py3do", 5, exInterp, oneliner.Python}, {"pyxdo", 5, exInterp, oneliner.Python},
		{"pyfile", 3, exInterpFile, ""}, {"py3file", 7, exInterpFile, ""}, {"pyxfile", 7, exInterpFile, ""},
		{"lua", 3, exInterp, oneliner.Lua}, {"luado", 4, exInterp, oneliner.Lua}, {"luafile", 4, exInterpFile, ""},
		{"perl", 2, exInterp, oneliner.Perl}, {"perldo", 5, exInterp, oneliner.Perl},
		{"ruby", 3, exInterp, oneliner.Ruby}, {"rubydo", 5, exInterp, oneliner.Ruby}, {"rubyfile", 5, exInterpFile, ""},
		{"tcl", 3, exForeign, ""}, {"tcldo", 4, exForeign, ""}, {"tclfile", 4, exForeign, ""},
		{"mzscheme", 2, exForeign, ""}, {"mzfile", 3, exForeign, ""},
		{"execute", 3, exExecute, ""}, {"normal", 4, exNormal, ""},
		{"global", 1, exGlobal, ""}, {"vglobal", 1, exGlobal, ""},
		{"call", 3, exExpr, ""}, {"let", 3, exExpr, ""}, {"echo", 2, exExpr, ""}, {"echomsg", 5, exExpr, ""},
		{"echon", 5, exExpr, ""}, {"echoerr", 5, exExpr, ""}, {"eval", 2, exExpr, ""}, {"if", 2, exExpr, ""},
		{"elseif", 5, exExpr, ""}, {"while", 2, exExpr, ""}, {"for", 3, exExpr, ""}, {"return", 3, exExpr, ""},
		{"autocmd", 2, exDefine, ""}, {"command", 3, exDefine, ""},
		{"substitute", 1, exSubstitute, ""}, {"make", 3, exMake, ""}, {"lmake", 4, exMake, ""},
		{"grep", 2, exMake, ""}, {"lgrep", 3, exMake, ""}, {"set", 2, exSet, ""}, {"setlocal", 4, exSet, ""},
		{"setglobal", 4, exSet, ""}, {"sandbox", 3, exSandbox, ""},
		{"silent", 3, exModifier, ""}, {"noautocmd", 3, exModifier, ""}, {"argdo", 5, exModifier, ""},
		{"bufdo", 5, exModifier, ""}, {"windo", 5, exModifier, ""}, {"tabdo", 5, exModifier, ""},
		{"cdo", 3, exModifier, ""}, {"cfdo", 3, exModifier, ""}, {"ldo", 3, exModifier, ""}, {"lfdo", 3, exModifier, ""},
		{"folddoopen", 5, exModifier, ""}, {"folddoclosed", 7, exModifier, ""},
		{"keepjumps", 5, exModifier, ""}, {"keeppatterns", 5, exModifier, ""}, {"keepalt", 5, exModifier, ""},
		{"keepmarks", 3, exModifier, ""}, {"lockmarks", 3, exModifier, ""}, {"vertical", 4, exModifier, ""},
		{"tab", 3, exModifier, ""}, {"botright", 2, exModifier, ""}, {"topleft", 2, exModifier, ""},
		{"leftabove", 5, exModifier, ""}, {"rightbelow", 6, exModifier, ""}, {"aboveleft", 3, exModifier, ""},
		{"belowright", 3, exModifier, ""}, {"hide", 3, exModifier, ""}, {"unsilent", 3, exModifier, ""},
		{"noswapfile", 3, exModifier, ""}, {"confirm", 4, exModifier, ""}, {"browse", 3, exModifier, ""},
		{"verbose", 4, exModifier, ""},
	}
})

// vimFunctions are the functions of Vim script that run programs (their first argument,
// a string, is a shell command line) or do what moat does not follow (a string evaluated
// as code, a file deleted or written, keys typed).
var vimFunctions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"system": true, "systemlist": true, "jobstart": true, "job_start": true, "termopen": true, "term_start": true,
		"delete": false, "writefile": false, "rename": false, "execute": false, "eval": false, "luaeval": false,
		"py3eval": false, "pyeval": false, "pyxeval": false, "perleval": false, "rubyeval": false, "libcall": false,
		"libcallnr": false, "chansend": false, "feedkeys": false, "mkdir": false, "setfperm": false, "function": false,
		"funcref": false, "call": false, "timer_start": false, "rpcrequest": false, "rpcnotify": false,
	}
})

// vimProgramOptions are the options that name a program vim runs (:set makeprg=…).
var vimProgramOptions = []string{"shell", "sh", "makeprg", "mp", "grepprg", "gp", "keywordprg", "kp", "equalprg", "ep",
	"formatprg", "fp", "diffexpr", "dex", "patchexpr", "pex", "shellcmdflag", "shcf", "charconvert", "ccv",
	"printexpr", "pexpr", "includeexpr", "inex", "foldexpr", "fde", "indentexpr", "inde", "formatexpr", "fex", "tagfunc", "tfu"}

// maxExDepth bounds how deep Ex commands nest (:silent :g/x/ :execute …).
const maxExDepth = 8

// vimArgs reads vim's command line: -c CMD, +CMD and --cmd CMD are Ex commands; -S FILE
// and -u FILE source files; -s FILE types the keys in a file; -e and -E (and ex) read Ex
// commands on standard input when it is not a terminal.
func (a *analyzer) vimArgs(x *execCall) bool {
	at, cwd := x.at, x.cwd
	exMode := x.prog == "ex"
	carrier := x.prog
	for i := 0; i < len(x.rest); i++ {
		w := x.rest[i]
		next := func() (arg, bool) {
			if i+1 < len(x.rest) {
				i++
				return x.rest[i], true
			}
			return arg{}, false
		}
		if w.dynamic {
			if strings.HasPrefix(w.lit, "+") || strings.HasPrefix(w.lit, "-") {
				a.opaque(at, carrier+" is given an option computed at run time: "+shorten(w.lit))
			}
			continue
		}
		s := w.lit
		switch {
		case s == "--":
			i = len(x.rest)
		case strings.HasPrefix(s, "+"):
			if cmd := s[1:]; cmd != "" && !isDigits(cmd) && cmd[0] != '/' {
				a.exLine(at, cmd, cwd, carrier+" +", 0)
			}
		case s == "--cmd":
			if v, ok := next(); ok {
				a.exArg(at, v, cwd, carrier+" --cmd")
			}
		case s == "--remote-send" || s == "--remote-expr":
			if v, ok := next(); ok {
				a.opaque(at, carrier+" "+s+" runs keys or an expression in another vim: "+shorten(v.lit))
			}
		case s == "--startuptime" || s == "--servername" || s == "--listen" || s == "--log":
			next()
		case strings.HasPrefix(s, "--"):
		case len(s) > 1 && s[0] == '-':
			for j := 1; j < len(s); j++ {
				value := func() (arg, bool) {
					if j+1 < len(s) {
						return arg{lit: s[j+1:]}, true
					}
					return next()
				}
				switch s[j] {
				case 'e', 'E':
					exMode = true
					continue
				case 's':
					if exMode {
						continue // -es: silent ex mode
					}
					if v, ok := value(); ok {
						a.codeFile(at, v, cwd, carrier+" -s")
					}
				case 'c':
					if v, ok := value(); ok {
						a.exArg(at, v, cwd, carrier+" -c")
					}
				case 'S':
					v, ok := arg{lit: "Session.vim"}, true
					if j+1 < len(s) {
						v = arg{lit: s[j+1:]}
					} else if i+1 < len(x.rest) && !strings.HasPrefix(x.rest[i+1].lit, "-") {
						v, ok = next()
					}
					if ok {
						a.codeFile(at, v, cwd, carrier+" -S")
					}
				case 'u', 'U':
					if v, ok := value(); ok && !(v.lit == "NONE" || v.lit == "NORC" || v.lit == "DEFAULTS") {
						a.codeFile(at, v, cwd, carrier+" -"+string(s[j]))
					}
				case 'w', 'W':
					if v, ok := value(); ok && !isDigits(v.lit) {
						a.fileAccess(at, call.Write, v.lit, cwd)
					}
				case 'i', 'T', 't', 'r':
					if s[j] == 'r' && j+1 == len(s) {
						continue // -r lists swap files, or recovers the file that follows
					}
					value()
				case 'V', 'q', 'o', 'O', 'p':
					// An optional value, attached only.
				default:
					continue
				}
				break
			}
		}
	}
	if exMode {
		text, known, hidden := a.stdinText(at)
		switch {
		case known:
			for _, line := range strings.Split(text, "\n") {
				a.exLine(at, line, cwd, carrier+" -e", 0)
			}
		case hidden:
			a.opaque(at, carrier+" -e runs the Ex commands it reads on standard input")
		}
	}
	return true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// exArg analyses an Ex command given in a word.
func (a *analyzer) exArg(at int, w arg, cwd dir, carrier string) {
	if w.dynamic {
		a.opaque(at, carrier+" runs an Ex command computed at run time: "+shorten(w.lit))
		return
	}
	for _, line := range strings.Split(w.lit, "\n") {
		a.exLine(at, line, cwd, carrier, 0)
	}
}

// exLine analyses one line of Ex commands separated by |.
func (a *analyzer) exLine(at int, s string, cwd dir, carrier string, depth int) {
	for s != "" {
		if depth >= maxExDepth {
			a.opaque(at, carrier+": Ex commands nested too deep to follow")
			return
		}
		s = skipExRange(strings.TrimLeft(s, " \t:"))
		if s == "" || s[0] == '"' {
			return
		}
		if s[0] == '!' {
			// :!CMD and :{range}!FILTER: the rest of the line, bars included, is the command.
			a.exBang(at, s[1:], cwd, carrier)
			return
		}
		if s[0] == '&' || s[0] == '~' {
			s = nextExCommand(s[1:])
			continue
		}
		n := 0
		for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z') {
			n++
		}
		name := s[:n]
		if n < len(s) && s[n] == '3' && (name == "py" || name == "python") {
			// :py3, :python3, :py3do, :py3file
			n++
			for n < len(s) && s[n] >= 'a' && s[n] <= 'z' {
				n++
			}
			name = s[:n]
		}
		if name == "" {
			return // not a command vim knows either
		}
		rest := s[n:]
		bang := strings.HasPrefix(rest, "!")
		if bang {
			rest = rest[1:]
		}
		cmd, ok := lookupEx(name)
		if !ok {
			s = nextExCommand(rest)
			continue
		}
		args := strings.TrimLeft(rest, " \t")
		switch cmd.kind {
		case exRead:
			if strings.HasPrefix(args, "!") || bang {
				a.exBang(at, strings.TrimPrefix(args, "!"), cwd, carrier)
				return
			}
			arg, more := cutExBar(args)
			a.exFile(at, call.Read, arg, cwd)
			s = more
			continue
		case exWrite:
			if strings.HasPrefix(args, "!") && !bang {
				a.exBang(at, args[1:], cwd, carrier)
				return
			}
			arg, more := cutExBar(args)
			a.exFile(at, call.Write, strings.TrimLeft(arg, "> \t"), cwd)
			s = more
			continue
		case exWriteFile:
			arg, more := cutExBar(args)
			a.exFile(at, call.Write, arg, cwd)
			s = more
			continue
		case exRedir:
			arg, more := cutExBar(args)
			arg = strings.TrimSpace(arg)
			if strings.HasPrefix(arg, ">") && !strings.HasPrefix(arg, "=>") {
				a.exFile(at, call.Write, strings.TrimLeft(arg, "> \t"), cwd)
			}
			s = more
			continue
		case exTerminal:
			for strings.HasPrefix(args, "++") {
				_, args, _ = strings.Cut(args, " ")
				args = strings.TrimLeft(args, " \t")
			}
			if strings.TrimSpace(args) == "" {
				a.opaque(at, carrier+" opens a terminal the agent can type into")
				return
			}
			a.shellText(at, args, cwd)
			return
		case exShell:
			a.opaque(at, carrier+" opens a shell the agent can type into")
			return
		case exSource:
			arg, more := cutExBar(args)
			a.exCodeFile(at, arg, cwd, carrier+" :source")
			s = more
			continue
		case exRuntime:
			s = nextExCommand(args)
			continue
		case exInterp:
			if strings.HasPrefix(strings.TrimSpace(args), "<<") {
				a.opaque(at, carrier+" runs "+string(cmd.lang)+" code that follows in a script")
				return
			}
			a.inspect(at, cmd.lang, args, cwd)
			if api := editorAPICall(args); api != "" {
				a.opaque(at, carrier+" :"+cmd.name+" calls "+api+", which runs editor commands moat does not follow")
			}
			return
		case exInterpFile:
			arg, more := cutExBar(args)
			a.exCodeFile(at, arg, cwd, carrier+" :"+cmd.name)
			s = more
			continue
		case exForeign:
			a.opaque(at, carrier+" :"+cmd.name+" runs code in a language moat does not analyse")
			return
		case exExecute:
			if lit, ok := vimStringOnly(args); ok {
				a.exLine(at, lit, cwd, carrier, depth+1)
				return
			}
			a.opaque(at, carrier+" :execute runs a command computed at run time: "+shorten(args))
			return
		case exNormal:
			if strings.ContainsAny(args, ":!Q@") {
				a.opaque(at, carrier+" :normal types keys that may run commands: "+shorten(args))
			}
			return
		case exModifier:
			s = args
			depth++
			continue
		case exGlobal:
			if args == "" {
				return
			}
			_, cmdText := cutDelimited(args[1:], args[0])
			if strings.TrimSpace(cmdText) != "" {
				a.exLine(at, cmdText, cwd, carrier, depth+1)
			}
			return
		case exExpr:
			if cmd.name == "let" {
				// :let &makeprg = …: an option set as a variable.
				target, _, _ := strings.Cut(strings.TrimPrefix(args, "&"), "=")
				target = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(target, "l:"), "g:"))
				if strings.HasPrefix(args, "&") && contains(vimProgramOptions, strings.TrimRight(target, ".+-")) {
					a.opaque(at, carrier+" :let sets "+target+", a program or expression vim runs")
				}
			}
			a.vimExpr(at, args, cwd, carrier)
			return
		case exDefine:
			a.exDefinition(at, cmd.name, args, cwd, carrier, depth)
			return
		case exSubstitute:
			if strings.Contains(args, `\=`) {
				a.vimExpr(at, args, cwd, carrier)
			}
			return // the pattern and replacement may hold |
		case exMake:
			arg, more := cutExBar(args)
			prog := "make"
			if strings.HasSuffix(cmd.name, "grep") {
				prog = "grep -n"
			}
			a.shellText(at, prog+" "+arg, cwd)
			s = more
			continue
		case exSet:
			arg, more := cutExBar(args)
			for _, f := range strings.Fields(arg) {
				name, _, _ := strings.Cut(strings.TrimSuffix(strings.TrimSuffix(f, "+"), "^"), "=")
				name = strings.TrimRight(name, "+-^")
				if (strings.Contains(f, "=") || strings.Contains(f, ":")) && contains(vimProgramOptions, name) {
					a.opaque(at, carrier+" :set "+name+" names a program or expression vim runs: "+shorten(f))
				}
			}
			s = more
			continue
		case exSandbox:
			return // in the sandbox, vim runs no program and writes no file
		default:
			s = nextExCommand(args)
		}
	}
}

// lookupEx resolves an Ex command name, possibly abbreviated.
func lookupEx(name string) (exCommand, bool) {
	for _, c := range exCommands() {
		if len(name) >= c.min && strings.HasPrefix(c.name, name) {
			return c, true
		}
	}
	return exCommand{}, false
}

// exBang analyses the shell command of :!CMD. :!! repeats the previous one, which is not
// known.
func (a *analyzer) exBang(at int, code string, cwd dir, carrier string) {
	if strings.HasPrefix(code, "!") {
		a.opaque(at, carrier+" :!! repeats a shell command that is not in the line")
		return
	}
	if strings.TrimSpace(code) == "" {
		a.opaque(at, carrier+" :! opens a shell the agent can type into")
		return
	}
	code = strings.ReplaceAll(code, `\|`, "|")
	a.shellText(at, code, cwd)
	if runsItsInput(arg{lit: code}) {
		// :w !sh and :%!sh give the buffer, a file's text, to the shell as its code.
		a.opaque(at, carrier+" runs the text of a buffer as code: !"+shorten(code))
	}
}

// exFile adds the access an Ex command makes to the file it names; % and # name buffers.
func (a *analyzer) exFile(at int, kind call.AccessKind, p string, cwd dir) {
	p = strings.TrimSpace(p)
	if p == "" || strings.HasPrefix(p, "%") || strings.HasPrefix(p, "#") || strings.HasPrefix(p, "++") {
		return
	}
	a.fileAccess(at, kind, strings.ReplaceAll(p, `\ `, " "), cwd)
}

// exCodeFile judges a file an Ex command runs as code.
func (a *analyzer) exCodeFile(at int, p string, cwd dir, carrier string) {
	p = strings.TrimSpace(p)
	if p == "" || strings.HasPrefix(p, "%") || strings.HasPrefix(p, "#") || strings.ContainsAny(p, "$`=") {
		a.opaque(at, carrier+" runs a file moat cannot read: "+shorten(p))
		return
	}
	a.codeFile(at, arg{lit: p}, cwd, carrier)
}

// exDefinition: :autocmd EVENT PATTERN CMD and :command NAME CMD define commands that run
// later, in the same session; they are judged as if they ran.
func (a *analyzer) exDefinition(at int, name, args string, cwd dir, carrier string, depth int) {
	fields := strings.Fields(args)
	skip := 2 // autocmd EVENT PATTERN
	if name == "command" {
		skip = 1
		for _, f := range fields {
			if !strings.HasPrefix(f, "-") {
				break
			}
			skip++
		}
	}
	for len(fields) > skip && strings.HasPrefix(fields[skip], "++") {
		skip++
	}
	if len(fields) <= skip {
		return
	}
	a.exLine(at, strings.Join(fields[skip:], " "), cwd, carrier, depth+1)
}

// vimExpr finds, in a Vim script expression, the calls of functions that run programs
// or do what moat does not follow: system('CMD') with a written-out command is that
// command; anything else is opaque.
func (a *analyzer) vimExpr(at int, expr string, cwd dir, carrier string) {
	for i := 0; i < len(expr); i++ {
		if !isIdentStart(expr, i) {
			continue
		}
		j := i
		for j < len(expr) && (isIdentByte(expr[j])) {
			j++
		}
		name := expr[i:j]
		k := j
		for k < len(expr) && expr[k] == ' ' {
			k++
		}
		runs, known := vimFunctions()[name]
		if !known || k >= len(expr) || expr[k] != '(' {
			i = j
			continue
		}
		if !runs {
			a.opaque(at, carrier+" calls "+name+"(), which moat does not follow")
			i = j
			continue
		}
		lit, end, ok := vimString(expr[k+1:])
		after := strings.TrimLeft(expr[k+1+end:], " ")
		if !ok || !(strings.HasPrefix(after, ")") || strings.HasPrefix(after, ",")) {
			a.opaque(at, carrier+" calls "+name+"() with a command computed at run time")
			i = j
			continue
		}
		a.shellText(at, lit, cwd)
		i = k + end
	}
}

// isIdentStart reports whether a Vim script identifier starts at i: a letter not preceded
// by an identifier character, a dot or a colon (s:system is not system).
func isIdentStart(s string, i int) bool {
	c := s[i]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		return false
	}
	return i == 0 || !(isIdentByte(s[i-1]) || s[i-1] == ':' || s[i-1] == '.' || s[i-1] == '#')
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// vimString reads a Vim string literal at the start of s (after blanks): 'single', where
// ” is a quote, or "double", with backslash escapes. It returns the string and the index
// after it.
func vimString(s string) (string, int, bool) {
	i := 0
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i >= len(s) || s[i] != '\'' && s[i] != '"' {
		return "", 0, false
	}
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case q == '\'' && c == '\'':
			if j+1 < len(s) && s[j+1] == '\'' {
				b.WriteByte('\'')
				j++
				continue
			}
			return b.String(), j + 1, true
		case q == '"' && c == '\\' && j+1 < len(s):
			j++
			switch s[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[j])
			}
		case q == '"' && c == '"':
			return b.String(), j + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// vimStringOnly returns the string an expression is when it is one literal.
func vimStringOnly(expr string) (string, bool) {
	lit, end, ok := vimString(expr)
	if !ok || strings.TrimSpace(expr[end:]) != "" {
		return "", false
	}
	return lit, true
}

// skipExRange skips the range before an Ex command: line numbers, ., $, %, marks,
// patterns and offsets.
func skipExRange(s string) string {
	for s != "" {
		c := s[0]
		switch {
		case c >= '0' && c <= '9' || strings.IndexByte(".,$%;+- \t", c) >= 0:
			s = s[1:]
		case c == '\'' && len(s) > 1:
			s = s[2:]
		case c == '/' || c == '?':
			_, s = cutDelimited(s[1:], c)
		case c == '\\' && len(s) > 1 && strings.IndexByte("/?&", s[1]) >= 0:
			s = s[2:]
		default:
			return s
		}
	}
	return s
}

// cutDelimited returns s up to the first unescaped delim, and what follows it.
func cutDelimited(s string, delim byte) (string, string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case delim:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// cutExBar splits an Ex command's argument at the | that ends it.
func cutExBar(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '|':
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// nextExCommand returns what follows the | that ends the current command, or "".
func nextExCommand(s string) string {
	_, rest := cutExBar(s)
	return rest
}

// emacsDanger are the Lisp functions that run processes, touch files, fetch or evaluate
// code. Those of emacsShell take a shell command line as their first argument and are
// followed when it is written out; calling any other is code moat does not follow.
var (
	emacsShell = []string{"shell-command", "async-shell-command", "shell-command-to-string", "compile",
		"call-process-shell-command", "process-file-shell-command", "eshell-command", "eshell-command-result"}
	emacsDanger = []string{"call-process", "call-process-region", "process-file", "start-process", "start-process-shell-command",
		"start-file-process", "start-file-process-shell-command", "make-process", "make-pipe-process", "make-network-process",
		"process-lines", "shell", "term", "ansi-term", "eshell", "delete-file", "delete-directory", "write-region", "write-file",
		"append-to-file", "copy-file", "copy-directory", "rename-file", "make-symbolic-link", "set-file-modes",
		"url-retrieve", "url-retrieve-synchronously", "url-copy-file", "url-insert-file-contents", "eval", "funcall", "apply",
		"intern", "intern-soft", "read", "read-from-string", "load", "load-file", "load-library", "byte-compile-file",
		"org-babel-execute-src-block", "org-babel-execute-buffer", "org-babel-load-file", "package-install",
		"shell-command-on-region", "process-send-string", "process-send-region", "dired-do-async-shell-command",
		"dired-smart-shell-command", "project-shell-command", "project-async-shell-command", "recompile",
		"package-install-file", "package-vc-install", "dired-do-shell-command", "dired-do-delete", "executable-interpret",
		"server-eval-at", "symbol-function", "fset", "defalias", "advice-add", "add-hook"}
)

// emacsArgs reads emacs's command line: --eval (emacsclient's -e, whose operands are all
// expressions) is Lisp; -l FILE and --script FILE load files; -L DIR lets a bare library
// name load from DIR.
func (a *analyzer) emacsArgs(x *execCall) bool {
	at, cwd := x.at, x.cwd
	libDirs := false
	client := x.prog == "emacsclient"
	eval := false
	for i := 0; i < len(x.rest); i++ {
		w := x.rest[i]
		if w.dynamic {
			if strings.HasPrefix(w.lit, "-") || eval {
				a.opaque(at, x.prog+" is given an option or expression computed at run time: "+shorten(w.lit))
			}
			continue
		}
		name, val, hasVal := strings.Cut(w.lit, "=")
		if !strings.HasPrefix(name, "--") {
			hasVal = false
			name, val = w.lit, ""
		} else {
			name = "--" + uniquePrefix(name[2:], emacsLongOptions) // emacs --ev is --eval
		}
		value := func() (arg, bool) {
			if hasVal {
				return arg{lit: val}, true
			}
			if i+1 < len(x.rest) {
				i++
				return x.rest[i], true
			}
			return arg{}, false
		}
		switch name {
		case "--eval", "-eval", "--execute", "-execute":
			if v, ok := value(); ok {
				a.elisp(at, v, cwd, x.prog+" --eval")
			}
		case "-e":
			if client {
				eval = true
			} else if v, ok := value(); ok {
				a.elisp(at, v, cwd, x.prog+" --eval")
			}
		case "-l", "--load", "-load":
			if v, ok := value(); ok && (libDirs || strings.Contains(v.lit, "/") || strings.HasSuffix(v.lit, ".el") || strings.HasSuffix(v.lit, ".elc") || v.dynamic) {
				a.codeFile(at, v, cwd, x.prog+" -l")
			}
		case "--script", "-script", "-x":
			if v, ok := value(); ok {
				a.codeFile(at, v, cwd, x.prog+" --script")
			}
		case "-L", "--directory", "-directory":
			value()
			libDirs = true
		case "-f", "--funcall", "-funcall", "-u", "--user", "--insert", "-insert", "--visit", "--file", "--find-file",
			"--chdir", "-t", "--terminal", "-d", "--display", "--init-directory", "-fn", "--font", "-bg", "-fg",
			"-bd", "-cr", "-ms", "-bw", "-ib", "-lsp", "-name", "-title", "-T", "-xrm", "-g", "--geometry", "--color",
			"-s", "--socket-name", "--server-file", "-a", "--alternate-editor", "-F", "--frame-parameters", "-w", "--timeout", "--tramp":
			if !(client && name == "-t") {
				value()
			}
		default:
			if eval && !strings.HasPrefix(w.lit, "-") {
				a.elisp(at, w, cwd, x.prog+" --eval")
			}
		}
	}
	return true
}

// emacsLongOptions are the long options of emacs and emacsclient, which may be abbreviated.
var emacsLongOptions = []string{"eval", "execute", "load", "script", "directory", "funcall", "user", "insert", "visit",
	"file", "find-file", "chdir", "terminal", "display", "init-directory", "batch", "no-init-file", "no-site-file",
	"quick", "debug-init", "version", "help", "font", "geometry", "color", "socket-name", "server-file",
	"alternate-editor", "frame-parameters", "timeout", "tramp", "no-wait", "create-frame", "tty", "nw", "daemon", "bg-daemon", "fg-daemon"}

// elisp analyses Lisp code: the shell commands of emacsShell's functions when written
// out; any other function of emacsDanger, or a shell command computed, is opaque.
func (a *analyzer) elisp(at int, w arg, cwd dir, carrier string) {
	if w.dynamic {
		a.opaque(at, carrier+" runs Lisp computed at run time: "+shorten(w.lit))
		return
	}
	code := w.lit
	for i := 0; i < len(code); i++ {
		if code[i] != '(' && code[i] != '\'' && code[i] != '#' {
			continue
		}
		j := i + 1
		for j < len(code) && (code[j] == '\'' || code[j] == '(') {
			j++
		}
		k := j
		for k < len(code) && !strings.ContainsRune(" \t\n()\"'", rune(code[k])) {
			k++
		}
		fn := code[j:k]
		switch {
		case contains(emacsShell, fn):
			if code[i] != '(' || j != i+1 {
				a.opaque(at, carrier+" passes "+fn+" as a function, with arguments moat does not see")
				break
			}
			lit, _, ok := lispString(code[k:])
			if !ok {
				a.opaque(at, carrier+" calls "+fn+" with a command computed at run time")
				break
			}
			a.shellText(at, lit, cwd)
		case contains(emacsDanger, fn):
			a.opaque(at, carrier+" calls "+fn+", which moat does not follow")
		}
		i = k - 1
	}
}

// lispString reads a Lisp string literal at the start of s, after blanks.
func lispString(s string) (string, int, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	if i >= len(s) || s[i] != '"' {
		return "", 0, false
	}
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) {
				j++
				if s[j] == 'n' {
					b.WriteByte('\n')
				} else {
					b.WriteByte(s[j])
				}
			}
		case '"':
			return b.String(), j + 1, true
		default:
			b.WriteByte(s[j])
		}
	}
	return "", 0, false
}

// editorAPIs are the calls by which Lua and Python code inside vim and neovim runs Ex
// commands, Vim script functions or processes: vim.cmd("!…"), vim.fn.system(…),
// vim.command("!…"). The interpreters' inspection does not know them.
var editorAPIs = []string{"vim.cmd", "vim.command", "vim.eval", "vim.fn", "vim.call", "vim.api.nvim_command",
	"vim.api.nvim_exec", "vim.api.nvim_call_function", "vim.api.nvim_eval", "vim.system", "vim.uv", "vim.loop",
	"vim.api.nvim_cmd", "vim.api.nvim_exec2"}

// editorAPICall returns the first of editorAPIs that code calls, or "".
func editorAPICall(code string) string {
	for _, api := range editorAPIs {
		if i := strings.Index(code, api); i >= 0 && (i == 0 || !isIdentByte(code[i-1])) {
			return api
		}
	}
	return ""
}
