package oneliner

import (
	"regexp"
	"strings"
	"sync"
)

// Python's sh library runs a program for every name imported from it or read off it:
// from sh import rm; rm("-rf", path) runs rm -rf PATH, as sh.git("push") runs git push.
// Folding has written the imported names' calls as sh.NAME(…) by then.

// shLibrary matches its imports (from sh import …; import sh [as s]).
var shLibrary = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bfrom\s+sh\s+import\b|\bimport\s+sh\b(?:\s+as\s+([A-Za-z_]\w*))?`)
})

// maxShCalls bounds the calls of the library read in one piece of code.
const maxShCalls = 32

// shLibraryCalls returns the command lines of the sh library's calls in folded Python
// code, an argument that is not a literal standing as a word of unknown value.
func shLibraryCalls(code string) []string {
	imports := shLibrary().FindAllStringSubmatch(code, 8)
	if imports == nil {
		return nil
	}
	names := []string{"sh"}
	for _, m := range imports {
		if m[1] != "" {
			names = append(names, regexp.QuoteMeta(m[1]))
		}
	}
	calls := regexp.MustCompile(`\b(?:` + strings.Join(names, "|") + `)\.([A-Za-z_]\w*)\s*\(`)
	var out []string
	for _, loc := range calls.FindAllStringSubmatchIndex(code, maxShCalls) {
		name := code[loc[2]:loc[3]]
		if name == "Command" || name == "bake" || name == "ErrorReturnCode" {
			continue // a program named at run time, judged by what runs it; an exception
		}
		words := []string{joinArgv([]string{strings.ReplaceAll(name, "_", "-")})}
		for _, a := range splitTop(callText(code, loc[1])) {
			a = strings.TrimSpace(a)
			switch lit, ok := firstLiteralStrict(a); {
			case a == "" || strings.HasPrefix(a, "_"):
				// sh's own keyword arguments (_bg=True, _cwd=…).
			case ok && literalEnd(a) == len(a):
				words = append(words, joinArgv([]string{lit}))
			default:
				words = append(words, "${PY_VALUE}")
			}
		}
		out = append(out, strings.Join(words, " "))
	}
	return out
}
