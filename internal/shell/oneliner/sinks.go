package oneliner

import (
	"regexp"
	"strings"
	"sync"
)

// Code sinks: the calls that run a string as code of the same language (eval, exec,
// Function, instance_eval, Perl's string eval, load). Once the code is folded, a sink's
// argument is either a literal, inspected as the code it is, or computed: then what the
// code runs is not known before it runs, and the code is opaque.

type codeSink struct {
	re *regexp.Regexp // the call, ending where its argument begins
	// need are words one of which any match contains: code with none is not scanned.
	need []string
	// lastArg: the code is the call's last argument (new Function('a', 'return a')).
	lastArg bool
	// bareVarOnly: only an argument that is a lone variable is code (PHP's assert($x)
	// runs a string, assert($x > 0) tests a condition).
	bareVarOnly bool
	// data: the argument is data that names the code to run, never read as code.
	data bool
}

var codeSinks = sync.OnceValue(func() map[Lang][]codeSink {
	return map[Lang][]codeSink{
		Python: {
			{need: []string{"exec", "eval", "compile"}, re: regexp.MustCompile(`(?:^|[^\w.]|\b(?:builtins|__builtins__)\.)(?:exec|eval|compile)\s*\(`)},
			// Unpickling calls whatever the data names (pickle's REDUCE opcode), so bytes
			// handed to pickle.loads are code, in a form moat does not read.
			{need: []string{"loads"}, re: regexp.MustCompile(`\b(?:pickle|cPickle|_pickle|dill|cloudpickle)\.loads\s*\(`), data: true},
		},
		Node: {
			// vm as folding writes it too (require('vm').runInThisContext), and a module's
			// _compile, which runs the text it is given as the module's code.
			{need: []string{"eval", "vm", "Script", "_compile"}, re: regexp.MustCompile(`(?:^|[^\w.]|\b(?:globalThis|global|window|self)\.)eval\s*\(|(?:\bvm|\brequire\(\s*["'](?:node:)?vm["']\s*\))\.(?:runInThisContext|runInNewContext|runInContext)\s*\(|\bnew\s+(?:vm|require\(\s*["'](?:node:)?vm["']\s*\))\.Script\s*\(|\._compile\s*\(`)},
			{need: []string{"Function", "constructor"}, re: regexp.MustCompile(`(?:^|[^\w.]|\b(?:globalThis|global|window|self)\.)Function\s*\(|\bvm\.compileFunction\s*\(|\bconstructor\.constructor\s*\(`), lastArg: true},
		},
		Ruby: {
			{need: []string{"eval"}, re: regexp.MustCompile(`(?:^|[^\w:])(?:eval|instance_eval|class_eval|module_eval|instance_exec)\b\s*\(?`)},
		},
		Perl: {
			{need: []string{"eval"}, re: regexp.MustCompile(`(?:^|[^\w$>])eval\b\s*\(?`)},
		},
		PHP: {
			{need: []string{"eval"}, re: regexp.MustCompile(`\beval\s*\(`)},
			{need: []string{"create_function"}, re: regexp.MustCompile(`\bcreate_function\s*\(`), lastArg: true},
			{need: []string{"assert"}, re: regexp.MustCompile(`\bassert\s*\(`), bareVarOnly: true},
		},
		Lua: {
			{need: []string{"load", "dostring"}, re: regexp.MustCompile(`(?:^|[^\w.])(?:load|loadstring|dostring)\s*\(`)},
		},
	}
})

// sinks inspects the literal code that code sinks run and reports the computed code they
// run as opaque. Decoders and downloads in a sink's argument are left to the patterns,
// which judge them more precisely (an encoded or downloaded program).
func sinks(lang Lang, code string, fd folded, r *Result, depth int) {
	p := patterns()[lang]
	if ref, ok := functionRefs()[lang]; ok && mentionsAny(code, ref.need) {
		if m := ref.re.FindString(withoutPlainImports(lang, code)); m != "" {
			r.Opaque = append(r.Opaque, "a function that runs commands or changes files passed as a value: "+shorten(m))
		}
	}
	var quoted []span // the string literals of code, read once a sink is found
	for _, s := range codeSinks()[lang] {
		if !mentionsAny(code, s.need) {
			continue
		}
		locs := findAll(s.re, code)
		if len(locs) > 0 && quoted == nil {
			quoted = stringSpans(lang, code)
		}
		if len(locs) > maxCalls {
			r.Opaque = append(r.Opaque, "more calls that run code than moat reads")
			locs = locs[:maxCalls]
		}
		for _, loc := range locs {
			rest := code[loc[1]:]
			args := callText(code, loc[1])
			if _, inString := spanAt(quoted, loc[0]); inString || strings.TrimSpace(args) == "" || definition(code, loc[0]) {
				// "eval() is not allowed" in a message is the message's text, eval() given
				// nothing runs nothing, and def compile(self, sources) defines a method.
				continue
			}
			if t := strings.TrimLeft(rest, " \t"); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "do ") || strings.HasPrefix(t, "do\n") {
				continue // a block (eval { … }, instance_eval { … }) is code moat reads in place
			}
			if lang == Perl {
				if body, static, ok := perlQuoted(strings.TrimLeft(rest, " \t")); ok && static {
					// eval q{ use Gtk3; }: code written out, read as code.
					if depth < maxDepth {
						inspect(lang, body, r, depth+1)
					}
					continue
				}
				if perlProse(args) {
					continue // "eval below" in a comment: no code follows the word
				}
				if m := perlRequire().FindStringSubmatch(args); m != nil {
					// eval "require $class": a module chosen at run time, as require($x).
					r.Opaque = append(r.Opaque, "loads a module named at run time: "+shorten(code[loc[0]:min(len(code), loc[1]+len(args)+1)]))
					continue
				}
			}
			if s.lastArg {
				if parts := splitTop(args); len(parts) > 0 {
					rest = parts[len(parts)-1]
				}
			}
			lit, n, ok := literalAt(rest)
			whole := ok && n > 0 && endsArg(rest[n:])
			switch {
			case s.data:
				r.computed("runs the code that serialized data names: " + shorten(code[loc[0]:min(len(code), loc[1]+len(args)+1)]))
			case whole:
				if depth < maxDepth {
					if contains(fd.decoded, lit) {
						r.add(findEncoded, lit)
					}
					inspect(lang, lit, r, depth+1)
				} else {
					r.Opaque = append(r.Opaque, "code nested too deep: "+shorten(lit))
				}
			case s.bareVarOnly && !bareVariable().MatchString(strings.TrimSpace(args)):
			case matches(p.decoder, args) || matches(p.download, args):
			default:
				r.computed("runs code computed at run time: " + shorten(code[loc[0]:min(len(code), loc[1]+len(args)+1)]))
			}
		}
	}
}

// functionRefs are, per language, functions that run commands, code or change files named
// as values rather than called (map(os.system, cmds), arr.forEach(execSync),
// array_map('system', $a), each(&method(:system))): they are called with arguments moat
// does not see. need are words one of which any match contains.
type functionRef struct {
	re   *regexp.Regexp
	need []string
}

var functionRefs = sync.OnceValue(func() map[Lang]functionRef {
	return map[Lang]functionRef{
		Python: {need: []string{"os.", "subprocess.", "shutil.", "pty.", "exec", "eval"}, re: regexp.MustCompile(`\b(?:os\.(?:system|popen|exec[lv]p?e?|spawn[lv]p?e?|remove|unlink|rmdir|removedirs|rename|replace)|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|shutil\.(?:rmtree|move|copy|copy2|copyfile|copytree)|pty\.spawn)\s*(?:[,)\]}]|$)|(?:^|[^\w.])(?:exec|eval)\s*(?:[,)\]}]|$)`)},
		// Node: also a binding under another name (import { exec as run }), whose calls
		// are not seen by the name the patterns know.
		Node: {need: []string{"exec", "spawn", "Sync", "eval"}, re: regexp.MustCompile(`\b(?:execSync|exec|spawn|spawnSync|execFile|execFileSync|rmSync|unlinkSync|writeFileSync|renameSync|eval)\s*(?:[,)\]}]|$|as\s+\w)`)},
		Ruby: {need: []string{"&"}, re: regexp.MustCompile(`&\s*:?(?:system|exec|spawn|eval)\b`)},
		PHP:  {need: []string{"system", "exec", "passthru", "popen", "assert", "eval", "unlink", "file_put_contents"}, re: regexp.MustCompile(`["'](?:system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|assert|unlink|rmdir|file_put_contents)["']\s*[,)\]]`)},
		Perl: {need: []string{"\\&"}, re: regexp.MustCompile(`\\&(?:CORE::)?(?:system|exec|unlink)\b`)},
	}
})

// plainImports match JavaScript's bindings of child_process's and fs's functions under
// their own names: const { execSync } = require('child_process'), import { exec } from
// 'node:child_process', .then(({ execSync }) => …). A call of such a name is seen where
// it is made, as a call of child_process.execSync is; the binding passes no function
// as a value. Bindings that rename one (execSync: run, exec as run) are left to
// functionRefs, since the new name's calls are not seen.
var plainImports = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\b(?:const|let|var)\s*\{[^{}:]*\}\s*=\s*(?:await\s+)?(?:require|import)\s*\(\s*['"](?:node:)?(?:child_process|fs|fs/promises)['"]\s*\)|\bimport\s*\{[^{}:]*\}\s*from\s*['"](?:node:)?(?:child_process|fs|fs/promises)['"]|\(\s*\{[^{}:]*\}\s*\)\s*=>)`)
})

// withoutPlainImports blanks the plain bindings of JavaScript code (plainImports), for
// the search for functions passed as values; other languages' code is returned as it is.
func withoutPlainImports(lang Lang, code string) string {
	if lang != Node || !strings.Contains(code, "{") {
		return code
	}
	return plainImports().ReplaceAllStringFunc(code, func(m string) string {
		if strings.Contains(m, " as ") {
			return m // import { exec as run } renames it
		}
		return strings.Repeat(" ", len(m))
	})
}

var bareVariable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\w+$`)
})

// endsArg reports whether what follows a literal ends the argument it begins: the literal
// is the whole argument, not 'rm ' of 'rm ' + x.
func endsArg(after string) bool {
	after = strings.TrimLeft(after, " \t")
	return after == "" || strings.IndexByte(",);\n]}", after[0]) >= 0 || strings.HasPrefix(after, "if ") || strings.HasPrefix(after, "unless ") ||
		strings.HasPrefix(after, "or ") || strings.HasPrefix(after, "and ") || strings.HasPrefix(after, "&&") || strings.HasPrefix(after, "||")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitTop splits a call's argument text at its top-level commas.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isQuote(c) || c == '`':
			if _, n, _ := readLiteral(s[i:], false); n > 1 {
				i += n - 1
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" || len(out) > 0 {
		out = append(out, s[start:])
	}
	return out
}

// definition reports whether the name matched at start (or just after it, past the
// character before the name) is being defined, not called: def NAME(, function NAME(,
// sub NAME.
func definition(code string, start int) bool {
	before := code[:start]
	if start < len(code) && !isWordByte(code[start]) {
		before = code[:start+1]
	}
	before = strings.TrimRight(before, " \t")
	for _, kw := range []string{"def", "function", "sub", "fn"} {
		if rest, ok := strings.CutSuffix(before, kw); ok && (rest == "" || !isWordByte(rest[len(rest)-1])) {
			return true
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'z'
}

// perlQuoted reads Perl's q{…}/qq{…} quote at the start of s (any of its bracket or
// punctuation delimiters): its body, and whether it is static (q, or qq that interpolates
// nothing).
func perlQuoted(s string) (body string, static, ok bool) {
	op := ""
	switch {
	case strings.HasPrefix(s, "qq"):
		op = "qq"
	case strings.HasPrefix(s, "q"):
		op = "q"
	default:
		return "", false, false
	}
	rest := strings.TrimLeft(s[len(op):], " \t")
	if rest == "" || isNameByte(rest[0]) || rest[0] == ',' || rest[0] == ';' || rest[0] == '=' {
		return "", false, false
	}
	open := rest[0]
	closer := open
	switch open {
	case '{':
		closer = '}'
	case '(':
		closer = ')'
	case '[':
		closer = ']'
	case '<':
		closer = '>'
	}
	depth := 0
	for i := 1; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '\\':
			i++
		case c == open && open != closer:
			depth++
		case c == closer && depth > 0:
			depth--
		case c == closer:
			body = rest[1:i]
			if op == "qq" {
				// \$ and \@ are the characters themselves, not interpolations.
				plain := strings.NewReplacer(`\\`, "", `\$`, "", `\@`, "").Replace(body)
				static = !strings.ContainsAny(plain, "$@")
				body = strings.NewReplacer(`\$`, "$", `\@`, "@").Replace(body)
			} else {
				static = true
			}
			return body, static, true
		}
	}
	return "", false, false
}

// perlProse reports whether what follows a Perl eval is prose, as in a comment: a
// bareword and nothing on the rest of its line that code would have (a sigil, a bracket,
// a quote, an arrow).
func perlProse(args string) bool {
	t := strings.TrimLeft(args, " \t")
	if t == "" || !isIdent(t[0]) {
		return false
	}
	line, _, _ := strings.Cut(t, "\n")
	return !strings.ContainsAny(line, "$@%&(\"'`{[;") && !strings.Contains(line, "->")
}

// perlRequire matches eval's argument that loads a module whose name is a variable:
// "require $class", "use Foo::$type".
var perlRequire = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\(?\s*(?:"|qq?\s*[{(|])\s*(?:require|use)\s+[\w:]*\$\{?[\w:]+\}?(?:->\{\w+\})?(?:::[\w$]+)*\s*;?\s*["})|]`)
})
