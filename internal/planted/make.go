package planted

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/shell/oneliner"
)

// makeDefaults are the values make gives its built-in variables, so that a recipe
// `$(CC) -o x x.c` is read as the program it runs. CURDIR is the directory make runs
// in, the Makefile's, where recipes run: "." to them.
var makeDefaults = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"CC": "cc", "CXX": "g++", "CPP": "cc -E", "AR": "ar", "AS": "as", "LD": "ld", "RM": "rm -f",
		"MAKE": "make", "SHELL": "/bin/sh", "INSTALL": "install", "FC": "f77", "LEX": "lex", "YACC": "yacc",
		"CURDIR": ".",
	}
})

// makeToolVars are variables Makefiles conventionally set to the program of their name
// (GO ?= go, PYTHON ?= python3), often in a file they include: one the file does not
// set stands for that program rather than for a command computed at run time. Setting
// it elsewhere to another program is judged where it is set.
var makeToolVars = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"GO": "go", "GOFMT": "gofmt", "PYTHON": "python", "PYTHON3": "python3", "PIP": "pip", "NPM": "npm",
		"NPX": "npx", "NODE": "node", "YARN": "yarn", "PNPM": "pnpm", "DOCKER": "docker", "KUBECTL": "kubectl",
		"HELM": "helm", "CARGO": "cargo", "RUSTC": "rustc", "JAVA": "java", "JAVAC": "javac", "MVN": "mvn",
		"GRADLE": "gradle", "GIT": "git", "PROTOC": "protoc", "TERRAFORM": "terraform", "CMAKE": "cmake",
		"NINJA": "ninja", "PERL": "perl", "RUBY": "ruby", "BUNDLE": "bundle", "PHP": "php", "COMPOSER": "composer",
		"SED": "sed", "AWK": "awk", "GREP": "grep", "FIND": "find", "TAR": "tar", "CURL": "curl", "WGET": "wget",
		"MKDIR": "mkdir", "MKDIR_P": "mkdir -p", "CP": "cp", "MV": "mv", "LN": "ln", "LN_S": "ln -s", "ECHO": "echo",
		"CAT": "cat", "TOUCH": "touch", "CHMOD": "chmod", "STRIP": "strip", "RANLIB": "ranlib", "PKG_CONFIG": "pkg-config",
		"SHELLCHECK": "shellcheck", "GOLANGCI_LINT": "golangci-lint", "KIND": "kind", "KUSTOMIZE": "kustomize",
	}
})

// maxExpansion bounds how many times make variables are expanded inside one another, and
// maxExpanded the text one recipe line may expand to: variables that each name another
// twice would otherwise double the text at every level.
const (
	maxExpansion = 8
	maxExpanded  = 64 << 10
)

// makeCode finds the code of a Makefile: each recipe line (make runs every line in its own
// shell) and each $(shell …), which runs whenever make reads the file. Variables the file
// sets are expanded; one it does not set is left to the shell as a variable whose value
// is unknown, so that a program named only by it is a dynamic command.
func makeCode(text string, x *extraction) {
	vars := map[string]string{}
	var rule makeRule
	inRecipe := false
	lines := joinContinued(text)
	// A line indented with a tab is a recipe line once a rule has started; before the
	// first rule (an assignment indented inside ifeq … endif) it is the makefile's own.
	firstRule := len(lines)
	for k, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(t, "#") && ruleColon(t) > 0 {
			// A comment is none, though it may hold a colon (a licence's URL).
			firstRule = k
			break
		}
	}
	recipe := func(k int, l string) bool {
		if !strings.HasPrefix(l, "\t") {
			return false
		}
		_, _, _, assigns := makeAssign(l)
		return k > firstRule || firstRule == len(lines) || !assigns
	}
	// Variables first: make expands a recipe after reading the whole file.
	for k, l := range lines {
		if recipe(k, l) {
			continue
		}
		if name, val, op, ok := makeAssign(l); ok {
			setMakeVar(vars, name, val, op)
		}
	}
	for k, l := range lines {
		if recipe(k, l) {
			line := strings.TrimLeft(l[1:], " \t@-+")
			if !inRecipe && rule.target == "" {
				// A fragment (an edit's new text) of recipe lines: still recipes.
				rule.target = "?"
			}
			x.makeShell("recipe of "+rule.target, line, vars, rule)
			continue
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if _, val, _, ok := makeAssign(l); ok {
			x.makeFuncs(val, vars)
			inRecipe = false
			continue
		}
		if strings.HasPrefix(trimmed, "define ") || strings.HasPrefix(trimmed, "endef") ||
			strings.HasPrefix(trimmed, "include ") || strings.HasPrefix(trimmed, "-include ") || strings.HasPrefix(trimmed, "sinclude ") {
			continue
		}
		if i := ruleColon(trimmed); i > 0 {
			// The target as make names it in $@: its own references expanded
			// (bin/gh$(EXE) is bin/gh on Unix).
			rule = makeRule{target: strings.TrimSpace(expandMake(trimmed[:i], vars, makeRule{}, 0))}
			inRecipe = true
			rest := strings.TrimPrefix(trimmed[i+1:], ":") // a double-colon rule
			recipe := ""
			if j := strings.IndexByte(rest, ';'); j >= 0 {
				recipe, rest = strings.TrimLeft(rest[j+1:], " \t@-+"), rest[:j]
			}
			// The prerequisites, for $< and $^: the normal ones, before a |.
			normal, _, _ := strings.Cut(expandMake(rest, vars, makeRule{}, 0), "|")
			rule.prereqs = strings.Fields(normal)
			if recipe != "" {
				x.makeShell("recipe of "+rule.target, recipe, vars, rule)
			}
			x.makeFuncs(rest, vars)
			continue
		}
		// Anything else at the top level (a conditional, a function call) may expand.
		x.makeFuncs(trimmed, vars)
	}
}

// makeShell adds a recipe line, expanded, and what its $(shell …) calls run.
func (x *extraction) makeShell(where, line string, vars map[string]string, rule makeRule) {
	x.makeFuncs(line, vars)
	x.shell(where, expandMake(line, vars, rule, 0))
}

// makeFuncs adds the code of the $(shell …) calls in s, which make runs while it reads the
// file, and notes $(eval …), whose text is only known then.
func (x *extraction) makeFuncs(s string, vars map[string]string) {
	for _, fn := range []string{"$(shell ", "${shell "} {
		for rest := s; ; {
			i := strings.Index(rest, fn)
			if i < 0 {
				break
			}
			body, n := balanced(rest[i+1:])
			x.shell("$(shell …)", expandMake(strings.TrimPrefix(body, "shell "), vars, makeRule{}, 0))
			rest = rest[i+1+n:]
		}
	}
}

// setMakeVar records an assignment as make does: a simple one (:=, ::=) expanded now,
// against the variables set so far, so that BUILD_ARGS := $(BUILD_ARGS) --no-cache
// appends; += appends; ?= sets only a variable not set; = keeps the text, expanded where
// the variable is used.
func setMakeVar(vars map[string]string, name, val, op string) {
	old, set := vars[name]
	switch op {
	case ":=", "::=", ":::=":
		vars[name] = expandMake(val, vars, makeRule{}, 0)
	case "+=":
		if set && old != "" {
			val = old + " " + val
		}
		vars[name] = val
	case "?=":
		if !set {
			vars[name] = val
		}
	default:
		vars[name] = val
	}
}

// makeAssign reads a variable assignment: NAME = value, :=, ::=, ?=, +=, != (whose value is
// a shell command), optionally after export or override, and returns its operator.
func makeAssign(l string) (name, val, op string, ok bool) {
	s := strings.TrimSpace(l)
	for _, p := range []string{"export ", "override ", "private "} {
		s = strings.TrimPrefix(s, p)
	}
	i := strings.IndexAny(s, "=:?+!")
	if i <= 0 {
		return "", "", "", false
	}
	name = strings.TrimSpace(s[:i])
	if name == "" || strings.ContainsAny(name, " \t$()") {
		return "", "", "", false
	}
	rest := s[i:]
	for _, o := range []string{"::=", ":::=", ":=", "?=", "+=", "!=", "="} {
		if strings.HasPrefix(rest, o) {
			val = strings.TrimSpace(rest[len(o):])
			if o == "!=" {
				val = "$(shell " + val + ")"
			}
			return name, val, o, true
		}
	}
	return "", "", "", false
}

// ruleColon returns where the colon of a rule line `targets: prerequisites` is, or -1.
func ruleColon(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case ':':
			if depth == 0 && (i+1 >= len(s) || s[i+1] != '=') {
				return i
			}
		case '=':
			if depth == 0 {
				return -1
			}
		}
	}
	return -1
}

// expandMake expands make's references in a recipe line: $$ is $, $(VAR) and ${VAR} the
// variable's value, automatic variables the target or a placeholder file name, and
// functions a placeholder word.
func expandMake(s string, vars map[string]string, rule makeRule, depth int) string {
	if depth > maxExpansion || !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if b.Len() > maxExpanded {
			break
		}
		c := s[i]
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '$':
			b.WriteByte('$')
			i++
		case n == '(' || n == '{':
			body, used := balanced(s[i+1:])
			i += used
			name := strings.TrimSpace(body)
			if sp := strings.IndexAny(name, " \t,"); sp >= 0 {
				b.WriteString(makeFunction(name[:sp], strings.TrimLeft(name[sp:], " \t"), vars, rule, depth))
				continue
			}
			if v, ok := vars[name]; ok && depth < maxExpansion {
				b.WriteString(expandMake(v, vars, rule, depth+1))
			} else if ok {
				// Nested too deep (a variable that names itself): a value left unknown,
				// never make's syntax, which the shell would run as $(NAME).
				b.WriteString("${" + shellName(name) + "}")
			} else if v, ok := makeDefaults()[name]; ok {
				b.WriteString(v)
			} else if v, ok := makeToolVars()[name]; ok {
				b.WriteString(v)
			} else if v, ok := automatic(name, rule); ok {
				b.WriteString(v)
			} else {
				b.WriteString("${" + shellName(name) + "}")
			}
		default:
			if v, ok := automatic(string(n), rule); ok {
				b.WriteString(v)
			} else if v, ok := vars[string(n)]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("${" + shellName(string(n)) + "}")
			}
			i++
		}
	}
	return b.String()
}

// makeFunction returns what a call of make's function fn with the text args expands to:
// nothing for the functions that only print (error, which stops make, warning, info), each
// word's expansion for a foreach of the line over a list moat can expand, and otherwise a
// placeholder
// word moat does not compute ($(wildcard …), $(patsubst …)).
func makeFunction(fn, args string, vars map[string]string, rule makeRule, depth int) string {
	switch fn {
	case "error", "warning", "info", "eval":
		// eval defines what its text says (its $(shell …) calls are found apart);
		// it expands to nothing.
		return ""
	case "foreach":
		// Only in the line itself: a foreach inside a value or another foreach would
		// multiply the work by each list's length.
		parts := splitMakeArgs(args, 3)
		if len(parts) != 3 || depth > 0 {
			break
		}
		name := strings.TrimSpace(parts[0])
		list := expandMake(parts[1], vars, rule, depth+1)
		if name == "" || strings.ContainsAny(name, "$()") || strings.Contains(list, "make-function-result") || strings.Contains(list, "${") {
			break
		}
		words := strings.Fields(list)
		if len(words) > maxForeachWords {
			break
		}
		each := make(map[string]string, len(vars)+1)
		for k, v := range vars {
			each[k] = v
		}
		out := make([]string, 0, len(words))
		size := 0
		for _, w := range words {
			each[name] = w
			e := expandMake(parts[2], each, rule, depth+1)
			if size += len(e) + 1; size > maxExpanded {
				break
			}
			out = append(out, e)
		}
		return strings.Join(out, " ")
	}
	return "make-function-result"
}

// maxForeachWords bounds the words a $(foreach …) is expanded for.
const maxForeachWords = 64

// splitMakeArgs splits a function's arguments at its top-level commas, into at most n
// parts (the last keeps its commas).
func splitMakeArgs(s string, n int) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s) && len(parts) < n-1; i++ {
		switch s[i] {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// makeRule is the rule a recipe line belongs to: its target and its normal prerequisites,
// expanded.
type makeRule struct {
	target  string
	prereqs []string
}

// automatic returns the value of make's automatic variables: the target for $@, the
// first prerequisite for $<, all of them for $^, $+ and $?, written out when the rule
// names them plainly; otherwise a placeholder file name.
func automatic(name string, rule makeRule) (string, bool) {
	plain := func(s string) bool { return s != "" && s != "?" && !strings.ContainsAny(s, " %$") }
	switch strings.TrimRight(name, "DF") {
	case "@":
		if !plain(rule.target) {
			return "target", true
		}
		return rule.target, true
	case "<":
		if len(rule.prereqs) > 0 && plain(rule.prereqs[0]) {
			return rule.prereqs[0], true
		}
		return "prerequisite", true
	case "^", "+", "?":
		if len(rule.prereqs) > 0 && !slices.ContainsFunc(rule.prereqs, func(p string) bool { return !plain(p) }) {
			return strings.Join(rule.prereqs, " "), true
		}
		return "prerequisite", true
	case "|", "*", "%":
		return "prerequisite", true
	}
	return "", false
}

// shellName makes a make variable's name a shell variable's name.
func shellName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || s[0] >= '0' && s[0] <= '9' {
		return "MAKE_" + b.String()
	}
	return b.String()
}

// balanced returns the text inside the bracket s starts with and how many bytes the
// bracketed text takes, brackets included; an unclosed bracket takes the rest of s.
func balanced(s string) (string, int) {
	if s == "" {
		return "", 0
	}
	open := s[0]
	closer := byte(')')
	if open == '{' {
		closer = '}'
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case closer:
			depth--
			if depth == 0 {
				return s[1:i], i + 1
			}
		}
	}
	return s[1:], len(s)
}

// joinContinued splits text into lines, joining those that end with a backslash to the
// next (make passes the backslash and newline of a recipe to the shell, which joins them
// the same way).
func joinContinued(text string) []string {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var out []string
	for i := 0; i < len(raw); i++ {
		l := raw[i]
		for strings.HasSuffix(l, "\\") && i+1 < len(raw) {
			i++
			l = l[:len(l)-1] + " " + strings.TrimLeft(raw[i], " \t")
		}
		out = append(out, l)
	}
	return out
}

// justCode finds the code of a justfile: recipe bodies (each line its own shell, or the
// whole body one script when it starts with #!) and backticks, which just runs when it
// reads the file. {{…}} interpolations are variables whose value is left unknown, unless
// the file sets them to a literal.
func justCode(text string, x *extraction) {
	vars := map[string][]string{}
	lines := justValues(joinContinued(text))
	windowsShell := "" // what set windows-shell or windows-powershell names
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(t, "set windows-shell"); ok && strings.HasPrefix(strings.TrimSpace(v), ":=") {
			first := strings.TrimLeft(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":=")), `["' `)
			first, _, _ = strings.Cut(first, `"`)
			windowsShell = strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(first, `\`, "/"))), ".exe")
		}
		if strings.HasPrefix(t, "set windows-powershell") && !strings.Contains(t, "false") {
			windowsShell = "powershell"
		}
	}
	// Values may name values set further down: two rounds read those too.
	for range 2 {
		for _, l := range lines {
			if l == "" || l[0] == ' ' || l[0] == '\t' {
				continue
			}
			if name, expr, ok := justAssign(l); ok {
				vals, ok := justEval(expr, vars)
				if !ok {
					vals = []string{"${" + shellName(name) + "}"}
				}
				vars[name] = vals
			}
		}
	}
	recipe := ""
	var body []string
	windowsOnly, nextWindowsOnly := false, false
	flush := func() {
		if recipe == "" || len(body) == 0 {
			body = body[:0]
			return
		}
		switch {
		case strings.HasPrefix(body[0], "#!"):
			// Interpolated too, each value as one text: a script is not copied per
			// branch.
			x.script("recipe "+recipe, expandJust(strings.Join(body, "\n"), vars, 1)[0])
		case windowsOnly && (windowsShell == "powershell" || windowsShell == "pwsh"):
			// A [windows] recipe runs in the windows-shell the file sets.
			for _, b := range body {
				for _, line := range expandJust(strings.TrimLeft(b, "@-"), vars, maxJustAlternatives) {
					x.interp(oneliner.PowerShell, "recipe "+recipe, line)
				}
			}
		case windowsOnly && windowsShell == "cmd":
			for _, b := range body {
				for _, line := range expandJust(strings.TrimLeft(b, "@-"), vars, maxJustAlternatives) {
					x.interp(oneliner.PowerShell, "recipe "+recipe, oneliner.CmdToPowerShell(line))
				}
			}
		default:
			for _, b := range body {
				// A line is judged once for each text its values may take.
				for _, line := range expandJust(strings.TrimLeft(b, "@-"), vars, maxJustAlternatives) {
					x.shell("recipe "+recipe, line)
				}
			}
		}
		body = body[:0]
	}
	for _, l := range lines {
		x.backticks(l)
		if l != "" && (l[0] == ' ' || l[0] == '\t') {
			if recipe == "" {
				recipe = "?" // a fragment of recipe lines
			}
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "# ") {
				body = append(body, t)
			}
			continue
		}
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			// Attributes of the next recipe: [windows] alone runs it only on Windows.
			attrs := strings.ToLower(t)
			nextWindowsOnly = nextWindowsOnly || strings.Contains(attrs, "windows") &&
				!strings.Contains(attrs, "linux") && !strings.Contains(attrs, "macos") && !strings.Contains(attrs, "unix")
			continue
		}
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if _, _, ok := justAssign(t); ok || strings.HasPrefix(t, "set ") || strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "mod ") {
			continue
		}
		if i := strings.IndexByte(t, ':'); i > 0 {
			flush()
			windowsOnly, nextWindowsOnly = nextWindowsOnly, false
			recipe = "?" // "@:" names no recipe: its lines are still code
			if f := strings.Fields(strings.TrimLeft(t[:i], "@")); len(f) > 0 {
				recipe = f[0]
			}
		}
	}
	flush()
}

// justValues joins the lines of a value quoted over several lines (images := '(, then
// [a]=b, then )', or a triple-quoted string) into its assignment's line, so that they are
// not read as recipe lines.
func justValues(lines []string) []string {
	out := lines[:0:0]
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		_, val, ok := strings.Cut(l, ":=")
		if !ok || l == "" || l[0] == ' ' || l[0] == '\t' {
			out = append(out, l)
			continue
		}
		val = strings.TrimSpace(val)
		q := ""
		switch {
		case strings.HasPrefix(val, `"""`) || strings.HasPrefix(val, `'''`):
			q = val[:3]
		case strings.HasPrefix(val, `'`) || strings.HasPrefix(val, `"`):
			q = val[:1]
		}
		if q != "" && strings.Count(val, q) >= 2 {
			q = "" // closed on its own line
		}
		for q != "" && i+1 < len(lines) {
			i++
			l += "\n" + lines[i]
			if strings.Contains(lines[i], q) {
				break
			}
		}
		out = append(out, l)
	}
	return out
}

// justAssign reads NAME := EXPRESSION (optionally after export).
func justAssign(l string) (name, expr string, ok bool) {
	s := strings.TrimPrefix(strings.TrimSpace(l), "export ")
	name, expr, ok = strings.Cut(s, ":=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return "", "", false
	}
	return name, strings.TrimSpace(expr), true
}

// expandJust replaces each {{ expression }} of s with the texts it may take, and returns
// the texts s may then take: every combination, while there are at most max; an
// expression that would make more, or that moat cannot read, is an unknown value.
func expandJust(s string, vars map[string][]string, max int) []string {
	lines := []string{""}
	for {
		i := strings.Index(s, "{{")
		if i < 0 || strings.HasPrefix(s[i:], "{{{{") {
			break
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			break
		}
		expr := strings.TrimSpace(s[i+2 : i+j])
		vals, ok := justEval(expr, vars)
		if !ok || len(lines)*len(vals) > max {
			vals = []string{"${" + shellName(expr) + "}"}
		}
		next := make([]string, 0, len(lines)*len(vals))
		for _, l := range lines {
			for _, v := range vals {
				next = append(next, l+s[:i]+v)
			}
		}
		lines = next
		s = s[i+j+2:]
	}
	for k := range lines {
		lines[k] += s
	}
	return lines
}

// backticks adds the commands in `…` of a justfile line, run when just reads the file.
func (x *extraction) backticks(l string) {
	t := strings.TrimSpace(l)
	if strings.HasPrefix(t, "#") || !strings.Contains(t, "`") || len(l) > 0 && (l[0] == ' ' || l[0] == '\t') {
		return
	}
	for rest := t; ; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			return
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			return
		}
		x.shell("backtick", rest[i+1:i+1+j])
		rest = rest[i+j+2:]
	}
}

// script adds a whole script, in the language its #! line names (shell when it has none
// or names a shell).
func (x *extraction) script(where, text string) {
	lang, interp := shebang(text)
	if !interp {
		x.shell(where, text)
		return
	}
	if lang == "" {
		first, _, _ := strings.Cut(text, "\n")
		x.opaque(where, "a script for "+strings.TrimSpace(strings.TrimPrefix(first, "#!"))+", which moat cannot read")
		return
	}
	x.interp(lang, where, text)
}

// shebang returns the interpreter a script's #! line names: ("", false) for a shell or no
// #! line, (lang, true) for an interpreter moat inspects, ("", true) for another program.
func shebang(text string) (oneliner.Lang, bool) {
	if !strings.HasPrefix(text, "#!") {
		return "", false
	}
	first, _, _ := strings.Cut(text[2:], "\n")
	f := strings.Fields(first)
	if len(f) == 0 {
		return "", false
	}
	prog := f[0]
	if strings.HasSuffix(prog, "/env") {
		f = f[1:]
		for len(f) > 0 && strings.HasPrefix(f[0], "-") {
			f = f[1:]
		}
		if len(f) == 0 {
			return "", true
		}
		prog = f[0]
	}
	prog = prog[strings.LastIndexByte(prog, '/')+1:]
	switch strings.TrimRight(prog, "0123456789.") {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox":
		return "", false
	}
	if in, ok := oneliner.Lookup(prog); ok {
		return in.Lang, true
	}
	return "", true
}

// scriptCode: the whole file is a script (a git hook, a program, .envrc).
func scriptCode(text string, x *extraction) { x.script(x.kind, text) }

// pythonFile: the whole file is Python that a tool imports and runs (setup.py on install,
// conftest.py on pytest, sitecustomize.py on every start of Python).
func pythonFile(text string, x *extraction) { x.interp(oneliner.Python, x.kind, text) }

// noxSessionRun matches the calls of a nox session that run a program, its words given
// as arguments: session.run('pytest', '-q'), run_always, run_install (on any name of
// the session; subprocess.run is Python's, which the Python reader knows).
var noxSessionRun = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(\w+)\s*\.\s*run(?:_always|_install)?\s*\(`)
})

// noxCode: a noxfile is Python that nox imports, and its sessions run programs through
// session.run: each call is judged as the command its arguments spell, a word computed at
// run time (a constant, session.posargs) standing as a shell variable, as in a build
// file's interpolations: `sh -c` given one is a command moat cannot read.
func noxCode(text string, x *extraction) {
	x.interp(oneliner.Python, x.kind, text)
	for _, m := range noxSessionRun().FindAllStringSubmatchIndex(text, -1) {
		if text[m[2]:m[3]] == "subprocess" {
			continue
		}
		if line, ok := pythonCallLine(text, m[1]); ok {
			x.shell(x.kind, line)
		} else {
			x.opaque(x.kind, "a session runs a command moat cannot read: "+strings.Join(strings.Fields(text[m[0]:min(len(text), m[1]+40)]), " "))
		}
	}
}

// pythonCallLine reads the positional arguments of a Python call from i (just after its
// parenthesis) up to its keyword arguments or its end, as a shell command line: a string
// literal is a quoted word, anything else (a name, an f-string, *session.posargs) the
// variable $NOX_ARG. ok is false when the call does not end, or its program is computed.
func pythonCallLine(text string, i int) (string, bool) {
	var words []string
	for {
		for i < len(text) && strings.IndexByte(" \t\r\n,", text[i]) >= 0 {
			i++
		}
		if i >= len(text) {
			return "", false
		}
		if text[i] == ')' {
			break
		}
		if j := i; isIdentStart(text[j]) {
			for j < len(text) && isIdentByte(text[j]) {
				j++
			}
			if j < len(text) && text[j] == '=' && (j+1 >= len(text) || text[j+1] != '=') {
				break // keyword arguments: no more words
			}
		}
		if w, end, ok := pythonString(text, i); ok && (end >= len(text) || strings.IndexByte(" \t\r\n,)", text[end]) >= 0) {
			words = append(words, shellQuote(w))
			i = end
			continue
		}
		end, ok := pythonArgEnd(text, i)
		if !ok || end == i {
			return "", false
		}
		words = append(words, `"${NOX_ARG}"`)
		i = end
	}
	if len(words) > 0 && words[0] == `"${NOX_ARG}"` {
		return "", false // the program itself is computed
	}
	return strings.Join(words, " "), true // "" for a call without arguments: nothing runs
}

// pythonString reads a plain or raw Python string literal at i (not an f-string, whose
// text is computed).
func pythonString(text string, i int) (string, int, bool) {
	quote := i
	if i < len(text) && (text[i] == 'r' || text[i] == 'R') {
		quote = i + 1
	}
	if quote >= len(text) || text[quote] != '\'' && text[quote] != '"' {
		return "", i, false
	}
	q := text[quote]
	var b strings.Builder
	for j := quote + 1; j < len(text); j++ {
		switch c := text[j]; {
		case c == q:
			return b.String(), j + 1, true
		case c == '\n':
			return "", j, false
		case c == '\\' && quote == i && j+1 < len(text):
			j++
			b.WriteByte(escaped(text[j]))
		default:
			b.WriteByte(c)
		}
	}
	return "", len(text), false
}

// pythonArgEnd returns where the argument starting at i ends: the comma or closing
// parenthesis after it at its own depth, minding string literals.
func pythonArgEnd(text string, i int) (int, bool) {
	depth := 0
	for i < len(text) {
		switch c := text[i]; c {
		case '\'', '"':
			_, end, ok := pythonString(text, i)
			if !ok {
				return end, false
			}
			i = end
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return i, c == ')' // a stray ] or } is no Python moat reads
			}
			depth--
		case ',':
			if depth == 0 {
				return i, true
			}
		}
		i++
	}
	return i, false
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// pthCode: lines of a .pth file that start with import are run by every start of Python.
func pthCode(text string, x *extraction) {
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "import\t") {
			x.interp(oneliner.Python, "import line", t)
		}
	}
}
