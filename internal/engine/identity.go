package engine

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fileid"
	"github.com/moatdev/moat/internal/glob"
	"github.com/moatdev/moat/internal/pathset"
	"github.com/moatdev/moat/internal/policy"
	"github.com/moatdev/moat/internal/selfguard"
	"github.com/moatdev/moat/internal/shell"
)

// guardedSets are the path sets, and the patterns, that self-protection forbids writing
// and deleting (self-protection.yaml): the files whose identity a written path is checked
// against. TestGuardedSetsAreSelfProtections keeps the two in step.
var guardedSets = []string{"$moat", pathset.AgentConfig, "**/*.moat-key"}

// resolveGuarded returns the absolute patterns of a set, or of a pattern as policies
// write it, on host h.
func resolveGuarded(name string, h pathset.Host) (pathset.Resolved, error) {
	if !strings.HasPrefix(name, "$") {
		return pathset.Resolved{Include: []string{pathset.Expand(name, h.Home)}}, nil
	}
	return pathset.Resolve(name, h)
}

// guardedPatterns returns the absolute patterns of guardedSets on host h.
func guardedPatterns(h pathset.Host) ([]string, error) {
	var out []string
	for _, name := range guardedSets {
		r, err := resolveGuarded(name, h)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", name, err)
		}
		out = append(out, r.Include...)
	}
	return out, nil
}

// identities returns the resolver of written paths for one decision of c. The protected
// files are listed only if a written file turns out to have several names: in this
// project (the call's workspace roots, its working directory and the directories above,
// where moat looks for moat.yaml) and in the home directory.
func (e *Engine) identities(c *call.Call) *fileid.Resolver {
	return fileid.NewResolver(e.files, func(within string) []string {
		roots := e.workspaceOf(c)
		for d := filepath.Clean(c.Cwd); ; d = filepath.Dir(d) {
			roots = append(roots, d)
			if d == filepath.Dir(d) {
				break
			}
		}
		return fileid.Concrete(e.files, e.guarded, roots, within)
	})
}

// withIdentities adds, for each write or delete of a path that is another name of a file
// on this machine, the same access to that file, so that self-protection judges what is
// really written: a write through a symbolic link (to the file, or to a directory above
// it) writes the link's target, and a write to a hard link of a protected file (same
// device and inode) writes the protected file. Deleting a hard link removes only that
// name, so it is no delete of the protected file. The policy's own rules see the paths as
// written, so that a symlinked home or /tmp does not take a write out of the workspace.
//
// A write or delete of a whole tree (tar x -C DIR, cp -r, rm -rf, a glob) reaches the
// protected files that exist in it: a path pattern such as **/moat.yaml cannot tell
// whether a tree holds one, the file system can.
//
// A path whose identity cannot be told (a link loop, a directory that cannot be
// searched) is returned in unknown when some protected file exists that it could be.
func withIdentities(accs []call.Access, r *fileid.Resolver) (out []call.Access, unknown []call.Finding) {
	out = accs
	for _, acc := range accs {
		if acc.Kind != call.Write && acc.Kind != call.Delete || !filepath.IsAbs(acc.Path) {
			continue
		}
		if acc.Recursive || acc.Glob {
			reached, err := protectedIn(acc, r)
			if err != nil {
				if r.ProtectedExists() {
					unknown = append(unknown, shell.Kinds.New("analysis.opaque", fmt.Sprintf("cannot tell which of moat's protected files %s reaches: %v", acc.Path, err)))
				}
				continue
			}
			for _, p := range reached {
				out = append(out, call.Access{Kind: acc.Kind, Path: p, Redirect: acc.Redirect})
			}
			if acc.Glob {
				continue
			}
		}
		id, err := r.Resolve(acc.Path)
		if err != nil {
			if r.ProtectedExists() {
				unknown = append(unknown, shell.Kinds.New("analysis.opaque", fmt.Sprintf("cannot tell whether %s is another name of one of moat's protected files: %v", acc.Path, err)))
			}
			continue
		}
		if id.Real != "" {
			linked := acc
			linked.Path = id.Real
			out = append(out, linked)
		}
		if id.HardLinkOf != "" && acc.Kind == call.Write {
			linked := acc
			linked.Path = id.HardLinkOf
			out = append(out, linked)
		}
	}
	return out, unknown
}

// realPath is the path p names through the symbolic links on its way (shell.Env.RealPath),
// and whether it differs from p. A path whose links cannot be followed is taken as
// written: what it is judged by then, as for any file.
func (e *Engine) realPath(p string) (string, bool) {
	id, err := fileid.NewResolver(e.files, func(string) []string { return nil }).Resolve(p)
	if err != nil || id.Real == "" {
		return p, false
	}
	return id.Real, true
}

// linkedReads adds, for each read of a path that is another name of a file that holds
// credentials or that self-protection guards, the read of that file: `cat notes` where
// notes is a symbolic link to ~/.ssh/id_rsa (a repository can carry one, or an earlier
// call made it) reads the key, and so does a glob naming the link (`cat docs/*`). Reads
// of other files keep the path as written, so that a symlinked home or project is not
// taken for another place. A path whose identity cannot be told is left as written: the
// read of it is what it is judged by, as for any file.
func (e *Engine) linkedReads(accs []call.Access, r *fileid.Resolver) []call.Access {
	out := accs
	add := func(p string, tree bool) {
		id, err := r.Resolve(p)
		if err != nil {
			return
		}
		for _, real := range []string{id.Real, id.HardLinkOf} {
			if real == "" {
				continue
			}
			acc := call.Access{Kind: call.Read, Path: real, Recursive: tree}
			if e.secrets.touches(acc) || e.shell.Protected(acc) {
				out = append(slices.Clip(out), acc)
			}
		}
	}
	for _, acc := range accs {
		if acc.Kind != call.Read || acc.Link || !filepath.IsAbs(acc.Path) {
			continue
		}
		if !acc.Glob {
			add(acc.Path, acc.Recursive)
			continue
		}
		for _, m := range acc.Matches {
			add(m, acc.Recursive)
		}
	}
	return out
}

// protectedIn returns the protected files a write or delete of a tree or a glob reaches.
func protectedIn(acc call.Access, r *fileid.Resolver) ([]string, error) {
	dir := acc.Path
	if acc.Glob {
		dir = filepath.Dir(glob.LiteralPrefix(acc.Path) + "x")
		if !filepath.IsAbs(dir) {
			return nil, nil
		}
	}
	files, err := r.ProtectedIn(dir)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	var out []string
	for _, f := range files {
		// find's paths (Hidden) include names starting with a dot.
		if acc.Glob && !shellGlob(acc.Path, f, acc.Recursive, acc.Hidden) {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

// shellGlob reports whether the shell's expansion of pattern names file, or, when
// recursive is set, a directory above it. As in bash without dotglob, a wildcard at the
// start of a name does not match a leading dot (rm -rf ./* leaves ./.claude alone), and a
// ** segment stands for any number of directories.
func shellGlob(pattern, file string, recursive, dots bool) bool {
	return globSegments(strings.Split(pattern, "/"), strings.Split(file, "/"), recursive, dots)
}

func globSegments(ps, fs []string, recursive, dots bool) bool {
	for i, seg := range ps {
		if seg == "**" {
			for j := i; j <= len(fs); j++ {
				if globSegments(ps[i+1:], fs[j:], recursive, dots) {
					return true
				}
			}
			return false
		}
		if i >= len(fs) {
			return false
		}
		name := fs[i]
		if !dots && strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") && glob.HasMeta(seg) {
			return false
		}
		if ok, err := path.Match(seg, name); err != nil || !ok {
			return false
		}
	}
	return len(fs) == len(ps) || recursive && len(fs) > len(ps)
}

// protectedLinks returns the findings of the links a unit makes to protected files
// (ln moat.yaml h, ln -s ~/.claude/settings.json s): the targets of its links, judged by
// self-protection as if they were written. The link itself changes nothing, and a later
// write through it is denied by identity; but it is the first half of such a write.
func (e *Engine) protectedLinks(s *policy.Subject, ids *fileid.Resolver) []call.Finding {
	var targets []call.Access
	for _, acc := range s.Accesses {
		if acc.Link {
			// A link to a directory is a name for everything in it.
			targets = append(targets, call.Access{Kind: call.Write, Path: acc.Path, Recursive: true})
		}
	}
	if len(targets) == 0 {
		return nil
	}
	targets, _ = withIdentities(targets, ids)
	var fs []call.Finding
	for _, t := range targets {
		g := *s
		g.Accesses, g.Findings, g.Opaque = []call.Access{t}, nil, false
		for _, r := range e.guard.Candidates(s.Call.Class) {
			if r.Match(&g) {
				fs = append(fs, selfguard.Kinds.New("tamper.protected-link", "links to "+t.Path+", which "+r.ID+" protects"))
				return fs
			}
		}
	}
	return nil
}
