package shell

import (
	"slices"
	"strings"
	"testing"

	"github.com/moatdev/moat/internal/call"
)

// globDisk is the directories Env.Entries lists in TestResolveGlobs; any other cannot be
// listed.
var globDisk = map[string][]string{
	"/work/proj":      {".env", ".git", "Makefile", "build.log", "build.sh", "dist", "src", "x.moat-key"},
	"/work/proj/dist": {"app.js", "app.js.map"},
	"/work/proj/src":  {"a.o", "b.o", "main.c"},
	"/work/big":       bigDir(),
}

func bigDir() []string {
	var names []string
	for i := range maxGlobMatches + 1 {
		names = append(names, "f"+strings.Repeat("x", i))
	}
	return names
}

func globEntriesOf(dir string) ([]string, bool) {
	names, ok := globDisk[dir]
	return names, ok
}

// TestResolveGlobs checks which globs the analysis resolves to the entries on disk, and
// to which: only a line's own commands, only where nothing that runs before or beside
// them can make an entry in the glob's directory, and only as the shell expands them.
func TestResolveGlobs(t *testing.T) {
	env := testEnv
	env.Entries = globEntriesOf
	const unresolved = "-"
	for _, tt := range []struct {
		line string
		glob string // the glob access looked at
		want string // its matches, space-separated; unresolved for nil, "" for none
	}{
		{"rm -f build.*", "/work/proj/build.*", "/work/proj/build.log /work/proj/build.sh"},
		{"tar cf ../out.tar *", "/work/proj/*", "/work/proj/Makefile /work/proj/build.log /work/proj/build.sh /work/proj/dist /work/proj/src /work/proj/x.moat-key"},
		{"cp dist/* out/", "/work/proj/dist/*", "/work/proj/dist/app.js /work/proj/dist/app.js.map"},
		{"cd src && rm -f *.o", "/work/proj/src/*.o", "/work/proj/src/a.o /work/proj/src/b.o"},
		{"rm -f src/[!m]*", "/work/proj/src/[!m]*", "/work/proj/src/a.o /work/proj/src/b.o"},
		{"mkdir -p out && cp dist/* out/", "/work/proj/dist/*", "/work/proj/dist/app.js /work/proj/dist/app.js.map"},
		// Commands that run once the glob is expanded do not matter.
		{"rm -f src/*.o && make", "/work/proj/src/*.o", "/work/proj/src/a.o /work/proj/src/b.o"},
		{"cat dist/* ; npm test", "/work/proj/dist/*", "/work/proj/dist/app.js /work/proj/dist/app.js.map"},
		// Matching nothing, rm gets the pattern as a name, which names no file.
		{"rm -f *.pyc", "/work/proj/*.pyc", ""},
		// zip and 7z expand a pattern themselves.
		{"zip -r x.zip *.pyc", "/work/proj/*.pyc", unresolved},
		{"7z a x.7z *.pyc", "/work/proj/*.pyc", unresolved},
		// Something before it or beside it may make entries there.
		{"npm install && cat *", "/work/proj/*", unresolved},
		{"cat * | npm run x", "/work/proj/*", unresolved},
		{"make & cat *", "/work/proj/*", unresolved},
		{"cat * & make", "/work/proj/*", unresolved},
		{"touch src/x.moat-key; cat src/*", "/work/proj/src/*", unresolved},
		{"ln -s ~/.ssh/id_rsa src/k && cat src/*", "/work/proj/src/*", unresolved},
		{"cp -r /tmp/t/. . && cat dist/*", "/work/proj/dist/*", unresolved},
		{"while read x; do cp dist/* dist/$x; done < list", "/work/proj/dist/*", unresolved},
		// The line changes how the shell globs.
		{"shopt -s dotglob; cat *", "/work/proj/*", unresolved},
		{"GLOBIGNORE=x; cat *", "/work/proj/*", unresolved},
		{"set -f; cat *", "/work/proj/*", unresolved},
		// Code that runs later, or that another program runs.
		{"f() { cat *; }; f", "/work/proj/*", unresolved},
		{"sh -c 'cat *'", "/work/proj/*", unresolved},
		// Patterns judged by their pattern: wildcards above the last segment, one that
		// matches . or .., a class, too many entries, a directory that cannot be listed.
		{"cat */a.o", "/work/proj/*/a.o", unresolved},
		{"cat .e*", "/work/proj/.e*", "/work/proj/.env"},
		{"rm -rf .*", "/work/proj/.*", unresolved},
		{"rm -rf .?*", "/work/proj/.?*", unresolved},
		{"cat src/[[:alpha:]]*", "/work/proj/src/[[:alpha:]]*", unresolved},
		{"cat /work/big/f*", "/work/big/f*", unresolved},
		{"cat /work/none/*", "/work/none/*", unresolved},
	} {
		a := Analyze(tt.line, env)
		found := false
		for _, c := range a.Commands {
			for _, acc := range c.Accesses {
				if !acc.Glob || acc.Path != tt.glob {
					continue
				}
				found = true
				got := unresolved
				if acc.Matches != nil {
					got = strings.Join(acc.Matches, " ")
				}
				if got != tt.want {
					t.Errorf("%s: %s matches %q, want %q", tt.line, tt.glob, got, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("%s: no glob access of %s:\n%s", tt.line, tt.glob, render(a))
		}
	}
}

// TestGlobsWithoutEntries checks that without Env.Entries nothing is resolved.
func TestGlobsWithoutEntries(t *testing.T) {
	a := Analyze("rm -f build.*", testEnv)
	for _, c := range a.Commands {
		if slices.ContainsFunc(c.Accesses, func(acc call.Access) bool { return acc.Matches != nil }) {
			t.Fatalf("resolved without Entries:\n%s", render(a))
		}
	}
}
