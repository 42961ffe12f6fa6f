package selfguard

import (
	"debug/buildinfo"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// How a program is known to be moat. A command run by moat's name is moat; so is a
// file that is the running moat binary (a link to it) or that was built from one of
// moat's main packages, whatever it is called, and go run of such a package. A file whose
// content is not known when the line is decided (it does not exist yet, or the line
// writes it before running it) may be moat.
//
// Identity by content reads the Go build information of the file (debug/buildinfo:
// the main package's import path, a few kilobytes read from the binary) rather than
// hashing it: a copy keeps it, and so does any other build of moat (another version,
// a fresh go build), which a hash of the running binary would miss; reading it costs
// tens of microseconds, hashing a 16 MB binary milliseconds. It is read only for the
// commands whose arguments would loosen protection if the program were moat (git init,
// ./tool setup --uninstall), so ordinary commands cost nothing. A binary whose build
// information was edited out is no longer a build of moat that anyone can vouch for;
// what it does to moat's files is still denied by the file protections.

// identity is what the guard found a command's program to be.
type identity struct {
	// entries are the commands moat's arguments go to: the root and moat shell for the
	// moat binary (whose behaviour its argv[0] chooses, which exec -a sets), moat hook
	// for the hook client.
	entries []string
	// sure: the program is moat; otherwise it may be (its content is not known).
	sure bool
	// self: the program is the running moat binary (the one the hooks run).
	self bool
	// how says so, for the finding: "named moat", "/tmp/m is a build of moat".
	how string
	// args are moat's arguments: the command's, after go run's package for go run.
	args []string
}

// entriesOf returns the commands a binary built from pkg runs, or nil when pkg is not
// one of moat's main packages.
func (g *Guard) entriesOf(pkg string) []string {
	var out []string
	for _, p := range g.programs {
		if p.Package == pkg && !slices.Contains(out, p.Entry) {
			out = append(out, p.Entry)
		}
	}
	return out
}

// programNamed returns the moat binary called name (moat, moat-shell.exe), if any.
func (g *Guard) programNamed(name string) (Program, bool) {
	name = strings.TrimSuffix(name, ".exe")
	for _, p := range g.programs {
		if p.Name == name {
			return p, true
		}
	}
	return Program{}, false
}

// fileIdentity reports whether the existing file at path is moat: the running binary
// itself, or a build of one of moat's main packages.
func (g *Guard) fileIdentity(path string) ([]string, string, bool) {
	if g.isSelf(path) {
		return g.entriesOf(mainPackage), path + " is the moat binary", true
	}
	pkg, err := g.readBuild(path)
	if err != nil {
		return nil, "", false
	}
	if e := g.entriesOf(pkg); len(e) > 0 {
		return e, path + " is a build of " + pkg, true
	}
	return nil, "", false
}

// isSelf reports whether path is the running moat binary, links followed.
func (g *Guard) isSelf(path string) bool {
	if g.binary == "" || path == "" {
		return false
	}
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := os.Stat(g.binary)
	return err == nil && os.SameFile(a, b)
}

// readBuildPath returns the import path of the main package a Go binary was built from.
func readBuildPath(path string) (string, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", err
	}
	return bi.Path, nil
}

// lookPath finds a program named without a slash in the directories of the PATH moat
// was given, as the shell would; "" when it is in none of them.
func (g *Guard) lookPath(name string) string {
	for _, dir := range filepath.SplitList(g.path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry depends on a directory the line may change
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// goBoolFlags are the go command's build flags that take no value; every other flag
// of go build and go run takes one (-o FILE, -tags T, -exec PROG…).
var goBoolFlags = []string{"a", "asan", "buildvcs", "cover", "i", "json", "linkshared", "modcacherw", "msan", "n", "race", "trimpath", "v", "work", "x"}

// goCommand splits the arguments of `go build` or `go run` (after the subcommand) as the
// go command's flag package reads them: flags, then the package (or its .go files),
// then, for go run, the program's arguments. out is the value of -o.
func goCommand(args []string) (pkg string, files, rest []string, out string) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		i++
		if !hasValue && !slices.Contains(goBoolFlags, name) && i < len(args) {
			value = args[i]
			i++
		}
		if name == "o" {
			out = value
		}
	}
	for i < len(args) && strings.HasSuffix(args[i], ".go") {
		files = append(files, args[i])
		i++
	}
	if len(files) == 0 && i < len(args) {
		pkg = args[i]
		i++
	}
	return pkg, files, args[i:], out
}

// goRunIdentity reports whether `go run ARGS` runs moat, and with which arguments. cwd
// is the directory local packages are found from; written reports whether the line
// writes a path before this command runs.
func (g *Guard) goRunIdentity(args []string, cwd string, written func(string) bool) (identity, bool) {
	pkg, files, rest, _ := goCommand(args)
	if len(files) > 0 {
		dir := filepath.Dir(files[0])
		return g.localPackage(dir, files, rest, cwd, written)
	}
	if pkg == "" {
		return identity{}, false
	}
	if local := pkg == "." || pkg == ".." || strings.HasPrefix(pkg, "./") || strings.HasPrefix(pkg, "../") || filepath.IsAbs(pkg); local {
		return g.localPackage(pkg, nil, rest, cwd, written)
	}
	path, _, _ := strings.Cut(pkg, "@")
	if e := g.entriesOf(path); len(e) > 0 {
		return identity{entries: e, sure: true, how: "go run of " + path, args: rest}, true
	}
	// A fork or mirror of moat's module builds the same program under another path.
	switch filepath.Base(path) {
	case "moat", "moat-hook":
		return identity{entries: g.entriesOf(Module + "/cmd/" + filepath.Base(path)), sure: true, how: "go run of " + path, args: rest}, true
	}
	return identity{}, false
}

// localPackage reports whether go run of the local directory dir (or of files in it)
// runs moat: its directory is named like moat's main package, or its Go files import
// moat's packages, or it does not exist yet or is written on the line, so that what it
// holds is not known.
func (g *Guard) localPackage(dir string, files, rest []string, cwd string, written func(string) bool) (identity, bool) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	dir = filepath.Clean(dir)
	switch filepath.Base(dir) {
	case "moat", "moat-hook":
		return identity{entries: g.entriesOf(Module + "/cmd/" + filepath.Base(dir)), sure: true, how: "go run of " + dir, args: rest}, true
	}
	if written(dir) {
		return identity{entries: g.entriesOf(mainPackage), how: "go run of " + dir + ", which this command line writes", args: rest}, true
	}
	if len(files) == 0 {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return identity{entries: g.entriesOf(mainPackage), how: "go run of " + dir + ", which does not exist yet", args: rest}, true
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				files = append(files, n)
			}
		}
	}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(dir, filepath.Base(f))
		}
		if importsMoat(f) {
			return identity{entries: g.entriesOf(mainPackage), sure: true, how: "go run of " + dir + ", which imports moat's packages", args: rest}, true
		}
	}
	return identity{}, false
}

// importsMoat reports whether the Go file imports one of moat's packages; a file that
// cannot be read or parsed does not.
func importsMoat(file string) bool {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		return false
	}
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && strings.HasPrefix(p, Module+"/") {
			return true
		}
	}
	return false
}
