package shell

import (
	"slices"
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/scan/lookalike"
)

// A package manager installing a package by name fetches it from its registry; one given
// a URL, a repository or a directory outside the project fetches code no registry has
// seen, and its build or install code runs at once (a gem's extconf.rb, a crate's
// build.rs, a Python package's build backend, an npm package's install scripts). This
// file says, as data, which subcommands install and how they name where a package comes
// from; installSource judges each operand and source option the same way for all of them.

// packageInstall is a way a program installs packages, or fetches one and runs it.
type packageInstall struct {
	// sub are the subcommand's words, each a set of alternatives separated by | (rule.sub).
	sub []string
	// kind is the registry whose popular names a package named here may imitate
	// (lookalike.go); lookalike.None where moat has no list of them.
	kind lookalike.Kind
	// runs says only the first operand names a package, whose program runs with the rest
	// as its arguments (npx NAME ARGS…); where that package comes from is the package
	// runners' to judge (executors_runners.go).
	runs bool
	// sources are the options whose value names where the package comes from (bundle add
	// --git URL, --path DIR; cargo install --path DIR; pipx install --spec SPEC).
	sources []string
	// registries are the options whose value is another registry to install from (gem
	// install --source URL, dart pub add --hosted-url URL): the default ones are no change.
	registries []string
	// forge says an operand USER/REPO names a repository on GitHub (gh extension install
	// OWNER/REPO, mix archive.install github USER/REPO), unless its owner is one of
	// vendors', whose repositories are the tool's own; repos are the source options whose
	// value may be one (bundle add --github USER/REPO).
	forge   bool
	vendors []string
	repos   []string
	// adds says the subcommand adds a source of packages rather than installing one
	// (kubectl krew index add NAME URL): what it names is a registry.
	adds bool
}

// packageInstalls maps a program to the ways it installs packages. pip's code from
// outside the project is also the catalog's (runs=install), npm-style specs (NAME@git+URL,
// github:u/r) npmRegistry's.
var packageInstalls = sync.OnceValue(func() map[string][]packageInstall {
	py, js := lookalike.PyPI, lookalike.NPM
	return map[string][]packageInstall{
		"pip":    {{sub: []string{"install|download|wheel"}, kind: py}},
		"pipx":   {{sub: []string{"install|inject"}, kind: py, sources: []string{"spec"}}, {sub: []string{"run"}, kind: py, runs: true}},
		"uv":     {{sub: []string{"add"}, kind: py, sources: []string{"editable"}}, {sub: []string{"pip", "install"}, kind: py, sources: []string{"editable"}}, {sub: []string{"tool", "install"}, kind: py, sources: []string{"from", "with", "with-editable"}}, {sub: []string{"tool", "run"}, kind: py, runs: true}},
		"uvx":    {{kind: py, runs: true}},
		"poetry": {{sub: []string{"add"}, kind: py, sources: []string{"editable"}}},
		"pdm":    {{sub: []string{"add"}, kind: py}},
		"rye":    {{sub: []string{"add"}, kind: py}},
		"pipenv": {{sub: []string{"install"}, kind: py}},
		// npm reads a few misspellings of install as install.
		"npm":    {{sub: []string{"install|i|add|in|isntall|ins|inst|insta|instal|isnt|isnta|isntal"}, kind: js}, {sub: []string{"exec|x"}, kind: js, runs: true}},
		"pnpm":   {{sub: []string{"add|install|i"}, kind: js}, {sub: []string{"dlx"}, kind: js, runs: true}},
		"yarn":   {{sub: []string{"add"}, kind: js}, {sub: []string{"global", "add"}, kind: js}, {sub: []string{"dlx"}, kind: js, runs: true}},
		"bun":    {{sub: []string{"add|install|i|a"}, kind: js}, {sub: []string{"x"}, kind: js, runs: true}},
		"npx":    {{kind: js, runs: true}},
		"bunx":   {{kind: js, runs: true}},
		"pnpx":   {{kind: js, runs: true}},
		"deno":   {{sub: []string{"install|i|add"}}},
		"cargo":  {{sub: []string{"add|install"}, kind: lookalike.Crates, sources: []string{"path"}}},
		"gem":    {{sub: []string{"install|i"}, kind: lookalike.RubyGems, registries: []string{"source", "s"}}},
		"bundle": {{sub: []string{"add"}, kind: lookalike.RubyGems, sources: []string{"git", "github", "path"}, repos: []string{"github"}, registries: []string{"source"}}},
		"go":     {{sub: []string{"get|install"}, kind: lookalike.Go}},
		"dart":   {{sub: []string{"pub", "add"}, kind: lookalike.Pub, sources: []string{"git-url", "path"}, registries: []string{"hosted-url"}}},
		"flutter": {
			{sub: []string{"pub", "add"}, kind: lookalike.Pub, sources: []string{"git-url", "path"}, registries: []string{"hosted-url"}},
		},
		// dotnet add [PROJECT] package NAME; nuget install NAME.
		"dotnet": {
			{sub: []string{"add", "package"}, kind: lookalike.NuGet, registries: []string{"source", "s"}},
			{sub: []string{"add", "*", "package"}, kind: lookalike.NuGet, registries: []string{"source", "s"}},
		},
		"nuget": {{sub: []string{"install"}, kind: lookalike.NuGet, registries: []string{"source", "Source"}}},
		"composer": {
			{sub: []string{"require|req|r"}, kind: lookalike.Packagist, sources: []string{"repository"}},
			{sub: []string{"global", "require|req|r"}, kind: lookalike.Packagist, sources: []string{"repository"}},
		},
		// A tap by its GitHub name is brew's usual way (brew tap USER/REPO, brew install
		// USER/REPO/FORMULA); one from another URL is a rule of its own.
		"brew": {{sub: []string{"install|reinstall"}}},
		// pre-commit try-repo URL runs the hooks of that repository, installed from it.
		"pre-commit": {{sub: []string{"try-repo"}}},
		"mix":        {{sub: []string{"archive.install|escript.install"}, forge: true}},
		"asdf":       {{sub: []string{"plugin", "add|install"}}, {sub: []string{"plugin-add"}}},
		"mise":       {{sub: []string{"plugins|plugin|p", "install|add|i|a|link|ln"}}},
		"gh":         {{sub: []string{"extension|extensions|ext", "install|i"}, forge: true, vendors: []string{"github", "cli"}}},
		"kubectl":    {{sub: []string{"krew", "install"}, sources: []string{"manifest-url", "manifest", "archive"}}, {sub: []string{"krew", "index", "add"}, adds: true}},
	}
})

// installOptions are the options of packageInstalls' programs that take a value, so that
// a value is not read as a package (poetry add --group dev x) and a source option's is read.
var installOptions = sync.OnceValue(func() map[string]valueOpts {
	pub := valueOpts{short: "C", long: []string{"git-url", "git-ref", "git-path", "path", "hosted-url", "sdk", "directory"}, subcommand: true}
	return map[string]valueOpts{
		"bundle":   {long: []string{"git", "github", "path", "source", "branch", "ref", "glob", "version", "group", "require", "gemfile"}, subcommand: true},
		"poetry":   {short: "GEC", long: []string{"group", "extras", "source", "python", "platform", "directory", "project", "editable"}, subcommand: true},
		"dart":     pub,
		"flutter":  pub,
		"composer": {short: "d", long: []string{"repository", "working-dir"}, subcommand: true},
		"dotnet":   {short: "vfs", long: []string{"version", "framework", "source", "package-directory"}, subcommand: true},
		"mix":      {long: []string{"sha512", "app", "branch", "tag", "ref", "organization"}, subcommand: true},
	}
})

// installRules are the effect rules of packageInstalls, one per subcommand.
func installRules() map[string][]rule {
	out := map[string][]rule{}
	for prog, ins := range packageInstalls() {
		for _, in := range ins {
			if in.runs {
				continue
			}
			out[prog] = append(out[prog], rule{sub: in.sub, when: installSource(in)})
		}
	}
	return out
}

// installSource judges the operands and source options of an installing subcommand: a
// URL or a repository is a direct source, a directory or archive outside the project is
// code moat has not read, another registry is a change of registry.
func installSource(in packageInstall) func(*analyzer, *view) string {
	return func(a *analyzer, v *view) string {
		carrier := strings.Join(append([]string{v.name}, v.ops[:len(in.sub)]...), " ")
		for _, o := range v.opts {
			switch {
			case !o.hasValue:
			case slices.Contains(in.registries, o.name):
				if o.val.dynamic || !officialSource(o.val.lit) {
					a.report(findRegistry, carrier+" --"+o.name+" "+shorten(o.val.lit))
					return "registry"
				}
			case slices.Contains(in.sources, o.name):
				if why := a.packageOrigin(o.val, true, slices.Contains(in.repos, o.name), in); why != "" {
					return a.reportOrigin(carrier+" --"+o.name, o.val, why, in)
				}
			}
		}
		for _, o := range v.raw[len(in.sub):] {
			if why := a.packageOrigin(o, false, in.forge, in); why != "" {
				return a.reportOrigin(carrier, o, why, in)
			}
		}
		return ""
	}
}

// Why packageOrigin flags a source.
const (
	originRemote  = "remote"
	originOutside = "outside"
	originUnknown = "dynamic"
)

// packageOrigin says where a package named by word w comes from, when it is not a
// registry of the program's: a URL or a repository (remote), a directory or file outside
// the project or fetched earlier in the line (outside), a source computed at run time
// (dynamic, for a source option's value only: a computed package name is a registry's).
// forge says the word may be a GitHub USER/REPO.
func (a *analyzer) packageOrigin(w arg, option, forge bool, in packageInstall) string {
	if w.dynamic {
		if option {
			return originUnknown
		}
		return ""
	}
	s := strings.TrimSpace(w.lit)
	if s == "" || strings.HasPrefix(s, "-") && !option {
		return ""
	}
	// NAME@SPEC (poetry add x@git+https://…) and PEP 508's NAME @ URL name a source too.
	_, spec, _ := strings.Cut(s, "@")
	if remoteSpec(s) || remoteSpec(strings.TrimSpace(spec)) {
		return originRemote
	}
	if forge && githubShorthand(s) && !vendorRepo(s, in.vendors) {
		return originRemote
	}
	if localPath(s) || strings.HasPrefix(s, "~") || option && strings.Contains(s, "/") ||
		hasAnySuffix(strings.ToLower(s), packageExtensions) {
		p := a.tildePath(s)
		if abs, ok, _ := a.resolve(p, a.cwd()); ok {
			if _, fetched := a.fetchedAt(abs); fetched {
				return originOutside
			}
		}
		if a.foreignCode(p, a.cwd()) {
			return originOutside
		}
	}
	return ""
}

// reportOrigin reports what packageOrigin found.
func (a *analyzer) reportOrigin(carrier string, w arg, why string, in packageInstall) string {
	switch {
	case in.adds:
		a.report(findRegistry, carrier+" "+shorten(w.lit)+": a source of packages that is not the default one")
	case why == originRemote:
		a.report(findDirectURL, carrier+" "+shorten(w.lit))
	case why == originUnknown:
		a.report(findOpaque, carrier+" installs from a source named at run time: "+shorten(w.lit))
	default:
		a.report(findOpaque, carrier+" installs "+shorten(w.lit)+", from outside the project: its build and install code runs, unread")
	}
	return why
}

// vendorRepo reports whether USER/REPO belongs to one of the owners listed.
func vendorRepo(s string, owners []string) bool {
	owner, _, _ := strings.Cut(s, "/")
	for _, o := range owners {
		if strings.EqualFold(owner, o) {
			return true
		}
	}
	return false
}

// hasAnySuffix reports whether s ends with one of the suffixes.
func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// goReplace: go mod edit -replace=OLD[@v]=NEW[@v] (and go work edit) builds OLD from NEW:
// another module (a fork) is code from another source than the one the project names, a
// directory outside the project is code moat has not read. NEW the same module at
// another version, or a directory of the project, changes nothing of the kind.
func goReplace(a *analyzer, v *view) string {
	carrier := v.name + " " + v.ops[0] + " edit -replace "
	for i, w := range v.args {
		name, val, has := strings.Cut(strings.TrimLeft(w.lit, "-"), "=")
		if w.dynamic || !strings.HasPrefix(w.lit, "-") || name != "replace" {
			continue
		}
		if !has && i+1 < len(v.args) {
			if v.args[i+1].dynamic {
				a.report(findOpaque, carrier+shorten(v.args[i+1].lit)+": a replacement known only at run time")
				return "dynamic"
			}
			val = v.args[i+1].lit
		}
		old, repl, ok := strings.Cut(val, "=")
		if !ok {
			continue
		}
		oldPath, _, _ := strings.Cut(old, "@")
		newPath, _, _ := strings.Cut(repl, "@")
		switch {
		case localPath(newPath) || strings.HasPrefix(newPath, "~"):
			if a.foreignCode(a.tildePath(newPath), a.cwd()) {
				a.report(findOpaque, carrier+shorten(val)+": "+oldPath+" is built from a directory outside the project, code moat has not read")
				return "outside"
			}
		case newPath != oldPath:
			a.report(findDirectURL, carrier+shorten(val)+": another module's code in place of "+oldPath)
			return "fork"
		}
	}
	return ""
}
