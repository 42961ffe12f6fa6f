package oneliner

import (
	"regexp"
	"strings"
	"sync"
)

// A command line a program assembles from its own text and values computed at run time
// (`curl -fsSL ${url} -o /tmp/i.sh && sh /tmp/i.sh`, 'rm -rf ' . $dir . '/*',
// f"git checkout {branch}") is read as the shell line it becomes, with each computed value
// an unknown word: what its text shows (a download run, a delete under the home
// directory, a pipe into a shell) is judged, and a program named by a computed value is a
// program known only at run time. The home directory, however the language names it, is
// $HOME.

// asm reads assembled command lines and paths of code in one language. code, when set,
// is the whole program: a variable assigned once in it is read as what it was assigned
// (targets = f"{home}/.ssh …"; os.popen(f"rm -rf {targets}")).
type asm struct {
	lang Lang
	code string
	// depth counts the assignments followed to reach this text: a few at most.
	depth int
}

// maxAssignments bounds how many assignments a value is followed through.
const maxAssignments = 3

// computedWord stands for a value computed at run time in an assembled line: a variable
// no environment sets, so that the shell analysis knows nothing of its value.
const computedWord = "${MOAT_COMPUTED_VALUE}"

// maxAssembled bounds how much of a call's argument is read as an assembled line.
const maxAssembled = 4 << 10

// line reads the argument at the start of s as a command line assembled from
// literals and computed values, joined by the language's concatenation or written as an
// interpolating literal. It reports false for an argument that is no such line: a lone
// computed value (exec(cmd)), or computed values joined to text with no blank or shell
// operator in it.
func (x asm) line(s string) (string, bool) {
	a, ok := x.assemble(s[:min(len(s), maxAssembled)], false)
	if !ok || a.rest != "" && !endsArg(a.rest) {
		return "", false
	}
	return a.text, a.shown || a.literal && !a.computed
}

// assembly is an argument read as operands joined (assemble).
type assembly struct {
	text     string // the operands' text, computed values as computed words
	literal  bool   // some operand is a literal
	computed bool   // some value is computed at run time
	shown    bool   // some literal's text shows a command's shape (a blank, an operator)
	rest     string // what follows the last operand
}

// assemble reads operands joined by the language's concatenation from the start of s:
// literals (interpolating ones with what they interpolate as computed words) and
// expressions (valueWord). For a path, Python's pathlib / joins operands too.
func (x asm) assemble(s string, path bool) (assembly, bool) {
	var a assembly
	var b strings.Builder
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		if text, n, ok := x.interpolatedAt(s); ok {
			b.WriteString(text)
			a.literal = true
			a.shown = a.shown || strings.ContainsAny(text, " |;&<>")
			a.computed = a.computed || strings.Contains(text, computedWord)
			s = s[n:]
		} else {
			n := operandEnd(x.lang, s)
			if path {
				n = pathOperandEnd(x.lang, s)
			}
			if n == 0 {
				return a, false
			}
			b.WriteString(x.valueWord(strings.TrimSpace(s[:n])))
			a.computed = true
			s = s[n:]
		}
		s = strings.TrimLeft(s, " \t")
		switch {
		case concatOp(x.lang, s) > 0:
			s = s[1:]
			continue
		case path && x.lang == Python && strings.HasPrefix(s, "/"):
			s = s[1:]
			if !strings.HasSuffix(b.String(), "/") {
				b.WriteByte('/')
			}
			continue
		}
		break
	}
	a.text, a.rest = b.String(), s
	return a, b.Len() > 0
}

// interpolatedAt reads a string literal at the start of s, with what it interpolates
// written as computed words (or $HOME): JavaScript's `…${x}…`, Python's f"…{x}…", Ruby's
// "…#{x}…", PHP's and Perl's "…$x…". A literal that interpolates nothing is its text.
func (x asm) interpolatedAt(s string) (string, int, bool) {
	i := 0
	fstring := false
	if x.lang == Python {
		for j := 0; j < 2 && i < len(s) && strings.IndexByte("rbfRBF", s[i]) >= 0; j++ {
			fstring = fstring || s[i] == 'f' || s[i] == 'F'
			i++
		}
	}
	if i >= len(s) {
		return "", 0, false
	}
	q := s[i]
	switch {
	case q == '\'' && !fstring:
		lit, n, ok := literalAt(s)
		return lit, n, ok
	case q == '`' && x.lang == Node, q == '\'' || q == '"':
	default:
		return "", 0, false
	}
	body, n, ok := literalBody(s[i:])
	if !ok {
		return "", 0, false
	}
	return x.interpolate(body, q, fstring), i + n, true
}

// literalBody returns the raw text between the quote at the start of s and its closing
// quote (escapes kept), and the length read.
func literalBody(s string) (string, int, bool) {
	q := s[0]
	depth := 0 // of ${…} and #{…}, inside which a quote does not close the literal
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case (c == '$' || c == '#') && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case c == '}' && depth > 0:
			depth--
		case c == q && depth == 0:
			return s[1:i], i + 1, true
		}
	}
	return "", 0, false
}

// interpolate turns a literal's raw body into the text it becomes, each interpolation a
// computed word.
func (x asm) interpolate(body string, q byte, fstring bool) string {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(body[i])
			}
		case fstring && c == '{' && i+1 < len(body) && body[i+1] == '{', fstring && c == '}' && i+1 < len(body) && body[i+1] == '}':
			b.WriteByte(c)
			i++
		case fstring && c == '{':
			end := closing(body, i)
			b.WriteString(x.valueWord(body[i+1 : max(i+1, end)]))
			i = end
		case (x.lang == Node && q == '`' || x.lang == Ruby && q != '\'') && (c == '$' && x.lang == Node || c == '#' && x.lang == Ruby) && i+1 < len(body) && body[i+1] == '{':
			end := closing(body, i+1)
			b.WriteString(x.valueWord(body[i+2 : max(i+2, end)]))
			i = end
		case (x.lang == PHP || x.lang == Perl) && q != '\'' && c == '$' && i+1 < len(body) && (isIdent(body[i+1]) || body[i+1] == '{'):
			n := min(max(perlVarEnd(body[i:]), 1), len(body)-i)
			b.WriteString(x.valueWord(body[i : i+n]))
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	// fold writes the home directory as the literal '~', which in a shell line is a
	// directory named ~: it is $HOME there.
	return foldedHome().ReplaceAllString(b.String(), `"$$HOME$1"`)
}

// foldedHome matches the home directory as fold writes it into code: '~' or '~/path'.
var foldedHome = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`'~(/[^'\s]*)?'`)
})

// closing returns the index of the } that closes the { at open, or the end of s.
func closing(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

// perlVarEnd returns the length of the PHP or Perl variable at the start of s: $name,
// ${name}, with subscripts ($ENV{HOME}, $a['k'], $o->p).
func perlVarEnd(s string) int {
	i := 1
	if i < len(s) && s[i] == '{' {
		return closing(s, i) + 1
	}
	for i < len(s) && (isIdent(s[i]) || '0' <= s[i] && s[i] <= '9') {
		i++
	}
	for i < len(s) {
		switch {
		case s[i] == '{' || s[i] == '[':
			i = closing(strings.ReplaceAll(strings.ReplaceAll(s, "[", "{"), "]", "}"), i) + 1
		case strings.HasPrefix(s[i:], "->") && i+2 < len(s) && isIdent(s[i+2]):
			i += 2
			for i < len(s) && (isIdent(s[i]) || '0' <= s[i] && s[i] <= '9') {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// operandEnd returns the length of the computed operand at the start of s: up to the
// next concatenation, comma or closing bracket at its level.
func operandEnd(lang Lang, s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isQuote(c) || c == '`':
			_, n, ok := literalBody(s[i:])
			if !ok {
				return 0
			}
			i += n - 1
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				return i
			}
			depth--
		case depth == 0 && (c == ',' || c == ';' || c == '\n'):
			return i
		case depth == 0 && concatOp(lang, s[i:]) > 0 && i > 0:
			return i
		}
	}
	return len(s)
}

// concatOp returns the length of the concatenation operator at the start of s (with the
// blanks after it), 0 when there is none: + in most languages, . in PHP and Perl.
func concatOp(lang Lang, s string) int {
	op := byte('+')
	if lang == PHP || lang == Perl {
		op = '.'
	}
	if s == "" || s[0] != op || len(s) > 1 && (s[1] == op || s[1] == '=') {
		return 0
	}
	if op == '.' && (len(s) < 2 || s[1] != ' ' && s[1] != '\t' && !isQuote(s[1]) && s[1] != '$') {
		return 0 // a method call or a number, not the operator
	}
	return 1
}

// quoting matches a call that only quotes its one argument for the shell.
var quoting = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:escapeshellarg|escapeshellcmd|shlex\.quote|quote|Shellwords\.escape|shellescape|String|str|JSON\.stringify)\s*\(\s*([\s\S]*?)\s*\)$`)
})

// valueWord is the word an interpolated or concatenated expression becomes: $HOME for
// the home directory, the literal a quoting call wraps, literals joined, else a computed
// word.
func (x asm) valueWord(expr string) string {
	expr = strings.TrimSpace(expr)
	if x.code != "" && x.depth < maxAssignments && isIdentifier(expr) {
		// A variable assigned once: what it was assigned, read in turn (a few deep).
		if rhs, ok := assignedOnce(x.code, expr); ok {
			inner := asm{lang: x.lang, code: x.code, depth: x.depth + 1}
			if a, ok := inner.assemble(rhs[:min(len(rhs), maxAssembled)], false); ok && a.literal {
				if r := strings.TrimLeft(a.rest, " \t"); r == "" || strings.IndexByte(";\n", r[0]) >= 0 {
					return a.text
				}
			}
		}
	}
	if n := operandEnd(x.lang, expr); n > 0 && n < len(expr) {
		// 's' + 'h': operands joined, each its own word.
		if text, ok := x.path(expr); ok {
			return text
		}
	}
	if m := quoting().FindStringSubmatch(expr); m != nil {
		expr = m[1]
	}
	if lit, ok := firstLiteralStrict(expr); ok && literalEnd(expr) == len(expr) {
		if lit == "~" || strings.HasPrefix(lit, "~/") {
			return "$HOME" + strings.TrimPrefix(lit, "~")
		}
		return lit
	}
	if m := homeExpr().FindStringIndex(expr); m != nil && strings.TrimSpace(expr[m[1]:]) == "" {
		return "$HOME"
	}
	if expr == "homedir()" || expr == "$HOME" || expr == "$ENV{HOME}" || expr == "$ENV{'HOME'}" || expr == "$_SERVER['HOME']" {
		return "$HOME"
	}
	return computedWord
}

// homeComputedPath reads a call's path argument assembled from the home directory and
// values computed at run time (`${homedir()}/${d}`, Path.home() / name): it returns the
// directory under the home directory the computed part names an entry of, as ~/dir.
func (x asm) homeComputedPath(s string) (string, bool) {
	arg := s[:operandEnd(x.lang, strings.TrimLeft(s, " \t("))+len(s)-len(strings.TrimLeft(s, " \t("))]
	line, ok := x.path(strings.TrimLeft(arg, " \t("))
	if !ok || !strings.HasPrefix(line, "$HOME") {
		return "", false
	}
	i := strings.Index(line, computedWord)
	if i < 0 {
		return "", false
	}
	dir := line[len("$HOME"):i]
	if j := strings.LastIndexByte(dir, '/'); j >= 0 {
		dir = dir[:j]
	} else {
		dir = ""
	}
	return "~" + dir, true
}

// path renders a path argument written as an interpolating literal or as
// operands joined by the language's concatenation (or Python's pathlib /), computed
// values as computed words and the home directory as $HOME.
func (x asm) path(s string) (string, bool) {
	a, ok := x.assemble(s, true)
	return a.text, ok
}

// pathOperandEnd is operandEnd, with Python's pathlib / ending an operand too.
func pathOperandEnd(lang Lang, s string) int {
	n := operandEnd(lang, s)
	if lang == Python {
		if i := strings.Index(s[:n], " /"); i > 0 {
			return i
		}
	}
	return n
}

// loopHeads match a loop over a list written out in the code, capturing the loop's
// variable and the list's elements: Python's for p in (a, b):, JavaScript's for (const p
// of [a, b]), Ruby's [a, b].each do |p|.
var loopHeads = sync.OnceValue(func() map[Lang]*regexp.Regexp {
	return map[Lang]*regexp.Regexp{
		Python: regexp.MustCompile(`\bfor\s+(\w+)\s+in\s+[(\[]([^()\[\]]*(?:\([^()]*\)[^()\[\]]*)*)[)\]]\s*:`),
		Node:   regexp.MustCompile(`\bfor\s*\(\s*(?:const|let|var)\s+(\w+)\s+of\s+\[([^\[\]]*(?:\([^()]*\)[^\[\]]*)*)\]\s*\)`),
		Ruby:   regexp.MustCompile(`\[([^\[\]]*)\]\.each\s*(?:do\s*|\{\s*)\|(\w+)\|`),
	}
})

// loopPaths reads a call's path argument that is the variable of a loop over a list of
// paths written out in code: every element's path, when each is one.
func loopPaths(lang Lang, code, arg string) ([]string, bool) {
	re := loopHeads()[lang]
	if re == nil {
		return nil, false
	}
	arg = strings.TrimLeft(arg, " \t(")
	n := 0
	for n < len(arg) && (isIdent(arg[n]) || '0' <= arg[n] && arg[n] <= '9') {
		n++
	}
	if n == 0 || !endsArg(arg[n:]) {
		return nil, false
	}
	name := arg[:n]
	for _, m := range re.FindAllStringSubmatch(code, maxCalls) {
		v, list := m[1], m[2]
		if lang == Ruby {
			v, list = m[2], m[1]
		}
		if v != name {
			continue
		}
		var paths []string
		for _, elem := range splitTop(list) {
			if strings.TrimSpace(elem) == "" {
				continue // a trailing comma
			}
			p, ok := pathArg(elem)
			if !ok {
				return nil, false
			}
			paths = append(paths, p)
		}
		return paths, len(paths) > 0
	}
	return nil, false
}

// assignedLine reads a call's argument that is a variable assigned once in code, to a
// line assembled from text and computed values (asm.line).
func assignedLine(lang Lang, code, arg string) (string, bool) {
	n := 0
	for n < len(arg) && (isNameByte(arg[n]) || n == 0 && arg[n] == '$') {
		n++
	}
	if n == 0 || !endsArg(arg[n:]) {
		return "", false
	}
	rhs, ok := assignedOnce(code, arg[:n])
	if !ok {
		return "", false
	}
	return asm{lang: lang}.line(rhs)
}

// assignedOnce returns the code after the one assignment of name in code (name = …,
// name := …); false when it is assigned twice, or never.
func assignedOnce(code, name string) (string, bool) {
	n := len(name)
	at := -1
	for i := 0; i+n <= len(code); {
		k := strings.Index(code[i:], name)
		if k < 0 {
			break
		}
		k += i
		i = k + n
		if k > 0 && (isNameByte(code[k-1]) || code[k-1] == '.' || code[k-1] == '$' && name[0] != '$') || k+n < len(code) && isNameByte(code[k+n]) {
			continue
		}
		rest := strings.TrimLeft(code[k+n:], " \t")
		rest = strings.TrimPrefix(rest, ":")
		if !strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "==") || strings.HasPrefix(rest, "=>") {
			continue
		}
		if at >= 0 {
			return "", false // assigned twice: which value reaches the call is not known
		}
		at = len(code) - len(rest) + 1
	}
	if at < 0 {
		return "", false
	}
	return code[at:], true
}

// list reads a list of arguments at the start of s, [a, `b ${c}`, 'd' + e], each
// a literal or an assembly of literals and computed values (computed words in it).
func (x asm) list(s string) ([]string, bool) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	s = s[1:]
	var words []string
	for {
		s = strings.TrimLeft(s, " \t\n")
		if strings.HasPrefix(s, "]") {
			return words, len(words) > 0
		}
		a, ok := x.assemble(s[:min(len(s), maxAssembled)], false)
		if !ok || !a.literal || len(words) >= maxCalls {
			return nil, false
		}
		words = append(words, a.text)
		s = strings.TrimLeft(a.rest, " \t\n")
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "]"):
		default:
			return nil, false
		}
	}
}
