package planted

import (
	"regexp"
	"strings"
	"sync"
)

// bazelGenrule matches a genrule( call of a BUILD file.
var bazelGenrule = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bgenrule\s*\(`) })

// bazelBuildCode: a Bazel BUILD file's genrule(cmd = "…") (or cmd_bash) is a shell command
// that bazel runs, with bash, when it builds the rule's outputs. It is read when spelt in
// string literals, joined by +; one computed otherwise (a variable, select(), a
// format) is a command moat cannot read. In the string $$ is a $, and $@, $<, $(location
// X), $(SRCS), $(OUTS)… are Bazel's substitutions, put in as paths of the build's output
// below the project; a make variable of the toolchain ($(CC)) as its program. cmd_bat
// and cmd_ps run only on Windows, and are left out.
func bazelBuildCode(text string, x *extraction) {
	code := starlarkSyntax.mask(text)
	for _, m := range bazelGenrule().FindAllStringIndex(code, -1) {
		if !calledAt(code, m[0], true) {
			continue
		}
		end, ok := starlarkCallEnd(code, m[1])
		if !ok {
			// What follows is read no further: each later rule would be read to the
			// end of the file again.
			x.opaque("genrule", "a rule moat cannot read to its end: "+snippet(code, m[0]))
			return
		}
		args := code[m[1]:end]
		name := "genrule"
		if i, found := keywordArg(args, "name"); found {
			if s, _, ok := starlarkExpr(args, i); ok {
				name = "genrule " + s
			}
		}
		for _, kw := range []string{"cmd", "cmd_bash"} {
			i, found := keywordArg(args, kw)
			if !found {
				continue
			}
			where := name + " " + kw + " (bazel runs it when it builds the rule)"
			s, _, ok := starlarkExpr(args, i)
			if !ok {
				x.opaque(where, "a command computed when bazel reads the file: "+snippet(args, i))
				continue
			}
			line, ok := bazelSubstitute(s)
			if !ok {
				x.opaque(where, "a command with a substitution moat cannot read: "+snippet(s, 0))
				continue
			}
			x.shell(where, line)
		}
	}
}

// starlarkSyntax is Starlark's: # comments, strings in either quote.
var starlarkSyntax = commentSyntax{line: "#", quotes: `"'`}

// starlarkCallEnd returns the offset of the closing parenthesis of a call whose
// arguments start at i, minding strings (triple-quoted ones too) and brackets.
func starlarkCallEnd(text string, i int) (int, bool) {
	depth := 0
	for i < len(text) {
		switch c := text[i]; c {
		case '"', '\'':
			i = skipQuoted(text, i)
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return i, c == ')'
			}
			depth--
		}
		i++
	}
	return 0, false
}

// starlarkExpr reads a string expression at text[i]: string literals (r"…", triple-quoted
// ones) joined by +, up to the end of the argument. ok is false for anything else.
func starlarkExpr(text string, i int) (string, int, bool) {
	var b strings.Builder
	for {
		raw := false
		if i < len(text) && (text[i] == 'r' || text[i] == 'R') {
			raw, i = true, i+1
		}
		if i >= len(text) || text[i] != '"' && text[i] != '\'' {
			return "", i, false
		}
		var s string
		var end int
		var ok bool
		switch {
		case raw:
			s, end, ok = rawStarlarkString(text, i)
		case strings.HasPrefix(text[i:], `"""`) || strings.HasPrefix(text[i:], "'''"):
			s, end, ok = stringLiteral(text, i, "")
			s = starlarkUnescape(s)
		default:
			s, end, ok = stringLiteral(text, i, "")
		}
		if !ok {
			return "", i, false
		}
		b.WriteString(s)
		i = skipBlanks(text, end)
		if i >= len(text) || text[i] == ',' || text[i] == ')' {
			return b.String(), i, true
		}
		if text[i] != '+' {
			return "", i, false // "…".format(…), "…" % x, a method
		}
		i = skipBlanks(text, i+1)
	}
}

// starlarkUnescape resolves the escapes of a triple-quoted string's text: \n, \t and
// \r, a backslash before a newline joining the lines, and before any other character
// that character.
func starlarkUnescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '\n':
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// rawStarlarkString reads a raw string literal whose quote is text[i]: a backslash keeps
// itself and the character after it.
func rawStarlarkString(text string, i int) (string, int, bool) {
	q := text[i]
	if strings.HasPrefix(text[i:], strings.Repeat(string(q), 3)) {
		return stringLiteral(text, i, "")
	}
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case q:
			return text[i+1 : j], j + 1, true
		case '\n':
			return "", j, false
		}
	}
	return "", len(text), false
}

// bazelGenDir is the directory Bazel's substitutions stand for: the build's output, in
// the project.
const bazelGenDir = "bazel-out/gen"

// bazelSubstitute puts Bazel's substitutions into a genrule command: $$ is $, $@ and $<
// the output and the input, $(location X) and its kin the path of X's file, $(SRCS),
// $(OUTS), $(@D), $(RULEDIR) files and directories of the build, and a toolchain's make
// variable its program. ok is false for a $( that does not end.
func bazelSubstitute(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case '$':
			b.WriteByte('$')
		case '@':
			b.WriteString(bazelGenDir + "/out")
		case '<':
			b.WriteString(bazelGenDir + "/in")
		case '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return "", false
			}
			b.WriteString(bazelVariable(s[i+1 : i+end]))
			i += end
		default:
			b.WriteByte('$')
			b.WriteByte(s[i])
		}
	}
	return b.String(), true
}

// bazelVariable is what one $(…) of a genrule command stands for.
func bazelVariable(v string) string {
	fn, label, hasLabel := strings.Cut(strings.TrimSpace(v), " ")
	if hasLabel {
		switch fn {
		case "location", "locations", "execpath", "execpaths", "rootpath", "rootpaths", "rlocationpath", "rlocationpaths":
			// The file of a target of the project (a tool it builds, a source): its name.
			label = strings.TrimSpace(label)
			name := label[strings.LastIndexAny(label, ":/")+1:]
			name = strings.Map(func(r rune) rune {
				if r < 128 && (isIdentByte(byte(r)) || r == '.' || r == '-') {
					return r
				}
				return '_'
			}, name)
			return bazelGenDir + "/" + name
		}
		return "${BAZEL_VARIABLE}"
	}
	switch v {
	case "SRCS", "OUTS", "@D", "RULEDIR", "GENDIR", "BINDIR", "OUTDIR":
		return bazelGenDir
	case "CC", "AR", "NM", "LD", "OBJCOPY", "OBJDUMP", "STRIP", "GCOV", "JAVA":
		return strings.ToLower(v)
	case "JAVABASE":
		return bazelGenDir + "/jdk"
	case "PYTHON3", "PYTHON":
		return "python3"
	}
	return "${BAZEL_VARIABLE}"
}
