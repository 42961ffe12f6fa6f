package oneliner

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// String literals of the languages inspected, read just well enough to take a static
// argument out of a call: single or double quotes, backslash escapes, and no interpolation
// ("$x", "#{x}", f"{x}", `${x}`): a literal that interpolates is not static.

// maxLiteral bounds how far a literal is read: a longer one counts as unterminated (not
// static), so that many unterminated quotes cannot make inspection quadratic.
const maxLiteral = 16 << 10

// readLiteral reads the literal starting with the quote at s[0], returning its value, the
// index just after its closing quote, and whether it is static.
func readLiteral(s string, fstring bool) (string, int, bool) {
	if len(s) > maxLiteral {
		s = s[:maxLiteral]
	}
	q := s[0]
	var b strings.Builder
	static := true
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
		case c == q:
			return b.String(), i + 1, static
		default:
			if q != '\'' && (c == '$' && i+1 < len(s) && (isIdent(s[i+1]) || s[i+1] == '{') || c == '#' && i+1 < len(s) && s[i+1] == '{') {
				static = false
			}
			if fstring && c == '{' {
				static = false
			}
			b.WriteByte(c)
		}
	}
	return "", len(s), false // unterminated
}

func isIdent(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isQuote(c byte) bool { return c == '\'' || c == '"' }

// literalAt reads a literal at the start of s (after blanks), allowing a Python prefix
// (r, b, u, f).
func literalAt(s string) (string, int, bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	f := false
	for j := 0; j < 2 && i < len(s) && strings.IndexByte("rbufRBUF", s[i]) >= 0 && i+1 < len(s); j++ {
		f = f || s[i] == 'f' || s[i] == 'F'
		i++
	}
	if i >= len(s) || !isQuote(s[i]) {
		return "", 0, false
	}
	lit, n, ok := readLiteral(s[i:], f)
	return lit, i + n, ok
}

// firstLiteralStrict reads a static literal at the very start of s.
func firstLiteralStrict(s string) (string, bool) {
	lit, _, ok := literalAt(s)
	return lit, ok
}

// literalEnd returns the index just after the literal at the start of s.
func literalEnd(s string) int {
	_, n, _ := literalAt(s)
	return n
}

// envLookup matches text that ends with a call reading an environment variable, whose
// literal argument is a variable's name.
var envLookup = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\b(?:[Gg]etenv|LookupEnv|environ\.get|ENV\.fetch|env)|\benviron|\bENV|\$ENV|\$_ENV|\$_SERVER|process\.env)\s*[(\[{]\s*$`)
})

// firstLiteral reads the first argument of a call when it is a literal, possibly wrapped
// in calls (os.path.expanduser('~/x'), Path('x')): the first quote before any comma or
// closing parenthesis at the argument's level.
func firstLiteral(s string) (string, bool) {
	depth := 0
	argStart := 0 // where the argument the scan is in began
	for i := 0; i < len(s) && i < 200; i++ {
		c := s[i]
		switch {
		case isQuote(c):
			start := i
			if i > 0 && strings.IndexByte("rbufRBUF", s[i-1]) >= 0 {
				start = i - 1
			}
			if envLookup().MatchString(s[:start]) {
				return "", false // os.Getenv("DIR"): the variable's value, not the path DIR
			}
			if depth > 0 && strings.TrimSpace(s[argStart:start]) != "" {
				// join(home, '.ssh'): a literal after another argument or an operand
				// is a part of the path, not the path.
				return "", false
			}
			lit, _, ok := literalAt(s[start:])
			return lit, ok
		case c == ',' && depth > 0:
			// join(home, '.ssh'): the wrapped call's first argument is no literal, and a
			// literal after it is a part of the path, not the path.
			return "", false
		case c == '(' || c == '[':
			argStart = i + 1
			depth++
		case c == ')' || c == ']':
			depth--
			if depth < 0 {
				return "", false
			}
		case c == ',' && depth <= 0, c == ';', c == '\n':
			return "", false
		}
	}
	return "", false
}

// literalList reads ["a", "b", …] at the start of s: every element a static literal.
func literalList(s string) ([]string, bool) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, "[") {
		return nil, false
	}
	s = s[1:]
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n")
		if strings.HasPrefix(s, "]") {
			return out, true
		}
		lit, n, ok := literalAt(s)
		if !ok || n == 0 {
			return nil, false
		}
		out = append(out, lit)
		s = strings.TrimLeft(s[n:], " \t\n")
		if strings.HasPrefix(s, ",") {
			s = s[1:]
			continue
		}
		if strings.HasPrefix(s, "]") {
			return out, true
		}
		return nil, false
	}
}

// literalSeq reads "a", "b", … (up to a closing parenthesis or the end of the statement):
// every element a static literal.
func literalSeq(s string) ([]string, bool) {
	var out []string
	for {
		lit, n, ok := literalAt(s)
		if !ok || n == 0 {
			return nil, false
		}
		out = append(out, lit)
		s = strings.TrimLeft(s[n:], " \t")
		if strings.HasPrefix(s, ",") {
			s = s[1:]
			continue
		}
		if s == "" || s[0] == ')' || s[0] == ';' || s[0] == '\n' {
			return out, true
		}
		return nil, false
	}
}

// shellTags are the tags of JavaScript's templates that run their text as a shell command
// line: zx's, execa's, dax's and Bun's $, Bun.$, and execa's own tags.
var shellTags = []string{"$", "Bun.$", "$.sync", "execa", "execaSync", "execaCommand", "execaCommandSync", "execaNode"}

// shellTemplates returns the command lines of JavaScript's shell templates
// (await $`rm -rf ${dir}`), each interpolated value (${…}) a word of unknown value: the
// libraries quote what they put in, so one value is one word.
func shellTemplates(code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !isQuote(c) && c != '`' {
			continue
		}
		tag := i
		for tag > 0 && isTagByte(code[tag-1]) {
			tag--
		}
		tagged := slices.Contains(shellTags, code[tag:i])
		if isQuote(c) {
			// A template whose values were all known is folded into a literal, still
			// after its tag ($'rm -rf ~').
			lit, n, ok := readLiteral(code[i:], false)
			if tagged && ok {
				out = append(out, lit)
			}
			if n > 1 {
				i += n - 1
			}
			continue
		}
		body, n := templateBody(code[i+1:])
		if tagged {
			out = append(out, body)
		}
		i += n
	}
	return out
}

func isTagByte(c byte) bool {
	return c == '$' || c == '.' || c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// templateBody reads a template literal's text up to its closing backtick, an
// interpolation standing as "${JS_VALUE}", and returns it with how many bytes it took
// (the backtick included).
func templateBody(s string) (string, int) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i++
		case c == '`':
			return b.String(), i + 1
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			depth := 0
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '{' {
					depth++
				} else if s[j] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			b.WriteString(`"${JS_VALUE}"`)
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(s)
}

// backtickLiterals returns the commands between backticks, and the %x(…) and qx{…}
// forms, outside string literals; what they interpolate is computed at run time
// (interpolate), the home directory $HOME.
func backtickLiterals(lang Lang, code string) []string {
	var out []string
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case isQuote(c):
			if _, n, _ := readLiteral(code[i:], false); n > 1 {
				i += n - 1
			}
		case c == '`':
			end := strings.IndexByte(code[i+1:], '`')
			if end < 0 {
				return out
			}
			body, n, ok := literalBody(code[i:])
			if !ok {
				return out
			}
			// What the command interpolates is computed at run time (#{Dir.home} is $HOME).
			out = append(out, asm{lang: lang}.interpolate(body, '`', false))
			i += n - 1
		case (c == '%' || c == 'q') && i+2 < len(code) && code[i+1] == 'x' && strings.IndexByte("({[", code[i+2]) >= 0:
			closer := map[byte]byte{'(': ')', '{': '}', '[': ']'}[code[i+2]]
			end := strings.IndexByte(code[i+3:], closer)
			if end < 0 {
				return out
			}
			out = append(out, asm{lang: lang}.interpolate(code[i+3:i+3+end], '`', false))
			i += end + 3
		}
	}
	return out
}
