package planted

import (
	"regexp"
	"strings"
	"sync"
)

// Build files in languages moat does not read (Meson, Erlang terms, Elixir, Haskell,
// Swift) are read for the calls that run programs, found by name in the text with its
// comments left out, as a build.rs's processes are: a call whose command is spelt in
// string literals is that command line; one whose command is computed, or a call moat
// cannot read to its end, is opaque. The rest of such a file is the build's own business.

// commentSyntax is how a language writes comments and strings, for mask.
type commentSyntax struct {
	line        string // starts a comment to the end of its line
	open, close string // a block comment's delimiters; "" for none
	quotes      string // the characters that open a string literal
	// char is the prefix of a character literal ($" in Erlang, ?" in Elixir), whose
	// quote opens no string.
	char byte
	// haskell says -- starts a comment only when it is no operator's part (-->, |--).
	haskell bool
}

var (
	mesonSyntax   = commentSyntax{line: "#", quotes: "'"}
	erlangSyntax  = commentSyntax{line: "%", quotes: `"'`, char: '$'}
	elixirSyntax  = commentSyntax{line: "#", quotes: `"'`, char: '?'}
	haskellSyntax = commentSyntax{line: "--", open: "{-", close: "-}", quotes: `"`, haskell: true}
	swiftSyntax   = commentSyntax{line: "//", open: "/*", close: "*/", quotes: `"`}
)

// mask returns text with its comments blanked out, newlines kept so that offsets stay,
// and its strings as they are: a call written in a comment is not found, and a comment
// sign inside a string starts none.
func (cs commentSyntax) mask(text string) string {
	b := []byte(text)
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case strings.IndexByte(cs.quotes, c) >= 0 && (i == 0 || cs.char == 0 || b[i-1] != cs.char):
			i = skipQuoted(text, i)
		case cs.line != "" && strings.HasPrefix(text[i:], cs.line) && cs.lineComment(text, i):
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case cs.open != "" && strings.HasPrefix(text[i:], cs.open):
			stop := len(b)
			if end := strings.Index(text[i+len(cs.open):], cs.close); end >= 0 {
				stop = i + len(cs.open) + end + len(cs.close)
			}
			for ; i < stop; i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
		default:
			i++
		}
	}
	return string(b)
}

// lineComment reports whether the line comment sign at text[i] starts a comment.
func (cs commentSyntax) lineComment(text string, i int) bool {
	if !cs.haskell {
		return true
	}
	const symbols = "!#$%&*+./<=>?@\\^|-~:"
	j := i
	for j < len(text) && text[j] == '-' {
		j++
	}
	return (i == 0 || strings.IndexByte(symbols, text[i-1]) < 0) && (j >= len(text) || strings.IndexByte(symbols, text[j]) < 0)
}

// skipQuoted returns the offset after the string literal whose quote is text[i]: three
// quotes open one that ends at the next three, a backslash escapes the character after
// it, and one quote's literal ends at the end of its line if not before.
func skipQuoted(text string, i int) int {
	q := text[i]
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(text[i:], triple) {
		if end := strings.Index(text[i+3:], triple); end >= 0 {
			return i + 3 + end + 3
		}
		return len(text)
	}
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(text)
}

// stringLiteral reads the string literal whose quote is text[i] and returns its text and
// the offset after it. A triple quote opens one that spans lines, read as written; in
// another a backslash escapes a quote, a backslash, #, $ or ` (itself), n, t or r. ok is
// false when the literal does not end on its line, or holds what only the program
// computes: another escape (a numeric one), or interp (Elixir's #{, Swift's \().
func stringLiteral(text string, i int, interp string) (string, int, bool) {
	if i >= len(text) {
		return "", i, false
	}
	q := text[i]
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(text[i:], triple) {
		end := strings.Index(text[i+3:], triple)
		if end < 0 {
			return "", len(text), false
		}
		s := text[i+3 : i+3+end]
		return s, i + 6 + end, interp == "" || !strings.Contains(s, interp)
	}
	var b strings.Builder
	for j := i + 1; j < len(text); j++ {
		c := text[j]
		if interp != "" && strings.HasPrefix(text[j:], interp) {
			return "", skipQuoted(text, i), false
		}
		switch {
		case c == q:
			return b.String(), j + 1, true
		case c == '\n':
			return "", j, false
		case c == '\\' && j+1 < len(text):
			j++
			switch e := text[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '"', '\'', '#', '$', '`':
				b.WriteByte(e)
			default:
				return "", skipQuoted(text, i), false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", len(text), false
}

// literalList reads a list of string literals, [ "a", "b" ], whose bracket is text[i],
// and returns its strings and the offset after it; ok is false for anything else in it.
func literalList(text string, i int, interp string) ([]string, int, bool) {
	if i >= len(text) || text[i] != '[' {
		return nil, i, false
	}
	var out []string
	for i = skipBlanks(text, i+1); i < len(text) && text[i] != ']'; {
		s, end, ok := stringLiteral(text, i, interp)
		if !ok {
			return nil, i, false
		}
		out = append(out, s)
		i = skipBlanks(text, end)
		if i < len(text) && text[i] == ',' {
			i = skipBlanks(text, i+1)
		} else if i < len(text) && text[i] != ']' {
			return nil, i, false
		}
	}
	if i >= len(text) {
		return nil, i, false
	}
	return out, i + 1, true
}

// calledAt reports whether the name matched at text[i] is called there as a function of
// its own: not the end of a longer name, nor a method of another value (x.run_command)
// unless dot says a qualified name is one.
func calledAt(text string, i int, dot bool) bool {
	if i == 0 {
		return true
	}
	c := text[i-1]
	return !isIdentByte(c) && c != '\'' && (dot || c != '.')
}

var (
	// mesonRunCommand matches meson's run_command(.
	mesonRunCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\brun_command\s*\(`) })
	// mesonFindProgram matches NAME = find_program('…': the variable and the quote.
	mesonFindProgram = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^[ \t]*(\w+)[ \t]*=[ \t]*find_program[ \t]*\([ \t]*(')`)
	})
)

// mesonCode: meson runs run_command(…) while it configures the project (meson setup, and
// again whenever a build file changes). Its arguments, strings and lists of them, a
// find_program('name') or a variable set to one, are the words of one command, before
// its keyword arguments (check:, env:); an argument computed otherwise makes a command
// moat cannot read. custom_target and run_target run the project's own programs as it
// builds, as a Makefile's rules do, and are left to that.
func mesonCode(text string, x *extraction) {
	code := mesonSyntax.mask(text)
	programs := map[string]string{} // variables set to find_program('name')
	for _, m := range mesonFindProgram().FindAllStringSubmatchIndex(code, -1) {
		if s, _, ok := stringLiteral(code, m[4], ""); ok {
			programs[code[m[2]:m[3]]] = s
		}
	}
	for _, m := range mesonRunCommand().FindAllStringIndex(code, -1) {
		if !calledAt(code, m[0], false) {
			continue
		}
		const where = "run_command (meson runs it when it configures the project)"
		if words, _, ok := mesonWords(code, m[1], programs, ')', 0); ok && len(words) > 0 {
			x.shell(where, strings.Join(words, " "))
		} else {
			x.opaque(where, "a command computed when meson runs: "+snippet(code, m[0]))
		}
	}
}

// mesonWords reads meson arguments from text[i] up to closer (after it) or the first
// keyword argument, as quoted shell words: lists are flattened, as meson flattens them.
func mesonWords(text string, i int, programs map[string]string, closer byte, depth int) ([]string, int, bool) {
	var words []string
	for depth < 32 {
		i = skipBlanks(text, i)
		if i >= len(text) {
			break
		}
		c := text[i]
		switch {
		case c == closer:
			return words, i + 1, true
		case c == ',':
			i++
		case c == '\'':
			s, end, ok := stringLiteral(text, i, "")
			if !ok {
				return nil, i, false
			}
			words = append(words, shellQuote(s))
			i = end
		case c == '[':
			sub, end, ok := mesonWords(text, i+1, programs, ']', depth+1)
			if !ok {
				return nil, i, false
			}
			words = append(words, sub...)
			i = end
		case isIdentStart(c):
			j := i
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			name, k := text[i:j], skipBlanks(text, j)
			next := byte(0)
			if k < len(text) {
				next = text[k]
			}
			switch {
			case next == ':' && closer == ')':
				return words, i, true // keyword arguments: no more words
			case name == "find_program" && next == '(':
				s, _, ok := stringLiteral(text, skipBlanks(text, k+1), "")
				end, closed := pythonCallEnd(text, k+1)
				if !ok || !closed {
					return nil, i, false
				}
				words = append(words, shellQuote(s))
				i = end + 1
			case programs[name] != "" && next != '(' && next != '.':
				words = append(words, shellQuote(programs[name]))
				i = j
			default:
				return nil, i, false
			}
		default:
			return nil, i, false
		}
	}
	return nil, i, false
}

// rebarHooks matches the start of rebar3's {pre_hooks, and {post_hooks, terms.
var rebarHooks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\s*(pre_hooks|post_hooks)\s*,`) })

// rebarCode: rebar3 runs the shell commands of {pre_hooks, […]} and {post_hooks, […]}
// before and after its providers (compile, eunit…), in the project's directory, wherever
// the term is (at the top, in a profile). A hook is {Provider, "command"} or {"arch
// regex", Provider, "command"}. provider_hooks name rebar3's providers, no commands.
func rebarCode(text string, x *extraction) {
	code := erlangSyntax.mask(text)
	for _, m := range rebarHooks().FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		p := erlParser{s: code, i: m[1]}
		list, ok := p.term(0)
		if !ok || list.kind != '[' {
			x.opaque(name, "hooks moat cannot read: "+snippet(code, m[0]))
			continue
		}
		for _, h := range list.elems {
			n := len(h.elems)
			if h.kind != '{' || n < 2 || h.elems[n-1].kind != '"' {
				x.opaque(name, "a hook moat cannot read")
				continue
			}
			x.shell(name+" "+h.elems[n-2].text+" (rebar3 runs it)", h.elems[n-1].text)
		}
	}
}

// erlangScriptCode: rebar.config.script is Erlang that rebar3 evaluates on every run to
// make its configuration, which moat does not read.
func erlangScriptCode(text string, x *extraction) {
	if strings.TrimSpace(erlangSyntax.mask(text)) != "" {
		x.opaque(x.kind, "Erlang that rebar3 runs, which moat does not read")
	}
}

// erlTerm is an Erlang term of a configuration file: a string ("), an atom, number or
// other bare word (a), a tuple ({) or a list ([) of terms.
type erlTerm struct {
	kind  byte
	text  string
	elems []erlTerm
}

// erlParser reads the terms of an Erlang configuration file from s[i].
type erlParser struct {
	s string
	i int
}

// term reads one term; ok is false for anything it does not read.
func (p *erlParser) term(depth int) (erlTerm, bool) {
	p.i = skipBlanks(p.s, p.i)
	if p.i >= len(p.s) || depth > 64 {
		return erlTerm{}, false
	}
	switch c := p.s[p.i]; {
	case c == '"':
		// Adjacent strings are one.
		var b strings.Builder
		for p.i < len(p.s) && p.s[p.i] == '"' {
			s, end, ok := stringLiteral(p.s, p.i, "")
			if !ok {
				return erlTerm{}, false
			}
			b.WriteString(s)
			p.i = skipBlanks(p.s, end)
		}
		return erlTerm{kind: '"', text: b.String()}, true
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		t := erlTerm{kind: c}
		p.i = skipBlanks(p.s, p.i+1)
		if p.i < len(p.s) && p.s[p.i] == closer {
			p.i++
			return t, true
		}
		for {
			e, ok := p.term(depth + 1)
			if !ok {
				return erlTerm{}, false
			}
			t.elems = append(t.elems, e)
			p.i = skipBlanks(p.s, p.i)
			switch {
			case p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == '|'):
				p.i++
			case p.i < len(p.s) && p.s[p.i] == closer:
				p.i++
				return t, true
			default:
				return erlTerm{}, false
			}
		}
	case c == '<' && strings.HasPrefix(p.s[p.i:], "<<"):
		// A binary, <<"text">>: its text.
		q := erlParser{s: p.s, i: p.i + 2}
		if s, ok := q.term(depth + 1); ok && s.kind == '"' && strings.HasPrefix(p.s[skipBlanks(p.s, q.i):], ">>") {
			p.i = skipBlanks(p.s, q.i) + 2
			return s, true
		}
		return erlTerm{}, false
	case c == '\'':
		s, end, ok := stringLiteral(p.s, p.i, "")
		p.i = end
		return erlTerm{kind: 'a', text: s}, ok
	}
	j := p.i
	for j < len(p.s) && (isIdentByte(p.s[j]) || strings.IndexByte("@.-+#$", p.s[j]) >= 0) {
		j++
	}
	if j == p.i {
		return erlTerm{}, false
	}
	t := erlTerm{kind: 'a', text: p.s[p.i:j]}
	p.i = j
	return t, true
}

// mixCalls matches the Elixir calls that start a program.
var mixCalls = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(System\.cmd|System\.shell|:os\.cmd|Mix\.shell(?:\(\s*\))?\.cmd|Port\.open)[ \t]*\(?[ \t]*`)
})

// mixCode: mix.exs is Elixir that every mix command loads. Its aliases run, as mix's cmd
// task, "cmd …" strings: a shell command, in the project's directory or --cd's. Code
// anywhere in it may start programs: System.cmd(PROGRAM, [ARGS]), System.shell(LINE),
// :os.cmd(LINE), Mix.shell().cmd(LINE), Port.open({:spawn, LINE}, …). Each spelt in
// string literals is that command line; one computed is a command moat cannot read.
func mixCode(text string, x *extraction) {
	code := elixirSyntax.mask(text)
	for i := 0; i < len(code); {
		if code[i] != '"' || i > 0 && code[i-1] == '?' {
			i++
			continue
		}
		end := skipQuoted(code, i)
		if strings.HasPrefix(code[i+1:], "cmd ") {
			if s, _, ok := stringLiteral(code, i, "#{"); ok {
				x.shell("alias "+strings.Join(strings.Fields(s), " ")+" (mix runs it)", mixCmdTask(s))
			} else {
				x.opaque("alias", "a mix cmd computed at run time: "+snippet(code, i))
			}
		}
		i = max(end, i+1)
	}
	for _, m := range mixCalls().FindAllStringSubmatchIndex(code, -1) {
		if !calledAt(code, m[0], false) {
			continue
		}
		fn, at := code[m[2]:m[3]], m[1]
		where := fn + " (mix runs it when it loads mix.exs or runs the task)"
		var line string
		ok := false
		switch {
		case fn == "System.cmd":
			var prog string
			var args []string
			var end int
			if prog, end, ok = stringLiteral(code, at, "#{"); ok {
				end = skipBlanks(code, end)
				if ok = end < len(code) && code[end] == ','; ok {
					args, _, ok = literalList(code, skipBlanks(code, end+1), "#{")
				}
			}
			line = quoteWords(append([]string{prog}, args...))
		case fn == ":os.cmd":
			// A charlist: 'cmd' or ~c"cmd".
			if strings.HasPrefix(code[at:], "~c") {
				at += 2
			}
			line, _, ok = stringLiteral(code, at, "#{")
		case fn == "Port.open":
			if ok = strings.HasPrefix(code[at:], "{"); ok {
				i := skipBlanks(code, at+1)
				if ok = strings.HasPrefix(code[i:], ":spawn"); ok {
					i = skipBlanks(code, i+len(":spawn"))
					if ok = i < len(code) && code[i] == ','; ok {
						line, _, ok = stringLiteral(code, skipBlanks(code, i+1), "#{")
					}
				}
			}
		default: // System.shell, Mix.shell().cmd
			line, _, ok = stringLiteral(code, at, "#{")
		}
		if ok {
			x.shell(where, line)
		} else {
			x.opaque(where, "a command computed at run time: "+snippet(code, m[0]))
		}
	}
}

// mixCmdTask is the shell command line of mix's cmd task given s, "cmd [--app APP]
// [--cd DIR] COMMAND": the command, run in DIR when it is given.
func mixCmdTask(s string) string {
	words := strings.Fields(strings.TrimPrefix(s, "cmd "))
	dir := ""
	for len(words) >= 2 && (words[0] == "--app" || words[0] == "--cd") {
		if words[0] == "--cd" {
			dir = words[1]
		}
		words = words[2:]
	}
	line := strings.Join(words, " ")
	if dir != "" {
		line = "cd " + shellQuote(dir) + " || exit 1\n" + line
	}
	return line
}

// haskellCalls matches the functions of System.Process and System.Cmd that run a program.
var haskellCalls = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(callCommand|system|spawnCommand|runCommand|runInteractiveCommand|rawSystem|callProcess|readProcess|readProcessWithExitCode|spawnProcess|runProcess|createProcess|readCreateProcess|readCreateProcessWithExitCode)\b`)
})

// setupHsCode: a package's custom Setup.hs (or Setup.lhs) is Haskell that cabal and
// stack build and run to build the package. main = defaultMain runs Cabal's own build;
// the functions of System.Process run programs: callCommand, system, spawnCommand and
// runCommand a shell command line, rawSystem, callProcess, readProcess and spawnProcess
// a program with a list of arguments. Spelt in string literals, each is that command;
// any other call of them (createProcess, a computed command) is one moat cannot read.
func setupHsCode(text string, x *extraction) {
	code := haskellSyntax.mask(text)
	for _, m := range haskellCalls().FindAllStringSubmatchIndex(code, -1) {
		fn := code[m[2]:m[3]]
		if !calledAt(code, m[0], true) || m[1] < len(code) && code[m[1]] == '\'' || haskellImport(code, m[0]) {
			continue
		}
		where := fn + " (Setup runs it when the package builds)"
		at := skipBlanks(code, m[1])
		if strings.HasPrefix(code[at:], "$") {
			at = skipBlanks(code, at+1)
		}
		s, end, ok := stringLiteral(code, at, "")
		line := s
		switch fn {
		case "callCommand", "system", "spawnCommand", "runCommand", "runInteractiveCommand":
		case "rawSystem", "callProcess", "readProcess", "readProcessWithExitCode", "spawnProcess":
			var args []string
			if ok {
				args, end, ok = literalList(code, skipBlanks(code, end), "")
			}
			if i := skipBlanks(code, end); ok && strings.HasPrefix(fn, "readProcess") && i < len(code) && code[i] == '"' {
				_, end, ok = stringLiteral(code, i, "") // the text given on its standard input
			}
			line = quoteWords(append([]string{s}, args...))
		default:
			ok = false
		}
		if ok {
			// What follows the command ends its expression: not "make " ++ dir.
			rest := strings.TrimLeft(code[end:], " \t")
			ok = rest == "" || strings.IndexByte("\r\n)>;|`,]}=", rest[0]) >= 0
		}
		if ok {
			x.shell(where, line)
		} else {
			x.opaque(where, "a command moat cannot read: "+snippet(code, m[0]))
		}
	}
}

// haskellImport reports whether text[i] is on an import line (import System.Process
// (callCommand)), which names the function without calling it.
func haskellImport(text string, i int) bool {
	// An import line is short: looking back no further keeps a long line from being
	// read again for each name on it.
	from := max(0, i-256)
	start := strings.LastIndexByte(text[from:i], '\n') + 1 + from
	if start == from && from > 0 {
		return false
	}
	t := strings.TrimLeft(text[start:i], " \t>")
	return strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import\t")
}

var (
	// swiftProcessCalls matches the Swift that starts a program, and the build commands a
	// package plugin gives the build to run.
	swiftProcessCalls = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(Process|NSTask)\s*\(|\bProcess\.run\s*\(|\b(posix_spawnp?|system|popen|execvp?|execve|execlp?)\s*\(|\.(prebuildCommand|buildCommand)\s*\(`)
	})
	// swiftPackageDependency matches .package(url: "…") and .package(path: "…"), with the
	// literal's quote.
	swiftPackageDependency = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\.package\s*\(\s*(?:name:\s*"[^"\n]*"\s*,\s*)?(url|path):\s*(")`)
	})
)

// swiftPackageCode: Package.swift is Swift that swift runs whenever it resolves or builds
// the package, and a package plugin's Swift runs as the package builds (a build tool
// plugin's commands run then too). moat does not read Swift: a manifest or plugin that
// starts a process (Process, NSTask, posix_spawn, system, popen, exec…) or gives the
// build commands to run (.buildCommand, .prebuildCommand) is opaque; an ordinary manifest
// (products, targets, dependencies by https URL) runs nothing else. A dependency fetched
// over plain http or git:// is anyone's on the way, and one in a directory outside the
// project code moat has not read.
func swiftPackageCode(text string, x *extraction) {
	code := swiftSyntax.mask(text)
	seen := map[string]bool{}
	for _, m := range swiftProcessCalls().FindAllStringIndex(code, -1) {
		call := strings.TrimRight(strings.TrimLeft(code[m[0]:m[1]], "."), " \t\r\n(")
		if seen[call] || call[0] >= 'a' && call[0] <= 'z' && m[0] > 0 && code[m[0]-1] == '.' && !strings.HasSuffix(call, "Command") {
			continue // Font.system(…) is no libc's system
		}
		seen[call] = true
		x.opaque(call, "Swift that runs a program ("+call+"), which moat does not read")
	}
	for _, m := range swiftPackageDependency().FindAllStringSubmatchIndex(code, -1) {
		s, _, ok := stringLiteral(code, m[4], `\(`)
		switch kind := code[m[2]:m[3]]; {
		case !ok:
			x.opaque(".package("+kind+":)", "a dependency computed at run time: "+snippet(code, m[0]))
		case kind == "url" && (strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "git://")):
			x.opaque(".package(url:)", "a dependency fetched without encryption from "+s)
		case kind == "url" && strings.HasPrefix(s, "file://") && outsideProject(strings.TrimPrefix(s, "file://")),
			kind == "path" && outsideProject(s):
			x.opaque(".package("+kind+":)", "a dependency built from "+s+", outside the project")
		}
	}
}
