package engine

import (
	"fmt"
	"path/filepath"

	"github.com/moatdev/moat/internal/call"
	"github.com/moatdev/moat/internal/fileid"
	"github.com/moatdev/moat/internal/pathset"
)

// guardedSets are the path sets that self-protection forbids writing and deleting
// (self-protection.yaml): the files whose identity a written path is checked against.
// TestGuardedSetsAreSelfProtections keeps the two in step.
var guardedSets = []string{"$moat", pathset.AgentConfig}

// guardedPatterns returns the absolute patterns of guardedSets on host h.
func guardedPatterns(h pathset.Host) ([]string, error) {
	var out []string
	for _, name := range guardedSets {
		r, err := pathset.Resolve(name, h)
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
	return fileid.NewResolver(e.files, func() []string {
		roots := e.workspaceOf(c)
		for d := filepath.Clean(c.Cwd); ; d = filepath.Dir(d) {
			roots = append(roots, d)
			if d == filepath.Dir(d) {
				break
			}
		}
		return fileid.Concrete(e.files, e.guarded, roots)
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
// A path whose identity cannot be told (a link loop, a directory that cannot be
// searched) is returned in unknown when some protected file exists that it could be.
func withIdentities(accs []call.Access, r *fileid.Resolver) (out []call.Access, unknown []call.Finding) {
	out = accs
	for _, acc := range accs {
		if acc.Kind != call.Write && acc.Kind != call.Delete || acc.Glob || !filepath.IsAbs(acc.Path) {
			continue
		}
		id, err := r.Resolve(acc.Path)
		if err != nil {
			if r.ProtectedExists() {
				unknown = append(unknown, call.NewFinding("analysis.opaque", fmt.Sprintf("cannot tell whether %s is another name of one of moat's protected files: %v", acc.Path, err)))
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
