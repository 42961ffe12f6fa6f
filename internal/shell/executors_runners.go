package shell

import (
	"strings"
	"sync"

	"github.com/moatdev/moat/internal/agent"
	"github.com/moatdev/moat/internal/shell/oneliner"
)

// Package runners fetch a package and run its program in one step: npx, npm exec, pnpm
// dlx, yarn dlx, bunx, uvx, pipx run, uv run --with, deno run of a remote module. The
// package's code is not in the line: a package from a URL, a git repository or a local
// tarball, or an unknown package of the registry, is code moat cannot read (opaque). The
// well-known development tools (formatters, linters, compilers, test runners) are the
// exception, as data; a package that is a program moat knows (rimraf) is judged as that
// program.

// ecosystem is a package registry, for the well-known tools of each.
type ecosystem uint8

const (
	ecoNPM ecosystem = iota + 1
	ecoPyPI
)

// knownTools are the packages of each registry whose programs are ordinary development
// tools, run through a package runner every day, and the libraries runs add every day.
var knownTools = sync.OnceValue(func() map[ecosystem]map[string]bool {
	set := func(names ...string) map[string]bool {
		m := make(map[string]bool, len(names))
		for _, n := range names {
			m[n] = true
		}
		return m
	}
	return map[ecosystem]map[string]bool{
		ecoNPM: set("prettier", "typescript", "tsc", "eslint", "jest", "vitest", "mocha", "webpack",
			"webpack-cli", "vite", "next", "nx", "turbo", "playwright", "@playwright/test", "cypress", "storybook",
			"create-react-app", "create-next-app", "create-vite", "nodemon", "serve", "http-server", "concurrently",
			"npm-check-updates", "ncu", "lerna", "prisma", "drizzle-kit", "husky", "lint-staged", "tailwindcss",
			"@tailwindcss/cli", "postcss", "postcss-cli", "esbuild", "rollup", "@babel/cli", "astro", "wrangler", "vercel",
			"netlify-cli", "firebase-tools", "@angular/cli", "ng", "@vue/cli", "vue-tsc", "@biomejs/biome", "biome",
			"oxlint", "knip", "depcheck", "madge", "semantic-release", "@changesets/cli", "changeset", "patch-package",
			"node-gyp", "typedoc", "jsdoc", "c8", "nyc", "ava", "stylelint", "markdownlint-cli", "markdownlint-cli2",
			"license-checker", "@redocly/cli", "openapi-typescript", "sv", "svelte-check", "pnpm", "yarn", "npm",
			// Project generators and component adders, and more of the everyday tools.
			"shadcn", "shadcn-ui", "degit", "create-t3-app", "create-expo-app", "create-astro", "create-svelte",
			"create-remix", "create-turbo", "create-nx-workspace", "@nestjs/cli", "sass", "sequelize-cli", "release-it",
			"msw", "npm-run-all", "npm-run-all2", "wait-on", "kill-port", "pod-install", "sort-package-json",
			"@stoplight/spectral-cli", "eas-cli", "@lhci/cli"),
		ecoPyPI: set("ruff", "black", "mypy", "pytest", "flake8", "isort", "pylint", "pre-commit", "tox", "nox", "poetry",
			"hatch", "pdm", "cookiecutter", "pip-audit", "bandit", "twine", "build", "pyright", "basedpyright", "sqlfluff",
			"yamllint", "codespell", "mkdocs", "sphinx", "pip-tools", "pipdeptree", "coverage", "autopep8", "pyupgrade",
			"vulture", "radon", "interrogate", "commitizen", "ansible-lint", "cfn-lint", "maturin", "uv", "pip", "httpie",
			// Libraries added to a run's environment (uv run --with) every day.
			"rich", "requests", "httpx", "click", "typer", "pydantic", "pyyaml", "numpy", "pandas", "matplotlib",
			"ipython", "ipykernel", "jupyterlab", "polars", "scipy", "python-dotenv"),
	}
})

// runnerArgs reads the command line of a package runner, or of a package manager's
// subcommand that runs a package (npm exec, pnpm dlx, uv run, deno run). It reports false
// for the other subcommands, which are analysed as usual.
func (a *analyzer) runnerArgs(x *execCall) bool {
	switch x.prog {
	case "npx", "pnpx", "bunx":
		a.npmRun(x, x.rest)
		return true
	case "uvx":
		a.pyRun(x, x.rest)
		return true
	}
	sub, after, ok := subcommandWords(x)
	if !ok {
		return false
	}
	switch {
	case x.prog == "npm" && (sub == "exec" || sub == "x"),
		(x.prog == "pnpm" || x.prog == "yarn") && sub == "dlx",
		x.prog == "bun" && sub == "x":
		a.npmRun(x, after)
	case (x.prog == "pnpm" || x.prog == "yarn") && sub == "exec":
		// A program of the project's dependencies, or of PATH: judged as that program.
		if i := optionEnd(after, "", nil); i < len(after) {
			a.command(after[i:], nil, nil)
		}
	case x.prog == "uv" && sub == "tool" && len(after) > 0 && after[0].lit == "run",
		x.prog == "pipx" && sub == "run":
		if x.prog == "uv" {
			after = after[1:]
		}
		a.pyRun(x, after)
	case x.prog == "uv" && sub == "run":
		a.uvRun(x, after)
		return false // the catalog's runner entry analyses the command
	case x.prog == "deno" && (sub == "run" || sub == "eval"):
		a.denoRun(x, sub, after)
	default:
		if (x.prog == "pnpm" || x.prog == "yarn" || x.prog == "bun") && !packageManagerCommands()[x.prog][sub] && effectRules()[canonicalProgram(sub)] != nil {
			// pnpm prisma db push --force-reset: a word that is not the manager's own
			// command runs the project's script of that name or, without one, the
			// dependency's program of that name; moat judges it as the program too.
			a.command(x.rest[len(x.rest)-len(after)-1:], nil, nil)
		}
		return false
	}
	return true
}

// packageManagerCommands are the commands of pnpm, yarn (1 and later) and bun, which are
// not the name of a script or of a dependency's program.
var packageManagerCommands = sync.OnceValue(func() map[string]map[string]bool {
	set := func(words string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(words) {
			m[w] = true
		}
		return m
	}
	return map[string]map[string]bool{
		"pnpm": set("add i install update up upgrade remove rm un uninstall link ln unlink import rebuild rb prune fetch install-test it dedupe patch patch-commit patch-remove audit list ls ll la outdated why licenses run run-script test t exec dlx create start publish pack recursive multi m server store root bin setup init deploy doctor config c get set env self-update cat-file cat-index find-hash approve-builds ignored-builds help"),
		"yarn": set("add audit autoclean bin cache check config constraints create dedupe dlx exec explain generate-lock-entry global help import info init install link list login logout node npm outdated owner pack patch patch-commit plugin policies publish rebuild remove run search set stage tag team test unlink unplug up upgrade upgrade-interactive version versions why workspace workspaces"),
		"bun":  set("run test x repl exec install i add a remove rm update outdated link unlink pm build init create c upgrade publish audit info patch why help"),
	}
})

// subcommandWords returns a program's subcommand and the words after it.
func subcommandWords(x *execCall) (string, []arg, bool) {
	vo := valueOptions()[x.prog]
	i := optionEnd(x.rest, vo.short, vo.long)
	if i >= len(x.rest) || x.rest[i].dynamic {
		return "", nil, false
	}
	return x.rest[i].lit, x.rest[i+1:], true
}

// npmRun: npx [-p PKG]… [-c CMD] PKG[@VERSION] [ARGS…]: the options come before the
// package, whose program is run with the rest. With -c, CMD is a shell command line run
// with the packages' programs on PATH.
func (a *analyzer) npmRun(x *execCall, words []arg) {
	var pkgs []arg
	var code *arg
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if w.dynamic || !strings.HasPrefix(w.lit, "-") {
			break
		}
		if w.lit == "--" {
			i++
			break
		}
		name, val, has := strings.Cut(strings.TrimLeft(w.lit, "-"), "=")
		if strings.HasPrefix(w.lit, "--") {
			name = uniquePrefix(name, npmRunOptions) // npm reads --pack as --package
		}
		value := arg{lit: val}
		takes := name == "p" || name == "package" || name == "c" || name == "call" || name == "registry" || name == "cache" || name == "userconfig"
		if takes && !has {
			if i+1 >= len(words) {
				break
			}
			i++
			value = words[i]
		}
		switch name {
		case "p", "package":
			pkgs = append(pkgs, value)
		case "c", "call":
			v := value
			code = &v
		}
	}
	cmd := words[i:]
	if code == nil && len(pkgs) == 0 && len(cmd) > 0 {
		pkgs = append(pkgs, cmd[0])
	}
	for _, p := range pkgs {
		a.judgePackage(x.at, ecoNPM, p, x.prog)
	}
	if code != nil {
		a.nestedWord(x.at, *code, x.cwd)
		return
	}
	a.runPackageProgram(cmd, ecoNPM)
}

// npmRunOptions are the long options of npx and npm exec before the package.
var npmRunOptions = []string{"package", "call", "registry", "cache", "userconfig", "yes", "no", "quiet", "prefer-offline",
	"prefer-online", "offline", "workspace", "workspaces", "include-workspace-root", "ignore-existing"}

// pyRun: uvx [--from SPEC] [--with PKG]… PKG[==VERSION] [ARGS…] and pipx run [--spec SPEC]
// PKG [ARGS…].
func (a *analyzer) pyRun(x *execCall, words []arg) {
	vo := executorOptions()["uvx"]
	var pkgs []arg
	from := false
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if w.dynamic || !strings.HasPrefix(w.lit, "-") {
			break
		}
		if w.lit == "--" {
			i++
			break
		}
		name, value, last, takes, more := optionWithValue(words, i, vo, "spec", "pip-args", "suffix")
		if !takes {
			continue
		}
		if !more {
			break
		}
		i = last
		switch name {
		case "from", "spec":
			from = true
			pkgs = append(pkgs, value)
		case "with", "with-editable":
			pkgs = append(pkgs, value)
		case "with-requirements":
			a.opaque(x.at, x.prog+" installs the packages listed in "+shorten(value.lit)+", whose code moat cannot read")
		}
	}
	cmd := words[i:]
	if !from && len(cmd) > 0 {
		pkgs = append(pkgs, cmd[0])
	}
	for _, p := range pkgs {
		a.judgePackage(x.at, ecoPyPI, p, x.prog)
	}
	a.runPackageProgram(cmd, ecoPyPI)
}

// uvRun: uv run [--with PKG]… COMMAND|SCRIPT|URL runs a command or a script in the
// project's environment, with the packages --with adds: those packages, and a script
// fetched from a URL, are judged here; the command itself is the catalog's runner entry's
// (catalog.txt), as for poetry run.
func (a *analyzer) uvRun(x *execCall, words []arg) {
	vo := executorOptions()["uv"]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.dynamic || w.lit == "--" {
			return
		}
		if !strings.HasPrefix(w.lit, "-") {
			if remoteSpec(w.lit) {
				a.opaque(x.at, "uv run runs code fetched from "+shorten(w.lit))
			}
			return
		}
		name, value, last, takes, more := optionWithValue(words, i, vo)
		if !takes {
			continue
		}
		if !more {
			return
		}
		i = last
		switch name {
		case "with", "with-editable":
			a.judgePackage(x.at, ecoPyPI, value, "uv run --with")
		case "with-requirements":
			a.opaque(x.at, "uv run installs the packages listed in "+shorten(value.lit)+", whose code moat cannot read")
		}
	}
}

// denoRun: deno run [OPTIONS] MODULE [ARGS…] runs a module, a file or a URL (npm: and jsr:
// name packages); deno eval CODE runs JavaScript.
func (a *analyzer) denoRun(x *execCall, sub string, words []arg) {
	vo := valueOptions()["deno"]
	i := optionEnd(words, vo.short, vo.long)
	if i >= len(words) {
		return
	}
	spec := words[i]
	if sub == "eval" {
		if spec.dynamic {
			a.codeFromWord(x.at, spec, execInterp, oneliner.Node)
			return
		}
		a.inspect(x.at, oneliner.Node, spec.lit, x.cwd)
		if api := denoAPICall(spec.lit); api != "" {
			a.opaque(x.at, "deno eval calls "+api+", which moat does not follow")
		}
		return
	}
	if spec.dynamic {
		a.opaque(x.at, "deno run runs a module named at run time: "+shorten(spec.lit))
		return
	}
	switch {
	case strings.HasPrefix(spec.lit, "npm:"):
		a.judgePackage(x.at, ecoNPM, arg{lit: strings.TrimPrefix(spec.lit, "npm:")}, "deno run")
	case strings.HasPrefix(spec.lit, "jsr:"):
		a.opaque(x.at, "deno run runs the package "+spec.lit+", whose code moat cannot read")
	case remoteSpec(spec.lit):
		a.opaque(x.at, "deno run runs code fetched from "+shorten(spec.lit))
	default:
		in, _ := oneliner.Lookup("deno")
		a.scriptOperand(x.at, spec, x.cwd, &in)
	}
}

// runPackageProgram judges the program a runner runs as that program when moat knows it
// (npx rimraf dist is rimraf dist); an unknown one was judged with its package.
func (a *analyzer) runPackageProgram(cmd []arg, eco ecosystem) {
	if len(cmd) == 0 || cmd[0].dynamic {
		return
	}
	name, _ := runnerPackage(eco, cmd[0].lit)
	bin := name[strings.LastIndexByte(name, '/')+1:]
	if !describedByTables(canonicalProgram(bin)) {
		return
	}
	argv := append([]arg{{lit: bin}}, cmd[1:]...)
	a.command(argv, nil, nil)
}

// judgePackage makes the command opaque unless the package is a well-known tool of its
// registry or a program moat knows.
func (a *analyzer) judgePackage(at int, eco ecosystem, p arg, carrier string) {
	if p.dynamic {
		a.opaque(at, carrier+" runs a package named at run time: "+shorten(p.lit))
		return
	}
	name, registry := runnerPackage(eco, p.lit)
	switch {
	case !registry && remoteSpec(p.lit):
		a.opaque(at, carrier+" runs code fetched from "+shorten(p.lit))
	case !registry:
		a.opaque(at, carrier+" runs the package "+shorten(p.lit)+", whose code moat cannot read")
	case knownTools()[eco][name] || knownProgram(canonicalProgram(name)) || knownAgent(name):
	default:
		a.opaque(at, carrier+" runs the package "+name+" from the registry, whose code moat cannot read")
	}
}

// remoteSpec reports whether a package or module is fetched from a URL or a repository.
func remoteSpec(s string) bool {
	l := strings.ToLower(s)
	for _, p := range []string{"http://", "https://", "git+", "git:", "git@", "github:", "gitlab:", "bitbucket:", "sourcehut:", "gist:", "tarball+", "hg+", "ssh://", "file://", "ftp://"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return strings.Contains(l, "://") || strings.HasSuffix(l, ".git")
}

// runnerPackage returns the name of a registry package without its version (prettier@3,
// @scope/name@1, ruff==0.5, black[jupyter]), and false when the spec does not name a
// registry package: a URL, a repository, a path or an archive.
func runnerPackage(eco ecosystem, spec string) (string, bool) {
	if spec == "" || remoteSpec(spec) {
		return spec, false
	}
	l := strings.ToLower(spec)
	if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "/") || strings.HasPrefix(l, "~") || strings.HasPrefix(l, "file:") {
		return spec, false
	}
	for _, ext := range []string{".tgz", ".tar.gz", ".tar", ".zip", ".whl", ".tar.bz2"} {
		if strings.HasSuffix(l, ext) {
			return spec, false
		}
	}
	if eco == ecoNPM {
		scoped := strings.HasPrefix(l, "@")
		body := l
		if scoped {
			body = l[1:]
		}
		if k := strings.IndexByte(body, '@'); k >= 0 {
			body = body[:k]
		}
		if !scoped && strings.Contains(body, "/") {
			return spec, false // user/repo is a GitHub repository
		}
		if scoped {
			return "@" + body, true
		}
		return body, true
	}
	end := strings.IndexAny(l, "[=<>!~@; ")
	if end >= 0 {
		l = l[:end]
	}
	return strings.ReplaceAll(l, "_", "-"), l != ""
}

// denoAPIs are the functions of Deno's runtime that run programs, change files, load native
// code or open connections: code calling them does what the JavaScript inspection of
// oneliner does not follow.
var denoAPIs = []string{"run", "Command", "remove", "removeSync", "writeFile", "writeFileSync", "writeTextFile",
	"writeTextFileSync", "rename", "renameSync", "symlink", "symlinkSync", "chmod", "chmodSync", "chown", "chownSync",
	"truncate", "truncateSync", "copyFile", "copyFileSync", "open", "openSync", "create", "createSync", "dlopen",
	"connect", "connectTls", "listen", "kill", "env"}

// denoAPICall returns the first call of one of denoAPIs in code, or "".
func denoAPICall(code string) string {
	for rest := code; ; {
		i := strings.Index(rest, "Deno.")
		if i < 0 {
			return ""
		}
		rest = rest[i+len("Deno."):]
		n := 0
		for n < len(rest) && isIdentByte(rest[n]) {
			n++
		}
		if contains(denoAPIs, rest[:n]) {
			return "Deno." + rest[:n]
		}
	}
}

// knownAgent reports whether a package is a coding agent of moat's registry, whose
// launches agents.go judges.
func knownAgent(name string) bool {
	if _, ok := agent.ForPackage(name); ok {
		return true
	}
	_, ok := agent.ForProgram(name)
	return ok
}

// wrappedPackage judges the package a runner wrapper (npx, bunx) fetches to run prog: the
// --package values given to the last runner among the wrappers, or else prog itself.
func (a *analyzer) wrappedPackage(at int, wrappers []arg, prog arg) {
	start := -1
	for i, w := range wrappers {
		if !w.dynamic && wrappersTable(baseName(w.lit)).runner {
			start = i
		}
	}
	if start < 0 {
		return
	}
	runner := baseName(wrappers[start].lit)
	var pkgs []arg
	words := wrappers[start+1:]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.dynamic {
			continue
		}
		switch {
		case w.lit == "-p" || w.lit == "--package":
			if i+1 < len(words) {
				i++
				pkgs = append(pkgs, words[i])
			}
		case strings.HasPrefix(w.lit, "--package="):
			pkgs = append(pkgs, arg{lit: strings.TrimPrefix(w.lit, "--package=")})
		case strings.HasPrefix(w.lit, "-p") && len(w.lit) > 2:
			pkgs = append(pkgs, arg{lit: w.lit[2:]})
		}
	}
	if len(pkgs) == 0 {
		pkgs = append(pkgs, prog)
	}
	for _, p := range pkgs {
		a.judgePackage(at, ecoNPM, p, runner)
	}
}
