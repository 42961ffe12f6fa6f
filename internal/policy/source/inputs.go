package source

import "path/filepath"

// Inputs lists the files whose change may change what Find returns for o, whether they
// exist or not: the file named by flag or environment alone, else every place a project
// policy may appear (nearest first), the user's policy and the trust store. A watcher
// that looks at these (and at their directories, for editors that save by renaming, and
// for files not created yet) knows when to call Find again.
//
// The managed policy and its pinned key come first, whatever else applies.
func Inputs(o Options) []string {
	var managed []string
	if p := o.Dirs.ManagedPolicy(); p != "" {
		managed = []string{p, o.Dirs.ManagedKey()}
	}
	managed = append(managed, bundleInputs(o.Dirs)...)
	return append(managed, lowerInputs(o)...)
}

func lowerInputs(o Options) []string {
	if o.Flag != "" {
		p := o.Flag
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.Cwd, p)
		}
		return []string{filepath.Clean(p)}
	}
	if o.Env != "" {
		if !filepath.IsAbs(o.Env) {
			return nil // Find refuses it, whatever the files hold
		}
		return []string{filepath.Clean(o.Env)}
	}
	start, root := projectScope(o.Cwd, o.Project)
	var files []string
	for dir := start; ; dir = filepath.Dir(dir) {
		files = append(files, filepath.Join(dir, ProjectFile))
		if dir == root || dir == filepath.Dir(dir) {
			break
		}
	}
	return append(files, o.Dirs.UserPolicy(), o.Dirs.TrustStore())
}
