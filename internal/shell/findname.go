package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/call"
)

// What a find expression can reach: `find . -name '*.orig' -delete` deletes only files
// named *.orig. The paths stay the glob ROOT/* (recursive) for the policy's path rules,
// and carry the name as call.Access.Names, so that the engine, looking at the files that
// exist, knows that moat.yaml in ROOT is not among them.

// findNotSimple reports the words that make an expression more than a conjunction of
// tests, after which a -name no longer bounds what is found.
func findNotSimple(w string) bool {
	switch w {
	case "-o", "-or", "!", "-not", ",", "(", ")":
		return true
	}
	return false
}

// findName returns the pattern of the one -name test of a find expression that is a
// plain conjunction (every path found matches it), or "" when there is none, when there
// are several, or when the expression is not a conjunction. -iname is left out: its
// pattern matches other cases too.
func findName(expr []arg) string {
	name := ""
	for i := 0; i < len(expr); i++ {
		x := expr[i]
		if x.dynamic {
			return ""
		}
		switch {
		case findNotSimple(x.lit):
			return ""
		case x.lit == "-name":
			if name != "" || i+1 >= len(expr) || expr[i+1].dynamic || expr[i+1].lit == "" || strings.Contains(expr[i+1].lit, "/") {
				return ""
			}
			name = expr[i+1].lit
			i++
		case x.lit == "-exec" || x.lit == "-execdir" || x.lit == "-ok" || x.lit == "-okdir":
			// The command's words are not tests; it ends at ; or +.
			for i++; i < len(expr) && expr[i].lit != ";" && expr[i].lit != "+"; i++ {
			}
		}
	}
	return name
}

// findNameWords is findName for the words of a find command as emitted.
func findNameWords(words []string) string {
	expr := make([]arg, 0, len(words))
	started := false
	for _, w := range words {
		started = started || strings.HasPrefix(w, "-") || w == "(" || w == "!"
		if started {
			expr = append(expr, arg{lit: w})
		}
	}
	return findName(expr)
}

// lsListing returns what ls prints, as the globs xargs then hands to its program: the
// entries of each directory it is given (of the working directory when none), with the
// hidden ones when -a or -A is given. An operand that is a file is printed as itself, so
// each operand named stands for itself too.
func lsListing(ls *call.Command) []arg {
	dirs := ls.Operands
	var out []arg
	for _, d := range dirs {
		out = append(out, arg{lit: d})
	}
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	hidden := ls.HasFlag("a") || ls.HasFlag("A") || ls.HasFlag("all") || ls.HasFlag("almost-all")
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := strings.TrimSuffix(d, "/")
		out = append(out, arg{lit: p + "/*", pat: escapeGlob(p) + "/*", glob: true})
		if hidden {
			out = append(out, arg{lit: p + "/.*", pat: escapeGlob(p) + "/.*", glob: true})
		}
	}
	return out
}
