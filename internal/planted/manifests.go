package planted

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The dependency declarations of Ruby, PHP, conda, Dart and pnpm workspaces are what the
// next bundle install, composer install, conda env create, pub get or pnpm install
// fetches and builds: each is judged as the command that installs it by hand would be
// (internal/shell/installs.go), so that a dependency written into the file from a URL,
// a repository, another registry or a directory outside the project is asked as that
// command is, and one from the default registry is not.

// gemfileCode: a Gemfile is Ruby that bundler runs, and its gem, source, git, path and
// github declarations are where the next bundle install takes gems from.
func gemfileCode(text string, x *extraction) {
	rubyFile(text, x)
	gemfileSources(text, x)
}

var (
	// gemfileLine matches a Gemfile declaration: its verb, its first argument (a string
	// or a symbol) and the rest of the line.
	gemfileLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(gem|source|git|path|github|git_source)\b\s*\(?\s*(:\w+|'[^']*'|"[^"]*")?(.*)$`)
	})
	// gemOption matches an option of a gem line, key: 'value' or :key => 'value'.
	gemOption = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?::(\w+)\s*=>|\b(\w+):)\s*('[^']*'|"[^"]*")`)
	})
)

// gemSourceOption maps a gem's option naming where it comes from to bundle add's.
// Bundler's built-in git sources name a repository on a forge.
func gemSourceOption(key string) (string, bool) {
	switch key {
	case "git", "github", "path", "source":
		return "--" + key, true
	case "gist", "bitbucket":
		return "--github", true
	}
	return "", false
}

// gemfileSources adds the bundle add of each gem a Gemfile takes from elsewhere than
// rubygems.org, and the gem install --source of each source it names.
func gemfileSources(text string, x *extraction) {
	custom := map[string]bool{} // git_source(:name) { |repo| "https://…" }
	n := 0
	for line := range strings.Lines(text) {
		n++
		m := gemfileLine().FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		where := fmt.Sprintf("line %d", n)
		verb, first, rest := m[1], rubyUnquote(m[2]), m[3]
		switch verb {
		case "git_source":
			custom[strings.TrimPrefix(m[2], ":")] = true
		case "source":
			if first != "" {
				x.shell(where+" (gems are installed from it)", "gem install --source "+shellQuote(first))
			}
		case "git", "path", "github":
			// A block of gems from one repository or directory.
			if first != "" {
				opt, _ := gemSourceOption(verb)
				x.shell(where+" (gems are installed from it)", "bundle add "+opt+" "+shellQuote(first))
			}
		case "gem":
			if first == "" {
				continue
			}
			for _, o := range gemOption().FindAllStringSubmatch(rest, -1) {
				key := o[1] + o[2]
				opt, known := gemSourceOption(key)
				if !known && custom[key] {
					opt, known = "--github", true // a repository on a source the file defines
				}
				if known {
					x.shell(where+" (bundle installs it)", "bundle add "+shellQuote(first)+" "+opt+" "+shellQuote(rubyUnquote(o[3])))
				}
			}
		}
	}
}

// gemspecCode: a gemspec is Ruby that bundler and gem build run, and the gems it depends
// on are installed with it: each is judged as the bundle add of its name.
func gemspecCode(text string, x *extraction) {
	rubyFile(text, x)
	var names []string
	for _, m := range gemspecDependency().FindAllStringSubmatch(text, -1) {
		names = append(names, shellQuote(m[1]+m[2]))
	}
	if len(names) > 0 {
		x.shell("dependencies (bundle installs them)", "bundle add "+strings.Join(names, " "))
	}
}

// gemspecDependency matches a gemspec's add_dependency, add_runtime_dependency and
// add_development_dependency calls, and the gem they name.
var gemspecDependency = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\.add_(?:runtime_|development_)?dependency\s*\(?\s*(?:'([^']*)'|"([^"]*)")`)
})

// rubyUnquote returns the text of a Ruby string literal, "" for anything else.
func rubyUnquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return ""
}

// composerRepositories adds what a composer.json's repositories make the next install
// fetch: a VCS repository or a package's archive from its URL, another Composer
// repository, a directory. packagist.org switched off (false) fetches nothing.
func composerRepositories(doc map[string]any, x *extraction) {
	var repos []any
	switch r := doc["repositories"].(type) {
	case []any:
		repos = r
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(r)) {
			repos = append(repos, r[k])
		}
	}
	for i, r := range repos {
		repo, ok := r.(map[string]any)
		if !ok {
			continue
		}
		where := fmt.Sprintf("repositories[%d]", i)
		kind, _ := repo["type"].(string)
		urls := []string{}
		if u, ok := repo["url"].(string); ok {
			urls = append(urls, u)
		}
		if pkg, ok := repo["package"].(map[string]any); ok {
			// An inline package: its dist and source are where it is fetched from.
			for _, k := range []string{"dist", "source"} {
				if m, ok := pkg[k].(map[string]any); ok {
					if u, ok := m["url"].(string); ok {
						urls = append(urls, u)
					}
				}
			}
		}
		for _, u := range urls {
			if kind == "composer" {
				x.shell(where+" (packages are installed from it)", "composer config repositories."+fmt.Sprint(i)+" composer "+shellQuote(u))
				continue
			}
			x.shell(where+" (composer installs from it)", "composer require --repository "+shellQuote(u))
		}
	}
}

// condaEnvironmentCode finds what conda env create or update installs from an
// environment file: its channels, and the pip packages under dependencies.
func condaEnvironmentCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	m, _ := doc.(map[string]any)
	channels, _ := m["channels"].([]any)
	for i, c := range channels {
		if s, ok := c.(string); ok {
			x.shell(fmt.Sprintf("channels[%d]", i), "conda install -c "+shellQuote(s))
		}
	}
	deps, _ := m["dependencies"].([]any)
	for i, d := range deps {
		sub, ok := d.(map[string]any)
		if !ok {
			continue
		}
		pips, _ := sub["pip"].([]any)
		var b strings.Builder
		for _, p := range pips {
			if s, ok := p.(string); ok && strings.TrimSpace(s) != "" {
				b.WriteString(" " + pipArgument(s))
			}
		}
		if b.Len() > 0 {
			x.shell(fmt.Sprintf("dependencies[%d].pip (pip installs them)", i), "pip install"+b.String())
		}
	}
}

// pipArgument is a line of a pip list as pip install's argument: an option (-r file,
// --index-url URL, -e DIR) stays words, a requirement is one word.
func pipArgument(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		var words []string
		for w := range strings.FieldsSeq(s) {
			words = append(words, shellQuote(w))
		}
		return strings.Join(words, " ")
	}
	return shellQuote(s)
}

// pubspecDependencyFields are the fields of a pubspec.yaml whose packages pub get fetches.
var pubspecDependencyFields = []string{"dependencies", "dev_dependencies", "dependency_overrides"}

// pubspecCode finds where pub get takes each package of a pubspec.yaml from: a git
// repository, a directory or another package server (hosted); a version is pub.dev's.
func pubspecCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	m, _ := doc.(map[string]any)
	for _, field := range pubspecDependencyFields {
		deps, _ := m[field].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			spec, ok := deps[name].(map[string]any)
			if !ok {
				continue
			}
			where := field + "." + name + " (pub installs it)"
			for _, k := range []string{"git", "path", "hosted"} {
				src := spec[k]
				if m, ok := src.(map[string]any); ok {
					src = m["url"]
				}
				s, ok := src.(string)
				if !ok {
					continue
				}
				opt := map[string]string{"git": "--git-url", "path": "--path", "hosted": "--hosted-url"}[k]
				x.shell(where, "dart pub add "+shellQuote(name)+" "+opt+" "+shellQuote(s))
			}
		}
	}
}

// pnpmWorkspaceCode finds what pnpm install takes from a pnpm-workspace.yaml: the
// catalogs' versions, which packages' catalog: specs stand for, its overrides, and its
// settings (a registry, install scripts allowed).
func pnpmWorkspaceCode(text string, x *extraction) {
	doc, ok := decodeYAML(text, x)
	if !ok {
		return
	}
	m, _ := doc.(map[string]any)
	for _, field := range []string{"catalog", "overrides"} {
		deps, _ := m[field].(map[string]any)
		npmInstall(x, field, deps)
	}
	// Its settings are pnpm's, as pnpm config set writes them in .npmrc.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch v := m[k].(type) {
		case string, bool, int, float64:
			x.shell(k, "pnpm config set "+shellQuote(k)+" "+shellQuote(fmt.Sprint(v)))
		}
	}
	catalogs, _ := m["catalogs"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(catalogs)) {
		deps, _ := catalogs[name].(map[string]any)
		npmInstall(x, "catalogs."+name, deps)
	}
}

// goModCode finds a go.mod's or go.work's replace directives, which build a module from
// another module or a directory, judged as the go mod edit -replace that writes each.
func goModCode(text string, x *extraction) {
	block := false
	n := 0
	for line := range strings.Lines(text) {
		n++
		l, _, _ := strings.Cut(line, "//")
		l = strings.TrimSpace(l)
		switch {
		case l == "replace (":
			block = true
			continue
		case block && l == ")":
			block = false
			continue
		case block:
		case strings.HasPrefix(l, "replace ") || strings.HasPrefix(l, "replace\t"):
			l = strings.TrimSpace(l[len("replace"):])
		default:
			continue
		}
		old, repl, ok := strings.Cut(l, "=>")
		oldF, replF := strings.Fields(old), strings.Fields(repl)
		if !ok || len(oldF) == 0 || len(replF) == 0 {
			continue
		}
		target := strings.Trim(replF[0], `"`)
		if len(replF) > 1 {
			target += "@" + replF[1]
		}
		x.shell(fmt.Sprintf("line %d (go builds the module from it)", n), "go mod edit -replace="+shellQuote(strings.Trim(oldF[0], `"`)+"="+target))
	}
}

// lockedOrigins adds, for each distinct origin (scheme://host/) of the package URLs a
// lockfile resolves to, the npm config set registry that would make npm fetch from it:
// the registries' own are no change, another host is (a lockfile edited to fetch lodash
// from a mirror). urls are in the order found.
func lockedOrigins(x *extraction, where string, urls []string) {
	seen := map[string]bool{}
	for _, u := range urls {
		scheme, rest, ok := strings.Cut(u, "://")
		if !ok || scheme != "https" && scheme != "http" {
			continue
		}
		host, _, _ := strings.Cut(rest, "/")
		origin := scheme + "://" + host + "/"
		if !seen[origin] {
			seen[origin] = true
			x.shell(where+" (packages are fetched from it)", "npm config set registry "+shellQuote(origin))
		}
	}
}

// packageLockCode finds where npm install takes each package of a package-lock.json
// from: a tarball's host (lockedOrigins), a git repository or a directory (as npm
// install NAME@SOURCE), and a tarball locked without its integrity hash, which npm
// then installs whatever the server sends.
func packageLockCode(text string, x *extraction) {
	doc, ok := decodeJSON(text)
	if !ok {
		textLockCode(text, x) // an edit's fragment: the URLs it holds
		return
	}
	var urls []string
	var b strings.Builder
	var walk func(at string, deps map[string]any)
	walk = func(at string, deps map[string]any) {
		for _, key := range slices.Sorted(maps.Keys(deps)) {
			entry, ok := deps[key].(map[string]any)
			if !ok {
				continue
			}
			name := key
			if i := strings.LastIndex(key, "node_modules/"); i >= 0 {
				name = key[i+len("node_modules/"):]
			}
			resolved, _ := entry["resolved"].(string)
			link, _ := entry["link"].(bool)
			switch {
			case resolved == "" || link:
				// A workspace's link: its package is judged as the project's own.
			case strings.HasPrefix(resolved, "https://") || strings.HasPrefix(resolved, "http://"):
				urls = append(urls, resolved)
				if _, has := entry["integrity"]; !has && strings.HasSuffix(strings.ToLower(resolved), ".tgz") {
					x.opaque(at+"."+key, "a package locked without its integrity hash: npm installs whatever "+resolved+" sends")
				}
			case strings.Contains(resolved, ":"):
				b.WriteString(" " + shellQuote(name+"@"+resolved)) // git+…, file:…
			default:
				b.WriteString(" " + shellQuote(name+"@file:"+resolved)) // a directory
			}
			if nested, ok := entry["dependencies"].(map[string]any); ok && at == "dependencies" {
				walk(at, nested) // lockfile v1 nests its tree
			}
		}
	}
	if !hasAny(doc, "packages", "dependencies", "lockfileVersion") {
		textLockCode(text, x) // an edit's fragment of one entry: the URLs it holds
		return
	}
	for _, field := range []string{"packages", "dependencies"} {
		if deps, ok := doc[field].(map[string]any); ok {
			walk(field, deps)
		}
	}
	lockedOrigins(x, "resolved", urls)
	if b.Len() > 0 {
		x.shell("resolved (npm installs them)", "npm install"+b.String())
	}
}

// lockURL matches a package URL in a lockfile's text: yarn's resolved "URL", pnpm's
// tarball: URL, package-lock.json's "resolved": "URL".
var lockURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(?:"?resolved"?:?\s+"?|.*\btarball:\s*)(https?://[^"\s#,}]+)`)
})

// textLockCode finds the hosts a yarn.lock or pnpm-lock.yaml (or a fragment of any
// lockfile) fetches packages from.
func textLockCode(text string, x *extraction) {
	var urls []string
	for _, m := range lockURL().FindAllStringSubmatch(text, -1) {
		urls = append(urls, m[1])
	}
	lockedOrigins(x, x.kind, urls)
}
