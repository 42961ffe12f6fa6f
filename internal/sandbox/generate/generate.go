package generate

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/sandbox"
)

// Options are the inputs of the profile generators: the machine the profile is for.
type Options struct {
	Host      pathset.Host
	Workspace []string
	// Binaries are the programs a Tetragon policy applies to (with their children);
	// empty applies it to every process of the node.
	Binaries []string
}

// genPath is one pattern of a section, absolute, with where it came from.
type genPath struct {
	pattern string
	origin  string
	except  []string
}

// genPaths expands the entries of a list for a generator. Unlike sandbox.Build, it does not look
// at the file system: the profile is for another machine.
func genPaths(o Options, entries []sandbox.Entry) ([]genPath, error) {
	var out []genPath
	for _, e := range entries {
		inc, exc, err := sandbox.Expand(e.Pattern, o.Host, o.Workspace)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", e.Origin, e.Pattern, err)
		}
		for _, p := range inc {
			out = append(out, genPath{pattern: p, origin: e.Pattern, except: exc})
		}
	}
	return out, nil
}

// globRegexp turns a path glob into an anchored regular expression: "**/" is any run of
// directories, "/**" at the end is the path and everything beneath, "*" and "?" stay
// within one segment, classes and {a,b} alternatives are kept.
func globRegexp(p string) string {
	// Cleaned as the glob package cleans a pattern ("/a/./b/" is "/a/b").
	return "^" + globBody(path.Clean(p)) + "$"
}

// globBody is globRegexp without its anchors. Each alternative of {a,b} is translated
// the same way, so that a wildcard in one ({google-chrome*,chromium}) stays a wildcard.
func globBody(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case strings.HasPrefix(p[i:], "/**") && i+3 == len(p):
			b.WriteString("(/.*)?")
			i += 2
		case strings.HasPrefix(p[i:], "/**/"):
			b.WriteString("(/.*)?/")
			i += 3
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + class + "]")
			i += j
		case c == '{':
			j := strings.IndexByte(p[i:], '}')
			if j < 0 {
				b.WriteString(`\{`)
				continue
			}
			alts := strings.Split(p[i+1:i+j], ",")
			for k, a := range alts {
				alts[k] = globBody(a)
			}
			b.WriteString("(" + strings.Join(alts, "|") + ")")
			i += j
		case c == '\\' && i+1 < len(p):
			_, size := utf8.DecodeRuneInString(p[i+1:])
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+1+size]))
			i += size
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	return b.String()
}
