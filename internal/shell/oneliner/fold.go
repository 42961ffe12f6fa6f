package oneliner

import (
	"encoding/base64"
	"encoding/hex"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Constant folding: before the patterns read the code, names and values are replaced by
// what they stand for, so that the patterns read literal calls:
//
//	import os as o; o.system('rm ' + d)      with d = '-rf ~'  →  os.system('rm -rf ~')
//	getattr(__import__('os'), 'sys'+'tem')   →  os.system
//	const {execSync: e} = require('child_process'); e(`rm ${x}`)  →  execSync('rm …')
//	Path.home() / '.claude' / 'settings.json'  →  '~/.claude/settings.json'
//
// What it folds is a closed set, listed in the tables of foldtables.go: string literals and
// their concatenation, variables assigned once, interpolation of known values, the home
// directory's spellings, path joins, decoders of literals, import aliases, and the calls
// that look a module or a function up by name. A lookup whose name does not fold
// (computed, reversed, decoded) is not folded, and the sinks (sinks.go) then report the
// code as opaque.

// folded is the result of folding code.
type folded struct {
	code string
	// decoded are the values that decoders of literals gave: a command that comes from
	// one is a command hidden by an encoding.
	decoded []string
	opaque  []string // why the code could not be read
	// computed are the reasons of opaque code that is computed or written as data (a
	// data: URL imported): code nobody can read before it runs.
	computed []string
	// computedWrites and computedDeletes name the variables holding paths a path
	// object's method writes or deletes (rc.write_text(…) with rc computed).
	computedWrites, computedDeletes []string
}

type folder struct {
	lang  Lang
	toks  []token
	match []int
	vars  map[string]*foldVar
	// loose are the names assigned somewhere other than at the start of a statement (c =>
	// d += c in a callback, f(x = 1)): the statements seen in order do not tell their
	// value where they are used.
	loose   map[string]bool
	aliases map[string]string
	// lists are the names assigned once a list of values that fold (STEPS = ['curl',
	// u, '|', 'sh']), for the joins that make a string of them.
	lists map[string][]string
	out   *strings.Builder
	res   *folded
	depth int
}

type foldVar struct {
	val     string
	known   bool // false once the variable takes a value that does not fold
	decoded bool
	closure bool // it holds a function written in place ($f = function ($x) {…})
}

// maxFoldDepth bounds the interpolated expressions folded inside interpolated strings.
const maxFoldDepth = 2

// fold returns code with its foldable names and expressions replaced by their values.
func fold(lang Lang, code string) folded {
	res := folded{code: code}
	if _, ok := concatOps()[lang]; !ok {
		return res // awk, AppleScript: nothing to fold
	}
	toks, ok := lex(lang, code)
	if !ok {
		res.opaque = append(res.opaque, "code too long to fold")
		return res
	}
	f := &folder{lang: lang, toks: toks, match: brackets(toks), vars: map[string]*foldVar{}, aliases: map[string]string{}, res: &res, out: &strings.Builder{}}
	f.loose = f.looseAssignments()
	f.out.Grow(len(code))
	f.emit(0, len(toks))
	res.code = f.out.String()
	return res
}

// looseAssignments returns the names assigned by an operator (=, +=, .=, op=, :=, ++, --)
// somewhere other than at the start of a statement, a declaration's included.
func (f *folder) looseAssignments() map[string]bool {
	var loose map[string]bool
	toks := f.toks
	for i, t := range toks {
		if t.kind != tName {
			continue
		}
		j := f.next(i+1, len(toks))
		if j >= len(toks) || toks[j].kind != tPunct {
			continue
		}
		op := toks[j].text
		compound := j+1 < len(toks) && toks[j+1].kind == tPunct &&
			(toks[j+1].text == "=" && (len(op) == 1 && strings.Contains("-*/%|&^:", op) || op == "||" || op == "&&" || op == "**" || op == "<<" || op == "//") ||
				(op == "+" || op == "-") && toks[j+1].text == op)
		if op != "=" && op != "+=" && op != ".=" && !compound {
			continue
		}
		at := i
		if k := f.prev(i); k >= 0 && toks[k].kind == tName && isDecl(toks[k].text) {
			at = k // let d = …: the statement starts at its keyword
		}
		if !f.stmtStart(at) {
			if loose == nil {
				loose = map[string]bool{}
			}
			loose[t.text] = true
		}
	}
	return loose
}

// prev returns the index of the last non-blank token before i, -1 if none.
func (f *folder) prev(i int) int {
	for i--; i >= 0 && f.toks[i].kind == tSpace; i-- {
	}
	return i
}

// next returns the index of the first non-blank token at or after i (len(toks) if none).
func (f *folder) next(i, hi int) int {
	for i < hi && f.toks[i].kind == tSpace {
		i++
	}
	return i
}

func (f *folder) is(i, hi int, text string) bool {
	return i < hi && f.toks[i].kind == tPunct && f.toks[i].text == text
}

// stmtStart reports whether token i begins a statement.
func (f *folder) stmtStart(i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := f.toks[j]
		switch {
		case t.kind == tSpace:
			if strings.ContainsAny(t.text, "\n") {
				return true
			}
			continue
		case t.kind == tPunct && (t.text == ";" || t.text == "{" || t.text == "}" || t.text == ":" && f.lang == Python):
			return true
		case t.kind == tName && isDecl(t.text):
			return true
		}
		return false
	}
	return true
}

// isDecl reports the keywords that declare a variable before its name.
func isDecl(s string) bool {
	switch s {
	case "const", "let", "var", "local", "my", "our":
		return true
	}
	return false
}

// emit writes the folded text of toks[lo:hi].
func (f *folder) emit(lo, hi int) {
	for i := lo; i < hi; {
		i = f.emitOne(i, hi)
	}
}

// emitOne folds what starts at token i and returns the index after it.
func (f *folder) emitOne(i, hi int) int {
	t := f.toks[i]
	if t.kind == tName && f.stmtStart(i) {
		if n, ok := f.statement(i, hi); ok {
			return n
		}
	}
	if n, ok := f.lookup(i, hi); ok {
		return n
	}
	if t.kind == tName {
		if n, ok := f.varReceiver(i, hi); ok {
			return n
		}
		if f.lang == Perl && strings.HasPrefix(t.text, "$") && (f.prevIs(i, "&") || f.is(f.next(i+1, hi), hi, "->")) {
			if v, ok := f.vars[t.text]; !ok || !v.known && !v.closure {
				f.opaque("calls a function named by a variable: " + f.text(i, i+2))
			}
		}
		if f.lang == PHP && strings.HasPrefix(t.text, "$") && f.is(f.next(i+1, hi), hi, "(") {
			if v, ok := f.vars[t.text]; !ok || !v.known && !v.closure {
				f.opaque("calls a function named by a variable: " + f.text(i, i+2))
			}
		}
	}
	if t.kind == tPunct && t.text == "[" && f.callParen(i) {
		if n, ok := f.computedMember(i, hi); ok {
			return n
		}
	}
	if t.kind == tPunct && t.text == "[" && (f.lang == Node || f.lang == Ruby) {
		if v, n, ok := f.joinedList(i, hi); ok {
			f.literal(v.val)
			return n
		}
	}
	if t.kind == tPunct && (t.text != "(" || f.callParen(i)) {
		// A call's parentheses stay around its folded arguments.
		f.out.WriteString(t.text)
		return i + 1
	}
	if v, n, ok := f.expr(i, hi); ok {
		if n, ok := f.receiver(v.val, n, hi); ok {
			return n
		}
		if f.lang == PHP && f.is(f.next(n, hi), hi, "(") && isIdentifier(v.val) {
			// $f = 'system'; $f('…') and ('sys'.'tem')('…'): a string called is the
			// function it names.
			f.out.WriteString(v.val)
			return n
		}
		if f.lang == Perl && t.kind == tName && f.prevIs(i, "&") && isIdentifier(v.val) {
			// &$f(…) with $f = 'system': a symbolic call of the function it names.
			f.out.WriteString(v.val)
			return n
		}
		if n-i == 1 && t.kind == tString && t.static && !strings.Contains(t.text, "\\") {
			// As written, unless an escape ('\x72m') must be decoded for the patterns.
			f.out.WriteString(t.text)
		} else {
			f.literal(v.val)
		}
		return n
	}
	if t.kind == tName {
		f.out.WriteString(f.resolve(t.text))
		return i + 1
	}
	f.out.WriteString(t.text)
	return i + 1
}

// literal writes a folded value as a single-quoted literal, which every reader of the
// patterns reads back exactly.
func (f *folder) literal(v string) {
	f.out.WriteByte('\'')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', '\'':
			f.out.WriteByte('\\')
			f.out.WriteByte(c)
		case '\n':
			f.out.WriteString(`\n`)
		default:
			f.out.WriteByte(c)
		}
	}
	f.out.WriteByte('\'')
}

// resolve replaces the first segment of a dotted name by what it aliases.
func (f *folder) resolve(name string) string {
	head, rest, dotted := strings.Cut(name, ".")
	if to, ok := f.aliases[head]; ok {
		if dotted {
			return to + "." + rest
		}
		return to
	}
	return name
}

// receiver: a path value followed by a method of the language's path objects
// (Path(p).write_text(…), Pathname.new(p).write(…)) is written as that method called on the
// path, Path.write_text(p, …), so that the file operations read the path as an argument.
func (f *folder) receiver(val string, n, hi int) (int, bool) {
	j := f.next(n, hi)
	if !f.is(j, hi, ".") || j+1 >= hi || f.toks[j+1].kind != tName {
		return n, false
	}
	method := f.toks[j+1].text
	k := f.next(j+2, hi)
	if !receiverMethods()[f.lang][method] || !f.is(k, hi, "(") || f.match[k] < 0 {
		return n, false
	}
	f.out.WriteString("Path." + method + "(")
	f.literal(val)
	if f.next(k+1, hi) != f.match[k] {
		f.out.WriteString(", ")
	}
	return k + 1, true
}

// end returns the index just after the statement that starts at i: a semicolon or a
// line end outside brackets, or an unmatched closing bracket.
func (f *folder) end(i, hi int) int {
	for j := i; j < hi; j++ {
		t := f.toks[j]
		switch {
		case t.kind == tPunct && (t.text == "(" || t.text == "[" || t.text == "{"):
			if f.match[j] < 0 || f.match[j] >= hi {
				return hi
			}
			j = f.match[j]
		case t.kind == tPunct && (t.text == ";" || t.text == ")" || t.text == "]" || t.text == "}"):
			return j
		case t.kind == tSpace && strings.Contains(t.text, "\n"):
			return j
		}
	}
	return hi
}

// statement folds an import or an assignment starting at i.
func (f *folder) statement(i, hi int) (int, bool) {
	t := f.toks[i]
	end := f.end(i, hi)
	if f.lang == Ruby && t.text == "include" {
		if j := f.next(i+1, end); j < end && f.toks[j].kind == tName {
			f.star(f.toks[j].text)
		}
		return 0, false
	}
	if f.lang == Python && (t.text == "import" || t.text == "from") {
		f.imports(i, end)
		f.writeRaw(i, end)
		return end, true
	}
	if f.lang == Node && t.text == "import" {
		f.nodeImport(i, end)
		f.writeRaw(i, end)
		return end, true
	}
	j := i
	if isDecl(t.text) {
		j = f.next(i+1, end)
	}
	if j < end && f.toks[j].kind == tPunct && f.toks[j].text == "{" && f.lang == Node {
		return f.destructure(i, j, end)
	}
	if j >= end || f.toks[j].kind != tName || strings.Contains(f.toks[j].text, ".") {
		return 0, false
	}
	name := f.toks[j].text
	op := f.next(j+1, end)
	if f.lang == Go {
		// home, _ := os.UserHomeDir(): the first of the values a call returns (its error
		// aside) is the name's.
		for op < end && f.is(op, end, ",") {
			k := f.next(op+1, end)
			if k >= end || f.toks[k].kind != tName {
				return 0, false
			}
			op = f.next(k+1, end)
		}
	}
	if op >= end || f.toks[op].kind != tPunct {
		return 0, false
	}
	opText := f.toks[op].text
	switch opText {
	case "=", "+=", ".=":
	case ":=":
		if f.lang != Go {
			return 0, false
		}
		opText = "=" // Go's short declaration assigns
	default:
		return 0, false
	}
	if opText == ".=" && f.lang != Perl && f.lang != PHP {
		return 0, false
	}
	rhs := f.next(op+1, end)
	if _, listed := f.lists[name]; listed {
		delete(f.lists, name) // assigned again: which list a join sees is not known
	} else if _, seen := f.vars[name]; !seen && opText == "=" && (f.is(rhs, end, "[") || f.is(rhs, end, "(")) {
		if items, n, ok := f.list(rhs, end); ok && f.next(n, end) == end && !f.loose[name] {
			if f.lists == nil {
				f.lists = map[string][]string{}
			}
			f.lists[name] = items
		}
	}
	v, n, ok := f.expr(rhs, end)
	ok = ok && f.next(n, end) == end
	old, seen := f.vars[name]
	switch {
	case opText != "=":
		if ok && seen && old.known {
			old.val += v.val
			old.decoded = old.decoded || v.decoded
		} else if seen {
			old.known = false
		}
	case ok && !seen:
		f.vars[name] = &foldVar{val: v.val, known: !f.loose[name], decoded: v.decoded}
		delete(f.aliases, name)
	case ok && seen && old.known && old.val == v.val:
	case seen:
		// Assigned twice: which value a later use sees depends on the path taken.
		old.known = false
		delete(f.aliases, name)
	default:
		// A reference to a module or a function (s = os.system) is an alias.
		saved := f.out
		f.out = &strings.Builder{}
		f.emit(rhs, end)
		text := strings.TrimSpace(f.out.String())
		f.out = saved
		if isReference(text) {
			f.aliases[name] = text
		} else {
			first := ""
			if rhs < end {
				first = f.toks[rhs].text
			}
			f.vars[name] = &foldVar{closure: first == "function" || first == "fn" || first == "lambda" || first == "sub"}
		}
	}
	f.writeRaw(i, rhs)
	f.emit(rhs, end)
	return end, true
}

// isReference reports whether folded text names a module or function without calling it:
// os.system, require('child_process').execSync, os (from __import__('os')).
func isReference(s string) bool {
	return s != "" && len(s) <= 200 && reference().MatchString(s)
}

var reference = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:require\(\s*'[^'\\]*'\s*\))?[\w$.:]*$`)
})

func (f *folder) writeRaw(lo, hi int) {
	for k := lo; k < hi; k++ {
		f.out.WriteString(f.toks[k].text)
	}
}

// imports reads a Python import statement into aliases: import os as o, from os import
// system as s, from subprocess import run.
func (f *folder) imports(i, end int) {
	var words []string
	for k := i; k < end; k++ {
		switch t := f.toks[k]; t.kind {
		case tName:
			words = append(words, t.text)
		case tPunct:
			if t.text == "," {
				words = append(words, ",")
			}
		}
	}
	if len(words) == 0 {
		return
	}
	module := ""
	if words[0] == "from" {
		if len(words) < 3 || words[2] != "import" {
			return
		}
		module, words = words[1], words[3:]
		for k := i; k < end; k++ {
			if f.is(k, end, "*") {
				f.star(module)
			}
		}
	} else {
		words = words[1:]
	}
	for len(words) > 0 {
		item := words[0]
		alias := ""
		n := 1
		if len(words) >= 3 && words[1] == "as" {
			alias, n = words[2], 3
		}
		words = words[n:]
		if len(words) > 0 && words[0] == "," {
			words = words[1:]
		}
		full := item
		if module != "" {
			full = module + "." + item
		}
		if alias == "" {
			if module == "" {
				continue // import os: os is os
			}
			alias = item
		}
		if alias != full {
			f.aliases[alias] = full
			delete(f.vars, alias)
		}
	}
}

// nodeImport reads an ES import into aliases: import { homedir, join as j } from
// 'node:os' makes homedir os.homedir (and j os.join); import * as o from 'os' and import
// o from 'os' make o os.
func (f *folder) nodeImport(i, end int) {
	module := ""
	for k := i; k < end; k++ {
		if f.toks[k].kind == tName && f.toks[k].text == "from" {
			if lit := f.next(k+1, end); lit < end && f.toks[lit].kind == tString && f.toks[lit].static {
				module = nodeModule(f.toks[lit].parts[0].text)
			}
		}
	}
	if module == "" {
		return
	}
	var names []string
	braces := false
	for k := i + 1; k < end; k++ {
		t := f.toks[k]
		switch {
		case t.kind == tPunct && t.text == "{":
			braces = true
		case t.kind == tPunct && t.text == "}":
			braces = false
		case t.kind == tName && t.text == "from":
			k = end
		case t.kind == tName && braces:
			names = append(names, t.text)
		case t.kind == tName && t.text != "as" && t.text != "type":
			// import o from 'os', import * as o from 'os': the module itself.
			if t.text != module {
				f.aliases[t.text] = module
			}
		}
	}
	for k := 0; k < len(names); k++ {
		name, alias := names[k], names[k]
		if k+2 < len(names) && names[k+1] == "as" {
			alias = names[k+2]
			k += 2
		}
		f.aliases[alias] = module + "." + name
		delete(f.vars, alias)
	}
}

// nodeModule is the name a module's members are known by, for the modules whose members
// folding and the patterns know by their module's name (os.homedir, path.join,
// child_process.exec): node:os is os. Other modules' members keep their bare names (a
// pattern knows execa by its own), and "" says so.
func nodeModule(spec string) string {
	switch m := strings.TrimPrefix(spec, "node:"); m {
	case "os", "path", "child_process":
		return m
	}
	return ""
}

// destructure reads const {execSync: e, spawn} = require('child_process').
func (f *folder) destructure(i, open, end int) (int, bool) {
	closeAt := f.match[open]
	if closeAt < 0 || closeAt >= end {
		return 0, false
	}
	var names []string
	for k := open + 1; k < closeAt; k++ {
		t := f.toks[k]
		if t.kind == tName || t.kind == tPunct && (t.text == ":" || t.text == ",") {
			names = append(names, t.text)
		}
	}
	// = require('os'): each name is the module's member (homedir is os.homedir).
	module := ""
	if eq := f.next(closeAt+1, end); f.is(eq, end, "=") {
		if r := f.next(eq+1, end); r < end && f.toks[r].text == "require" {
			if open := f.next(r+1, end); f.is(open, end, "(") {
				if lit := f.next(open+1, end); lit < end && f.toks[lit].kind == tString && f.toks[lit].static {
					module = nodeModule(f.toks[lit].parts[0].text)
				}
			}
		}
	}
	for k := 0; k < len(names); k++ {
		switch {
		case k+2 < len(names) && names[k+1] == ":" && names[k] != ",":
			f.aliases[names[k+2]] = names[k]
			if module != "" {
				f.aliases[names[k+2]] = module + "." + names[k]
			}
			k += 2
		case module != "" && names[k] != "," && names[k] != ":":
			f.aliases[names[k]] = module + "." + names[k]
		}
	}
	f.writeRaw(i, f.next(closeAt+1, end))
	f.emit(f.next(closeAt+1, end), end)
	return end, true
}

// foldVal is the value of an expression that folds to a string.
type foldVal struct {
	val     string
	decoded bool
}

// expr folds the expression that starts at token i: operands joined by the language's
// concatenation operators. ok is false when any operand does not fold: 'rm ' + x is not
// 'rm '.
func (f *folder) expr(i, hi int) (foldVal, int, bool) {
	v, n, ok := f.primary(i, hi)
	if !ok {
		return v, i, false
	}
	for {
		j := f.next(n, hi)
		if j >= hi || f.toks[j].kind != tPunct {
			return v, n, true
		}
		op := f.toks[j].text
		switch {
		case concatOps()[f.lang][op]:
			w, m, ok := f.primary(f.next(j+1, hi), hi)
			if !ok {
				return v, i, false
			}
			sep := ""
			if op == "/" {
				sep = "/" // pathlib's / joins paths
			}
			v = foldVal{val: joinPath(v.val, w.val, sep), decoded: v.decoded || w.decoded}
			n = m
		case op == "%" && f.lang == Python:
			w, m, ok := f.primary(f.next(j+1, hi), hi)
			if !ok || strings.Count(v.val, "%") != 1 || !strings.Contains(v.val, "%s") {
				return v, i, false
			}
			v = foldVal{val: strings.Replace(v.val, "%s", w.val, 1), decoded: v.decoded || w.decoded}
			n = m
		case op == "||":
			// process.env.HOME || os.homedir(): either way the same value.
			w, m, ok := f.primary(f.next(j+1, hi), hi)
			if !ok || w.val != v.val {
				return v, i, false
			}
			n = m
		case op == "*" || op == "%" || op == "[" || op == "-" || op == "<<":
			return v, i, false // repeated, formatted, indexed, sliced: not this string
		default:
			return v, n, true
		}
	}
}

func joinPath(a, b, sep string) string {
	if sep == "" {
		return a + b
	}
	if strings.HasPrefix(b, "/") {
		return b
	}
	return strings.TrimSuffix(a, "/") + "/" + b
}

// primary folds one operand: a literal, a variable, the home directory, a pure call of
// literals, an interpolating string of known values, a parenthesised expression; then
// the methods that leave a string as it is (.decode(), .toString(), .to_s).
func (f *folder) primary(i, hi int) (foldVal, int, bool) {
	if i >= hi {
		return foldVal{}, i, false
	}
	t := f.toks[i]
	var v foldVal
	n := i + 1
	switch t.kind {
	case tString:
		if t.static {
			v.val = t.value()
			break
		}
		var b strings.Builder
		for _, p := range t.parts {
			if !p.code {
				b.WriteString(p.text)
				continue
			}
			w, ok := f.foldText(p.text)
			if !ok {
				return v, i, false
			}
			b.WriteString(w.val)
			v.decoded = v.decoded || w.decoded
		}
		v.val = b.String()
	case tPunct:
		if t.text == "[" && (f.lang == Node || f.lang == Ruby) {
			// ['cu', 'rl'].join(''): a list of literals joined is a literal.
			return f.joinedList(i, hi)
		}
		if t.text != "(" || f.match[i] < 0 || f.match[i] >= hi {
			return v, i, false
		}
		w, m, ok := f.expr(f.next(i+1, hi), f.match[i])
		if !ok || f.next(m, hi) != f.match[i] {
			return v, i, false
		}
		v, n = w, f.match[i]+1
	case tName:
		if list, ok := strings.CutSuffix(t.text, ".join"); ok && f.lists[list] != nil && (f.lang == Node || f.lang == Ruby) {
			// STEPS.join(' '): the named list's values joined.
			k := f.next(i+1, hi)
			if !f.is(k, hi, "(") || f.match[k] < 0 || f.match[k] >= hi {
				return v, i, false
			}
			sep := ","
			if a := f.next(k+1, hi); a != f.match[k] {
				w, m, ok := f.expr(a, f.match[k])
				if !ok || f.next(m, hi) != f.match[k] {
					return v, i, false
				}
				sep = w.val
			} else if f.lang == Ruby {
				sep = ""
			}
			v.val, n = strings.Join(f.lists[list], sep), f.match[k]+1
			break
		}
		var ok bool
		v, n, ok = f.name(i, hi)
		if !ok {
			return v, i, false
		}
	default:
		return v, i, false
	}
	return f.postfix(v, n, hi)
}

// list folds a list or tuple literal at token i ([ or (): every element must fold. It
// returns the elements and the token after the list.
func (f *folder) list(i, hi int) ([]string, int, bool) {
	if i >= hi || f.toks[i].kind != tPunct || (f.toks[i].text != "[" && f.toks[i].text != "(") || f.match[i] < 0 || f.match[i] >= hi {
		return nil, i, false
	}
	closeAt := f.match[i]
	var items []string
	j := f.next(i+1, closeAt)
	for j < closeAt {
		w, m, ok := f.expr(j, closeAt)
		if !ok || len(items) >= maxCalls {
			return nil, i, false
		}
		items = append(items, w.val)
		j = f.next(m, closeAt)
		if f.is(j, closeAt, ",") {
			j = f.next(j+1, closeAt)
			continue
		}
		if j != closeAt {
			return nil, i, false
		}
	}
	return items, closeAt + 1, true
}

// joinedList folds a list literal at token i followed by .join(SEP) into the joined
// string: JavaScript's and Ruby's way of assembling a word from pieces.
func (f *folder) joinedList(i, hi int) (foldVal, int, bool) {
	// The .join after the list is looked for first: reading the list's elements at every
	// bracket of nested lists would cost the square of their depth.
	if f.match[i] < 0 || f.match[i] >= hi {
		return foldVal{}, i, false
	}
	j := f.next(f.match[i]+1, hi)
	if !f.is(j, hi, ".") || j+1 >= hi || f.toks[j+1].kind != tName || f.toks[j+1].text != "join" {
		return foldVal{}, i, false
	}
	items, _, ok := f.list(i, hi)
	if !ok {
		return foldVal{}, i, false
	}
	k := f.next(j+2, hi)
	if !f.is(k, hi, "(") || f.match[k] < 0 || f.match[k] >= hi {
		return foldVal{}, i, false
	}
	sep := ","
	if a := f.next(k+1, hi); a != f.match[k] {
		w, m, ok := f.expr(a, f.match[k])
		if !ok || f.next(m, hi) != f.match[k] {
			return foldVal{}, i, false
		}
		sep = w.val
	} else if f.lang == Ruby {
		sep = ""
	}
	return f.postfix(foldVal{val: strings.Join(items, sep)}, f.match[k]+1, hi)
}

// postfix skips the methods that leave a string value as it is.
func (f *folder) postfix(v foldVal, n, hi int) (foldVal, int, bool) {
	for {
		j := f.next(n, hi)
		if !f.is(j, hi, ".") || j+1 >= hi || f.toks[j+1].kind != tName {
			return v, n, true
		}
		method, _, _ := strings.Cut(f.toks[j+1].text, ".")
		if method == "join" && method == f.toks[j+1].text && f.lang == Python {
			// ' '.join(['curl', url]): the separator's list joined.
			k := f.next(j+2, hi)
			if !f.is(k, hi, "(") || f.match[k] < 0 || f.match[k] >= hi {
				return v, n, true
			}
			items, end, ok := f.list(f.next(k+1, hi), f.match[k])
			if a := f.next(k+1, hi); !ok && a < hi && f.toks[a].kind == tName && f.lists[f.toks[a].text] != nil {
				items, end, ok = f.lists[f.toks[a].text], a+1, true // ' '.join(STEPS)
			}
			if !ok || f.next(end, hi) != f.match[k] {
				return v, j, false
			}
			v.val = strings.Join(items, v.val)
			n = f.match[k] + 1
			continue
		}
		if method != f.toks[j+1].text || !sameValueMethod(method) {
			return v, n, true
		}
		n = j + 2
		if k := f.next(n, hi); f.is(k, hi, "(") && f.match[k] > 0 && f.match[k] < hi {
			if (method == "decode" || method == "encode") && !textCodec(f, k) {
				return v, j, false // 'x'.decode('base64'), .encode('rot13'): another value
			}
			n = f.match[k] + 1
		}
	}
}

// sameValueMethods return the string they are called on, as far as a path or a command
// line is concerned.
func sameValueMethod(s string) bool {
	switch s {
	case "decode", "encode", "toString", "to_s", "to_str", "to_sym", "intern", "strip", "trim", "expanduser", "resolve", "absolute", "as_posix", "chomp", "untaint":
		return true
	}
	return false
}

// name folds a name: a variable, the home directory, a call of a pure function, an
// environment lookup of HOME.
func (f *folder) name(i, hi int) (foldVal, int, bool) {
	t := f.toks[i]
	text := t.text
	if f.lang == Perl || f.lang == PHP {
		text = strings.TrimSuffix(strings.TrimPrefix(text, "${"), "}")
	}
	head, rest, dotted := strings.Cut(text, ".")
	if v, ok := f.vars[head]; ok && v.known {
		if !dotted {
			return foldVal{val: v.val, decoded: v.decoded}, i + 1, true
		}
		for _, m := range strings.Split(rest, ".") {
			if !sameValueMethod(m) {
				return foldVal{}, i, false
			}
		}
		n := i + 1
		if k := f.next(n, hi); f.is(k, hi, "(") && f.match[k] > 0 && f.match[k] < hi {
			n = f.match[k] + 1
		}
		return foldVal{val: v.val, decoded: v.decoded}, n, true
	}
	callee := f.resolve(text)
	if callee == "require" && f.lang == Node {
		if member, at, ok := f.requireMember(i, hi); ok {
			callee, i = member, at // require('os').homedir is os.homedir, read from its name on
		}
	}
	if c, ok := strings.CutPrefix(callee, "require('"); ok {
		// require('os').homedir, through an alias of require('os')
		if mod, member, ok := strings.Cut(c, "')."); ok {
			callee = mod + "." + member
		}
	}
	if homeNames()[f.lang][callee] {
		n := i + 1
		if k := f.next(n, hi); f.is(k, hi, "(") && f.next(k+1, hi) == f.match[k] {
			n = f.match[k] + 1
		}
		return foldVal{val: "~"}, n, true
	}
	k := f.next(i+1, hi)
	switch {
	case f.is(k, hi, "(") && f.match[k] > 0 && f.match[k] < hi:
		fn, ok := foldCalls()[f.lang][callee]
		if !ok {
			return foldVal{}, i, false
		}
		if fn == fnChars {
			v, ok := f.charCodes(k, f.match[k])
			return v, f.match[k] + 1, ok
		}
		args, ok := f.args(k, f.match[k])
		if !ok {
			return foldVal{}, i, false
		}
		v, ok := f.apply(fn, args)
		return v, f.match[k] + 1, ok
	case (f.is(k, hi, "[") || f.is(k, hi, "{") && f.lang == Perl) && f.match[k] > 0 && f.match[k] < hi && envObjects()[f.lang][callee]:
		key, m, ok := f.expr(f.next(k+1, hi), f.match[k])
		if !ok && f.lang == Perl && f.toks[f.next(k+1, hi)].kind == tName {
			key, m, ok = foldVal{val: f.toks[f.next(k+1, hi)].text}, f.next(k+1, hi)+1, true
		}
		if !ok || f.next(m, hi) != f.match[k] || !isHomeVar(key.val) {
			return foldVal{}, i, false
		}
		return foldVal{val: "~"}, f.match[k] + 1, true
	}
	return foldVal{}, i, false
}

// charCodes folds a call that makes a string of the character codes it is given
// (String.fromCharCode(99, 117, 114, 108), chr(124)): every argument a number.
func (f *folder) charCodes(open, closeAt int) (foldVal, bool) {
	var b strings.Builder
	k := f.next(open+1, closeAt)
	for k < closeAt {
		t := f.toks[k]
		if t.kind != tNumber {
			return foldVal{}, false
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(t.text, "_", ""), 0, 32)
		if err != nil || n < 0 || n > unicode.MaxRune {
			return foldVal{}, false
		}
		b.WriteRune(rune(n))
		k = f.next(k+1, closeAt)
		if f.is(k, closeAt, ",") {
			k = f.next(k+1, closeAt)
			continue
		}
		if k != closeAt {
			return foldVal{}, false
		}
	}
	return foldVal{val: b.String(), decoded: true}, b.Len() > 0
}

// homeVars are the environment variables that hold the home directory.
func isHomeVar(s string) bool { return s == "HOME" || s == "USERPROFILE" }

// args folds every argument of the call whose brackets are at open and closeAt; ok is
// false unless each one folds entirely.
func (f *folder) args(open, closeAt int) ([]foldVal, bool) {
	var out []foldVal
	k := f.next(open+1, closeAt)
	for k < closeAt {
		v, n, ok := f.expr(k, closeAt)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		k = f.next(n, closeAt)
		if f.is(k, closeAt, ",") {
			k = f.next(k+1, closeAt)
			continue
		}
		if k != closeAt {
			return nil, false
		}
	}
	return out, true
}

// apply computes a pure call of folded arguments.
func (f *folder) apply(fn foldFn, args []foldVal) (foldVal, bool) {
	decoded := false
	for _, a := range args {
		decoded = decoded || a.decoded
	}
	switch fn {
	case fnIdentity:
		if len(args) == 0 {
			return foldVal{}, false
		}
		return args[0], true
	case fnJoin:
		if len(args) == 0 {
			return foldVal{}, false
		}
		p := args[0].val
		for _, a := range args[1:] {
			p = joinPath(p, a.val, "/")
		}
		return foldVal{val: path.Clean(p), decoded: decoded}, true
	case fnEnv:
		if len(args) >= 1 && isHomeVar(args[0].val) {
			return foldVal{val: "~"}, true
		}
	case fnBase64, fnHex, fnBuffer:
		if len(args) == 0 {
			return foldVal{}, false
		}
		enc := "base64"
		if fn == fnHex {
			enc = "hex"
		}
		if fn == fnBuffer {
			enc = "utf8"
			if len(args) > 1 {
				enc = args[1].val
			}
		}
		out, ok := decodeAs(args[0].val, enc)
		if !ok {
			return foldVal{}, false
		}
		if enc != "utf8" {
			f.res.decoded = append(f.res.decoded, out)
			decoded = true
		}
		return foldVal{val: out, decoded: decoded}, true
	}
	return foldVal{}, false
}

func decodeAs(s, enc string) (string, bool) {
	switch enc {
	case "hex":
		b, err := hex.DecodeString(s)
		return string(b), err == nil
	case "base64":
		for _, e := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := e.DecodeString(s); err == nil {
				return string(b), true
			}
		}
	case "utf8", "utf-8", "ascii", "latin1", "binary":
		return s, true
	}
	return "", false
}

// foldText folds an interpolated expression ("{d}" of an f-string, "${x}", "#{ENV['HOME']}").
func (f *folder) foldText(text string) (foldVal, bool) {
	if f.depth >= maxFoldDepth {
		return foldVal{}, false
	}
	text = strings.TrimSpace(text)
	if (f.lang == Perl || f.lang == PHP) && strings.HasPrefix(text, "${") && strings.HasSuffix(text, "}") && !strings.Contains(text[2:], "{") {
		text = "$" + text[2:len(text)-1]
	}
	toks, ok := lex(f.lang, text)
	if !ok || len(toks) == 0 {
		return foldVal{}, false
	}
	sub := &folder{lang: f.lang, toks: toks, match: brackets(toks), vars: f.vars, aliases: f.aliases, res: f.res, out: &strings.Builder{}, depth: f.depth + 1}
	v, n, ok := sub.expr(sub.next(0, len(toks)), len(toks))
	return v, ok && sub.next(n, len(toks)) == len(toks)
}

// lookup folds the calls that look a module or a function up by name (getattr(o, 'system'),
// __import__('os'), x.send(:system, …), call_user_func('system', …), o['execSync'](…)).
// A name that does not fold is a call moat cannot see through: the code is opaque.
func (f *folder) lookup(i, hi int) (int, bool) {
	t := f.toks[i]
	if t.kind != tName {
		return 0, false
	}
	callee := f.resolve(t.text)
	k := f.next(i+1, hi)
	form, ok := lookups()[f.lang][callee]
	if !ok {
		if dot := strings.LastIndexByte(callee, '.'); dot > 0 {
			form, ok = lookups()[f.lang][callee[dot:]]
		}
	}
	if !ok || !f.is(k, hi, "(") || f.match[k] < 0 || f.match[k] >= hi {
		return f.subscript(i, hi)
	}
	closeAt := f.match[k]
	argv := f.splitArgs(k, closeAt)
	nameArg := 0
	if form == lkAttr || form == lkCheck1 {
		nameArg = 1
	}
	if len(argv) <= nameArg {
		return 0, false
	}
	nameEnd := argv[nameArg][1]
	if first := f.toks[argv[nameArg][0]]; f.lang == Node && first.kind == tString && strings.HasPrefix(first.value(), "data:") {
		// import('data:text/javascript,' + code): the module is the text the URL holds.
		f.res.computed = append(f.res.computed, "imports code written in a data: URL: "+shorten(f.text(i, closeAt+1)))
		f.writeRaw(i, closeAt+1)
		return closeAt + 1, true
	}
	if first := f.toks[argv[0][0]]; form == lkCheck && len(argv) == 1 && f.lang == Node && first.kind == tString && first.static && argv[0][0]+1 == argv[0][1] {
		if j := f.next(closeAt+1, hi); f.is(j, hi, ".") {
			return 0, false // require('os').homedir: folded as a name
		}
	}
	v, n, ok := f.expr(argv[nameArg][0], nameEnd)
	if !ok || f.next(n, nameEnd) != nameEnd || v.decoded || !isIdentifier(v.val) {
		f.opaque(callee + " of a name computed at run time: " + f.text(i, closeAt+1))
		f.writeRaw(i, closeAt+1)
		return closeAt + 1, true
	}
	name := v.val
	switch form {
	case lkCheck1:
		return 0, false // setattr(o, 'x', v): nothing to rewrite
	case lkCheck:
		f.out.WriteString(callee + "(")
		f.literal(name)
		if len(argv) > 1 {
			f.out.WriteString(", ")
			f.emit(argv[1][0], closeAt)
		}
		f.out.WriteString(")")
	case lkModule:
		f.out.WriteString(name)
	case lkAttr:
		f.emit(argv[0][0], argv[0][1])
		f.out.WriteString("." + name)
	case lkSend, lkCall, lkCallArray:
		if form == lkSend {
			if dot := strings.LastIndexByte(callee, '.'); dot > 0 {
				f.out.WriteString(callee[:dot+1])
			}
		}
		f.out.WriteString(name + "(")
		if len(argv) > 1 {
			lo := argv[1][0]
			end := closeAt
			if form == lkCallArray {
				if open := f.next(lo, closeAt); f.is(open, closeAt, "[") && f.match[open] > 0 && f.match[open] < closeAt {
					lo, end = open+1, f.match[open]
				}
			}
			f.emit(lo, end)
		}
		f.out.WriteString(")")
	case lkMethod:
		// method(:system).call(…) is system(…)
		f.out.WriteString(name)
		j := f.next(closeAt+1, hi)
		if f.is(j, hi, ".") && j+1 < hi && f.toks[j+1].text == "call" {
			return j + 2, true
		}
	}
	return closeAt + 1, true
}

// subscript folds NAME['key'](…) (o['execSync'](…), _G['os']['execute'](…),
// globals()['eval'](…)) into NAME.key(…); a computed key makes the call opaque.
func (f *folder) subscript(i, hi int) (int, bool) {
	t := f.toks[i]
	if envObjects()[f.lang][f.resolve(t.text)] {
		return 0, false
	}
	base := f.resolve(t.text)
	k := f.next(i+1, hi)
	if isNamespaceCall(base) && f.is(k, hi, "(") && f.next(k+1, hi) == f.match[k] {
		base, k = "", f.next(f.match[k]+1, hi)
	}
	base = strings.TrimSuffix(base, ".__dict__")
	if !f.is(k, hi, "[") {
		return 0, false
	}
	var keys []string
	end := k
	for f.is(k, hi, "[") && f.match[k] > 0 && f.match[k] < hi {
		v, n, ok := f.expr(f.next(k+1, hi), f.match[k])
		if !ok || f.next(n, hi) != f.match[k] || v.decoded || !isIdentifier(v.val) {
			end = f.match[k] + 1
			if after := f.next(end, hi); f.is(after, hi, "(") || len(keys) == 0 && isModule(base) {
				// Called, or taken from a module (local e = os[x]): a function chosen at
				// run time.
				f.opaque("a function looked up by a name computed at run time: " + f.text(i, end))
				f.writeRaw(i, end)
				return end, true
			}
			return 0, false
		}
		keys = append(keys, v.val)
		end = f.match[k] + 1
		k = f.next(end, hi)
	}
	if len(keys) == 0 {
		return 0, false
	}
	name := strings.Join(keys, ".")
	if base != "" {
		name = base + "." + name
	}
	f.out.WriteString(name)
	return end, true
}

// isModule reports the names of modules and namespaces whose members run programs or
// code: a member of one chosen at run time is opaque even before it is called.
func isModule(s string) bool {
	switch s {
	case "os", "subprocess", "shutil", "builtins", "__builtins__", "sys.modules", "pty", "importlib",
		"_G", "io", "process", "global", "globalThis", "child_process", "fs", "Kernel", "Object", "":
		return true
	}
	return strings.HasPrefix(s, "require(")
}

// namespaceCalls return the namespace a name is looked up in: globals()['eval'] is eval.
func isNamespaceCall(s string) bool { return s == "globals" || s == "locals" || s == "vars" }

// splitArgs returns the token range [start, end) of each argument of the call whose
// brackets are at open and closeAt.
func (f *folder) splitArgs(open, closeAt int) [][2]int {
	var out [][2]int
	start := f.next(open+1, closeAt)
	if start == closeAt {
		return nil
	}
	for k := start; k < closeAt; k++ {
		if f.match[k] > k && f.match[k] < closeAt {
			k = f.match[k]
			continue
		}
		if f.is(k, closeAt, ",") {
			out = append(out, [2]int{start, k})
			start = f.next(k+1, closeAt)
		}
	}
	return append(out, [2]int{start, closeAt})
}

func (f *folder) text(lo, hi int) string {
	var b strings.Builder
	// hi may run past the last token: evidence of a call at the end (text(i, i+2)).
	for k := lo; k < min(hi, len(f.toks)) && b.Len() < 80; k++ {
		b.WriteString(f.toks[k].text)
	}
	return shorten(b.String())
}

func (f *folder) opaque(reason string) {
	if len(f.res.opaque) < 8 {
		f.res.opaque = append(f.res.opaque, shorten(reason))
	}
}

// isIdentifier reports whether s can name a module or a function: letters, digits, _, .
func isIdentifier(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) && s[i] != '.' && s[i] != ':' && s[i] != '/' && s[i] != '-' && s[i] != '@' {
			return false
		}
	}
	return true
}

// callParen reports whether the parenthesis at i opens a call's arguments (after a name
// or a closing bracket) rather than a group.
func (f *folder) callParen(i int) bool {
	for j := i - 1; j >= 0; j-- {
		t := f.toks[j]
		if t.kind == tSpace {
			if strings.Contains(t.text, "\n") && (f.lang == Python || f.lang == Go || f.lang == Ruby) && f.stmtStart(i) {
				// A parenthesis that starts a line of Python, Go or Ruby groups: the
				// line before it has ended (a call's arguments cannot start a line).
				return false
			}
			continue
		}
		return t.kind == tName && !groupsAfter(t.text) || t.kind == tPunct && (t.text == ")" || t.text == "]")
	}
	return false
}

// keywordsBeforeGroup are names after which a parenthesis groups: return ('a' + 'b').
func groupsAfter(s string) bool {
	switch s {
	case "return", "in", "and", "or", "not", "if", "while", "print", "puts", "echo":
		return true
	}
	return false
}

// varReceiver writes p.write_text(…), with p a path in a variable, as Path.write_text(p, …).
// On a path moat does not know (for p in Path('.').glob('*'): p.unlink()), a method that
// only path objects have writes or deletes where moat cannot see.
func (f *folder) varReceiver(i, hi int) (int, bool) {
	head, method, ok := strings.Cut(f.toks[i].text, ".")
	if !ok || strings.Contains(method, ".") {
		return 0, false
	}
	v, known := f.vars[head]
	k := f.next(i+1, hi)
	if (!known || !v.known) && f.lang == Python && pathOnlyMethod(method) && f.is(k, hi, "(") {
		f.opaque("changes a path computed at run time: " + f.text(i, k+1))
		if method == "unlink" || method == "rmdir" {
			f.res.computedDeletes = append(f.res.computedDeletes, head)
		} else {
			f.res.computedWrites = append(f.res.computedWrites, head)
		}
		return 0, false
	}
	if !known || !v.known || !receiverMethods()[f.lang][method] || !f.is(k, hi, "(") || f.match[k] < 0 {
		return 0, false
	}
	f.out.WriteString("Path." + method + "(")
	f.literal(v.val)
	if f.next(k+1, hi) != f.match[k] {
		f.out.WriteString(", ")
	}
	return k + 1, true
}

// computedMember reads a member looked up by subscript and called, on any value:
// require('child_process')['execSync'](…) is require('child_process').execSync(…); a
// key that does not fold makes the call opaque.
func (f *folder) computedMember(i, hi int) (int, bool) {
	closeAt := f.match[i]
	if closeAt < 0 || closeAt >= hi || !f.is(f.next(closeAt+1, hi), hi, "(") {
		return 0, false
	}
	v, n, ok := f.expr(f.next(i+1, hi), closeAt)
	if !ok || f.next(n, hi) != closeAt || v.decoded || !isIdentifier(v.val) {
		f.opaque("a function looked up by a name computed at run time: " + f.text(i, closeAt+1))
		f.writeRaw(i, closeAt+1)
		return closeAt + 1, true
	}
	f.out.WriteString("." + v.val)
	return closeAt + 1, true
}

// star brings a module's known members in by bare name (from os import *).
func (f *folder) star(module string) {
	for _, m := range starMembers()[module] {
		if _, isVar := f.vars[m]; !isVar {
			f.aliases[m] = module + "." + m
		}
	}
}

// requireMember reads require('m').name starting at the token i of require: it returns
// "m.name" and the index of name's token.
func (f *folder) requireMember(i, hi int) (string, int, bool) {
	k := f.next(i+1, hi)
	if !f.is(k, hi, "(") || f.match[k] < 0 || f.match[k] >= hi {
		return "", 0, false
	}
	lit := f.next(k+1, hi)
	dot := f.next(f.match[k]+1, hi)
	if lit >= hi || f.toks[lit].kind != tString || !f.toks[lit].static || f.next(lit+1, hi) != f.match[k] ||
		!f.is(dot, hi, ".") || dot+1 >= hi || f.toks[dot+1].kind != tName {
		return "", 0, false
	}
	return f.toks[lit].value() + "." + f.toks[dot+1].text, dot + 1, true
}

// prevIs reports whether the token before i, blanks aside, is the punctuation p.
func (f *folder) prevIs(i int, p string) bool {
	for j := i - 1; j >= 0; j-- {
		if f.toks[j].kind != tSpace {
			return f.toks[j].kind == tPunct && f.toks[j].text == p
		}
	}
	return false
}

// textCodec reports whether the arguments of .decode(…)/.encode(…) at open leave text as
// it is: none, or a character encoding (not base64, hex, rot13, zlib).
func textCodec(f *folder, open int) bool {
	k := f.next(open+1, f.match[open])
	if k == f.match[open] {
		return true
	}
	if f.toks[k].kind != tString || !f.toks[k].static {
		return false
	}
	switch strings.ToLower(strings.ReplaceAll(f.toks[k].value(), "_", "-")) {
	case "utf-8", "utf8", "ascii", "latin-1", "latin1", "iso-8859-1", "utf-16", "binary":
		return true
	}
	return false
}

// pathOnlyMethod reports the methods of Python's path objects that write or delete and
// that no common other type has (str.replace and DataFrame.rename are not among them).
func pathOnlyMethod(m string) bool {
	switch m {
	case "write_text", "write_bytes", "unlink", "rmdir", "symlink_to", "hardlink_to", "touch":
		return true
	}
	return false
}
