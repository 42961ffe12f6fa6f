package shell

import (
	"fmt"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/scan/lookalike"
)

// lookalikeEffects reports the package names a command installs, and the owners and
// hosts of the repositories it clones, that imitate popular ones.
func (a *analyzer) lookalikeEffects(cmd *call.Command, v *view) {
	if v.name == "git" || v.name == "gh" {
		a.cloneLookalikes(cmd, v)
		return
	}
	name, ops, raw := v.name, v.ops, v.raw
	for _, in := range packageInstalls()[name] {
		if in.kind == lookalike.None {
			continue
		}
		if len(ops) < len(in.sub) || !subMatches(in.sub, ops) {
			continue
		}
		for i := len(in.sub); i < len(raw); i++ {
			o := raw[i]
			if o.dynamic || o.glob {
				continue
			}
			if alias, target, ok := npmAlias(o.lit); ok && in.kind == lookalike.NPM {
				a.aliasLookalike(cmd, alias, target, v.name+" "+o.lit)
			} else if name, ok := packageName(in.kind, o.lit); ok {
				a.reportLookalike(cmd, in.kind, name, v.name+" "+o.lit)
			}
			if in.runs {
				break
			}
		}
	}
}

// subMatches reports whether ops start with the subcommand sub, as a rule's sub is
// matched: alternatives separated by |, and * for any word.
func subMatches(sub, ops []string) bool {
	for i, alts := range sub {
		if alts != "*" && !oneOf(alts, ops[i]) {
			return false
		}
	}
	return true
}

// packageName returns the registry name an installer's operand asks for, or false for
// what is no registry name: options, paths, URLs and other sources (git+…, github:…,
// file:…), archives and requirement files, scoped npm names (@org/x, whose owner is
// the scope's), and local Go packages.
func packageName(k lookalike.Kind, s string) (string, bool) {
	if s == "" || s[0] == '-' || s[0] == '.' || s[0] == '/' || s[0] == '~' || strings.Contains(s, "://") {
		return "", false
	}
	for _, ext := range []string{".txt", ".in", ".whl", ".tar.gz", ".tgz", ".zip", ".gem", ".crate", ".toml", ".cfg", ".lock", ".json"} {
		if strings.HasSuffix(strings.ToLower(s), ext) {
			return "", false
		}
	}
	switch k {
	case lookalike.Go:
		name, _, _ := strings.Cut(s, "@")
		first, _, _ := strings.Cut(name, "/")
		if !strings.Contains(first, ".") || strings.Contains(name, "...") {
			return "", false // std or a local pattern: no module of someone's
		}
		return name, true
	case lookalike.NPM:
		if s[0] == '@' || strings.ContainsAny(s, "/:") {
			return "", false
		}
		name, _, _ := strings.Cut(s, "@")
		return name, name != ""
	case lookalike.Packagist:
		// VENDOR/NAME[:VERSION]: the vendor is what a look-alike imitates.
		vendor, name, ok := strings.Cut(s, "/")
		if !ok || vendor == "" || name == "" || strings.ContainsAny(vendor, ":@") {
			return "", false
		}
		return vendor, true
	case lookalike.PyPI:
		if strings.ContainsAny(s, "/:") {
			return "", false
		}
		name := s
		if i := strings.IndexAny(name, "[=<>!~;@ ,"); i >= 0 {
			name = name[:i]
		}
		return strings.TrimSpace(name), name != ""
	default:
		if strings.ContainsAny(s, "/:") {
			return "", false
		}
		name, _, _ := strings.Cut(s, "@")
		return name, name != ""
	}
}

// cloneLookalikes: git clone URL, git submodule add URL, git remote add NAME URL and gh
// repo clone OWNER/REPO name a repository by its host and owner.
func (a *analyzer) cloneLookalikes(cmd *call.Command, v *view) {
	var target string
	switch {
	case v.name == "git" && len(v.ops) >= 2 && v.ops[0] == "clone":
		target = v.raw[1].lit
	case v.name == "git" && len(v.ops) >= 3 && v.ops[0] == "submodule" && v.ops[1] == "add":
		target = v.raw[2].lit
	case v.name == "git" && len(v.ops) >= 4 && v.ops[0] == "remote" && v.ops[1] == "add":
		target = v.raw[3].lit
	case v.name == "gh" && len(v.ops) >= 3 && v.ops[0] == "repo" && (v.ops[1] == "clone" || v.ops[1] == "fork"):
		target = "github.com/" + v.raw[2].lit
	default:
		return
	}
	host, owner := repoOwner(target)
	if host != "" {
		a.reportLookalike(cmd, lookalike.Host, host, "host "+host)
	}
	if owner != "" {
		a.reportLookalike(cmd, lookalike.Owner, owner, "owner "+owner+" of "+target)
	}
}

// repoOwner returns the host and the owner (first path segment) of a repository address:
// https://host/owner/repo, ssh://git@host/owner/repo, git@host:owner/repo, host/owner/repo.
func repoOwner(s string) (host, owner string) {
	if _, rest, ok := strings.Cut(s, "://"); ok {
		s = rest
	} else if at, rest, ok := strings.Cut(s, "@"); ok && !strings.Contains(at, "/") {
		s = strings.Replace(rest, ":", "/", 1) // git@host:owner/repo
	}
	if _, rest, ok := strings.Cut(s, "@"); ok && !strings.Contains(s[:strings.Index(s, "@")], "/") {
		s = rest // user@host/…
	}
	host, path, ok := strings.Cut(s, "/")
	if !ok || !strings.Contains(host, ".") {
		return "", ""
	}
	host, _, _ = strings.Cut(host, ":") // a port
	owner, _, _ = strings.Cut(path, "/")
	return host, owner
}

func (a *analyzer) reportLookalike(cmd *call.Command, k lookalike.Kind, name, what string) {
	m, ok := lookalike.Imitates(k, name)
	if !ok {
		return
	}
	how := fmt.Sprintf("%d letter(s) from", m.Distance)
	if m.Confusable {
		how = "look-alike letters of"
	}
	cmd.Findings = appendFinding(cmd.Findings, findLookalike, fmt.Sprintf("%s: %s %s %s", shorten(what), how, k, m.Popular))
}

// npmAlias reads npm's alias spec NAME@npm:TARGET[@VERSION]: the package TARGET is
// installed under the name NAME. Either may be scoped (@scope/name).
func npmAlias(s string) (alias, target string, ok bool) {
	spec := npmSpecOf(s)
	rest, isAlias := strings.CutPrefix(spec, "npm:")
	if !isAlias || rest == "" {
		return "", "", false
	}
	alias = s[:len(s)-len(spec)-1]
	target = rest
	if i := strings.IndexByte(rest[1:], '@'); i >= 0 {
		target = rest[:i+1] // without the version
	}
	return alias, target, alias != ""
}

// aliasLookalike judges an npm alias: the package installed is the target, whose name
// may imitate a popular one (react@npm:raect), and a popular package's name given to
// another package (minimist@npm:minimist-patched) puts that package wherever code
// requires the popular one.
func (a *analyzer) aliasLookalike(cmd *call.Command, alias, target, what string) {
	if name, ok := packageName(lookalike.NPM, target); ok {
		a.reportLookalike(cmd, lookalike.NPM, name, what)
	}
	if lookalike.Popular(lookalike.NPM, alias) && !strings.EqualFold(alias, target) && !lookalike.Popular(lookalike.NPM, target) {
		cmd.Findings = appendFinding(cmd.Findings, findLookalike, shorten(what)+": installs "+target+" under the name of "+alias+", a popular package")
	}
}

// runnerKind tells the wrappers whose program is a package they fetch by that name
// first (npx NAME): the program's name is a package name.
func runnerKind(name string) (lookalike.Kind, bool) {
	switch name {
	case "npx", "bunx", "pnpx":
		return lookalike.NPM, true
	}
	return 0, false
}

// runnerLookalikes reports the program of a package runner (words are the wrappers and the
// program) when its name imitates a popular package.
func (a *analyzer) runnerLookalikes(cmd *call.Command, words []arg) {
	for j := 0; j+1 < len(words); j++ {
		w := words[j]
		if w.dynamic || w.glob {
			continue
		}
		k, ok := runnerKind(baseName(w.lit))
		if !ok {
			continue
		}
		p := words[len(words)-1]
		if p.dynamic || p.glob {
			return
		}
		if name, ok := packageName(k, p.lit); ok {
			a.reportLookalike(cmd, k, name, baseName(w.lit)+" "+p.lit)
		}
		return
	}
}
