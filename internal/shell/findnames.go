package shell

import (
	"strings"
	"sync"
)

// findSelectors are the tests of a find expression that only narrow what it picks, by
// what they take as their value (-type d) or nothing (-empty), without acting or naming:
// with one -name among them, find picks exactly the paths of that name.
var findSelectors = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"-type": 1, "-xtype": 1, "-maxdepth": 1, "-mindepth": 1, "-mtime": 1, "-mmin": 1,
		"-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1, "-newer": 1, "-size": 1, "-user": 1,
		"-group": 1, "-perm": 1, "-links": 1, "-uid": 1, "-gid": 1, "-empty": 0, "-depth": 0,
		"-mount": 0, "-xdev": 0, "-print": 0, "-print0": 0, "-delete": 0, "-a": 0, "-and": 0,
		"-nouser": 0, "-nogroup": 0, "-readable": 0, "-writable": 0, "-noleaf": 0,
		// -prune stops the walk at what it picked; it never picks more.
		"-prune": 0,
		// Tests of the whole path or of the file's identity narrow as well.
		"-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
		"-regextype": 1, "-samefile": 1, "-inum": 1, "-newermt": 1, "-fstype": 1,
	}
})

// findActions take a command up to ";" or "+", which selects nothing.
func findAction(w string) bool {
	return w == "-exec" || w == "-execdir" || w == "-ok" || w == "-okdir"
}

// findName returns the base-name pattern a find expression picks its paths by (find .
// -name '*.pyc' -delete), as a path-glob segment: a conjunction of one -name, or of a
// parenthesized group of -name alternatives, and selectors, negated tests among them; or
// alternatives joined by -o, each such a conjunction. find's -o binds looser than its
// implicit -and: an action written in the last alternative acts on what that one picks
// (-name '*.log' -o -name '*.tmp' -delete deletes the .tmp files only), and with no
// action every alternative is printed ({a,b}). Anything else gives "", false: the
// expression may pick any path below the roots.
func findName(expr []string) (string, bool) {
	branches, ok := findAlternatives(expr)
	if !ok {
		return "", false
	}
	if len(branches) == 1 {
		return findConjunctionName(expr)
	}
	for _, b := range branches[:len(branches)-1] {
		if findActs(b) {
			return "", false
		}
	}
	last := branches[len(branches)-1]
	if findActs(last) {
		return findConjunctionName(last)
	}
	alts := make([]string, 0, len(branches))
	for _, b := range branches {
		n, ok := findConjunctionName(b)
		if !ok {
			return "", false
		}
		alts = append(alts, n)
	}
	return "{" + strings.Join(alts, ",") + "}", true
}

// findAlternatives splits a find expression at its top-level -o (or -or), outside
// parentheses.
func findAlternatives(expr []string) ([][]string, bool) {
	var out [][]string
	depth, start := 0, 0
	for i, w := range expr {
		switch w {
		case "(":
			depth++
		case ")":
			if depth--; depth < 0 {
				return nil, false
			}
		case "-o", "-or":
			if depth == 0 {
				if i == start {
					return nil, false
				}
				out = append(out, expr[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 || start >= len(expr) && len(expr) > 0 {
		return nil, false
	}
	return append(out, expr[start:]), true
}

// findActs reports whether a part of a find expression holds an action, which acts on
// what that part picks.
func findActs(expr []string) bool {
	for _, w := range expr {
		switch w {
		case "-delete", "-print", "-print0", "-printf", "-fprint", "-fprint0", "-fprintf", "-ls", "-fls", "-quit":
			return true
		}
		if findAction(w) {
			return true
		}
	}
	return false
}

// findConjunctionName is findName for a conjunction: exactly one -name, or one group of
// -name alternatives, with selectors and negated tests.
func findConjunctionName(expr []string) (string, bool) {
	name, named := "", false
	for i := 0; i < len(expr); i++ {
		w := expr[i]
		switch {
		case w == "(":
			// A group of -name alternatives (find . -type f \( -name a -o -name b \)).
			depth, end := 0, -1
			for j := i; j < len(expr) && end < 0; j++ {
				if expr[j] == "(" {
					depth++
				} else if expr[j] == ")" {
					if depth--; depth == 0 {
						end = j
					}
				}
			}
			if named || end < 0 || findActs(expr[i+1:end]) {
				return "", false
			}
			n, ok := findName(expr[i+1 : end])
			if !ok {
				return "", false
			}
			name, named = n, true
			i = end
		case w == "-name":
			if named || i+1 >= len(expr) {
				return "", false
			}
			n := expr[i+1]
			if n == "" || strings.ContainsAny(n, "/\x00") || strings.Contains(n, "**") {
				return "", false
			}
			name, named = fnmatchSegment(n), true
			i++
		case findAction(w):
			for i++; i < len(expr) && expr[i] != ";" && expr[i] != "+"; i++ {
			}
		case w == "!" || w == "-not":
			// In a conjunction a negated test only narrows what is picked (-name '*.ts'
			// -not -path './node_modules/*', ! -name '*.d.ts'), whatever the test.
			if i+1 >= len(expr) {
				return "", false
			}
			t := expr[i+1]
			n, ok := findSelectors()[t]
			switch {
			case ok:
			case t == "-name" || t == "-iname":
				n = 1
			default:
				return "", false // a parenthesis, an action: not a plain test
			}
			i += 1 + n
		default:
			n, ok := findSelectors()[w]
			if !ok {
				return "", false
			}
			i += n
		}
	}
	if !named {
		return "", false
	}
	return name, true
}

// fnmatchSegment writes find's -name pattern (fnmatch, where braces are ordinary
// characters, not alternatives) as a path-glob segment.
func fnmatchSegment(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '{' || r == '}' || r == ',' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// findExpr returns where the expression of a find command's words starts, after its
// roots (and its leading -H/-L/-P options).
func findExpr(args []string) int {
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P") {
		i++
	}
	for i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!" {
		i++
	}
	return i
}

// literals returns the words' values, a dynamic word as a value no find test has.
func literals(words []arg) []string {
	out := make([]string, len(words))
	for i, w := range words {
		if w.dynamic {
			out[i] = "\x00"
			continue
		}
		out[i] = w.lit
	}
	return out
}
