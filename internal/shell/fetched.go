package shell

import (
	"path"
	"slices"
	"strings"
)

// A tree the line fetches from the network into this machine (a repository cloned, a
// directory copied from another host) holds code that is neither the project's nor the
// system's, wherever it lands: a script in it, a build or an install run in it, a
// package installed from it runs code moat has not seen. For the rest of the line such
// a tree is not the project's (inProject, foreignCode), so running its code is opaque;
// a later call may run it, once the agent could read what it fetched.

// fetchedTree is a tree the line fetched.
type fetchedTree struct {
	path string // absolute
	by   string // the command that fetched it, for evidence: "git clone"
}

// treeFetcher is a subcommand that fetches a repository into a directory: the operand
// after the source names the directory, or the source's last path element does (git
// clone URL makes ./NAME, less .git).
type treeFetcher struct {
	sub []string
	// values are the options that take their value as the next word.
	values []string
	// remoteOnly says the source is always remote (gh repo clone OWNER/REPO); otherwise
	// a local path is a local copy, not a fetch.
	remoteOnly bool
}

// treeFetchers returns the subcommands of a program that fetch a repository.
func treeFetchers(prog string) []treeFetcher {
	switch prog {
	case "git":
		return []treeFetcher{
			{sub: []string{"clone"}, values: []string{"-b", "--branch", "-o", "--origin", "-c", "--config", "-u", "--upload-pack", "-j", "--jobs", "--depth", "--reference", "--reference-if-able", "--template", "--separate-git-dir", "--filter", "--shallow-since", "--shallow-exclude", "--server-option", "--bundle-uri"}},
			{sub: []string{"submodule", "add"}, values: []string{"-b", "--branch", "--name", "--reference", "--depth"}},
		}
	case "gh", "glab":
		return []treeFetcher{{sub: []string{"repo", "clone"}, remoteOnly: true}}
	case "svn":
		return []treeFetcher{{sub: []string{"checkout"}}, {sub: []string{"co"}}, {sub: []string{"export"}}}
	case "hg":
		return []treeFetcher{{sub: []string{"clone"}, values: []string{"-r", "--rev", "-b", "--branch", "-u", "--updaterev"}}}
	}
	return nil
}

// fetchEffects records the tree a command fetches with a repository tool, and the
// worktree git worktree add makes of the project's own repository.
func (a *analyzer) fetchEffects(v *view, cwd dir) {
	if v.name == "git" {
		if words, ok := afterSub(v, []string{"worktree", "add"}); ok {
			a.worktreeAdded(words, cwd)
			return
		}
	}
	for _, f := range treeFetchers(v.name) {
		words, ok := afterSub(v, f.sub)
		if !ok {
			continue
		}
		var operands []arg
		for i := 0; i < len(words); i++ {
			w := words[i]
			switch {
			case w.dynamic:
				operands = append(operands, w)
			case w.lit == "--":
				if !f.remoteOnly {
					operands = append(operands, words[i+1:]...) // git clone -- URL DIR
				}
				i = len(words) // gh repo clone REPO DIR -- GITFLAGS
			case strings.HasPrefix(w.lit, "-") && len(w.lit) > 1:
				if !strings.Contains(w.lit, "=") && slices.Contains(f.values, w.lit) {
					i++
				}
			default:
				operands = append(operands, w)
			}
		}
		if len(operands) == 0 || operands[0].dynamic && len(operands) < 2 {
			return // nothing named, or a source known only at run time and no directory
		}
		src := operands[0].lit
		if !operands[0].dynamic && !f.remoteOnly && !remoteSource(src) {
			return
		}
		dst := repositoryName(src)
		if len(operands) > 1 {
			if operands[1].dynamic {
				return
			}
			dst = operands[1].lit
		}
		if c := v.values("C"); v.name == "git" && len(c) > 0 && !c[len(c)-1].dynamic {
			cwd = dir{path.Join(cwd.path, c[len(c)-1].lit), cwd.known}
			if path.IsAbs(c[len(c)-1].lit) {
				cwd = dir{path.Clean(c[len(c)-1].lit), true}
			}
		}
		if p, ok, _ := a.resolve(dst, cwd); ok && dst != "" {
			a.sh.fetched = append(a.sh.fetched, fetchedTree{path: p, by: v.name + " " + strings.Join(f.sub, " ")})
		}
		return
	}
}

// afterSub returns the words after the subcommand sub, past the global options before
// it (git -C DIR clone, gh -R x repo clone). The subcommand must be the command's first
// operands: git commit -m clone names none.
func afterSub(v *view, sub []string) ([]arg, bool) {
	if len(v.raw) < len(sub) {
		return nil, false
	}
	for j, s := range sub {
		if v.raw[j].dynamic || v.raw[j].lit != s {
			return nil, false
		}
	}
	args := v.args
	i := slices.IndexFunc(args, func(x arg) bool { return !x.dynamic && x.lit == sub[0] })
	if i < 0 || i+len(sub) > len(args) {
		return nil, false
	}
	for j, s := range sub {
		if args[i+j].dynamic || args[i+j].lit != s {
			return nil, false
		}
	}
	return args[i+len(sub):], true
}

// remoteSource reports whether a repository tool's source is on another machine: a URL
// other than file://, or scp's HOST:PATH form.
func remoteSource(s string) bool {
	if scheme, _, ok := strings.Cut(s, "://"); ok {
		return scheme != "file"
	}
	host, _, ok := strings.Cut(s, ":")
	return ok && host != "" && !strings.ContainsAny(host, "/\\")
}

// repositoryName is the directory a clone of src makes by default: the source's last
// path element, less a .git suffix (https://github.com/o/tool.git and git@host:o/tool
// make tool).
func repositoryName(src string) string {
	s := strings.TrimRight(src, "/")
	if i := strings.LastIndexAny(s, "/:"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSuffix(s, ".git")
}

// fetchedCopy records what a remote copy (scp, rsync) fetched into dst: the directory
// itself when the source's contents are copied into it (rsync host:src/ dst), or the
// source's name below a directory named as one (scp -r host:dir ., dst/).
func (a *analyzer) fetchedCopy(prog, src string, dst arg, cwd dir) {
	if dst.dynamic {
		return
	}
	_, rp, _ := strings.Cut(src, ":")
	target := dst.lit
	contents := prog == "rsync" && strings.HasSuffix(rp, "/")
	if !contents && (strings.HasSuffix(target, "/") || target == "." || target == "..") {
		if base := path.Base(strings.TrimRight(rp, "/")); base != "." && base != "/" && base != "" {
			target = path.Join(target, base)
		}
	}
	if p, ok, _ := a.resolve(target, cwd); ok {
		a.sh.fetched = append(a.sh.fetched, fetchedTree{path: p, by: prog + " from " + src})
	}
}

// worktreeAdded records the directory of git worktree add [OPTIONS] PATH [COMMIT]: a
// checkout of the project's repository, whose code is the project's as a git checkout's
// is (git worktree add ../fix && cd ../fix && make).
func (a *analyzer) worktreeAdded(words []arg, cwd dir) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w.dynamic:
			return
		case w.lit == "-b" || w.lit == "-B" || w.lit == "--reason" || w.lit == "--orphan":
			i++
		case strings.HasPrefix(w.lit, "-"):
		default:
			if p, ok, _ := a.resolve(w.lit, cwd); ok {
				a.sh.worktrees = append(a.sh.worktrees, p)
			}
			return
		}
	}
}

// inWorktree reports whether the absolute path p is in a worktree the line added.
func (a *analyzer) inWorktree(p string) bool {
	return slices.ContainsFunc(a.sh.worktrees, func(t string) bool { return p == t || strings.HasPrefix(p, t+"/") })
}

// fetchedAt returns the tree fetched earlier in the line that holds the absolute path p.
func (a *analyzer) fetchedAt(p string) (fetchedTree, bool) {
	for _, t := range a.sh.fetched {
		if p == t.path || strings.HasPrefix(p, t.path+"/") {
			return t, true
		}
	}
	return fetchedTree{}, false
}
