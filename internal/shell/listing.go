package shell

import (
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/glob"
)

// lsListing returns what ls prints, as the globs xargs then hands to its program
// (ls DIR | xargs rm): the entries of each directory it is given (of the working
// directory when none), the hidden ones too when -a or -A is given. An operand that is a
// file is printed as itself, so each operand named stands for itself too; an operand the
// shell expanded as a pattern (ls *.log) is that pattern, taken as naming files.
func lsListing(ls *call.Command) []arg {
	var out, dirs []arg
	for _, d := range ls.Operands {
		if glob.HasMeta(d) {
			out = append(out, arg{lit: d, pat: d, glob: true})
			continue
		}
		out = append(out, arg{lit: d})
		dirs = append(dirs, arg{lit: d})
	}
	if len(ls.Operands) == 0 {
		dirs = []arg{{lit: "."}}
	}
	hidden := ls.HasFlag("a") || ls.HasFlag("A") || ls.HasFlag("all") || ls.HasFlag("almost-all")
	for _, d := range dirs {
		if d.lit == "" {
			continue
		}
		p := strings.TrimSuffix(d.lit, "/")
		out = append(out, arg{lit: p + "/*", pat: escapeGlob(p) + "/*", glob: true, hidden: hidden})
	}
	return out
}
